// The joint contract is inconsistent: `n` is one dim in `values` but a segment in `mask`.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shape = "b n")]
    pub values: ArrayD<f32>,
    #[extype(shape = "b *n")]
    pub mask: ArrayD<bool>,
}

fn main() {}

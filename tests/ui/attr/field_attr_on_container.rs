// `shape` is a field attribute; on the struct it is misplaced.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(shape = "b n")]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

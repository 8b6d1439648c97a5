// A shape contract applies to a tensor field, not to one marked `static`.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shape = "n")]
    pub values: ArrayD<f32>,
    #[extype(static, shape = "n")]
    pub weights: Vec<f32>,
}

fn main() {}

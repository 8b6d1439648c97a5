// `static` and `skip` on one field exclude each other.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    #[extype(static, skip)]
    pub weights: Vec<f32>,
}

fn main() {}

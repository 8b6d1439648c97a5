// An empty registered name.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "")]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

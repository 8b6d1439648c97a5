// `shape` takes a string literal.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shape = [2, 3])]
    pub values: ArrayD<f32>,
}

fn main() {}

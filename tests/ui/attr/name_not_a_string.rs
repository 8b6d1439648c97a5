// `name` takes a string literal, not an integer.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = 3)]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

// A shape contract on a field that has no shape (a static `bool`).
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shape = "b")]
    pub values: ArrayD<f32>,
    #[extype(shape = "b")]
    pub flag: bool,
}

fn main() {}

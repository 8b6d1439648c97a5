// Enums are rejected.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub enum Foo {
    Dense(ArrayD<f32>),
    Empty,
}

fn main() {}

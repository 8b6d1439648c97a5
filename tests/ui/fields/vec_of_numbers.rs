// `Vec<f32>`: plain numbers are tensor data or metadata, never silently static data; the error
// suggests a tensor, or `#[extype(static)]`.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    pub weights: Vec<f32>,
}

fn main() {}

// Extension values own their tensors: no lifetime parameters.
use extype::ExtensionType;
use ndarray::ArrayViewD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo<'a> {
    pub values: ArrayViewD<'a, f32>,
}

fn main() {}

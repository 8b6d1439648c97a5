// `#[extype]` without a list says nothing.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

// `#[extype(static)]` on a tensor: a tensor is a component, not static data.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    #[extype(static)]
    pub mask: ArrayD<bool>,
}

fn main() {}

// `Vec<&'static str>`: `Vec` of fields is fine, `&str` is not a field.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    pub labels: Vec<&'static str>,
}

fn main() {}

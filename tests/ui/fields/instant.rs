// `Instant` is no field type: one error, at the field's type.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    pub created: std::time::Instant,
}

fn main() {}

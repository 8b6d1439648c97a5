// `Instant` is no field type: one error, at the field's type, with the list of what a field may
// be (every generated impl is bounded by the field types, so nothing else reports it again).
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    pub created: std::time::Instant,
}

fn main() {}

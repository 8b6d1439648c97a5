// A generic type (no registry entry) with an unsupported field type: one error, at the field's
// type.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo<T: extype::Element> {
    pub values: ArrayD<T>,
    pub created: std::time::Instant,
}

fn main() {}

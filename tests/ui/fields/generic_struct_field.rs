// A generic type (no registry entry) with an unsupported field type: the first error is at the
// field's type; rustc repeats the unmet bound where the generated code uses the spec type.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo<T: extype::Element> {
    pub values: ArrayD<T>,
    pub created: std::time::Instant,
}

fn main() {}

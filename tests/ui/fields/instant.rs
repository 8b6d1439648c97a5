// `Instant` is no field type: the first error is at the field's type, with the list of what a
// field may be; rustc repeats the unmet bound where the generated code uses the spec type.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    pub created: std::time::Instant,
}

fn main() {}

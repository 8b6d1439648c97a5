// An unsupported field type, and the type used elsewhere: the errors are the field's (first, at
// its type) and its repeats in generated code; the user's own use of `try_new` adds none.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    pub when: std::time::SystemTime,
}

fn main() {
    let _ = Foo::try_new;
}

// An unsupported field type, and the type used elsewhere: one error at the derive, plus the
// user's own use of `try_new` (the type is not an extension type), nothing from generated code.
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

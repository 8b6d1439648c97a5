// An unsupported field type, and the type used elsewhere: still one error, at the field.
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

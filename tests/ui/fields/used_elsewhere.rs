// An unsupported field type, and the type used elsewhere: the derive's one error is at the
// field; the user's own use of `try_new` is reported where it is used, naming that field's
// unmet bound (the type's impls do not apply).
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

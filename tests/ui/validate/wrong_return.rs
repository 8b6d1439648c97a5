// `validate` returns `extype::Result<()>`, not `bool`.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(validate = check)]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn check(foo: &Foo) -> bool {
    !foo.values.is_empty()
}

fn main() {}

// `validate` takes `&Self`, not the value by value.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(validate = check)]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn check(_: Foo) -> extype::Result<()> {
    Ok(())
}

fn main() {}

// `validate` names a function that does not exist.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(validate = chek)]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn check(_: &Foo) -> extype::Result<()> {
    Ok(())
}

fn main() {}

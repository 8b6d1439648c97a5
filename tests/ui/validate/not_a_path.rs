// `validate` takes a path to a function, not a string or a closure.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(validate = "check")]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn check(_: &Foo) -> extype::Result<()> {
    Ok(())
}

fn main() {}

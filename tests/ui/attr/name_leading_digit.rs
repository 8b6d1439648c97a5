// A registered name whose segment starts with a digit.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.2Foo")]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

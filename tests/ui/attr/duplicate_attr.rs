// `name` given twice, in two attributes: the second is reported.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.Foo")]
#[extype(name = "pkg.Bar")]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

// `#[extype = "..."]` is not the attribute's form: it takes a list.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype = "pkg.Foo"]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

// A misspelled container attribute: the error names it and lists the valid ones.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(nmae = "pkg.Foo")]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

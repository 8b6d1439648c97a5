// A Rust path (`::`) instead of a dotted name.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg::Foo")]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

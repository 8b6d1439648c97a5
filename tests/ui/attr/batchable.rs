// `batchable` is parsed but not available yet.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.Foo", batchable)]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

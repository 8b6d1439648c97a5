// `batchable = ...` takes the path of an encoder type, not a string.
use extype::ExtensionType;
use extype::ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.Foo", batchable = "FooEncoder")]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

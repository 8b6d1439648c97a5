// `batchable = Enc` needs `Enc: BatchEncoder<Self>`.
use extype::ExtensionType;
use extype::ndarray::ArrayD;

pub struct FooEncoder;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.Foo", batchable = FooEncoder)]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn main() {}

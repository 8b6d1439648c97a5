// `shape` given twice in one list.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shape = "_ _", shape = "_")]
    pub values: ArrayD<f32>,
}

fn main() {}

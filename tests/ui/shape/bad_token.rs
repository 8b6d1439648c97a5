// A token that starts no pattern item (`$`).
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shape = "b $n")]
    pub values: ArrayD<f32>,
}

fn main() {}

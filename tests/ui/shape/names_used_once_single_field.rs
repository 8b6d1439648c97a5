// A contract on one field only, naming each dim once: every name is an error (each is its own
// mistake), and the error says how to write a dim of any size.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shape = "b n")]
    pub values: ArrayD<f32>,
}

fn main() {}

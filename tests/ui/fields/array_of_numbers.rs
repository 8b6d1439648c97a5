// `[u32; 2]`: a fixed array of plain numbers is refused like a `Vec` of them.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    pub window: [u32; 2],
}

fn main() {}

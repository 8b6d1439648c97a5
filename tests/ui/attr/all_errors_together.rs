// Three independent mistakes in one input: all three are reported in one compilation.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg..Foo")]
pub struct Foo {
    #[extype(shape = "b ... ...")]
    pub values: ArrayD<f32>,
    #[extype(shpe = "b")]
    pub mask: ArrayD<bool>,
}

fn main() {}

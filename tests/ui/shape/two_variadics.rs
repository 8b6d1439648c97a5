// At most one variadic segment per pattern.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shape = "... n *rest")]
    pub values: ArrayD<f32>,
}

fn main() {}

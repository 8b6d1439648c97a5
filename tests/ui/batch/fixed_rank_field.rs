// A batch of `Foo` is a `Foo`: a rank-1 array cannot hold a batch of rank-1 arrays.
use extype::ExtensionType;
use extype::ndarray::{Array1, ArrayD};

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.Foo", batchable)]
pub struct Foo {
    pub values: Array1<f32>,
    pub mask: ArrayD<bool>,
}

fn main() {}

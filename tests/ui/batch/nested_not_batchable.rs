// A nested extension type must be batchable itself.
use extype::ExtensionType;
use extype::ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.Inner")]
pub struct Inner {
    pub values: ArrayD<f32>,
}

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.Outer", batchable)]
pub struct Outer {
    pub inner: Inner,
}

fn main() {}

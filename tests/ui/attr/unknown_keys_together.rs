// Two misspelled keys in one attribute list: both are reported, each at its key, and the valid
// field key between them still applies.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(nmae = "pkg.Foo", valdiate = check)]
pub struct Foo {
    #[extype(shpe = "n", shape = "_", sahpe)]
    pub values: ArrayD<f32>,
}

fn main() {}

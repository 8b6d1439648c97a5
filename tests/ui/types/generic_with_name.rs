// A generic type cannot have one registered name: each instantiation is registered by hand.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.Wrapper")]
pub struct Wrapper<T: extype::Element> {
    pub values: ArrayD<T>,
}

fn main() {}

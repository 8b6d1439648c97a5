// An extension type must be `Clone`; forgetting `#[derive(Clone)]` is one error, at the type's
// name, suggesting the derive (only the `ExtensionType` impl requires `Clone`: the derive's other
// impls and tables do not name `ExtensionType` as a bound).
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Debug, ExtensionType)]
pub struct Masked {
    pub values: ArrayD<f32>,
    pub mask: ArrayD<bool>,
}

fn main() {}

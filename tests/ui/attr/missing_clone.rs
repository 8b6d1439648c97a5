// An extension type must be `Clone`; forgetting `#[derive(Clone)]` is one error.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Debug, ExtensionType)]
pub struct Masked {
    pub values: ArrayD<f32>,
    pub mask: ArrayD<bool>,
}

fn main() {}

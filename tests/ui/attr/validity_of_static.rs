// The validity of a static field: both sides of `validity_of` are tensor components.
use extype::{ExtensionType, Tensor};

#[derive(Clone, Debug, ExtensionType)]
pub struct Masked {
    #[extype(static)]
    pub values: Vec<f32>,
    #[extype(validity_of = values)]
    pub mask: Tensor,
}

fn main() {}

// A field cannot be its own validity.
use extype::{ExtensionType, Tensor};

#[derive(Clone, Debug, ExtensionType)]
pub struct Masked {
    pub values: Tensor,
    #[extype(validity_of = mask)]
    pub mask: Tensor,
}

fn main() {}

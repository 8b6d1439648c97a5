// Two masks for one field: a field has one validity.
use extype::{ExtensionType, Tensor};

#[derive(Clone, Debug, ExtensionType)]
pub struct Masked {
    pub values: Tensor,
    #[extype(validity_of = values)]
    pub mask: Tensor,
    #[extype(validity_of = values)]
    pub other_mask: Tensor,
}

fn main() {}

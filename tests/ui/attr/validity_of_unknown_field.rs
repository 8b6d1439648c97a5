// `validity_of` names a field the struct does not have: the error lists the others and
// suggests the closest.
use extype::{ExtensionType, Tensor};

#[derive(Clone, Debug, ExtensionType)]
pub struct Masked {
    pub values: Tensor,
    #[extype(validity_of = valeus)]
    pub mask: Tensor,
}

fn main() {}

// `validity_of` takes a field name, not a string.
use extype::{ExtensionType, Tensor};

#[derive(Clone, Debug, ExtensionType)]
pub struct Masked {
    pub values: Tensor,
    #[extype(validity_of = "values")]
    pub mask: Tensor,
}

fn main() {}

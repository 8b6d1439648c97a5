//! SharedPair: a 2-field type whose fields are shared tensors (no copy, no allocation per field
//! when moved in and out).

use extype::{ExtensionType, Tensor};

/// Two shared tensors.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.SharedPair")]
pub struct SharedPair {
    /// The values.
    pub values: Tensor,
    /// The mask.
    pub mask: Tensor,
}

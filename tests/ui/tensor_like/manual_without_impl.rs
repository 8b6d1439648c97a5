use extype::{ExtensionType, Tensor};

// `tensor_like` alone promises hand-written `TensorLike` impls for the type and its spec.
#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "ui.Rows", tensor_like)]
pub struct Rows {
    pub flat: Tensor,
    pub row_splits: Tensor,
}

fn main() {}

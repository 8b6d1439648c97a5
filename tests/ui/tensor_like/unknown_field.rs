use extype::{ExtensionType, Tensor};

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "ui.Masked", tensor_like = value)]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

fn main() {}

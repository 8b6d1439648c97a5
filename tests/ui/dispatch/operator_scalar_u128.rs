use extype::{dispatch, ExtensionType, Tensor};

#[dispatch(operators)]
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked", tensor_like = values)]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

fn scaled(x: &Masked) -> extype::Result<Masked> {
    // u128 is no dtype's scalar type.
    x + 1u128
}

fn main() {}

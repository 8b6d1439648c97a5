use extype::{dispatch, ExtensionType, Tensor};

#[dispatch(operators)]
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked", tensor_like = values)]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

fn scaled(x: &Masked) -> extype::Result<Masked> {
    // bool takes no arithmetic: not an operator's scalar.
    x * true
}

fn main() {}

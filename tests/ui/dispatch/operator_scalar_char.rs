use extype::{dispatch, ExtensionType, Tensor};

#[dispatch(operators)]
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked", tensor_like = values)]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

fn shifted(x: &Masked) -> extype::Result<Masked> {
    // A char is no scalar of a dtype.
    x - 'a'
}

fn main() {}

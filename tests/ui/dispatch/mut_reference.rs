#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

#[dispatch(Neg)]
fn masked_neg(x: &mut Masked) -> Result<Masked> {
    Ok(x.clone())
}
fn main() {}

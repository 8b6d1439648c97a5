#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

#[dispatch(Neg)]
fn masked_neg(x: &impl Clone) -> Result<Masked> {
    let _ = x;
    Err(extype::Error::invalid("no"))
}
fn main() {}

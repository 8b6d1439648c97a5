#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

#[dispatch(other)]
fn masked_other(x: &Masked) -> Result<Masked> {
    Ok(x.clone())
}
fn main() {}

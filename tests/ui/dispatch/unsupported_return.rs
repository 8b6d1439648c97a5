#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

#[dispatch(Neg)]
fn masked_neg(x: &Masked) -> Masked {
    x.clone()
}
fn main() {}

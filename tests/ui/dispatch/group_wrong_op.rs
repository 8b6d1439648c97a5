#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

use extype::BinaryOp;

#[dispatch(unary_elementwise)]
fn masked_unary(op: &BinaryOp, x: &Masked) -> Result<Masked> {
    let _ = op;
    Ok(x.clone())
}
fn main() {}

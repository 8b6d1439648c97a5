#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

// Too many dispatched arguments: only the types say that none of them is `&OpArgs`, so this is
// a compile-time (const) check.
#[dispatch(Neg)]
fn masked_neg(x: &Masked, y: &Masked) -> Result<Masked> {
    let _ = y;
    Ok(x.clone())
}
fn main() {}

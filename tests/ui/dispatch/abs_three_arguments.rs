#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

// Three parameters for a one-argument op: at most one of them can be `&OpArgs`, so at least two
// are dispatched, whatever the types: the macro says so itself.
#[dispatch(Abs)]
fn masked_abs(x: &Masked, y: &Masked, z: &Masked) -> Result<Masked> {
    let _ = (y, z);
    Ok(x.clone())
}
fn main() {}

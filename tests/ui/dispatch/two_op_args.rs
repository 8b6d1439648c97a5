#![allow(unused_imports)]
use extype::ops::OpArgs;
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

// The call's extra arguments are taken once: two `&OpArgs` parameters are an error (found by
// the types, through an alias here, so a const check; three parameters would fit `Add`).
type Extra = OpArgs;

#[dispatch(Add)]
fn masked_add(x: &Masked, a: &OpArgs, b: &Extra) -> Result<Masked> {
    let _ = (a, b);
    Ok(x.clone())
}
fn main() {}

// A misspelled op in snake case: the suggestion is spelled in snake case too.
#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

#[dispatch(reduce_sums)]
fn masked_sum(x: &Masked) -> Result<Masked> {
    Ok(x.clone())
}
fn main() {}

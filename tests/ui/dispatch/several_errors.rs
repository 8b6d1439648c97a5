#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

#[dispatch(Sub)]
async fn masked_sub<T>(x: Masked, y: &mut Masked) -> Masked {
    let _ = y;
    x
}
fn main() {}

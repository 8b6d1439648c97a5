#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

#[dispatch(Add)]
enum NotAHandler {
    A,
}
fn main() {}

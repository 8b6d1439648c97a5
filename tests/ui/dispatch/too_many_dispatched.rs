#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: Tensor,
    pub mask: Tensor,
}

extype::declare_op!(
    /// An op of seven arguments.
    pub SEVEN: other(7) "ui.seven"
);

#[dispatch(op = SEVEN)]
fn seven(
    a: &Masked,
    b: &Masked,
    c: &Masked,
    d: &Masked,
    e: &Masked,
    f: &Masked,
    g: &Masked,
) -> Result<Masked> {
    let _ = (b, c, d, e, f, g);
    Ok(a.clone())
}
fn main() {}

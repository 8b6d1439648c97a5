#![allow(unused_imports)]
use extype::{dispatch, ExtensionType, Result, Tensor};

#[dispatch(operators)]
fn not_a_type(x: &Tensor) -> Result<Tensor> {
    Ok(x.clone())
}

fn main() {}

//! # extype-macros
//!
//! Procedural macros of extype. They parse and validate their input, then emit calls into
//! `::extype::__private`; all behaviour lives in `extype-core`. Use them through the `extype`
//! facade.
//!
//! The derive is organised like serde_derive: [`ast`] and [`attr`] parse the input into a model,
//! [`check`] validates it (collecting every error in a [`ctxt::Ctxt`]), and [`expand`] generates
//! code, split by concern. On invalid input the macro emits the errors plus a minimal stub impl,
//! so the user sees the real problem once instead of a cascade.

mod ast;
mod attr;
mod check;
mod ctxt;
mod dispatch;
mod expand;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `ExtensionType` for a struct of tensors, nested extension types, containers and static
/// values. See the `extype` crate documentation for the attributes.
#[proc_macro_derive(ExtensionType, attributes(extype))]
pub fn derive_extension_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}

/// Registers a dispatch handler: `#[dispatch(Add)] fn masked_add(x: &MaskedTensor, y: &MaskedTensor)
/// -> extype::Result<MaskedTensor>`. The key is the op (a catalog name such as `Add` or
/// `reduce_sum`, a group `unary_elementwise` / `binary_elementwise` / `reduction`, or
/// `op = path::TO_OP` for an op declared with `declare_op!`) and the argument types of the
/// signature (`&T` for an extension type, `&Tensor`, `&Value` or `&Operand`). `infer = path`
/// adds the handler's spec inference. On a struct, `#[dispatch(operators)]` overloads `+ - * /`
/// and unary `-` through dispatch. See `extype::dispatch` for the precedence rules.
#[proc_macro_attribute]
pub fn dispatch(args: TokenStream, input: TokenStream) -> TokenStream {
    dispatch::dispatch(args.into(), input.into()).into()
}

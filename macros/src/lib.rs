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

//! Code generation for `#[derive(ExtensionType)]`.

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::ast::Container;
use crate::check;
use crate::ctxt::Ctxt;

/// Expands the derive: the generated items, or the errors plus a stub.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let cont = Container::from_ast(&cx, input);
    if let Some(cont) = &cont {
        check::check(&cx, cont);
    }
    match cx.check() {
        Ok(()) => TokenStream::new(),
        Err(err) => err.to_compile_error(),
    }
}

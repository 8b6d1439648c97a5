//! `#[dispatch(...)]`: registers a function as a dispatch handler, or (with `operators`, on a
//! struct) overloads `+ - * /` and unary `-` through dispatch.
//!
//! Organised like the derive: [`attr`] parses the arguments, [`handler`] reads and checks the
//! function's signature (collecting every error in a [`Ctxt`]), [`expand`] generates the wrapper
//! and the `inventory` entry. On invalid input the function is emitted unchanged beside the
//! errors (it is valid Rust), so the user sees the real problem once.

mod attr;
mod expand;
mod handler;
mod operators;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ctxt::Ctxt;

/// Expands `#[dispatch(args)] item`.
pub fn dispatch(args: TokenStream, item: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    let args = attr::parse(&cx, args);
    let item_parsed: syn::Item = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            cx.syn_error(e);
            return finish(cx, item, TokenStream::new());
        }
    };
    let Some(args) = args else {
        return finish(cx, item, TokenStream::new());
    };
    let generated = match (&args.target, &item_parsed) {
        (attr::TargetSpec::Operators { .. }, syn::Item::Struct(s)) => {
            if let Some(infer) = &args.infer {
                cx.error_spanned_by(infer, "`infer` does not apply to `operators`");
            }
            operators::expand(s)
        }
        (attr::TargetSpec::Operators { ident }, _) => {
            cx.error_spanned_by(
                ident,
                "#[dispatch(operators)] applies to a struct (an extension type)",
            );
            TokenStream::new()
        }
        (_, syn::Item::Fn(f)) => match handler::Handler::from_fn(&cx, &args, f) {
            Some(h) => expand::handler(&h),
            None => TokenStream::new(),
        },
        (_, other) => {
            cx.error_spanned_by(
                item_kind_tokens(other),
                "#[dispatch] applies to a free function (a handler) or, as \
                 #[dispatch(operators)], to a struct",
            );
            TokenStream::new()
        }
    };
    finish(cx, item, generated)
}

fn item_kind_tokens(item: &syn::Item) -> TokenStream {
    match item {
        syn::Item::Impl(i) => {
            let t = i.impl_token;
            quote!(#t)
        }
        syn::Item::Struct(s) => {
            let t = s.struct_token;
            quote!(#t)
        }
        syn::Item::Enum(e) => {
            let t = e.enum_token;
            quote!(#t)
        }
        other => quote!(#other),
    }
}

fn finish(cx: Ctxt, item: TokenStream, generated: TokenStream) -> TokenStream {
    match cx.check() {
        Ok(()) => quote!(#item #generated),
        Err(errors) => {
            let errors = errors.to_compile_error();
            quote!(#errors #item)
        }
    }
}

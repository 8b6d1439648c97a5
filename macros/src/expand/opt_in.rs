//! The items a type asks for: `#[extype(getters)]` (a `&`-getter per named field, so the fields
//! can stay private and a value stays as its checked constructor made it) and
//! `#[extype(display)]` (`Display` as `extype::display` prints any value).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::context::Gen;

/// The getters and the `Display` impl the container's attributes ask for.
pub fn opt_in_items(g: &Gen) -> TokenStream {
    let getters = g.cont.attrs.getters.as_ref().map(|_| getters(g));
    let display = g.cont.attrs.display.as_ref().map(|_| display(g));
    quote!(#getters #display)
}

/// `fn field(&self) -> &Ty` for every named field (the check pass refuses `getters` on a tuple
/// struct).
fn getters(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let where_clause = &g.where_clause;
    let vis = g.cont.vis;
    let methods = g.cont.fields.iter().filter_map(|f| {
        let syn::Member::Named(ident) = &f.member else {
            return None;
        };
        let ty = f.ty;
        let doc = format!(
            "The field `{ident}` (read-only: a value is built by `try_new`, which checks it)."
        );
        let name = format_ident!("{}", ident.to_string().trim_start_matches("r#"));
        Some(quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #name(&self) -> &#ty {
                &self.#ident
            }
        })
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #self_ty #where_clause {
            #(#methods)*
        }
    }
}

/// `Display` through `extype::display`: the dtype and shape when tensor-like, the spec, then
/// each component by field path.
fn display(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let where_clause = &g.where_clause;
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Display for #self_ty #where_clause {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Display::fmt(__x::display(self), f)
            }
        }
    }
}

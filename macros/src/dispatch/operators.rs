//! `#[dispatch(operators)]` on a struct: `&a + &b`, `-`, `*`, `/` and unary `-` through
//! `extype::ops`, each returning `extype::Result<extype::Value>`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemStruct;

pub fn expand(s: &ItemStruct) -> TokenStream {
    let ident = &s.ident;
    if !s.generics.params.is_empty() {
        return syn::Error::new_spanned(
            &s.generics,
            "#[dispatch(operators)] supports non-generic structs only; implement the operators by \
             hand with `extype::ops::add(self, rhs)` for a generic type",
        )
        .to_compile_error();
    }
    let binary = [
        (quote!(Add), quote!(add)),
        (quote!(Sub), quote!(sub)),
        (quote!(Mul), quote!(mul)),
        (quote!(Div), quote!(div)),
    ];
    let binaries = binary.iter().map(|(tr, f)| {
        quote! {
            #[automatically_derived]
            impl<'__r, __R: __x::AsOperand> ::core::ops::#tr<&'__r __R> for &#ident {
                type Output = __x::Result<__x::Value>;
                #[inline]
                fn #f(self, rhs: &'__r __R) -> __x::Result<__x::Value> {
                    __x::ops::#f(self, rhs)
                }
            }
        }
    });
    let door = crate::door::open();
    quote! {
        #[allow(unused_qualifications, clippy::all)]
        const _: () = {
            #door
            #(#binaries)*
            #[automatically_derived]
            impl ::core::ops::Neg for &#ident {
                type Output = __x::Result<__x::Value>;
                #[inline]
                fn neg(self) -> __x::Result<__x::Value> {
                    __x::ops::neg(self)
                }
            }
        };
    }
}

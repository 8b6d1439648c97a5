//! `#[dispatch(operators)]` on a struct `T`: `&a + &b`, `-`, `*`, `/` and unary `-&a` through
//! `extype::ops::operators`, each returning `extype::Result<T>`. The right-hand side is anything
//! `extype::ops::OperatorRhs` (a reference to an op argument, or a numeric scalar, in one generic
//! impl); a scalar on the left has one impl per type, `i64` and `f64` (a generic impl there is
//! refused by the orphan rules). The runtime does the work: this only glues it to `std::ops`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemStruct;

/// The scalar types that go on the left (`2.0 * &x`): one float and one integer type, the widest
/// signed ones. With one impl per kind of literal an unsuffixed literal infers to it (`2.0` is
/// `f64`, `1` is `i64`); with several, `2.0 * &x` would need a type annotation (E0282). The other
/// scalar types of `extype::ops::Scalar` go on the right (`&x * k`), or convert losslessly
/// (`f64::from(k) - &x`).
const LEFT_SCALARS: [&str; 2] = ["i64", "f64"];

pub fn expand(s: &ItemStruct) -> TokenStream {
    let ident = &s.ident;
    if !s.generics.params.is_empty() {
        return syn::Error::new_spanned(
            &s.generics,
            "#[dispatch(operators)] supports non-generic structs only; implement the operators by \
             hand with `extype::ops::operators::binary(&extype::ops::catalog::ADD, \"+\", self, \
             rhs)` for a generic type",
        )
        .to_compile_error();
    }
    let binary = [
        (quote!(Add), quote!(add), quote!(ADD), "+"),
        (quote!(Sub), quote!(sub), quote!(SUB), "-"),
        (quote!(Mul), quote!(mul), quote!(MUL), "*"),
        (quote!(Div), quote!(div), quote!(DIV), "/"),
    ];
    let scalars: Vec<syn::Ident> = LEFT_SCALARS
        .iter()
        .map(|s| syn::Ident::new(s, proc_macro2::Span::call_site()))
        .collect();
    let binaries = binary.iter().map(|(tr, f, op, symbol)| {
        quote! {
            #[automatically_derived]
            impl<__R: __x::ops::OperatorRhs> ::core::ops::#tr<__R> for &#ident {
                type Output = __x::Result<#ident>;
                #[inline]
                fn #f(self, rhs: __R) -> __x::Result<#ident> {
                    __x::ops::OperatorRhs::apply_right(rhs, &__x::catalog::#op, #symbol, self)
                }
            }
            #(
                #[automatically_derived]
                impl ::core::ops::#tr<&#ident> for #scalars {
                    type Output = __x::Result<#ident>;
                    #[inline]
                    fn #f(self, rhs: &#ident) -> __x::Result<#ident> {
                        __x::ops::operators::scalar_left(&__x::catalog::#op, #symbol, self, rhs)
                    }
                }
            )*
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
                type Output = __x::Result<#ident>;
                #[inline]
                fn neg(self) -> __x::Result<#ident> {
                    __x::ops::operators::neg(self)
                }
            }
        };
    }
}

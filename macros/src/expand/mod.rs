//! Code generation for `#[derive(ExtensionType)]`, split by concern:
//! [`spec_struct`] (the `FooSpec` type and its std impls), [`field_impl`] (`Field for Foo`, the
//! per-field plumbing), [`traits`] (`TypeSpec`, `ExtensionType`, the checked constructor, the
//! registry entry), [`batch`] (`BatchField for Foo` under `#[extype(batchable)]`), [`opt_in`]
//! (getters, `Display` and a builder, when asked for) and [`stub`] (what is emitted beside errors).
//!
//! Generated code lives in `const _: () = { … };`, names std items by absolute paths, and reaches
//! extype only through `::extype::__private`.

mod batch;
mod context;
mod field_impl;
mod opt_in;
mod spec_struct;
mod stub;
mod traits;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use self::context::Gen;
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
    match (cx.check(), cont) {
        (Ok(()), Some(cont)) => generate(&Gen::new(&cont)),
        (Err(errors), cont) => {
            // A type with lifetime parameters cannot implement the (`'static`) traits at all:
            // a stub would only add errors.
            let stub = cont
                .filter(|c| c.generics.lifetimes().next().is_none())
                .map(|c| stub::stub(&Gen::new(&c)));
            let errors = errors.to_compile_error();
            quote!(#errors #stub)
        }
        (Ok(()), None) => unreachable!("a failed parse always records an error"),
    }
}

fn generate(g: &Gen) -> TokenStream {
    let spec_struct = spec_struct::definition(g);
    let builder = opt_in::builder_definition(g);
    let spec_impls = spec_struct::std_impls(g);
    let derived_impl = field_impl::derived_impl(g);
    let field_impl = field_impl::field_impl(g);
    let traits = traits::traits(g);
    let contract = traits::contract_static(g);
    let batch = batch::batch_impls(g);
    let opt_in = opt_in::opt_in_items(g);
    let door = crate::door::open();
    quote! {
        #spec_struct
        #builder

        #[allow(non_local_definitions, unused_qualifications, clippy::all)]
        const _: () = {
            #door
            #contract
            #derived_impl
            #spec_impls
            #field_impl
            #traits
            #batch
            #opt_in
        };
    }
}

#[cfg(test)]
mod tests {
    /// The expansion must be valid Rust syntax for every shape of input; generic types are the
    /// easy ones to get wrong (`FooSpec<T> { .. }` is not an expression).
    #[test]
    fn expansions_parse() {
        let inputs: [syn::DeriveInput; 4] = [
            syn::parse_quote! {
                #[extype(getters, display, builder)]
                pub struct Stack<T: extype::Element> { pub layers: Vec<ArrayD<T>>, frozen: bool }
            },
            syn::parse_quote! {
                struct Pair<T: Element, const N: usize>(ArrayD<T>, [ArrayD<T>; N]) where T: Copy;
            },
            syn::parse_quote! {
                #[extype(name = "pkg.Masked", validate = check)]
                pub struct Masked {
                    #[extype(shape = "b n")] values: ArrayD<f32>,
                    #[extype(shape = "b n")] mask: ArrayD<bool>,
                }
            },
            syn::parse_quote! { struct Empty; },
        ];
        for input in &inputs {
            let output = super::derive(input);
            if let Err(err) = syn::parse2::<syn::File>(output.clone()) {
                panic!("{err} in the expansion of {}:\n{output}", input.ident);
            }
        }
    }
}

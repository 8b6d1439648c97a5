//! The generated `FooSpec`: public fields mirroring `Foo`, and its Clone/Debug/Eq/Hash/Display.
//!
//! The std impls are written out rather than derived: `#[derive(Eq)]` on `FooSpec<T>` would demand
//! `T: Eq`, which `f32` is not, although the spec holds only `TensorSpec`s.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Gen, as_field, key, spec_of};
use crate::ast::Style;

pub fn definition(g: &Gen) -> TokenStream {
    let vis = g.cont.vis;
    let spec_ident = &g.spec_ident;
    let generics = g.cont.generics;
    let where_clause = &g.where_clause;
    let doc = format!(
        "The spec of [`{}`]: its static data, and a `TensorSpec` per tensor field.",
        g.ident()
    );
    let fields = g.fields().iter().map(|f| {
        let vis = f.vis;
        let spec_ty = spec_of(f);
        let doc = format!("Spec of `{}`.", f.path);
        match &f.member {
            syn::Member::Named(ident) => quote!(#[doc = #doc] #vis #ident: #spec_ty),
            syn::Member::Unnamed(_) => quote!(#[doc = #doc] #vis #spec_ty),
        }
    });
    match g.cont.style {
        Style::Named | Style::Unit => quote! {
            #[doc = #doc]
            #[allow(unused_lifetimes)] // `for<'__f>` in the field bounds, see `Gen::new`
            #vis struct #spec_ident #generics #where_clause { #(#fields,)* }
        },
        Style::Tuple => quote! {
            #[doc = #doc]
            #[allow(unused_lifetimes)] // `for<'__f>` in the field bounds, see `Gen::new`
            #vis struct #spec_ident #generics ( #(#fields,)* ) #where_clause;
        },
    }
}

pub fn std_impls(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let self_ty = g.self_ty();
    let members: Vec<_> = g.fields().iter().map(|f| &f.member).collect();
    let spec_ident_text = g.spec_ident.to_string();
    let clones = members
        .iter()
        .map(|m| quote!(::core::clone::Clone::clone(&self.#m)));
    let cloned = g.construct(quote!(Self), &clones.collect::<Vec<_>>());
    let debug = match g.cont.style {
        Style::Tuple => quote! {
            f.debug_tuple(#spec_ident_text) #(.field(&self.#members))* .finish()
        },
        _ => {
            let names = g.fields().iter().map(|f| &f.path);
            quote! {
                f.debug_struct(#spec_ident_text) #(.field(#names, &self.#members))* .finish()
            }
        }
    };
    let display_fields = g.fields().iter().map(|f| {
        let as_field = as_field(f);
        let key = key(f);
        let m = &f.member;
        quote!((#key, &#as_field::spec_to_value(&self.#m)))
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::clone::Clone for #spec_ty #where_clause {
            #[inline]
            fn clone(&self) -> Self { #cloned }
        }
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #spec_ty #where_clause {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { #debug }
        }
        #[automatically_derived]
        impl #impl_generics ::core::cmp::PartialEq for #spec_ty #where_clause {
            #[inline]
            fn eq(&self, other: &Self) -> bool {
                true #(&& self.#members == other.#members)*
            }
        }
        #[automatically_derived]
        impl #impl_generics ::core::cmp::Eq for #spec_ty #where_clause {}
        #[automatically_derived]
        impl #impl_generics ::core::hash::Hash for #spec_ty #where_clause {
            fn hash<__H: ::core::hash::Hasher>(&self, state: &mut __H) {
                #(::core::hash::Hash::hash(&self.#members, state);)*
            }
        }
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Display for #spec_ty #where_clause {
            /// `name { field: spec, … }`, e.g. `pkg.Masked { values: f32[8, ?], mask: bool[8, ?] }`.
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                // `write_struct` over a copied slice iterator is one instantiation shared by all
                // derived types (`fmt_struct_spec::<Self, N>` would be one per type).
                __x::write_struct(
                    f,
                    __x::registered_name::<#self_ty>(),
                    [#(#display_fields),*].iter().copied(),
                )
            }
        }
    }
}

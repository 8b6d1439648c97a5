//! The generated `FooSpec`: public fields mirroring `Foo`, and its Clone/Debug/Eq/Hash/Display.
//!
//! The std impls are written out rather than derived: `#[derive(Eq)]` on `FooSpec<T>` would demand
//! `T: Eq`, which `f32` is not, although the spec holds only `TensorSpec`s. Each is one call into
//! `__private_v1::derived`, which walks the fields through the type's table.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{Gen, erased, spec_of};
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
    let fields = g.spec_fields().map(|f| {
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
            #vis struct #spec_ident #generics #where_clause { #(#fields,)* }
        },
        Style::Tuple => quote! {
            #[doc = #doc]
            #vis struct #spec_ident #generics ( #(#fields,)* ) #where_clause;
        },
    }
}

pub fn std_impls(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let self_ty = g.self_ty();
    let desc = g.desc();
    let this = erased(quote!(self));
    let other = erased(quote!(other));
    // `impl<'__de, T: Bound, const N: usize>`: the spec's own parameters after the lifetime.
    let de_generics = {
        let mut generics = g.cont.generics.clone();
        generics.params.insert(0, syn::parse_quote!('__de));
        let (impl_generics, _, _) = generics.split_for_impl();
        quote!(#impl_generics)
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::clone::Clone for #spec_ty #where_clause {
            #[inline]
            fn clone(&self) -> Self {
                __x::derived::clone_spec::<#self_ty>(self)
            }
        }
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #spec_ty #where_clause {
            #[inline]
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                // SAFETY: `self` is a spec of the type `DESC` describes.
                unsafe { __x::derived::spec_debug(#desc, #this, f) }
            }
        }
        #[automatically_derived]
        impl #impl_generics ::core::cmp::PartialEq for #spec_ty #where_clause {
            #[inline]
            fn eq(&self, other: &Self) -> bool {
                // SAFETY: as above, for both.
                unsafe { __x::derived::spec_eq(#desc, #this, #other) }
            }
        }
        #[automatically_derived]
        impl #impl_generics ::core::cmp::Eq for #spec_ty #where_clause {}
        #[automatically_derived]
        impl #impl_generics ::core::hash::Hash for #spec_ty #where_clause {
            #[inline]
            fn hash<__H: ::core::hash::Hasher>(&self, state: &mut __H) {
                // SAFETY: as above.
                unsafe { __x::derived::spec_hash(#desc, #this, state) }
            }
        }
        #[automatically_derived]
        impl #impl_generics __x::serde::Serialize for #spec_ty #where_clause {
            /// The spec's versioned JSON document (`extype::spec_to_json`).
            #[inline]
            fn serialize<__S: __x::serde::Serializer>(
                &self,
                __serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                __x::serialize_spec(self, __serializer)
            }
        }
        #[automatically_derived]
        impl #de_generics __x::serde::Deserialize<'__de> for #spec_ty #where_clause {
            /// Reads the spec's versioned JSON document (`extype::spec_from_json`).
            #[inline]
            fn deserialize<__D: __x::serde::Deserializer<'__de>>(
                __deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                __x::deserialize_spec(__deserializer)
            }
        }
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Display for #spec_ty #where_clause {
            /// `name { field: spec, … }`, e.g. `pkg.Masked { values: f32[8, ?], mask: bool[8, ?] }`.
            #[inline]
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                // SAFETY: as above.
                unsafe { __x::derived::spec_display(#desc, #this, f) }
            }
        }
    }
}

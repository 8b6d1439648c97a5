//! `BatchField for Foo` when the struct has `#[extype(batchable)]`: the default encoder (a table
//! of each field type's batching functions, walked by `__private::derived_stack` and friends) or
//! a custom one (`batchable = Enc`, every method one call into `Enc`), plus the `BatchEntry`
//! that batches `Value`s of a non-generic type.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::Gen;
use crate::attr::Batchable;

/// The batching impls, or nothing when the struct is not batchable.
pub fn batch_impls(g: &Gen) -> TokenStream {
    let Some(batchable) = &g.cont.attrs.batchable else {
        return TokenStream::new();
    };
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let where_clause = batch_where_clause(g);
    let field_impl = match batchable {
        Batchable::Default => {
            // Spanned at each field's type: a field type that is not batchable (a fixed-rank
            // array) is reported there, once, by `BatchField`'s `on_unimplemented` message.
            let ops = g.fields().iter().map(|f| {
                let ty = f.ty;
                quote_spanned!(ty.span()=> <#ty as __x::BatchField>::BATCH_OPS)
            });
            quote! {
                unsafe impl #impl_generics __x::DerivedBatch for #self_ty #where_clause {
                    const BATCH: &'static [&'static __x::BatchOps] = &[#(#ops),*];
                }
                impl #impl_generics __x::BatchField for #self_ty #where_clause {
                    #[inline]
                    fn batched_spec(
                        spec: &<Self as __x::Field>::Spec,
                        n: ::core::option::Option<usize>,
                    ) -> <Self as __x::Field>::Spec {
                        __x::derived_batched_spec::<Self>(spec, n)
                    }
                    #[inline]
                    fn unbatched_spec(
                        spec: &<Self as __x::Field>::Spec,
                        path: &__x::FieldPath<'_>,
                    ) -> __x::Result<<Self as __x::Field>::Spec> {
                        __x::derived_unbatched_spec::<Self>(spec, path)
                    }
                    #[inline]
                    fn batch_len(
                        &self,
                        path: &__x::FieldPath<'_>,
                    ) -> __x::Result<::core::option::Option<usize>> {
                        __x::derived_batch_len::<Self>(self, path)
                    }
                    #[inline]
                    fn stack(items: &[&Self], path: &__x::FieldPath<'_>) -> __x::Result<Self> {
                        __x::derived_stack::<Self>(items, path)
                    }
                    #[inline]
                    fn unstack(
                        self,
                        n: usize,
                        path: &__x::FieldPath<'_>,
                    ) -> __x::Result<__x::Vec<Self>> {
                        __x::derived_unstack::<Self>(self, n, path)
                    }
                }
            }
        }
        Batchable::Encoder(enc_path) => {
            let enc = quote_spanned!(enc_path.span()=> <#enc_path as __x::BatchEncoder<Self>>);
            // The encoder's bound, stated once on the impl: a type that is not an encoder is
            // reported there, once, at the attribute's path.
            let mut where_clause = where_clause.clone().unwrap_or_else(|| syn::parse_quote!(where));
            where_clause.predicates.push(
                syn::parse_quote_spanned!(enc_path.span()=> #enc_path: __x::BatchEncoder<#self_ty>),
            );
            quote! {
                impl #impl_generics __x::BatchField for #self_ty #where_clause {
                    #[inline]
                    fn batched_spec(
                        spec: &<Self as __x::Field>::Spec,
                        n: ::core::option::Option<usize>,
                    ) -> <Self as __x::Field>::Spec {
                        #enc::batched_spec(spec, n)
                    }
                    #[inline]
                    fn unbatched_spec(
                        spec: &<Self as __x::Field>::Spec,
                        _path: &__x::FieldPath<'_>,
                    ) -> __x::Result<<Self as __x::Field>::Spec> {
                        #enc::unbatched_spec(spec)
                    }
                    #[inline]
                    fn batch_len(
                        &self,
                        _path: &__x::FieldPath<'_>,
                    ) -> __x::Result<::core::option::Option<usize>> {
                        ::core::result::Result::map(
                            #enc::batch_len(self),
                            ::core::option::Option::Some,
                        )
                    }
                    #[inline]
                    fn stack(items: &[&Self], _path: &__x::FieldPath<'_>) -> __x::Result<Self> {
                        #enc::stack(items)
                    }
                    #[inline]
                    fn unstack(
                        self,
                        n: usize,
                        path: &__x::FieldPath<'_>,
                    ) -> __x::Result<__x::Vec<Self>> {
                        __x::encoded_unstack::<Self, #enc_path>(self, n, path)
                    }
                }
            }
        }
    };
    // Generic types are batched as `Value`s once an instantiation submits its own entry.
    let entry = if g.is_generic() {
        TokenStream::new()
    } else {
        quote! {
            __x::inventory::submit! { __x::BatchEntry::of::<#self_ty>() }
        }
    };
    quote! {
        #field_impl
        #entry
    }
}

/// The impls' where clause plus `Ty: BatchField` for each field type naming a type parameter.
fn batch_where_clause(g: &Gen) -> Option<syn::WhereClause> {
    let mut where_clause = g.where_clause.clone();
    if let Some(Batchable::Default) = &g.cont.attrs.batchable {
        for field in g.fields() {
            let ty = field.ty;
            if super::mentions_generic_param(g.cont, ty) {
                where_clause
                    .get_or_insert_with(|| syn::parse_quote!(where))
                    .predicates
                    .push(
                        syn::parse_quote_spanned!(ty.span()=> #ty: ::extype::__private::BatchField),
                    );
            }
        }
    }
    where_clause
}

//! `BatchField for Foo` when the struct has `#[extype(batchable)]`: the default encoder (a table
//! of each field type's batching functions, walked by `__private_v1::derived_stack` and friends) or
//! a custom one (`batchable = Enc`, every method one call into `Enc`), plus the `BatchEntry`
//! that batches `Value`s of a non-generic type.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::context::Gen;
use crate::attr::Batchable;

/// The batching impls, or nothing when the struct is not batchable.
pub fn batch_impls(g: &Gen) -> TokenStream {
    let Some(batchable) = &g.cont.attrs.batchable else {
        return TokenStream::new();
    };
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let where_clause = batch_where_clause(g);
    // The five methods' bodies: calls into the derived runtime, or into the encoder.
    let (preamble, where_clause, bodies, empty) = match batchable {
        Batchable::Default => {
            // Spanned at each field's type: a field type that is not batchable (a fixed-rank
            // array) is reported there, once, by `BatchField`'s `on_unimplemented` message.
            // The fields of the spec (not `#[extype(skip)]`), by the type describing each
            // (`Static<Ty>` for `#[extype(static)]`), as the struct table lists them.
            let ops = g.spec_fields().map(|f| {
                let ty = f.field_ty();
                quote_spanned!(f.ty.span()=> __x::BatchOps::of::<#ty>())
            });
            let preamble = quote! {
                unsafe impl #impl_generics __x::DerivedBatch for #self_ty #where_clause {
                    const BATCH: &'static [&'static __x::BatchOps] = &[#(#ops),*];
                }
            };
            let bodies = [
                quote!(__x::derived_batched_spec::<Self>(spec, n)),
                quote!(__x::derived_unbatched_spec::<Self>(spec, path)),
                quote!(__x::derived_batch_len::<Self>(self, path)),
                quote!(__x::derived_stack::<Self>(items, path)),
                quote!(__x::derived_unstack::<Self>(self, n, path)),
            ];
            (preamble, where_clause, bodies, TokenStream::new())
        }
        Batchable::Encoder(enc_path) => {
            let enc = quote_spanned!(enc_path.span()=> <#enc_path as __x::BatchEncoder<Self>>);
            // Every call names the encoder's trait at the attribute's path: a type that is not
            // an encoder is reported there (identical errors at one span are shown once).
            let bodies = [
                quote!(#enc::batched_spec(spec, n)),
                quote!({ let _ = path; #enc::unbatched_spec(spec) }),
                quote!({
                    let _ = path;
                    ::core::result::Result::map(#enc::batch_len(self), ::core::option::Option::Some)
                }),
                quote!({ let _ = path; #enc::stack(items) }),
                quote!(__x::check_unstacked(#enc::unstack(self), n, path)),
            ];
            let empty = quote! {
                #[inline]
                fn empty(
                    spec: &<Self as __x::Field>::Spec,
                    path: &__x::FieldPath<'_>,
                ) -> ::core::option::Option<__x::Result<Self>> {
                    let _ = path;
                    #enc::empty(spec)
                }
                #[inline]
                fn list_layout(
                    spec: &<Self as __x::Field>::Spec,
                ) -> ::core::option::Option<__x::ListLayout> {
                    #enc::list_layout(spec)
                }
            };
            (TokenStream::new(), where_clause, bodies, empty)
        }
    };
    let [batched, unbatched, len, stack, unstack] = bodies;
    let field_impl = quote! {
        #preamble
        impl #impl_generics __x::BatchField for #self_ty #where_clause {
            #[inline]
            fn batched_spec(
                spec: &<Self as __x::Field>::Spec,
                n: ::core::option::Option<usize>,
            ) -> <Self as __x::Field>::Spec {
                #batched
            }
            #[inline]
            fn unbatched_spec(
                spec: &<Self as __x::Field>::Spec,
                path: &__x::FieldPath<'_>,
            ) -> __x::Result<<Self as __x::Field>::Spec> {
                #unbatched
            }
            #[inline]
            fn batch_len(
                &self,
                path: &__x::FieldPath<'_>,
            ) -> __x::Result<::core::option::Option<usize>> {
                #len
            }
            #[inline]
            fn stack(items: &[&Self], path: &__x::FieldPath<'_>) -> __x::Result<Self> {
                #stack
            }
            #[inline]
            fn unstack(
                self,
                n: usize,
                path: &__x::FieldPath<'_>,
            ) -> __x::Result<__x::Vec<Self>> {
                #unstack
            }
            #empty
        }
    };
    // Generic types are batched as `Value`s once an instantiation submits its own entry.
    let entry = if g.is_generic() {
        TokenStream::new()
    } else {
        // Through a probe, as the registry entry (see `traits::registration`).
        quote! {
            fn __extype_batch_fns() -> ::core::option::Option<__x::BatchFns> {
                #[allow(unused_imports)]
                use __x::{NotBatchable as _, ProbeBatch as _};
                (&__x::Probe::<#self_ty>::NEW).batch_fns()
            }
            __x::inventory::submit! { __x::BatchEntry::probed::<#self_ty>(__extype_batch_fns) }
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
        for field in g.spec_fields() {
            if super::context::mentions_generic_param(g.cont, field.ty) {
                let ty = field.field_ty();
                where_clause
                    .get_or_insert_with(|| syn::parse_quote!(where))
                    .predicates
                    .push(
                        syn::parse_quote_spanned!(field.ty.span()=> #ty: ::extype::__private_v1::BatchField),
                    );
            }
        }
    }
    where_clause
}

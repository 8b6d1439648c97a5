//! `impl Field for Foo`: each method is the same call made on every field, in declaration order,
//! with the field's path; the logic lives in core.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Gen, as_field, key, path_expr};
use crate::ast::Style;

pub fn field_impl(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let fields = g.fields();
    let n = fields.len();
    let as_fields: Vec<_> = fields.iter().map(as_field).collect();
    let paths: Vec<_> = fields.iter().map(path_expr).collect();
    let members: Vec<_> = fields.iter().map(|f| &f.member).collect();
    let keys: Vec<_> = fields.iter().map(key).collect();
    // Locals for moving the fields out of `self` by destructuring.
    let locals: Vec<_> = (0..n).map(|i| format_ident!("__f{}", i)).collect();
    let destructure = match g.cont.style {
        Style::Named => quote!(Self { #(#members: #locals),* }),
        Style::Tuple => quote!(Self ( #(#locals),* )),
        Style::Unit => quote!(Self {}),
    };

    let field_specs: Vec<_> = fields
        .iter()
        .zip(&as_fields)
        .map(|(f, af)| {
            let m = &f.member;
            quote!(#af::field_spec(&self.#m))
        })
        .collect();
    let spec_value = g.construct(g.spec_ctor(), &field_specs);

    let rebuilt: Vec<_> = as_fields
        .iter()
        .zip(&members)
        .zip(&paths)
        .map(|((af, m), p)| quote!(#af::from_components(&__spec.#m, #p, __components)?))
        .collect();
    let rebuilt_value = g.construct(quote!(Self), &rebuilt);

    let deserialized: Vec<_> = as_fields
        .iter()
        .zip(&keys)
        .zip(&paths)
        .map(|((af, k), p)| quote!(#af::spec_from_value(__fields.get(#k)?, #p)?))
        .collect();
    let deserialized_spec = g.construct(g.spec_ctor(), &deserialized);
    let refine = super::traits::refine_call(g, quote!(__spec));

    let relaxed: Vec<_> = as_fields
        .iter()
        .zip(&members)
        .map(|(af, m)| quote!(#af::spec_most_specific_compatible(&__a.#m, &__b.#m)?))
        .collect();
    let relaxed_spec = g.construct(g.spec_ctor(), &relaxed);

    quote! {
        #[automatically_derived]
        impl #impl_generics __x::Field for #self_ty #where_clause {
            type Spec = #spec_ty;

            #[inline]
            fn field_spec(&self) -> #spec_ty {
                #spec_value
            }

            #[inline]
            fn num_components(__spec: &#spec_ty) -> usize {
                0 #(+ #as_fields::num_components(&__spec.#members))*
            }

            #[inline]
            fn component_specs(
                __spec: &#spec_ty,
                __path: &__x::FieldPath<'_>,
                __out: &mut impl __x::Sink<__x::TensorSpec>,
            ) {
                #(#as_fields::component_specs(&__spec.#members, #paths, __out);)*
            }

            #[inline]
            fn push_views<'__a>(
                &'__a self,
                __path: &__x::FieldPath<'_>,
                __out: &mut impl __x::Sink<__x::TensorView<'__a>>,
            ) {
                #(#as_fields::push_views(&self.#members, #paths, __out);)*
            }

            #[inline]
            fn push_components(
                self,
                __path: &__x::FieldPath<'_>,
                __out: &mut impl __x::Sink<__x::Tensor>,
            ) {
                let #destructure = self;
                #(#as_fields::push_components(#locals, #paths, __out);)*
            }

            #[inline]
            fn from_components(
                __spec: &#spec_ty,
                __path: &__x::FieldPath<'_>,
                __components: &mut __x::Components,
            ) -> __x::Result<Self> {
                let __value = #rebuilt_value;
                __x::validated(__value, __path)
            }

            // Built with plain `insert`s rather than `__x::struct_spec_value::<Self, N>`: that
            // helper's iterator chain (and `BTreeMap::from_iter`'s sort) is monomorphized once
            // per derived type, which dominated the derive's compile time.
            fn spec_to_value(__spec: &#spec_ty) -> __x::SpecValue {
                let mut __fields = ::std::collections::BTreeMap::new();
                #(__fields.insert(
                    ::std::string::String::from(#keys),
                    #as_fields::spec_to_value(&__spec.#members),
                );)*
                __x::SpecValue::spec(
                    __x::registered_name::<Self>(),
                    __x::SpecValue::Map(__fields),
                )
            }

            fn spec_from_value(
                __value: &__x::SpecValue,
                __path: &__x::FieldPath<'_>,
            ) -> __x::Result<#spec_ty> {
                let __fields = __x::StructFields::open::<Self>(__value, __path, &[#(#keys),*])?;
                #[allow(unused_mut)]
                let mut __spec = #deserialized_spec;
                #refine
                ::core::result::Result::Ok(__spec)
            }

            #[inline]
            fn spec_is_compatible(__a: &#spec_ty, __b: &#spec_ty) -> bool {
                true #(&& #as_fields::spec_is_compatible(&__a.#members, &__b.#members))*
            }

            #[inline]
            fn spec_most_specific_compatible(
                __a: &#spec_ty,
                __b: &#spec_ty,
            ) -> ::core::option::Option<#spec_ty> {
                ::core::option::Option::Some(#relaxed_spec)
            }
        }
    }
}

//! The type's table (`unsafe impl Derived`: offsets and per-field-type operations) and
//! `impl Field for Foo`, whose methods are one call each into `__private::derived`, where the
//! field-by-field logic lives.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{Gen, erased, key};
use crate::ast::Style;

/// `unsafe impl Derived for Foo { const DESC = &StructDesc { .. } }`.
///
/// Sound because every entry is computed from the struct itself: `offset_of!` of each field in
/// `Foo` and in `FooSpec` (whose fields mirror `Foo`'s, with the types `<Ty as Field>::Spec`),
/// and `<Ty as Field>::OPS` of the field's own type.
pub fn derived_impl(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let spec_name = g.spec_ident.to_string();
    let tuple = matches!(g.cont.style, Style::Tuple);
    let contract = g.contract_arg();
    let validates =
        g.fields().iter().any(|f| f.attrs.shape.is_some()) || g.cont.attrs.validate.is_some();
    let fields = g.spec_fields().enumerate().map(|(spec_index, f)| {
        let ty = f.ty;
        let field_ty = f.field_ty();
        let m = &f.member;
        // A tuple struct's spec leaves out skipped fields, so its members are renumbered.
        let spec_member = match m {
            syn::Member::Named(_) => m.clone(),
            syn::Member::Unnamed(_) => syn::Member::Unnamed(spec_index.into()),
        };
        let key = key(f);
        let position = match m {
            syn::Member::Named(_) => quote!(::core::option::Option::None),
            syn::Member::Unnamed(index) => {
                let index = index.index as usize;
                quote!(::core::option::Option::Some(#index))
            }
        };
        // Spanned on the field's type: an unsupported type is reported here and at the spec's
        // field, with the same span and message, which rustc prints once.
        let ops = quote_spanned!(ty.span()=> <#field_ty as __x::Field>::OPS);
        let shape = match &f.attrs.shape {
            Some(_) => {
                let shaped = quote_spanned!(ty.span()=> <#ty as __x::ShapedField>::SHAPE_OPS);
                quote!(::core::option::Option::Some(#shaped))
            }
            None => quote!(::core::option::Option::None),
        };
        quote! {
            __x::FieldDesc {
                key: #key,
                position: #position,
                value_offset: ::core::mem::offset_of!(#self_ty, #m),
                spec_offset: ::core::mem::offset_of!(#spec_ty, #spec_member),
                ops: #ops,
                shape: #shape,
            }
        }
    });
    let skipped = g.fields().iter().filter(|f| !f.attrs.in_spec()).map(|f| {
        let ty = f.ty;
        let m = &f.member;
        let ops = quote_spanned!(ty.span()=> <#ty as __x::SkippedField>::SKIP_OPS);
        quote! {
            __x::SkippedDesc {
                value_offset: ::core::mem::offset_of!(#self_ty, #m),
                ops: #ops,
            }
        }
    });
    quote! {
        #[automatically_derived]
        // SAFETY: the offsets and operations are those of the struct's own fields (see above).
        unsafe impl #impl_generics __x::Derived for #self_ty #where_clause {
            const DESC: &'static __x::StructDesc = &__x::StructDesc {
                name: <Self as __x::ExtensionType>::NAME,
                type_id: ::core::any::TypeId::of::<Self>(),
                spec_name: #spec_name,
                tuple: #tuple,
                fields: &[#(#fields),*],
                skipped: &[#(#skipped),*],
                contract: #contract,
                types: &__x::derived::TypeFns::of::<Self>(#validates),
            };
        }
    }
}

/// `impl Field for Foo`, so the type nests inside other extension types.
pub fn field_impl(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let spec = erased(quote!(__spec));
    let a = erased(quote!(__a));
    let b = erased(quote!(__b));
    let this = erased(quote!(self));
    quote! {
        #[automatically_derived]
        impl #impl_generics __x::SequenceItem for #self_ty #where_clause {}

        #[automatically_derived]
        impl #impl_generics __x::Field for #self_ty #where_clause {
            type Spec = #spec_ty;

            #[inline]
            fn field_spec(&self) -> #spec_ty {
                __x::derived::field_spec(self)
            }

            #[inline]
            fn num_components(__spec: &#spec_ty) -> usize {
                // SAFETY: `__spec` is a spec of `Self`, described by `Self::DESC`.
                unsafe { __x::derived::num_components(<Self as __x::Derived>::DESC, #spec) }
            }

            #[inline]
            fn component_specs(
                __spec: &#spec_ty,
                __path: &__x::FieldPath<'_>,
                __out: &mut dyn __x::Sink<__x::TensorSpec>,
            ) {
                // SAFETY: as above.
                unsafe {
                    __x::derived::component_specs(<Self as __x::Derived>::DESC, #spec, __path, __out)
                }
            }

            #[inline]
            fn push_views<'__a>(
                &'__a self,
                __path: &__x::FieldPath<'_>,
                __out: &mut dyn __x::Sink<__x::TensorView<'__a>>,
            ) {
                // SAFETY: `self` is described by `Self::DESC` and outlives the views.
                unsafe {
                    __x::derived::push_views(<Self as __x::Derived>::DESC, #this, __path, __out)
                }
            }

            fn spec_fmt(
                __spec: &#spec_ty,
                __f: &mut ::core::fmt::Formatter<'_>,
            ) -> ::core::fmt::Result {
                // SAFETY: `__spec` is a spec of `Self`, described by `Self::DESC`.
                unsafe { __x::derived::spec_display(<Self as __x::Derived>::DESC, #spec, __f) }
            }

            #[inline]
            fn validate_nested(&self, __path: &__x::FieldPath<'_>) -> __x::Result<()> {
                __x::derived::validate_nested(self, __path)
            }

            #[inline]
            fn push_components(
                self,
                __path: &__x::FieldPath<'_>,
                __out: &mut dyn __x::Sink<__x::Tensor>,
            ) {
                __x::derived::push_components_of(self, __path, __out)
            }

            #[inline]
            fn from_components(
                __spec: &#spec_ty,
                __path: &__x::FieldPath<'_>,
                __components: &mut __x::Components,
            ) -> __x::Result<Self> {
                __x::derived::from_components_at::<Self>(__spec, __path, __components)
            }

            #[inline]
            fn spec_to_value(__spec: &#spec_ty) -> __x::SpecTree {
                // SAFETY: as above.
                unsafe { __x::derived::spec_to_value(<Self as __x::Derived>::DESC, #spec) }
            }

            #[inline]
            fn spec_from_value(
                __value: &__x::SpecTree,
                __path: &__x::FieldPath<'_>,
            ) -> __x::Result<#spec_ty> {
                __x::derived::spec_from_value::<Self>(__value, __path)
            }

            #[inline]
            fn spec_is_compatible(__a: &#spec_ty, __b: &#spec_ty) -> bool {
                // SAFETY: as above.
                unsafe { __x::derived::spec_is_compatible(<Self as __x::Derived>::DESC, #a, #b) }
            }

            #[inline]
            fn spec_most_specific_compatible(
                __a: &#spec_ty,
                __b: &#spec_ty,
            ) -> ::core::option::Option<#spec_ty> {
                __x::derived::most_specific_compatible::<Self>(__a, __b)
            }
        }
    }
}

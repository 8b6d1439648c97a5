//! The type's table (`unsafe impl Derived`: offsets and per-field-type operations) and
//! `impl Field for Foo`, which names the table and writes no method (`Field`'s provided methods
//! walk the table in `__private_v1::derived`, where the field-by-field logic lives).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::context::{Gen, key};
use crate::ast::Style;

/// `unsafe impl Derived for Foo { const DESC = &StructDesc { .. } }`.
///
/// Sound because every entry is computed from the struct itself: `offset_of!` of each field in
/// `Foo` and in `FooSpec` (whose fields mirror `Foo`'s, with the types `<Ty as Field>::Spec`),
/// and the tables of the field's own type, named here (`FieldOps::of::<Ty>()`, and `ShapeOps` /
/// `SkipOps` likewise) rather than read from a trait constant a hand-written impl could point
/// at another type's. The table carries `Vouched`, the `unsafe` word that it is exact, which
/// safe code cannot give.
pub fn derived_impl(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let spec_name = g.spec_ident.to_string();
    let name = g.name_expr();
    let tuple = matches!(g.cont.style, Style::Tuple);
    let contract = g.contract_arg();
    let validate = super::traits::user_validate(g);
    let evolution = evolution(g);
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
        let ops = quote_spanned!(ty.span()=> __x::FieldOps::of::<#field_ty>());
        let shape = match &f.attrs.shape {
            Some(_) => {
                let shaped = quote_spanned!(ty.span()=> __x::ShapeOps::of::<#ty>());
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
    // `validity_of`: (mask, values) as indices into the spec's fields (checked in `check`).
    let spec_fields: Vec<_> = g.spec_fields().collect();
    let validity = spec_fields.iter().enumerate().filter_map(|(mask, f)| {
        let (_, target) = f.attrs.validity_of.as_ref()?;
        let named = syn::Member::Named(target.clone());
        let values = spec_fields.iter().position(|v| v.member == named)?;
        Some(quote!((#mask, #values)))
    });
    let skipped = g.fields().iter().filter(|f| !f.attrs.in_spec()).map(|f| {
        let ty = f.ty;
        let m = &f.member;
        let ops = quote_spanned!(ty.span()=> __x::SkipOps::of::<#ty>());
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
                name: #name,
                type_id: ::core::any::TypeId::of::<Self>(),
                spec_name: #spec_name,
                tuple: #tuple,
                fields: &[#(#fields),*],
                skipped: &[#(#skipped),*],
                contract: #contract,
                types: &__x::derived::TypeFns::of::<Self>(),
                validate: #validate,
                validity: &[#(#validity),*],
                evolution: #evolution,
                // SAFETY: as for the impl.
                vouched: unsafe { __x::Vouched::new() },
            };
        }
    }
}

/// The type's `Evolution`: its version, old names, field aliases and defaults, migrations
/// (`Evolution::NONE` without any versioning attribute). Each user function is first bound to
/// a `fn` pointer of the expected type, spanned at its path, so a wrong signature is reported
/// there.
fn evolution(g: &Gen) -> TokenStream {
    let attrs = &g.cont.attrs;
    let fields: Vec<_> = g
        .spec_fields()
        .filter(|f| !f.attrs.aliases.is_empty() || f.attrs.default.is_some())
        .collect();
    if attrs.version.is_none()
        && attrs.aliases.is_none()
        && attrs.migrations.is_empty()
        && fields.is_empty()
    {
        return quote!(__x::Evolution::NONE);
    }
    let version = crate::check::version_of(None, g.cont).unwrap_or(1);
    let aliases = attrs.aliases.iter().flat_map(|(_, list)| list);
    let fields = fields.iter().map(|f| {
        let key = key(f);
        let aliases = &f.attrs.aliases;
        let field_ty = f.field_ty();
        let ty = f.ty;
        let wrap = |value: TokenStream| match &f.attrs.static_ {
            Some(_) => quote!(__x::Static(#value)),
            None => value,
        };
        let default = match &f.attrs.default {
            None => quote!(::core::option::Option::None),
            Some(attr) => {
                let compute = match attr {
                    crate::attr::DefaultAttr::Trait(key) => {
                        let value = quote_spanned!(key.span()=>
                            <#ty as ::core::default::Default>::default());
                        let value = wrap(value);
                        quote!(::core::result::Result::Ok(#value))
                    }
                    crate::attr::DefaultAttr::Function(_, path) => {
                        let bind = quote_spanned! {path.span()=>
                            let __default: fn(&__x::Stored) -> __x::Result<#ty> = #path;
                        };
                        let value = wrap(quote!(__v));
                        quote!({
                            #bind
                            ::core::result::Result::map(__default(__s), |__v| #value)
                        })
                    }
                };
                quote! {
                    ::core::option::Option::Some(__x::FieldDefault::new(
                        |__s: &__x::Stored| -> __x::Result<__x::Filled> {
                            let __value: __x::Result<#field_ty> = #compute;
                            ::core::result::Result::map(__value, |__v| {
                                __x::Filled::of::<#field_ty>(#key, __v)
                            })
                        },
                        __x::unknown_spec::<#field_ty>,
                    ))
                }
            }
        };
        quote! {
            __x::FieldEvolution {
                key: #key,
                aliases: &[#(#aliases),*],
                default: #default,
            }
        }
    });
    let mut migrations: Vec<_> = attrs.migrations.iter().collect();
    migrations.sort_by_key(|m| m.from.base10_parse::<u32>().unwrap_or(0));
    let migrations = migrations.iter().map(|m| {
        let from = m.from.base10_parse::<u32>().unwrap_or(0);
        let path = &m.with;
        let bind = quote_spanned! {path.span()=>
            let __migrate: fn(&mut __x::Stored) -> __x::Result<()> = #path;
        };
        quote!(__x::Migration { from: #from, with: { #bind __migrate } })
    });
    quote! {
        &__x::Evolution {
            version: #version,
            aliases: &[#(#aliases),*],
            fields: &[#(#fields),*],
            migrations: &[#(#migrations),*],
        }
    }
}

/// `impl Field for Foo`, so the type nests inside other extension types: the spec type and the
/// type's table, from which `Field`'s provided methods walk the struct (no method is written
/// here, so none is type-checked per type).
pub fn field_impl(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    quote! {
        #[automatically_derived]
        impl #impl_generics __x::SequenceItem for #self_ty #where_clause {}

        #[automatically_derived]
        impl #impl_generics __x::Field for #self_ty #where_clause {
            type Spec = #spec_ty;
            // SAFETY: `DESC` describes `Self` and `FooSpec` (the `Derived` impl above).
            const STRUCT: ::core::option::Option<__x::StructTable<Self>> =
                ::core::option::Option::Some(unsafe {
                    __x::StructTable::new(<Self as __x::Derived>::DESC)
                });
        }
    }
}

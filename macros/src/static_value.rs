//! `#[derive(StaticValue)]`: user enums and structs as static spec data.
//!
//! Unit-only enums are serialized as the variant's name (a string); structs as their fields
//! (a map by name; a tuple struct as a tuple, a unit struct as the empty tuple), each field as static data
//! (`StaticData`: static values, floats, and `Vec`, arrays, `Option`, tuples of them). The generated code is two one-line methods that call the runtime helpers
//! in `__private` (which check the data and write the errors), plus `static_field!` so the type
//! can be a field (which also implements `batch::StaticBatch` with its provided methods: a
//! derived static value is equal across a batch). On invalid input: the errors plus nothing else (the type stays usable as a
//! plain type).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

use crate::ctxt::Ctxt;

/// Expands `#[derive(StaticValue)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let body = match &input.data {
        Data::Enum(data) => enum_body(&cx, input, data),
        Data::Struct(data) => Some(struct_body(input, &data.fields)),
        Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "`StaticValue` cannot be derived for a union; use an enum of unit variants or a \
                 struct",
            );
            None
        }
    };
    if input.generics.params.iter().next().is_some() {
        cx.error_spanned_by(
            &input.generics,
            "`StaticValue` cannot be derived for a generic type: a static field names one \
             concrete type; implement `StaticValue` by hand and declare each instantiation with \
             `extype::static_field!`",
        );
    }
    match (cx.check(), body) {
        (Ok(()), Some((to_value, from_value))) => {
            let ident = &input.ident;
            let door = crate::door::open();
            quote! {
                #[allow(unused_qualifications, clippy::all)]
                const _: () = {
                    #door
                    #[automatically_derived]
                    impl __x::StaticValue for #ident {
                        fn to_spec_value(&self) -> __x::SpecTree {
                            #to_value
                        }
                        fn from_spec_value(
                            __value: &__x::SpecTree,
                            __path: &__x::FieldPath<'_>,
                        ) -> __x::Result<Self> {
                            #from_value
                        }
                    }
                    ::extype::static_field!(#ident);
                };
            }
        }
        (Err(errors), _) => errors.to_compile_error(),
        (Ok(()), None) => unreachable!("a failed derive always records an error"),
    }
}

/// Unit variants only: `"Linear"` ↔ `Self::Linear`.
fn enum_body(
    cx: &Ctxt,
    input: &DeriveInput,
    data: &syn::DataEnum,
) -> Option<(TokenStream, TokenStream)> {
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            cx.error_spanned_by(
                &variant.fields,
                format!(
                    "`StaticValue` can be derived only for enums of unit variants (serialized as \
                     the variant's name), but variant `{}` has fields; make it a unit variant, \
                     or implement `StaticValue` by hand",
                    variant.ident
                ),
            );
        }
    }
    if data.variants.is_empty() {
        cx.error_spanned_by(
            &input.ident,
            format!(
                "`StaticValue` cannot be derived for `{}`, an enum without variants: no value \
                 of it could be stored",
                input.ident
            ),
        );
        return None;
    }
    let names: Vec<String> = data
        .variants
        .iter()
        .map(|v| syn::ext::IdentExt::unraw(&v.ident).to_string())
        .collect();
    let idents: Vec<&syn::Ident> = data.variants.iter().map(|v| &v.ident).collect();
    let type_name = input.ident.to_string();
    let (last, rest) = idents.split_last()?;
    let rest_indices = 0..rest.len();
    let to_value = quote! {
        __x::static_variant_to_value(match self { #(Self::#idents => #names,)* })
    };
    let from_value = quote! {
        match __x::static_variant_from_value(__value, __path, #type_name, &[#(#names),*]) {
            ::core::result::Result::Ok(__index) => ::core::result::Result::Ok(match __index {
                #(#rest_indices => Self::#rest,)*
                _ => Self::#last,
            }),
            ::core::result::Result::Err(__e) => ::core::result::Result::Err(__e),
        }
    };
    Some((to_value, from_value))
}

/// Each field as static data (`StaticData`): a map by name, or a tuple.
fn struct_body(input: &DeriveInput, fields: &Fields) -> (TokenStream, TokenStream) {
    let type_name = input.ident.to_string();
    let count = fields.len();
    let members: Vec<syn::Member> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| match &f.ident {
            Some(ident) => syn::Member::Named(ident.clone()),
            None => syn::Member::Unnamed(i.into()),
        })
        .collect();
    let to_items = fields.iter().zip(&members).map(|(f, m)| {
        let ty = respanned(&f.ty);
        quote_spanned!(f.ty.span()=> <#ty as __x::StaticData>::spec_to_value(
            &<#ty as __x::StaticData>::to_spec(&self.#m)
        ))
    });
    let from_items = fields.iter().zip(&members).enumerate().map(|(i, (f, m))| {
        let ty = respanned(&f.ty);
        let path = match m {
            syn::Member::Named(ident) => {
                let name =
                    syn::LitStr::new(&syn::ext::IdentExt::unraw(ident).to_string(), ident.span());
                quote!(__path.field(#name))
            }
            syn::Member::Unnamed(_) => quote!(__path.tuple(#i)),
        };
        let read = quote_spanned!(f.ty.span()=>
        <#ty as __x::StaticData>::from_spec(
            &<#ty as __x::StaticData>::spec_from_value(__items[#i], &#path)?
        ));
        quote!(#m: #read)
    });
    match fields {
        Fields::Named(_) => {
            let keys: Vec<String> = members
                .iter()
                .map(|m| match m {
                    syn::Member::Named(ident) => syn::ext::IdentExt::unraw(ident).to_string(),
                    syn::Member::Unnamed(_) => unreachable!("named fields"),
                })
                .collect();
            (
                quote!(__x::static_struct_to_value(&[#(#keys),*], ::std::vec![#(#to_items),*])),
                quote! {
                    let __items = __x::static_struct_items(__value, __path, #type_name, &[#(#keys),*])?;
                    ::core::result::Result::Ok(Self { #(#from_items),* })
                },
            )
        }
        Fields::Unnamed(_) => (
            quote!(__x::SpecTree::Tuple(::std::vec![#(#to_items),*])),
            quote! {
                let __items = __x::static_tuple_items(__value, __path, #type_name, #count)?;
                ::core::result::Result::Ok(Self { #(#from_items),* })
            },
        ),
        Fields::Unit => (
            quote!(__x::SpecTree::Tuple(::std::vec::Vec::new())),
            quote! {
                __x::static_tuple_items(__value, __path, #type_name, 0)?;
                ::core::result::Result::Ok(Self)
            },
        ),
    }
}

/// The type's tokens, all spanned at its first token: every obligation on it (the trait method's,
/// the projection's) then has one span, so rustc reports an unmet bound once.
fn respanned(ty: &syn::Type) -> TokenStream {
    fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
        tokens
            .into_iter()
            .map(|mut tree| {
                if let proc_macro2::TokenTree::Group(group) = &tree {
                    let mut inner =
                        proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                    inner.set_span(span);
                    tree = proc_macro2::TokenTree::Group(inner);
                } else {
                    tree.set_span(span);
                }
                tree
            })
            .collect()
    }
    respan(quote!(#ty), ty.span())
}

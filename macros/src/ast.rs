//! The parsed model of a `#[derive(ExtensionType)]` input.

use syn::ext::IdentExt as _;
use syn::{Data, DeriveInput, Fields, Generics, Ident, Member, Type, Visibility};

use crate::attr::{ContainerAttrs, FieldAttrs};
use crate::ctxt::Ctxt;

/// The struct being derived.
pub struct Container<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub generics: &'a Generics,
    pub attrs: ContainerAttrs,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
}

/// How the struct's fields are written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `struct Foo { a: A }`
    Named,
    /// `struct Foo(A, B);`
    Tuple,
    /// `struct Foo;`
    Unit,
}

/// One field of the struct.
pub struct Field<'a> {
    /// `values` or `0`.
    pub member: Member,
    pub vis: &'a Visibility,
    pub ty: &'a Type,
    pub attrs: FieldAttrs,
    /// The field's path in errors and on disk (`values`, `0`).
    pub path: String,
}

impl Field<'_> {
    /// The type whose `Field` impl describes the field: its own type, or
    /// `::extype::__private_v1::Static<Ty>` when it is marked `#[extype(static)]`.
    pub fn field_ty(&self) -> proc_macro2::TokenStream {
        let ty = self.ty;
        match &self.attrs.static_ {
            Some(_) => quote::quote_spanned!(syn::spanned::Spanned::span(ty)=>
                ::extype::__private_v1::Static<#ty>),
            None => quote::quote!(#ty),
        }
    }
}

impl<'a> Container<'a> {
    /// Parses the input, recording problems in `cx`; `None` when it is not a struct at all.
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = ContainerAttrs::from_ast(cx, &input.attrs);
        let (style, fields) = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => (Style::Named, fields_from_ast(cx, &named.named)),
                Fields::Unnamed(unnamed) => (Style::Tuple, fields_from_ast(cx, &unnamed.unnamed)),
                Fields::Unit => (Style::Unit, Vec::new()),
            },
            Data::Enum(data) => {
                cx.error_spanned_by(
                    data.enum_token,
                    "`ExtensionType` cannot be derived for an enum: a spec fixes one layout of \
                     components; use a struct, with an `Option` field for each alternative",
                );
                return None;
            }
            Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "`ExtensionType` cannot be derived for a union; use a struct",
                );
                return None;
            }
        };
        Some(Container {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            attrs,
            style,
            fields,
        })
    }
}

fn fields_from_ast<'a>(
    cx: &Ctxt,
    fields: &'a syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
) -> Vec<Field<'a>> {
    fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let member = match &field.ident {
                Some(ident) => Member::Named(ident.clone()),
                None => Member::Unnamed(index.into()),
            };
            let path = match &field.ident {
                Some(ident) => ident.unraw().to_string(),
                None => index.to_string(),
            };
            Field {
                member,
                vis: &field.vis,
                ty: &field.ty,
                attrs: FieldAttrs::from_ast(cx, &field.attrs),
                path,
            }
        })
        .collect()
}

//! What every generator of the derive shares about one container: [`Gen`] (the container, the
//! spec's name, the where clause bounding every item) and small helpers on fields. The lowest
//! file of `expand`: the generators and the entry point build on it.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, WhereClause};

use crate::ast::{Container, Field};

/// Everything the generators share about one container.
pub struct Gen<'a> {
    pub cont: &'a Container<'a>,
    pub spec_ident: Ident,
    /// The user's where clause plus `FieldType: Field` for each field (see [`Gen::new`]).
    pub where_clause: Option<WhereClause>,
}

impl<'a> Gen<'a> {
    /// Every item is bounded by `Ty: Field` for each field of the spec (`Ty: SkippedField` for a
    /// skipped field naming a type parameter), spanned at the field's type: an unsupported type
    /// is then one error, at the field, which rustc reports once for all the items (see the
    /// crate docs, "Diagnostics"); for a field naming a type parameter the bound is also what
    /// makes the impls generic over it.
    pub(super) fn new(cont: &'a Container<'a>) -> Self {
        let mut where_clause = cont.generics.where_clause.clone();
        for field in &cont.fields {
            let ty = field.ty;
            // A field holding the type itself (`children: Vec<Node>`): its bound would ask the
            // trait solver whether `Node: Field` while `Node`'s own impl is being checked, which
            // overflows (E0275) instead of resolving; without it the impls refer to each other
            // as serde's do, and a spec is finite because each nesting is a value's.
            if mentions_self(cont, ty) {
                continue;
            }
            if field.attrs.in_spec() || mentions_generic_param(cont, ty) {
                let bound: syn::WherePredicate = if field.attrs.in_spec() {
                    let field_ty = field.field_ty();
                    syn::parse_quote_spanned!(ty.span()=> #field_ty: ::extype::__private_v1::Field)
                } else {
                    syn::parse_quote_spanned!(ty.span()=> #ty: ::extype::__private_v1::SkippedField)
                };
                where_clause
                    .get_or_insert_with(|| syn::parse_quote!(where))
                    .predicates
                    .push(bound);
            }
        }
        if cont.generics.type_params().next().is_some() {
            // `ExtensionType: Clone`; a derived `Clone` on a generic type bounds its parameters.
            // (Not on non-generic types: a bound on every generated item costs compile time.)
            let ident = cont.ident;
            let (_, ty_generics, _) = cont.generics.split_for_impl();
            where_clause
                .get_or_insert_with(|| syn::parse_quote!(where))
                .predicates
                .push(syn::parse_quote_spanned!(ident.span()=> #ident #ty_generics: ::core::clone::Clone));
        }
        Gen {
            cont,
            spec_ident: format_ident!("{}Spec", cont.ident),
            where_clause,
        }
    }

    /// `Some(&__CONTRACT)` when the type has a shape contract, else `None`.
    pub fn contract_arg(&self) -> TokenStream {
        if self.fields().iter().any(|f| f.attrs.shape.is_some()) {
            quote!(::core::option::Option::Some(&__CONTRACT))
        } else {
            quote!(::core::option::Option::None)
        }
    }

    /// `<Foo as __x::Derived>::DESC`.
    pub fn desc(&self) -> TokenStream {
        let self_ty = self.self_ty();
        quote!(<#self_ty as __x::Derived>::DESC)
    }

    pub fn ident(&self) -> &Ident {
        self.cont.ident
    }

    /// `Foo<T>` (the type with its generic arguments).
    pub fn self_ty(&self) -> TokenStream {
        let ident = self.cont.ident;
        let (_, ty_generics, _) = self.cont.generics.split_for_impl();
        quote!(#ident #ty_generics)
    }

    /// `FooSpec<T>`.
    pub fn spec_ty(&self) -> TokenStream {
        let ident = &self.spec_ident;
        let (_, ty_generics, _) = self.cont.generics.split_for_impl();
        quote!(#ident #ty_generics)
    }

    /// `impl<T: Bound>` generics.
    pub fn impl_generics(&self) -> TokenStream {
        let (impl_generics, _, _) = self.cont.generics.split_for_impl();
        quote!(#impl_generics)
    }

    /// Every field, in declaration order.
    pub fn fields(&self) -> &[Field<'a>] {
        &self.cont.fields
    }

    /// The fields of the spec: all but those marked `#[extype(skip)]`.
    pub fn spec_fields(&self) -> impl Iterator<Item = &Field<'a>> {
        self.cont.fields.iter().filter(|f| f.attrs.in_spec())
    }

    pub fn is_generic(&self) -> bool {
        self.cont.generics.type_params().next().is_some()
            || self.cont.generics.const_params().next().is_some()
    }

    /// The registered name: `name = "…"`, or `module_path!()::Foo`.
    pub fn name_expr(&self) -> TokenStream {
        match &self.cont.attrs.name {
            Some(lit) => quote!(#lit),
            None => {
                let ident = self.cont.ident.to_string();
                quote!(::core::concat!(::core::module_path!(), "::", #ident))
            }
        }
    }
}

/// Whether `ty` names one of the container's type or const parameters (then its `Field` bound
/// can only be checked per instantiation).
/// Whether `ty` names the container itself: a recursive field (`Self` there is an error of
/// the check pass).
pub(super) fn mentions_self(cont: &Container, ty: &syn::Type) -> bool {
    fn visit(tokens: TokenStream, name: &Ident) -> bool {
        tokens.into_iter().any(|tree| match tree {
            proc_macro2::TokenTree::Ident(ident) => ident == *name,
            proc_macro2::TokenTree::Group(group) => visit(group.stream(), name),
            _ => false,
        })
    }
    visit(quote!(#ty), cont.ident)
}

pub(super) fn mentions_generic_param(cont: &Container, ty: &syn::Type) -> bool {
    let params: Vec<&Ident> = cont
        .generics
        .type_params()
        .map(|p| &p.ident)
        .chain(cont.generics.const_params().map(|p| &p.ident))
        .collect();
    fn visit(tokens: TokenStream, params: &[&Ident]) -> bool {
        tokens.into_iter().any(|tree| match tree {
            proc_macro2::TokenTree::Ident(ident) => params.contains(&&ident),
            proc_macro2::TokenTree::Group(group) => visit(group.stream(), params),
            _ => false,
        })
    }
    !params.is_empty() && visit(quote!(#ty), &params)
}

/// `expr as *const _ as *const u8`: a reference as the untyped pointer `__private_v1::derived` takes
/// (casts, not a generic call, so nothing is compiled per type for it).
pub fn erased(expr: TokenStream) -> TokenStream {
    quote!(#expr as *const _ as *const u8)
}

/// `<Ty as ::extype::__private_v1::Field>::Spec`, for items outside the `const _` block.
pub fn spec_of(field: &Field) -> TokenStream {
    let ty = field.ty;
    let field_ty = field.field_ty();
    quote_spanned!(ty.span()=> <#field_ty as ::extype::__private_v1::Field>::Spec)
}

/// The field's key in the serialized spec: its name, or its position for tuple structs.
pub fn key(field: &Field) -> syn::LitStr {
    syn::LitStr::new(&field.path, Span::call_site())
}

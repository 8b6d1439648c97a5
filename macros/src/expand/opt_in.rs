//! The items a type asks for: `#[extype(getters)]` (a `&`-getter per named field, so the fields
//! can stay private and a value stays as its checked constructor made it),
//! `#[extype(display)]` (`Display` as `extype::display` prints any value) and
//! `#[extype(builder)]` (`Foo::builder().values(v).mask(m).build()`, TF's keyword constructor).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::context::Gen;

/// The getters and the `Display` impl the container's attributes ask for.
pub fn opt_in_items(g: &Gen) -> TokenStream {
    let getters = g.cont.attrs.getters.as_ref().map(|_| getters(g));
    let display = g.cont.attrs.display.as_ref().map(|_| display(g));
    let builder = g.cont.attrs.builder.as_ref().map(|_| builder_impls(g));
    quote!(#getters #display #builder)
}

/// The builder's name: `FooBuilder`.
fn builder_ident(g: &Gen) -> syn::Ident {
    format_ident!("{}Builder", g.cont.ident)
}

/// The named fields (the check pass refuses `getters` and `builder` on a tuple struct), each
/// with whether `build` must have it set: a skipped field, or one with `#[extype(default)]` (the
/// type's `Default`), takes its `Default` when never set.
fn named<'g>(g: &'g Gen) -> impl Iterator<Item = (&'g syn::Ident, &'g syn::Type, bool)> {
    g.cont.fields.iter().filter_map(|f| match &f.member {
        syn::Member::Named(ident) => {
            let has_default = !f.attrs.in_spec()
                || matches!(f.attrs.default, Some(crate::attr::DefaultAttr::Trait(_)));
            Some((ident, f.ty, !has_default))
        }
        syn::Member::Unnamed(_) => None,
    })
}

/// `struct FooBuilder { field: Option<Ty>, … }`, outside the `const _` block so users can name
/// it.
pub fn builder_definition(g: &Gen) -> TokenStream {
    if g.cont.attrs.builder.is_none() {
        return TokenStream::new();
    }
    let vis = g.cont.vis;
    let ident = builder_ident(g);
    let generics = g.cont.generics;
    let where_clause = &g.where_clause;
    let doc = format!(
        "Builds a [`{0}`] field by field, in any order (`{0}::builder().field(value)….build()`); \
         `build` checks the value as `{0}::try_new` does.",
        g.ident()
    );
    let fields = named(g).map(|(ident, ty, _)| quote!(#ident: ::core::option::Option<#ty>));
    quote! {
        #[doc = #doc]
        #[must_use = "a builder does nothing until `build` is called"]
        #vis struct #ident #generics #where_clause { #(#fields,)* }
    }
}

/// `Foo::builder()`, a setter per field and `build`: a spec field never set is an error naming
/// it; a skipped field or one with `#[extype(default)]` never set is its `Default`.
fn builder_impls(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let where_clause = &g.where_clause;
    let vis = g.cont.vis;
    let ident = builder_ident(g);
    let (_, ty_generics, _) = g.cont.generics.split_for_impl();
    let builder_ty = quote!(#ident #ty_generics);
    let type_name = g.cont.ident.to_string();
    let empty = named(g).map(|(ident, _, _)| quote!(#ident: ::core::option::Option::None));
    let setters = named(g).map(|(ident, ty, _)| {
        let doc = format!("Sets the field `{ident}`.");
        quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #ident(mut self, value: #ty) -> Self {
                self.#ident = ::core::option::Option::Some(value);
                self
            }
        }
    });
    let values = named(g).map(|(ident, _, required)| {
        let field = ident.to_string();
        if required {
            quote!(match self.#ident {
                ::core::option::Option::Some(value) => value,
                ::core::option::Option::None => {
                    return ::core::result::Result::Err(__x::unset_field(#type_name, #field))
                }
            })
        } else {
            quote!(self.#ident.unwrap_or_default())
        }
    });
    let builder_doc = format!("A [`{ident}`] with no field set.");
    quote! {
        #[automatically_derived]
        impl #impl_generics #self_ty #where_clause {
            #[doc = #builder_doc]
            #[inline]
            #vis fn builder() -> #builder_ty {
                #ident { #(#empty,)* }
            }
        }

        #[automatically_derived]
        impl #impl_generics #builder_ty #where_clause {
            #(#setters)*

            /// The value, checked as `try_new` checks it; a field never set is an error naming
            /// it.
            #[allow(clippy::too_many_arguments)]
            #vis fn build(self) -> __x::Result<#self_ty> {
                <#self_ty>::try_new(#(#values),*)
            }
        }
    }
}

/// `fn field(&self) -> &Ty` for every named field.
fn getters(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let where_clause = &g.where_clause;
    let vis = g.cont.vis;
    let methods = g.cont.fields.iter().filter_map(|f| {
        let syn::Member::Named(ident) = &f.member else {
            return None;
        };
        let ty = f.ty;
        let doc = format!(
            "The field `{ident}` (read-only: a value is built by `try_new`, which checks it)."
        );
        let name = format_ident!("{}", ident.to_string().trim_start_matches("r#"));
        Some(quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #name(&self) -> &#ty {
                &self.#ident
            }
        })
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #self_ty #where_clause {
            #(#methods)*
        }
    }
}

/// `Display` through `extype::display`: the dtype and shape when tensor-like, the spec, then
/// each component by field path.
fn display(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let where_clause = &g.where_clause;
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Display for #self_ty #where_clause {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Display::fmt(__x::display(self), f)
            }
        }
    }
}

//! `TypeSpec for FooSpec`, `ExtensionType for Foo` (with validation and the shape contract), the
//! checked constructor `Foo::try_new`, and the registry entry.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::context::Gen;
use crate::ast::Style;
use crate::attr::TensorLikeAttr;

/// `static __CONTRACT: ShapeContract` when some field has `#[extype(shape = "…")]`.
pub fn contract_static(g: &Gen) -> TokenStream {
    let entries: Vec<_> = contract_fields(g)
        .map(|(f, lit)| {
            let key = &f.path;
            quote!((#key, #lit))
        })
        .collect();
    if entries.is_empty() {
        return TokenStream::new();
    }
    let name = g.name_expr();
    quote! {
        static __CONTRACT: __x::ShapeContract =
            __x::ShapeContract::new(#name, &[#(#entries),*]);
    }
}

fn contract_fields<'g>(
    g: &'g Gen,
) -> impl Iterator<Item = (&'g crate::ast::Field<'g>, &'g syn::LitStr)> {
    g.fields()
        .iter()
        .filter_map(|f| f.attrs.shape.as_ref().map(|lit| (f, lit)))
}

pub fn traits(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let name = g.name_expr();
    let constructor = constructor(g);
    let refine_method = refine_method(g);
    let registration = registration(g);
    let (like_methods, like_impls) = tensor_like(g);
    quote! {
        #[automatically_derived]
        // SAFETY: `FooSpec` is the spec type `Foo`'s table describes.
        unsafe impl #impl_generics __x::DerivedSpec for #spec_ty #where_clause {
            type Value = #self_ty;
        }

        #[automatically_derived]
        impl #impl_generics __x::ExtensionType for #self_ty #where_clause {
            type Spec = #spec_ty;
            const NAME: &'static str = #name;

            // SAFETY: `DESC` describes `Self` and its spec (the `Derived` impl).
            const VALUE: ::core::option::Option<__x::ValueTable<Self>> =
                ::core::option::Option::Some(unsafe {
                    __x::ValueTable::new(<Self as __x::Derived>::DESC)
                });

            #like_methods
        }

        #like_impls
        #constructor
        #refine_method
        #registration
    }
}

/// Under `#[extype(tensor_like …)]`: the `ExtensionType` methods that show the value and its spec
/// as one tensor, and with `tensor_like = field` the `TensorLike` impls of the type and its spec,
/// which delegate to that field (the spec's field of the same name).
fn tensor_like(g: &Gen) -> (TokenStream, TokenStream) {
    let Some(attr) = &g.cont.attrs.tensor_like else {
        return (TokenStream::new(), TokenStream::new());
    };
    let span = match attr {
        TensorLikeAttr::Manual(path) => path.span(),
        TensorLikeAttr::Field(member) => member.span(),
    };
    // Only the coercions carry the attribute's span (a missing `TensorLike` impl is reported
    // there). The signatures carry the type's name, as the impl does: a missing `Clone` (which
    // every method of the impl requires) is then one diagnostic, at the type, which rustc prints
    // once, rather than a second one at the attribute.
    let value = quote_spanned!(span=> ::core::option::Option::Some(self));
    let spec = quote_spanned!(span=> ::core::option::Option::Some(spec));
    let methods = quote_spanned! {g.cont.ident.span()=>
        #[inline]
        fn as_tensor_like(&self) -> ::core::option::Option<&dyn __x::TensorLike> {
            #value
        }
        #[inline]
        fn spec_as_tensor_like(
            spec: &Self::Spec,
        ) -> ::core::option::Option<&dyn __x::TensorLike> {
            #spec
        }
    };
    let TensorLikeAttr::Field(member) = attr else {
        return (methods, TokenStream::new());
    };
    if !g.fields().iter().any(|f| f.member == *member) {
        // Reported by the check pass.
        return (methods, TokenStream::new());
    }
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let delegate = |this: TokenStream| {
        quote_spanned! {span=>
            #[inline]
            fn dtype(&self) -> __x::DType {
                __x::TensorLike::dtype(&#this.#member)
            }
            #[inline]
            fn shape(&self) -> __x::Shape {
                __x::TensorLike::shape(&#this.#member)
            }
            #[inline]
            fn rank(&self) -> ::core::option::Option<usize> {
                __x::TensorLike::rank(&#this.#member)
            }
        }
    };
    let value_methods = delegate(quote!(self));
    let spec_methods = delegate(quote!(self));
    let impls = quote! {
        #[automatically_derived]
        impl #impl_generics __x::TensorLike for #self_ty #where_clause {
            #value_methods
        }

        #[automatically_derived]
        impl #impl_generics __x::TensorLike for #spec_ty #where_clause {
            #spec_methods
        }
    };
    (methods, impls)
}

/// The registry entry of a non-generic type (a generic one is registered per instantiation with
/// `register!`). The entry reaches the type's table through a probe (`__private_v1::Probe`): a
/// `static` cannot carry the impls' field bounds, and naming the impls here would report an
/// unsupported field type a second time.
fn registration(g: &Gen) -> TokenStream {
    if g.is_generic() {
        return TokenStream::new();
    }
    let self_ty = g.self_ty();
    let name = g.name_expr();
    quote! {
        fn __extype_desc() -> ::core::option::Option<&'static __x::StructDesc> {
            #[allow(unused_imports)]
            use __x::{NotDerived as _, ProbeDerived as _};
            (&__x::Probe::<#self_ty>::NEW).derived_desc()
        }
        __x::inventory::submit! {
            __x::RegistryEntry::derived::<#self_ty>(#name, ::core::file!(), ::core::line!(), __extype_desc)
        }
    }
}

/// The table's `validate`: the user's `validate = path` as an untyped function, or `None`.
pub fn user_validate(g: &Gen) -> TokenStream {
    match &g.cont.attrs.validate {
        Some(path) => {
            // Bound to a fn pointer first so a wrong signature is reported at the path.
            let check = quote_spanned! {path.span()=>
                let __user_validate: fn(&Self) -> __x::Result<()> = #path;
            };
            quote! {
                ::core::option::Option::Some({
                    #check
                    __x::derived::erase_validate(__user_validate)
                })
            }
        }
        None => quote!(::core::option::Option::None),
    }
}

/// `Foo::try_new(fields…)`: builds the value and runs its validation.
fn constructor(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let where_clause = &g.where_clause;
    let vis = g.cont.vis;
    let args: Vec<_> = g
        .fields()
        .iter()
        .map(|f| match &f.member {
            syn::Member::Named(ident) => quote!(#ident),
            syn::Member::Unnamed(index) => {
                let ident = format_ident!("field_{}", index.index);
                quote!(#ident)
            }
        })
        .collect();
    let tys = g.fields().iter().map(|f| f.ty);
    let value = match g.cont.style {
        Style::Named => quote!(Self { #(#args),* }),
        Style::Tuple => quote!(Self ( #(#args),* )),
        Style::Unit => quote!(Self {}),
    };
    let doc = format!(
        "Builds a [`{}`] from its fields, checking its shape contract and validation.",
        g.ident()
    );
    quote! {
        #[automatically_derived]
        impl #impl_generics #self_ty #where_clause {
            #[doc = #doc]
            #[allow(clippy::too_many_arguments)]
            // Inline: codegened only where it is called, not in every crate that derives.
            #[inline]
            #vis fn try_new(#(#args: #tys),*) -> __x::Result<Self> {
                __x::validated(#value, &__x::FieldPath::Root)
            }
        }
    }
}

/// `FooSpec::refine_shapes`, when the type has a shape contract: refines a (hand-written, partial)
/// spec with what the contract implies.
fn refine_method(g: &Gen) -> TokenStream {
    if contract_fields(g).next().is_none() {
        return TokenStream::new();
    }
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let vis = g.cont.vis;
    let doc = format!(
        "Refines the shapes of this spec with the shape contract of [`{}`]; fails when no value \
         could satisfy both.",
        g.ident()
    );
    quote! {
        #[automatically_derived]
        impl #impl_generics #spec_ty #where_clause {
            #[doc = #doc]
            #[inline]
            #vis fn refine_shapes(&mut self) -> __x::Result<()> {
                __x::derived::refine::<#self_ty>(self)
            }
        }
    }
}

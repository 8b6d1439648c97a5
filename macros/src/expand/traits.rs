//! `TypeSpec for FooSpec`, `ExtensionType for Foo` (with validation and the shape contract), the
//! checked constructor `Foo::try_new`, and the registry entry.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::Gen;
use crate::ast::Style;

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

fn as_shaped(f: &crate::ast::Field) -> TokenStream {
    let ty = f.ty;
    quote_spanned!(ty.span()=> <#ty as __x::ShapedField>)
}

/// Refines the constrained fields' shapes in the spec bound to `spec` (a `FooSpec` place).
pub fn refine_call(g: &Gen, spec: TokenStream) -> TokenStream {
    let shapes: Vec<_> = contract_fields(g)
        .map(|(f, _)| {
            let m = &f.member;
            let shaped = as_shaped(f);
            quote!(#shaped::spec_shape_mut(&mut #spec.#m))
        })
        .collect();
    if shapes.is_empty() {
        return TokenStream::new();
    }
    quote!(__CONTRACT.refine(__path, &mut [#(#shapes),*])?;)
}

pub fn traits(g: &Gen) -> TokenStream {
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let where_clause = &g.where_clause;
    let n = g.fields().len();
    let name = g.name_expr();
    let validate = validate_fn(g);
    let constructor = constructor(g);
    let refine_method = refine_method(g);
    let registration = registration(g);
    quote! {
        #[automatically_derived]
        impl #impl_generics __x::TypeSpec for #spec_ty #where_clause {
            type Value = #self_ty;

            #[inline]
            fn component_specs(&self) -> ::std::vec::Vec<__x::TensorSpec> {
                __x::component_specs::<#self_ty>(self)
            }
            #[inline]
            fn num_components(&self) -> usize {
                <#self_ty as __x::Field>::num_components(self)
            }
            fn component_paths(&self) -> ::std::vec::Vec<::std::string::String> {
                __x::component_paths::<#self_ty>(self)
            }
            #[inline]
            fn to_components<'__a>(
                &self,
                __value: &'__a #self_ty,
            ) -> ::std::vec::Vec<__x::TensorView<'__a>> {
                __x::to_components(__value, #n)
            }
            #[inline]
            fn from_components(
                &self,
                __components: ::std::vec::Vec<__x::Tensor>,
            ) -> __x::Result<#self_ty> {
                __x::from_components::<#self_ty>(self, __components)
            }
            fn serialize(&self) -> __x::SpecValue {
                <#self_ty as __x::Field>::spec_to_value(self)
            }
            fn deserialize(__value: &__x::SpecValue) -> __x::Result<Self> {
                <#self_ty as __x::Field>::spec_from_value(__value, &__x::FieldPath::Root)
            }
            #[inline]
            fn is_compatible_with(&self, __other: &Self) -> bool {
                <#self_ty as __x::Field>::spec_is_compatible(self, __other)
            }
            #[inline]
            fn most_specific_compatible(&self, __other: &Self) -> ::core::option::Option<Self> {
                <#self_ty as __x::Field>::spec_most_specific_compatible(self, __other)
            }
        }

        #[automatically_derived]
        impl #impl_generics __x::ExtensionType for #self_ty #where_clause {
            type Spec = #spec_ty;
            const NAME: &'static str = #name;

            #[inline]
            fn spec(&self) -> #spec_ty {
                <#self_ty as __x::Field>::field_spec(self)
            }
            #[inline]
            fn into_components(self) -> ::std::vec::Vec<__x::Tensor> {
                __x::into_components(self, #n)
            }
            #validate
        }

        #constructor
        #refine_method
        #registration
    }
}

/// The registry entry of a non-generic type (a generic one is registered per instantiation with
/// `register!`).
///
/// `RegistryEntry::new::<Foo>` is the one place that proves each field type implements `Field`
/// (the impls only assume it, see `Gen::new`). It is reached through a chain of const fns, one
/// per field: `__entry_k` assumes the bounds of fields `0..k` and calls `__entry_{k+1}`, which
/// also needs field `k`'s bound; that call is spanned on field `k`'s type. So each unsupported
/// field type is reported exactly once, at the field, through `Field`'s `on_unimplemented`.
fn registration(g: &Gen) -> TokenStream {
    if g.is_generic() {
        return TokenStream::new();
    }
    let self_ty = g.self_ty();
    let name = g.name_expr();
    let fields = g.fields();
    // Spans run from the type's first token to its last, so errors underline the whole type
    // (stable proc macros cannot join spans; rustc joins an expression's first and last token).
    let bounds: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let ty = f.ty;
            let (first, last) = first_and_last_span(ty);
            // The bound's path too, for rustc's "required by this bound" note.
            let module = syn::Ident::new("__x", first);
            let field_trait = syn::Ident::new("Field", last);
            let trait_path = quote!(#module::#field_trait);
            quote_spanned!(first=> for<'__f> #ty: #trait_path)
        })
        .collect();
    let step = |k: usize| format_ident!("__entry_{}", k);
    let where_clause = |assumed: &[TokenStream]| {
        if assumed.is_empty() {
            TokenStream::new()
        } else {
            quote!(where #(#assumed),*)
        }
    };
    let last = step(fields.len());
    let all = where_clause(&bounds);
    let mut steps = vec![quote! {
        const fn #last() -> __x::RegistryEntry #all {
            __x::RegistryEntry::new::<#self_ty>(#name, ::core::file!(), ::core::line!())
        }
    }];
    for (k, field) in fields.iter().enumerate() {
        let this = step(k);
        // rustc reports an unmet where clause of a call at the callee's path, so the callee's
        // name and its argument list carry the spans of the field type's first and last tokens.
        let (first, last) = first_and_last_span(field.ty);
        let next = syn::Ident::new(&step(k + 1).to_string(), first);
        let mut arguments =
            proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, TokenStream::new());
        arguments.set_span(last);
        let call = quote!(#next #arguments);
        let assumed = where_clause(&bounds[..k]);
        steps.push(quote! {
            const fn #this() -> __x::RegistryEntry #assumed { #call }
        });
    }
    quote! {
        #(#steps)*
        __x::inventory::submit! { __entry_0() }
    }
}

/// The spans of the first and the last token of `ty`.
fn first_and_last_span(ty: &syn::Type) -> (proc_macro2::Span, proc_macro2::Span) {
    let mut tokens = quote!(#ty).into_iter();
    let first = tokens.next().map_or_else(|| ty.span(), |t| t.span());
    let last = tokens.last().map_or(first, |t| t.span());
    (first, last)
}

/// `fn validate`: the shape contract, then the user's `validate = path`; absent when neither.
fn validate_fn(g: &Gen) -> TokenStream {
    let shapes: Vec<_> = contract_fields(g)
        .map(|(f, _)| {
            let m = &f.member;
            let shaped = as_shaped(f);
            quote!(#shaped::concrete_shape(&self.#m))
        })
        .collect();
    let contract = (!shapes.is_empty())
        .then(|| quote!(__CONTRACT.check(&__x::FieldPath::Root, &[#(#shapes),*])?;));
    let user = g.cont.attrs.validate.as_ref().map(|path| {
        // Bound to a fn pointer first so a wrong signature is reported at the path.
        quote_spanned! {path.span()=>
            let __user_validate: fn(&Self) -> __x::Result<()> = #path;
            __user_validate(self)?;
        }
    });
    if contract.is_none() && user.is_none() {
        return TokenStream::new();
    }
    quote! {
        fn validate(&self) -> __x::Result<()> {
            #contract
            #user
            ::core::result::Result::Ok(())
        }
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
    let call = refine_call(g, quote!(self));
    if call.is_empty() {
        return TokenStream::new();
    }
    let impl_generics = g.impl_generics();
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
                let __path = &__x::FieldPath::Root;
                #call
                ::core::result::Result::Ok(())
            }
        }
    }
}

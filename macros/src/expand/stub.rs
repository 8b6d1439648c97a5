//! What is emitted beside errors: the spec type and trait impls with unreachable bodies, so that
//! uses of the type elsewhere type-check and the user sees the real error once, not a cascade.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::Gen;

pub fn stub(g: &Gen) -> TokenStream {
    let vis = g.cont.vis;
    let spec_ident = &g.spec_ident;
    let impl_generics = g.impl_generics();
    let self_ty = g.self_ty();
    let spec_ty = g.spec_ty();
    let generics = g.cont.generics;
    let where_clause = &g.cont.generics.where_clause;
    let params: Vec<_> = g.cont.generics.type_params().map(|p| &p.ident).collect();
    let door = crate::door::open();
    quote! {
        #vis struct #spec_ident #generics #where_clause {
            __marker: ::core::marker::PhantomData<fn() -> (#(#params,)*)>,
        }

        #[allow(unused_variables, clippy::all)]
        const _: () = {
            #door
            impl #impl_generics ::core::clone::Clone for #spec_ty #where_clause {
                fn clone(&self) -> Self { ::core::unreachable!() }
            }
            impl #impl_generics ::core::fmt::Debug for #spec_ty #where_clause {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { ::core::unreachable!() }
            }
            impl #impl_generics ::core::cmp::PartialEq for #spec_ty #where_clause {
                fn eq(&self, o: &Self) -> bool { ::core::unreachable!() }
            }
            impl #impl_generics ::core::cmp::Eq for #spec_ty #where_clause {}
            impl #impl_generics ::core::hash::Hash for #spec_ty #where_clause {
                fn hash<__H: ::core::hash::Hasher>(&self, h: &mut __H) { ::core::unreachable!() }
            }
            impl #impl_generics __x::TypeSpec for #spec_ty #where_clause {
                type Value = #self_ty;
                fn component_specs(&self) -> ::std::vec::Vec<__x::TensorSpec> { ::core::unreachable!() }
                fn to_components<'__a>(&self, v: &'__a #self_ty) -> ::std::vec::Vec<__x::TensorView<'__a>> { ::core::unreachable!() }
                fn from_components(&self, c: ::std::vec::Vec<__x::Tensor>) -> __x::Result<#self_ty> { ::core::unreachable!() }
                fn serialize(&self) -> __x::SpecTree { ::core::unreachable!() }
                fn deserialize(v: &__x::SpecTree) -> __x::Result<Self> { ::core::unreachable!() }
                fn is_compatible_with(&self, o: &Self) -> bool { ::core::unreachable!() }
                fn most_specific_compatible(&self, o: &Self) -> ::core::option::Option<Self> { ::core::unreachable!() }
            }
            impl #impl_generics __x::ExtensionType for #self_ty #where_clause {
                type Spec = #spec_ty;
                const NAME: &'static str = "";
                fn spec(&self) -> #spec_ty { ::core::unreachable!() }
                fn into_components(self) -> ::std::vec::Vec<__x::Tensor> { ::core::unreachable!() }
            }
        };
    }
}

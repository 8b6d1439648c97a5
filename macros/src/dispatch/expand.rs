//! Code generation for a handler: a wrapper with the table's calling convention, its parameter
//! kinds, and one `inventory` entry, inside `const _: () = { … };`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::handler::{Handler, Param, Target};
use extype_shape::signature::OpKind;

pub fn handler(h: &Handler) -> TokenStream {
    let ident = h.ident;
    let name = ident.to_string();
    let mut binds = Vec::new();
    let mut call_args = Vec::new();
    let mut kinds = Vec::new();
    if let Some(kind) = h.group {
        let op_ty = match kind {
            OpKind::UnaryElementwise => quote!(__x::UnaryOp),
            OpKind::BinaryElementwise => quote!(__x::BinaryOp),
            _ => quote!(__x::ReductionOp),
        };
        binds.push(quote!(let __op = #op_ty::new(__call);));
        call_args.push(quote!(&__op));
    }
    let mut i = 0usize;
    for (j, (param, span)) in h.params.iter().enumerate() {
        let a = format_ident!("__a{}", j);
        if let Param::Args = param {
            call_args.push(quote!(__call.args));
            continue;
        }
        let declined = quote!(return ::core::result::Result::Ok(__x::Handled::Declined));
        match param {
            Param::Extension(ty) => {
                binds.push(quote_spanned! {*span=>
                    let #a: &#ty = match __x::arg_extension::<#ty>(__args, #i) {
                        ::core::option::Option::Some(v) => v,
                        ::core::option::Option::None => #declined,
                    };
                });
                call_args.push(quote!(#a));
                kinds.push(quote_spanned!(*span=> __x::ParamKind::extension::<#ty>()));
            }
            Param::Tensor => {
                binds.push(quote! {
                    let #a = match __x::arg_tensor(__args, #i) {
                        ::core::option::Option::Some(v) => v,
                        ::core::option::Option::None => #declined,
                    };
                });
                call_args.push(quote!(&*#a));
                kinds.push(quote!(__x::ParamKind::Tensor));
            }
            Param::Value => {
                binds.push(quote! {
                    let #a = match __x::arg_value(__args, #i) {
                        ::core::option::Option::Some(v) => v?,
                        ::core::option::Option::None => #declined,
                    };
                });
                call_args.push(quote!(&#a));
                kinds.push(quote!(__x::ParamKind::Any));
            }
            Param::Operand => {
                binds.push(quote! {
                    let #a = match __args.get(#i) {
                        ::core::option::Option::Some(v) => v,
                        ::core::option::Option::None => #declined,
                    };
                });
                call_args.push(quote!(#a));
                kinds.push(quote!(__x::ParamKind::Any));
            }
            Param::Args => {}
        }
        i += 1;
    }
    let target = match &h.target {
        Target::Op(op) => quote!(__x::Target::Op(#op)),
        Target::Group(kind) => {
            let k = match kind {
                OpKind::UnaryElementwise => quote!(UnaryElementwise),
                OpKind::BinaryElementwise => quote!(BinaryElementwise),
                OpKind::Reduction => quote!(Reduction),
                OpKind::Other => quote!(Other),
            };
            quote!(__x::Target::Group(__x::OpKind::#k))
        }
    };
    let (infer_fn, infer) = match h.infer {
        Some(path) => (
            quote! {
                fn __extype_infer<'__c, '__s>(
                    __call: &__x::Call<'__c>,
                    __specs: &[&'__s __x::ValueSpec],
                ) -> __x::Result<::core::option::Option<__x::Inferred>> {
                    __x::IntoInferred::into_inferred(#path(__call, __specs))
                }
            },
            quote!(::core::option::Option::Some(__extype_infer)),
        ),
        None => (quote!(), quote!(::core::option::Option::None)),
    };
    let result_span = h.span;
    let invoke =
        quote_spanned!(result_span=> __x::IntoHandled::into_handled(#ident(#(#call_args),*)));
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            use ::extype::__private as __x;

            #[automatically_derived]
            fn __extype_handler<'__c, '__a>(
                __call: &__x::Call<'__c>,
                __args: &[__x::Operand<'__a>],
            ) -> __x::Result<__x::Handled> {
                let _ = __call;
                #(#binds)*
                #invoke
            }

            #infer_fn

            const __PARAMS: &[__x::ParamKind] = &[#(#kinds),*];

            __x::inventory::submit! {
                __x::DispatchEntry::new(
                    #target,
                    __PARAMS,
                    __extype_handler,
                    #infer,
                    #name,
                    ::core::file!(),
                    ::core::line!(),
                )
            }
        };
    }
}

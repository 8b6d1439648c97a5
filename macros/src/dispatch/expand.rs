//! Code generation for a handler: a wrapper with the table's calling convention, its parameter
//! kinds, and one `inventory` entry, inside `const _: () = { … };`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::handler::{Handler, Target, group_op_type};
use extype_shape::signature::OpKind;

fn kind_variant(kind: OpKind) -> TokenStream {
    match kind {
        OpKind::UnaryElementwise => quote!(UnaryElementwise),
        OpKind::BinaryElementwise => quote!(BinaryElementwise),
        OpKind::Reduction => quote!(Reduction),
        OpKind::Other => quote!(Other),
    }
}

/// `::core::panic!(message)` whose span runs from `start` to `end` (a const-evaluation error
/// points there).
fn panic_spanned(start: Span, end: Span, message: &str) -> TokenStream {
    let head = quote_spanned!(start=> ::core::panic);
    let tail = quote_spanned!(end=> !(#message));
    quote!(#head #tail)
}

/// The generated code, inside `const _: () = { … };`:
///
/// - `__Handler<'__c, '__a>`, a type only used for its impl, which names each parameter's trait
///   (`HandlerParam<'__a>`, `GroupParam<'__c>`) exactly once for both the const data (`KINDS`)
///   and the wrapper's body (`run`): so a type that is not a handler parameter is one error, not
///   one per use (rustc merges identical diagnostics).
/// - `__KINDS`, `__PARAMS` (the dispatched parameters' kinds), `__INDEX` (each parameter's
///   position among the dispatched arguments): computed at compile time from the types.
/// - `const` checks of the dispatched count against the op (only the counts that do not fit are
///   listed, with their messages) and of the group op's kind.
/// - `__extype_handler`, the table's calling convention, and the `inventory` entry.
pub fn handler(h: &Handler) -> TokenStream {
    let ident = h.ident;
    let name = ident.to_string();
    let mut impl_items = Vec::new();
    let mut checks = Vec::new();
    let mut op_bind = quote!();
    let mut call_args = Vec::new();
    if let Some((kind, op_ty)) = h.group {
        let span = op_ty.span();
        let variant = kind_variant(kind);
        let message = format!(
            "the first argument of a `{}` handler is the op: `op: &{}`",
            kind.group_name(),
            group_op_type(kind)
        );
        let panic = panic_spanned(span, span, &message);
        impl_items.push(quote_spanned! {span=>
            const GROUP: bool = ::core::matches!(
                <#op_ty as __x::GroupParam<'__c>>::KIND,
                __x::OpKind::#variant
            );
        });
        checks.push(quote! {
            const _: () = if !__Handler::<'static, 'static>::GROUP {
                #panic
            };
        });
        op_bind = quote_spanned!(span=> let __op = <#op_ty as __x::GroupParam<'__c>>::new(__call););
        call_args.push(quote!(&__op));
    }
    let tys = &h.params;
    let n = tys.len();
    let idents: Vec<_> = tys
        .iter()
        .enumerate()
        .map(|(j, ty)| format_ident!("__a{}", j, span = ty.span()))
        .collect();
    call_args.extend(idents.iter().map(|a| quote!(#a)));
    let result_span = h.span;
    // Innermost first: the call of the user's function, then one `with` per parameter around it.
    // The result is bound first, so that a return type without `IntoHandled` is reported at
    // the return type.
    let result = format_ident!("__result", span = result_span);
    let into_handled = quote_spanned!(result_span=> __x::IntoHandled::into_handled(#result));
    let mut body = quote! {{
        let #result = #ident(#(#call_args),*);
        #into_handled
    }};
    for (j, (ty, a)) in tys.iter().zip(&idents).enumerate().rev() {
        body = quote_spanned! {ty.span()=>
            <#ty as __x::HandlerParam<'__a>>::with(__call, __args, __INDEX[#j], |#a| #body)
        };
    }
    let kinds = tys
        .iter()
        .map(|ty| quote_spanned!(ty.span()=> <#ty as __x::HandlerParam<'__a>>::KIND));
    impl_items.push(quote! {
        const KINDS: &'static [::core::option::Option<__x::ParamKind>] = &[#(#kinds),*];
    });
    if !h.bad_counts.is_empty() {
        let (start, end) = h.inputs_span;
        let arms = h.bad_counts.iter().map(|(count, message)| {
            let panic = panic_spanned(start, end, message);
            quote!(#count => #panic,)
        });
        checks.push(quote! {
            const _: () = match __DISPATCHED {
                #(#arms)*
                _ => {}
            };
        });
    }
    let target = match &h.target {
        Target::Op(op) => quote!(__x::Target::Op(#op)),
        Target::Group(kind) => {
            let k = kind_variant(*kind);
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
    // Without `infer = …`: the default its return type gives (component-wise inference for an
    // extension type, the dense inference for `Tensor`), read through `IntoHandled`.
    let default_infer = match (h.infer, h.ret) {
        (None, Some(ret)) => quote_spanned! {result_span=>
            .with_default_infer(<#ret as __x::IntoHandled>::DEFAULT_INFER)
        },
        _ => quote!(),
    };
    let index = if n == 0 {
        quote!()
    } else {
        quote!(const __INDEX: [usize; #n] = __x::dispatch_indices::<#n>(__KINDS);)
    };
    let door = crate::door::open();
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            #door

            #[allow(dead_code)]
            struct __Handler<'__c, '__a>(::core::marker::PhantomData<(&'__c (), &'__a ())>);

            impl<'__c, '__a> __Handler<'__c, '__a> {
                #(#impl_items)*

                #[inline]
                fn run(
                    __call: &__x::Call<'__c>,
                    __args: &[__x::Operand<'__a>],
                ) -> __x::Result<__x::Handled> {
                    let _ = (__call, __args);
                    #op_bind
                    #body
                }
            }

            // What each parameter is, from its type: the dispatched ones (`&OpArgs` is not) and
            // each one's position among them.
            const __KINDS: &[::core::option::Option<__x::ParamKind>] =
                __Handler::<'static, 'static>::KINDS;
            const __DISPATCHED: usize = __x::dispatched_count(__KINDS);
            const __PARAMS: &[__x::ParamKind] = &__x::dispatched_params::<__DISPATCHED>(__KINDS);
            #index
            #(#checks)*

            #[automatically_derived]
            fn __extype_handler<'__c, '__a>(
                __call: &__x::Call<'__c>,
                __args: &[__x::Operand<'__a>],
            ) -> __x::Result<__x::Handled> {
                __Handler::<'__c, '__a>::run(__call, __args)
            }

            #infer_fn

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
                #default_infer
            }
        };
    }
}

//! The model of a handler function, read from its signature and checked.

use extype_shape::signature::{Arity, MAX_DISPATCH_ARGS as MAX_KEY, OpKind};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Path, ReturnType, Type};

use super::attr::{Args, TargetSpec};
use crate::ctxt::Ctxt;

/// What the handler registers for, as code.
pub enum Target {
    Op(TokenStream),
    Group(OpKind),
}

/// A checked handler. Its parameters are classified by trait in the generated code
/// (`HandlerParam`, `GroupParam`), never here by their types' names.
pub struct Handler<'a> {
    pub ident: &'a Ident,
    pub target: Target,
    /// For a group handler: its kind and the type `P` of its leading `op: &P`.
    pub group: Option<(OpKind, &'a Type)>,
    /// The pointee type `P` of each other parameter `x: &P`.
    pub params: Vec<&'a Type>,
    /// The numbers of dispatched arguments (`&OpArgs` parameters do not count) that do not fit
    /// the op, or that mean two `&OpArgs`, each with its message; checked by a `const` item in
    /// the generated code, since only the types say which parameters are dispatched.
    pub bad_counts: Vec<(usize, String)>,
    /// Where count errors point: the parameter list (or the name if there is none).
    pub inputs_span: (Span, Span),
    pub infer: Option<&'a Path>,
    /// Where type errors about the result point: the return type (or the name if none).
    pub span: Span,
    /// The return type (read through `IntoHandled` for the default spec inference).
    pub ret: Option<&'a Type>,
}

/// How many dispatched arguments a group handler takes after its op.
fn group_arity(kind: OpKind) -> usize {
    if kind == OpKind::BinaryElementwise {
        2
    } else {
        1
    }
}

/// The type of a group handler's op argument, as the user writes it.
pub fn group_op_type(kind: OpKind) -> &'static str {
    match kind {
        OpKind::UnaryElementwise => "UnaryOp",
        OpKind::BinaryElementwise => "BinaryOp",
        OpKind::Reduction => "ReductionOp",
        OpKind::Other => "",
    }
}

impl<'a> Handler<'a> {
    /// Reads `f`'s signature against the attribute's target, recording every problem in `cx`.
    pub fn from_fn(cx: &Ctxt, args: &'a Args, f: &'a ItemFn) -> Option<Handler<'a>> {
        let sig = &f.sig;
        let cx = &Counting {
            cx,
            count: std::cell::Cell::new(0),
        };
        let before = 0;
        if let Some(a) = &sig.asyncness {
            cx.error_spanned_by(
                a,
                "a dispatch handler cannot be `async`: ops run synchronously; make it a plain \
                 `fn`",
            );
        }
        if let Some(u) = &sig.unsafety {
            cx.error_spanned_by(u, "a dispatch handler cannot be `unsafe fn`");
        }
        if let Some(abi) = &sig.abi {
            cx.error_spanned_by(abi, "a dispatch handler cannot have an `extern` ABI");
        }
        if let Some(v) = &sig.variadic {
            cx.error_spanned_by(v, "a dispatch handler cannot be variadic");
        }
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            let generics = &sig.generics;
            cx.error_spanned_by(
                quote!(#generics),
                "a dispatch handler cannot be generic: its key is read from the concrete \
                 argument types; write one handler per type (or take `&Value` for any type)",
            );
        }
        check_return(cx, sig);

        let (target, group, arity_desc): (Target, Option<OpKind>, Option<(Arity, String)>) =
            match &args.target {
                TargetSpec::Catalog { op, ident } => {
                    let konst = Ident::new(&op.name.to_uppercase(), ident.span());
                    (
                        Target::Op(quote!(&__x::catalog::#konst)),
                        None,
                        Some((
                            op.arity,
                            format!("`{ident}` is a {} op", kind_words(op.kind)),
                        )),
                    )
                }
                TargetSpec::Group { kind } => (Target::Group(*kind), Some(*kind), None),
                TargetSpec::User { path } => (Target::Op(quote!(&#path)), None, None),
                // Handled by the caller.
                TargetSpec::Operators { .. } => return None,
            };

        let mut inputs = sig.inputs.iter();
        let mut group_ty = None;
        if let Some(kind) = group {
            let want = group_op_type(kind);
            match inputs.next() {
                Some(FnArg::Typed(pt)) => match &*pt.ty {
                    Type::Reference(r) if r.mutability.is_none() => group_ty = Some(&*r.elem),
                    _ => cx.error_spanned_by(
                        pt,
                        format!(
                            "the first argument of a `{}` handler is the op: `op: &{want}`",
                            kind.group_name()
                        ),
                    ),
                },
                Some(arg) => cx.error_spanned_by(
                    arg,
                    format!(
                        "the first argument of a `{}` handler is the op: `op: &{want}`",
                        kind.group_name()
                    ),
                ),
                None => cx.error_spanned_by(
                    &sig.ident,
                    format!(
                        "a `{}` handler takes the op first: `fn {}(op: &{want}, …)`",
                        kind.group_name(),
                        sig.ident
                    ),
                ),
            }
        }

        let mut params = Vec::new();
        for arg in inputs {
            match arg {
                FnArg::Receiver(r) => cx.error_spanned_by(
                    r,
                    "a dispatch handler is a free function; it cannot take `self`",
                ),
                FnArg::Typed(pt) => {
                    if let Some(p) = param(cx, &pt.ty) {
                        params.push(p);
                    }
                }
            }
        }

        // Which parameters are dispatched is known only to the types (`&OpArgs` is not), but a
        // handler takes at most one `&OpArgs`: the count is `n` or `n - 1`. When neither fits,
        // the signature is wrong whatever the types, and said here; otherwise each count that
        // does not fit gets a message, and the generated code checks the real one.
        let n = params.len();
        // Why `count` dispatched arguments do not fit: (which check, message). `takes` says the
        // count in the message.
        let judge = |count: usize, takes: &str| -> Option<(u8, String)> {
            if count > MAX_KEY {
                return Some((
                    0,
                    format!(
                        "a dispatch handler takes at most {MAX_KEY} dispatched arguments, found {takes}"
                    ),
                ));
            }
            if let Some(kind) = group {
                let want = group_arity(kind);
                if count != want {
                    return Some((
                        1,
                        format!(
                            "a `{}` handler takes the op and {want} argument{}, found {takes}",
                            kind.group_name(),
                            if want == 1 { "" } else { "s" }
                        ),
                    ));
                }
            }
            if let Some((arity, what)) = &arity_desc
                && !arity.admits(count)
            {
                return Some((
                    2,
                    format!(
                        "wrong number of arguments: {what} taking {arity}, the handler takes {takes}"
                    ),
                ));
            }
            None
        };
        let mut bad_counts: Vec<(usize, String)> = Vec::new();
        for count in 0..=n {
            let message = if count + 1 < n {
                Some(format!(
                    "a dispatch handler takes at most one `&OpArgs` parameter (the call's extra \
                     arguments), found {}",
                    n - count
                ))
            } else if count == n {
                judge(count, &format!("{n} (none of its parameters is `&OpArgs`)")).map(|(_, m)| m)
            } else {
                judge(count, &format!("{count} besides its `&OpArgs`")).map(|(_, m)| m)
            };
            if let Some(message) = message {
                bad_counts.push((count, message));
            }
        }
        let at = if sig.inputs.is_empty() {
            sig.ident.to_token_stream()
        } else {
            sig.inputs.to_token_stream()
        };
        let fits = |count: usize| judge(count, "").is_none();
        if !fits(n) && (n == 0 || !fits(n - 1)) && cx_errors(cx) == before {
            // No count fits, whatever the types: a plain error now.
            let said = |count: usize, takes: &str| judge(count, takes).unwrap_or_default();
            let mut message = match n.checked_sub(1) {
                // One parameter: the count is 1 (or 0, which no op takes).
                Some(0) => said(n, "1").1,
                // The same check fails both ways: one message, with both counts.
                Some(m) if said(m, "").0 == said(n, "").0 => {
                    said(n, &format!("{n} (or {m} besides an `&OpArgs`)")).1
                }
                Some(m) => format!(
                    "{}; with one of them `&OpArgs`: {}",
                    said(n, &n.to_string()).1,
                    said(m, &m.to_string()).1
                ),
                None => said(n, "0").1,
            };
            if let Some(kind) = group
                && n + 1 == group_arity(kind)
            {
                message.push_str(&format!(
                    "; is the op missing? The first argument is the op: `op: &{}`",
                    group_op_type(kind)
                ));
            }
            cx.error_spanned_by(at.clone(), message);
        }
        if cx_errors(cx) != before {
            return None;
        }
        let mut spans = at.into_iter().map(|t| t.span());
        let first = spans.next().unwrap_or_else(|| sig.ident.span());
        let last = spans.last().unwrap_or(first);
        Some(Handler {
            ident: &sig.ident,
            target,
            group: group.zip(group_ty),
            params,
            bad_counts,
            inputs_span: (first, last),
            infer: args.infer.as_ref(),
            span: match &sig.output {
                ReturnType::Type(_, ty) => ty.span(),
                ReturnType::Default => sig.ident.span(),
            },
            ret: match &sig.output {
                ReturnType::Type(_, ty) => Some(&**ty),
                ReturnType::Default => None,
            },
        })
    }
}

fn kind_words(kind: OpKind) -> &'static str {
    match kind {
        OpKind::UnaryElementwise => "unary elementwise",
        OpKind::BinaryElementwise => "binary elementwise",
        OpKind::Reduction => "reduction",
        OpKind::Other => "catalog",
    }
}

fn cx_errors(cx: &Counting<'_>) -> usize {
    cx.count.get()
}

/// Records errors in the macro's [`Ctxt`], counting them (so later checks can stay quiet when an
/// earlier one already explains the problem).
struct Counting<'c> {
    cx: &'c Ctxt,
    count: std::cell::Cell<usize>,
}

impl Counting<'_> {
    fn error_spanned_by<T: ToTokens, M: std::fmt::Display>(&self, tokens: T, message: M) {
        self.count.set(self.count.get() + 1);
        self.cx.error_spanned_by(tokens, message);
    }
}

/// The pointee of a parameter `&P`. What `P` is (extension type, tensor, wildcard, the extra
/// arguments) is left to the `HandlerParam` trait in the generated code.
fn param<'t>(cx: &Counting<'_>, ty: &'t Type) -> Option<&'t Type> {
    let Type::Reference(r) = ty else {
        cx.error_spanned_by(
            ty,
            format!(
                "a dispatch handler takes its arguments by shared reference: write `&{}`",
                ty.to_token_stream()
            ),
        );
        return None;
    };
    if let Some(m) = &r.mutability {
        cx.error_spanned_by(
            m,
            "a dispatch handler takes its arguments by shared reference (`&T`), not `&mut T`: \
             op arguments are never modified",
        );
        return None;
    }
    let elem = &*r.elem;
    if let Type::ImplTrait(_) = elem {
        cx.error_spanned_by(
            elem,
            "a dispatch handler cannot take `impl Trait`: its key is read from concrete types; \
             take `&Value` for an argument of any type",
        );
        return None;
    }
    Some(elem)
}

/// A handler returns something: what it returns is checked by the `IntoHandled` trait in the
/// generated code (`Result<T>` or `Result<Option<T>>`), not by the type's name here, so aliases
/// of `extype::Result` work.
fn check_return(cx: &Counting<'_>, sig: &syn::Signature) {
    if let ReturnType::Default = &sig.output {
        cx.error_spanned_by(
            &sig.ident,
            "missing return type: a dispatch handler returns `extype::Result<T>`, or \
             `extype::Result<Option<T>>` to decline with `Ok(None)`, where `T` is an extension \
             type, `Tensor` or `Value`",
        );
    }
}

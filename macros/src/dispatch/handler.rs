//! The model of a handler function, read from its signature and checked.

use extype_shape::signature::{Arity, MAX_DISPATCH_ARGS as MAX_KEY, OpKind};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Ident, ItemFn, Path, PathArguments, ReturnType, Type};

use super::attr::{Args, TargetSpec};
use crate::ctxt::Ctxt;

/// How one dispatched argument is passed to the user's function.
pub enum Param {
    /// `&T`, an extension type.
    Extension(Box<Type>),
    /// `&Tensor`.
    Tensor,
    /// `&Value`.
    Value,
    /// `&Operand`.
    Operand,
    /// `&OpArgs`: the call's extra arguments (not dispatched on).
    Args,
}

/// What the handler registers for, as code.
pub enum Target {
    Op(TokenStream),
    Group(OpKind),
}

/// A checked handler.
pub struct Handler<'a> {
    pub ident: &'a Ident,
    pub target: Target,
    /// For a group handler, the kind of its leading op argument.
    pub group: Option<OpKind>,
    pub params: Vec<(Param, Span)>,
    pub infer: Option<&'a Path>,
    /// Where type errors about the result point: the return type (or the name if none).
    pub span: Span,
}

fn group_op_type(kind: OpKind) -> &'static str {
    match kind {
        OpKind::UnaryElementwise => "UnaryOp",
        OpKind::BinaryElementwise => "BinaryOp",
        OpKind::Reduction => "ReductionOp",
        OpKind::Other => "",
    }
}

fn last_ident(ty: &Type) -> Option<&Ident> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| &s.ident),
        Type::Group(g) => last_ident(&g.elem),
        Type::Paren(p) => last_ident(&p.elem),
        _ => None,
    }
}

impl<'a> Handler<'a> {
    /// Reads `f`'s signature against the attribute's target, recording every problem in `cx`.
    pub fn from_fn(cx: &Ctxt, args: &'a Args, f: &'a ItemFn) -> Option<Handler<'a>> {
        let sig = &f.sig;
        let cx = &Sink {
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
        if let Some(kind) = group {
            let want = group_op_type(kind);
            match inputs.next() {
                Some(FnArg::Typed(pt)) if is_ref_to(&pt.ty, want) => {}
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
                        params.push((p, pt.ty.span()));
                    }
                }
            }
        }

        let n = params
            .iter()
            .filter(|(p, _)| !matches!(p, Param::Args))
            .count();
        if n > MAX_KEY {
            cx.error_spanned_by(
                &sig.inputs,
                format!(
                    "a dispatch handler takes at most {MAX_KEY} dispatched arguments, found {n}"
                ),
            );
        }
        if let Some(kind) = group {
            let want = if kind == OpKind::BinaryElementwise {
                2
            } else {
                1
            };
            if n != want && cx_errors(cx) == before {
                cx.error_spanned_by(
                    &sig.inputs,
                    format!(
                        "a `{}` handler takes the op and {want} argument{}, found {n}",
                        kind.group_name(),
                        if want == 1 { "" } else { "s" }
                    ),
                );
            }
        }
        if let Some((arity, what)) = arity_desc
            && !arity.admits(n)
            && cx_errors(cx) == before
        {
            let at = if sig.inputs.is_empty() {
                sig.ident.to_token_stream()
            } else {
                sig.inputs.to_token_stream()
            };
            cx.error_spanned_by(
                at,
                format!("wrong number of arguments: {what} taking {arity}, the handler takes {n}"),
            );
        }
        if cx_errors(cx) != before {
            return None;
        }
        Some(Handler {
            ident: &sig.ident,
            target,
            group,
            params,
            infer: args.infer.as_ref(),
            span: match &sig.output {
                ReturnType::Type(_, ty) => ty.span(),
                ReturnType::Default => sig.ident.span(),
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

fn cx_errors(cx: &Sink<'_>) -> usize {
    cx.count.get()
}

/// Records errors in the macro's [`Ctxt`], counting them (so later checks can stay quiet when an
/// earlier one already explains the problem).
struct Sink<'c> {
    cx: &'c Ctxt,
    count: std::cell::Cell<usize>,
}

impl Sink<'_> {
    fn error_spanned_by<T: ToTokens, M: std::fmt::Display>(&self, tokens: T, message: M) {
        self.count.set(self.count.get() + 1);
        self.cx.error_spanned_by(tokens, message);
    }
}

fn is_ref_to(ty: &Type, name: &str) -> bool {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => {
            last_ident(&r.elem).is_some_and(|i| i == name)
        }
        _ => false,
    }
}

fn param(cx: &Sink<'_>, ty: &Type) -> Option<Param> {
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
    let Some(ident) = last_ident(elem) else {
        cx.error_spanned_by(
            elem,
            "unsupported argument type for a dispatch handler: expected `&T` for an extension \
             type `T`, `&Tensor`, `&Value`, `&Operand` (or `&OpArgs` for the extra arguments)",
        );
        return None;
    };
    Some(match ident.to_string().as_str() {
        "Tensor" => Param::Tensor,
        "Value" => Param::Value,
        "Operand" => Param::Operand,
        "OpArgs" => Param::Args,
        name @ ("UnaryOp" | "BinaryOp" | "ReductionOp") => {
            cx.error_spanned_by(
                elem,
                format!(
                    "`{name}` is the op argument of a group handler and comes first, in a \
                     handler registered with `#[dispatch({})]`",
                    match name {
                        "UnaryOp" => "unary_elementwise",
                        "BinaryOp" => "binary_elementwise",
                        _ => "reduction",
                    }
                ),
            );
            return None;
        }
        _ => {
            if let Type::Path(p) = elem
                && p.path.segments.iter().any(|s| has_lifetime(&s.arguments))
            {
                cx.error_spanned_by(
                    elem,
                    "an extension type of a dispatch handler cannot borrow (it must be \
                     `'static`)",
                );
                return None;
            }
            Param::Extension(Box::new(elem.clone()))
        }
    })
}

fn has_lifetime(args: &PathArguments) -> bool {
    match args {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .any(|g| matches!(g, GenericArgument::Lifetime(_))),
        _ => false,
    }
}

/// The return type must be `Result<T>` or `Result<Option<T>>` (checked by its form here; the
/// `IntoHandled` bound checks `T`).
fn check_return(cx: &Sink<'_>, sig: &syn::Signature) {
    const HELP: &str = "a dispatch handler returns `extype::Result<T>`, or \
         `extype::Result<Option<T>>` to decline with `Ok(None)`, where `T` is an extension type, \
         `Tensor` or `Value`";
    match &sig.output {
        ReturnType::Default => {
            cx.error_spanned_by(&sig.ident, format!("missing return type: {HELP}"))
        }
        ReturnType::Type(_, ty) => {
            if last_ident(ty).is_none_or(|i| i != "Result") {
                cx.error_spanned_by(ty, format!("unsupported return type: {HELP}"));
            }
        }
    }
}

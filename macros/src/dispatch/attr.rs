//! Parsing of the attribute's arguments: `Add`, `reduce_sum`, `binary_elementwise`,
//! `op = path::TO_OP`, `operators`, and an optional `infer = path`.

use extype_shape::signature::{self, OpKind, Signature};
use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, Path, Token};

use crate::ctxt::Ctxt;

/// What the handler is registered for.
pub enum TargetSpec {
    /// A catalog op.
    Catalog {
        op: &'static Signature,
        ident: Ident,
    },
    /// A group.
    Group { kind: OpKind },
    /// A user-declared op (`op = path`).
    User { path: Path },
    /// `operators` on a struct: operator overloading through dispatch.
    Operators { ident: Ident },
}

/// The parsed arguments.
pub struct Args {
    pub target: TargetSpec,
    pub infer: Option<Path>,
}

enum Item {
    Ident(Ident),
    Assign(Ident, Path),
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let ident: Ident = input.parse()?;
        if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Ok(Item::Assign(ident, input.parse()?))
        } else {
            Ok(Item::Ident(ident))
        }
    }
}

const USAGE: &str = "expected `#[dispatch(OpName)]` (e.g. `Add`, `reduce_sum`), a group \
     (`unary_elementwise`, `binary_elementwise`, `reduction`), `op = path::TO_OP` for an op \
     declared with `declare_op!`, or `operators` on a struct; optionally followed by \
     `, infer = path`";

/// Parses the attribute's arguments, recording errors in `cx`.
pub fn parse(cx: &Ctxt, tokens: TokenStream) -> Option<Args> {
    if tokens.is_empty() {
        cx.syn_error(syn::Error::new(
            Span::call_site(),
            format!("#[dispatch] needs an op: {USAGE}"),
        ));
        return None;
    }
    let items =
        match syn::parse::Parser::parse2(Punctuated::<Item, Token![,]>::parse_terminated, tokens) {
            Ok(items) => items,
            Err(e) => {
                cx.syn_error(syn::Error::new(e.span(), format!("{e}; {USAGE}")));
                return None;
            }
        };
    let mut target: Option<TargetSpec> = None;
    let mut infer: Option<Path> = None;
    let mut set_target = |cx: &Ctxt, at: &Ident, t: TargetSpec| {
        if target.is_some() {
            cx.error_spanned_by(
                at,
                "#[dispatch] takes one op; write one handler per op or use a group",
            );
        } else {
            target = Some(t);
        }
    };
    for item in items {
        match item {
            Item::Ident(ident) => {
                let name = ident.to_string();
                if name == "operators" {
                    set_target(
                        cx,
                        &ident,
                        TargetSpec::Operators {
                            ident: ident.clone(),
                        },
                    );
                } else if let Some(kind) = OpKind::from_group_name(&name) {
                    set_target(cx, &ident, TargetSpec::Group { kind });
                } else if name == "other" {
                    cx.error_spanned_by(
                        &ident,
                        "`other` is not a dispatch group (its ops share no callable); register a \
                         handler for each op, e.g. `#[dispatch(Reshape)]`",
                    );
                } else if let Some(op) = signature::lookup(&name) {
                    set_target(
                        cx,
                        &ident,
                        TargetSpec::Catalog {
                            op,
                            ident: ident.clone(),
                        },
                    );
                } else {
                    let suggestions = signature::suggest(&name);
                    let hint = if suggestions.is_empty() {
                        String::new()
                    } else {
                        format!("did you mean {}? ", quote_list(&suggestions))
                    };
                    cx.error_spanned_by(
                        &ident,
                        format!(
                            "unknown op `{name}` in #[dispatch]; {hint}catalog ops are named \
                             like `Add` or `reduce_sum`; for an op declared with `declare_op!` \
                             write `#[dispatch(op = path::TO_OP)]`"
                        ),
                    );
                }
            }
            Item::Assign(key, path) => match key.to_string().as_str() {
                "op" => set_target(cx, &key, TargetSpec::User { path }),
                "infer" => {
                    if infer.replace(path).is_some() {
                        cx.error_spanned_by(&key, "duplicate `infer` in #[dispatch]; give it once");
                    }
                }
                other => cx.error_spanned_by(
                    &key,
                    format!("unknown #[dispatch] argument `{other}`; {USAGE}"),
                ),
            },
        }
    }
    match target {
        Some(target) => Some(Args { target, infer }),
        None => {
            if infer.is_some() {
                cx.syn_error(syn::Error::new(
                    Span::call_site(),
                    format!("#[dispatch] needs an op besides `infer`: {USAGE}"),
                ));
            }
            None
        }
    }
}

fn quote_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    quoted.join(" or ")
}

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
                    let suggestions: Vec<String> = signature::suggest(&name)
                        .into_iter()
                        .map(|op| in_spelling_of(&name, op))
                        .collect();
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

/// The catalog name `op` (snake case) spelled as the user spelled `written`: `ReduceSum` for
/// `ReduceSums`, `reduce_sum` for `reduce_sums` (both spellings name the op in `#[dispatch]`).
fn in_spelling_of(written: &str, op: &str) -> String {
    let camel = written.starts_with(|c: char| c.is_ascii_uppercase()) && !written.contains('_');
    if !camel {
        return op.to_string();
    }
    op.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn quote_list(names: &[impl AsRef<str>]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{}`", n.as_ref())).collect();
    quoted.join(" or ")
}

#[cfg(test)]
mod tests {
    use super::in_spelling_of;

    #[test]
    fn suggestions_follow_the_users_spelling() {
        assert_eq!(in_spelling_of("ReduceSums", "reduce_sum"), "ReduceSum");
        assert_eq!(in_spelling_of("Addd", "add"), "Add");
        assert_eq!(in_spelling_of("reduce_sums", "reduce_sum"), "reduce_sum");
        assert_eq!(in_spelling_of("addd", "add"), "add");
        assert_eq!(in_spelling_of("Is_Nann", "is_nan"), "is_nan");
    }
}

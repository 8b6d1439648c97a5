//! Checks of a parsed container that need no type information.

use std::sync::Arc;

use extype_shape::{ArgRef, PatternDim, ShapePattern, Unifier};

use crate::ast::Container;
use crate::ctxt::Ctxt;

/// Runs every check, recording problems in `cx`.
pub fn check(cx: &Ctxt, cont: &Container) {
    check_name(cx, cont);
    check_field_modes(cx, cont);
    check_shape_contracts(cx, cont);
    check_generic_registration(cx, cont);
    check_tensor_like(cx, cont);
}

/// `tensor_like = field` names a field of the spec.
fn check_tensor_like(cx: &Ctxt, cont: &Container) {
    let Some(crate::attr::TensorLikeAttr::Field(member)) = &cont.attrs.tensor_like else {
        return;
    };
    let Some(field) = cont.fields.iter().find(|f| f.member == *member) else {
        let names: Vec<String> = cont
            .fields
            .iter()
            .map(|f| format!("`{}`", f.path))
            .collect();
        let wanted = quote::quote!(#member).to_string();
        let hint = cont
            .fields
            .iter()
            .find(|f| extype_shape::edit_distance::edit_distance(&wanted, &f.path) <= 2)
            .map(|f| format!("; did you mean `{}`?", f.path))
            .unwrap_or_default();
        let listed = if names.is_empty() {
            "the struct has no fields".to_string()
        } else {
            format!("its fields are {}{hint}", names.join(", "))
        };
        cx.error_spanned_by(
            member,
            format!(
                "`extype(tensor_like = {})` names no field of this struct; {listed}",
                quote::quote!(#member)
            ),
        );
        return;
    };
    if let Some(skip) = &field.attrs.skip {
        cx.error_spanned_by(
            skip,
            format!(
                "field `{}` is `extype(tensor_like)` and `extype(skip)`: a skipped field is not in \
                 the spec, so the spec could not show its dtype and shape; remove `skip`",
                field.path
            ),
        );
    }
}

/// `name = "..."` must be dotted identifiers: `pkg.Foo`, `my_crate.sub.Bar`.
fn check_name(cx: &Ctxt, cont: &Container) {
    let Some(lit) = &cont.attrs.name else {
        return;
    };
    let name = lit.value();
    if let Err(problem) = validate_registered_name(&name) {
        cx.error_spanned_by(
            lit,
            format!(
                "invalid `extype(name)` {name:?}: {problem}; use dotted identifiers such as \
                 \"my_pkg.MaskedTensor\""
            ),
        );
    }
}

/// Why `name` is not a valid registered name, if it is not.
pub fn validate_registered_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    for (index, segment) in name.split('.').enumerate() {
        let mut chars = segment.chars();
        match chars.next() {
            None => return Err(format!("segment {index} is empty")),
            Some(c) if !(c.is_ascii_alphabetic() || c == '_') => {
                return Err(format!(
                    "segment {index} ({segment:?}) must start with a letter or `_`"
                ));
            }
            Some(_) => {}
        }
        if let Some(bad) = chars.find(|c| !(c.is_ascii_alphanumeric() || *c == '_')) {
            return Err(format!(
                "segment {index} ({segment:?}) contains {bad:?}; only ASCII letters, digits and `_` are allowed"
            ));
        }
    }
    Ok(())
}

/// `static` and `skip` exclude each other, and a shape contract applies only to a tensor field.
fn check_field_modes(cx: &Ctxt, cont: &Container) {
    for field in &cont.fields {
        let attrs = &field.attrs;
        if let (Some(_), Some(skip)) = (&attrs.static_, &attrs.skip) {
            cx.error_spanned_by(
                skip,
                format!(
                    "field `{}` is marked both `extype(static)` and `extype(skip)`; keep \
                     `static` to store its value in the spec, or `skip` to leave it out",
                    field.path
                ),
            );
        }
        let mode = match (&attrs.static_, &attrs.skip) {
            (Some(_), _) => "`extype(static)` (static data, no components)",
            (None, Some(_)) => "`extype(skip)` (not in the spec)",
            (None, None) => continue,
        };
        if let Some(lit) = &attrs.shape {
            cx.error_spanned_by(
                lit,
                format!(
                    "`extype(shape)` constrains a tensor field, but field `{}` is marked {mode}; \
                     remove one of the two",
                    field.path
                ),
            );
        }
    }
}

/// A generic type has no single registry entry: each instantiation is registered explicitly.
fn check_generic_registration(cx: &Ctxt, cont: &Container) {
    let has_type_params = cont.generics.type_params().next().is_some()
        || cont.generics.const_params().next().is_some();
    if let (true, Some(lit)) = (has_type_params, &cont.attrs.name) {
        let ident = cont.ident;
        // An example instantiation: `f32` for each type parameter, `1` for each const one.
        let arguments: Vec<&str> = cont
            .generics
            .params
            .iter()
            .filter_map(|param| match param {
                syn::GenericParam::Type(_) => Some("f32"),
                syn::GenericParam::Const(_) => Some("1"),
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        let example = format!(
            "extype::register!({ident}<{}>, \"{}F32\");",
            arguments.join(", "),
            lit.value()
        );
        cx.error_spanned_by(
            lit,
            format!(
                "`extype(name)` cannot register the generic type `{ident}`: each instantiation \
                 needs its own name; remove `name` and register the instantiations you load by \
                 name, e.g. `{example}`"
            ),
        );
    }
    if cont.generics.lifetimes().next().is_some() {
        cx.error_spanned_by(
            cont.generics,
            "`ExtensionType` cannot be derived for a type with lifetime parameters: extension \
             values own (or share) their tensors; use `ArcArray` or `Tensor` fields instead of views",
        );
    }
}

/// Each `shape` pattern parses, and together they form one consistent contract (the same
/// parser and unifier run when the type is used, so what compiles cannot fail to parse later).
fn check_shape_contracts(cx: &Ctxt, cont: &Container) {
    let mut unifier = Unifier::new();
    // Each name's first use: (is a segment, field path, pattern text).
    let mut first_uses: Vec<(Arc<str>, bool, &str, String)> = Vec::new();
    for field in &cont.fields {
        let Some(lit) = &field.attrs.shape else {
            continue;
        };
        let text = lit.value();
        let pattern = match ShapePattern::parse(&text) {
            Ok(pattern) => pattern,
            Err(err) => {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "invalid `extype(shape)` pattern on field `{}`: {err}",
                        field.path
                    ),
                );
                continue;
            }
        };
        // The parser rejects a name used as both a dim and a segment within one pattern; the
        // unifier would only fail at run time when the patterns of two fields disagree.
        for item in pattern.items() {
            let (name, is_segment) = match item {
                PatternDim::Name(n) | PatternDim::Broadcastable(n) => (n, false),
                PatternDim::Variadic(Some(n)) => (n, true),
                _ => continue,
            };
            match first_uses.iter().find(|(used, ..)| used == name) {
                Some((_, was_segment, other, other_text)) if *was_segment != is_segment => {
                    let kind = |segment: bool| if segment { "a segment" } else { "one dim" };
                    cx.error_spanned_by(
                        lit,
                        format!(
                            "inconsistent `extype(shape)` contract: `{name}` is {} in field \
                             `{}` ({text:?}) but {} in field `{other}` ({other_text:?}); \
                             rename one of them",
                            kind(is_segment),
                            field.path,
                            kind(*was_segment),
                        ),
                    );
                }
                Some(_) => {}
                None => first_uses.push((name.clone(), is_segment, &field.path, text.clone())),
            }
        }
        match unifier
            .clone()
            .add(ArgRef::Name(field.path.as_str().into()), pattern)
        {
            Ok(next) => unifier = next,
            Err(err) => cx.error_spanned_by(
                lit,
                format!(
                    "invalid `extype(shape)` contract on field `{}`: {err}",
                    field.path
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::validate_registered_name as v;

    #[test]
    fn registered_names() {
        assert!(v("pkg.Foo").is_ok());
        assert!(v("a_b.c1._D").is_ok());
        assert!(v("Foo").is_ok());
        assert!(v("").is_err());
        assert!(v("pkg..Foo").unwrap_err().contains("segment 1 is empty"));
        assert!(
            v("pkg.1Foo")
                .unwrap_err()
                .contains("must start with a letter")
        );
        assert!(v("pkg.Fo-o").unwrap_err().contains("'-'"));
        assert!(v("pkg.Foo.").is_err());
        assert!(v("pkg::Foo").is_err());
    }
}

//! Checks of a parsed container that need no type information.

use std::sync::Arc;

use extype_shape::{ArgRef, PatternDim, ShapePattern, Unifier};

use syn::LitStr;

use crate::ast::Container;
use crate::ctxt::Ctxt;

/// Runs every check, recording problems in `cx`.
pub fn check(cx: &Ctxt, cont: &Container) {
    check_name(cx, cont);
    check_field_modes(cx, cont);
    check_shape_contracts(cx, cont);
    check_generic_registration(cx, cont);
    check_tensor_like(cx, cont);
    check_validity(cx, cont);
    check_self_in_field_types(cx, cont);
    check_getters(cx, cont);
    check_versioning(cx, cont);
}

/// `getters` and `builder` name each method after its field: a tuple struct has no names to
/// give.
fn check_getters(cx: &Ctxt, cont: &Container) {
    if !matches!(cont.style, crate::ast::Style::Tuple) {
        return;
    }
    if let Some(at) = &cont.attrs.getters {
        cx.error_spanned_by(
            at,
            "`extype(getters)` names each getter after its field, and a tuple struct's fields \
             have no names: use a struct with named fields, or read the fields as `.0`, `.1`",
        );
    }
    if let Some(at) = &cont.attrs.builder {
        cx.error_spanned_by(
            at,
            "`extype(builder)` names each setter after its field, and a tuple struct's fields \
             have no names: use a struct with named fields, or `try_new(…)` with the fields in \
             order",
        );
    }
}

/// `Self` in a field's type: the derive writes each field's type into items of its own (the
/// spec struct `NodeSpec`, the impls), where `Self` would name something else; the type's
/// name says the same and means it everywhere (a recursive field, `Option<Box<Node>>`).
fn check_self_in_field_types(cx: &Ctxt, cont: &Container) {
    fn first_self(tokens: proc_macro2::TokenStream) -> Option<proc_macro2::Ident> {
        tokens.into_iter().find_map(|tree| match tree {
            proc_macro2::TokenTree::Ident(ident) if ident == "Self" => Some(ident),
            proc_macro2::TokenTree::Group(group) => first_self(group.stream()),
            _ => None,
        })
    }
    for field in &cont.fields {
        let ty = field.ty;
        if let Some(at) = first_self(quote::quote!(#ty)) {
            let name = cont.ident;
            cx.error_spanned_by(
                at,
                format!(
                    "`Self` in the type of field `{}`: write `{name}` instead (the derive \
                     repeats field types in the items it generates, such as `{name}Spec`, where \
                     `Self` names that item)",
                    field.path
                ),
            );
        }
    }
}

/// The type's version as written (`version = N`), checked to be an integer from 1; `None` when
/// it is malformed (reported here).
pub fn version_of(cx: Option<&Ctxt>, cont: &Container) -> Option<u32> {
    let Some(lit) = &cont.attrs.version else {
        return Some(1);
    };
    match lit.base10_parse::<u32>() {
        Ok(v) if v >= 1 => Some(v),
        _ => {
            if let Some(cx) = cx {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "invalid `extype(version = {lit})`: a version is an integer from 1 to {} \
                         (an unversioned type is version 1)",
                        u32::MAX
                    ),
                );
            }
            None
        }
    }
}

/// `version`, `aliases`, `migrate`, and the fields' `alias` and `default`: the version is an
/// integer from 1; each migration is from an older version, once; a default fills a field that
/// older versions lack, so it needs a type of version 2 or more (every field of a version-1
/// type is as old as the type); old names are valid and claimed once.
fn check_versioning(cx: &Ctxt, cont: &Container) {
    let version = version_of(Some(cx), cont);
    let ident = cont.ident;
    if let Some(version) = version {
        let mut froms: Vec<u32> = Vec::new();
        for m in &cont.attrs.migrations {
            let Ok(from) = m.from.base10_parse::<u32>() else {
                cx.error_spanned_by(
                    &m.from,
                    "`extype(migrate(from = …))` takes a version, an integer from 1",
                );
                continue;
            };
            if from == 0 || from >= version {
                let older = match version {
                    1 => "none: the type is version 1".to_string(),
                    2 => "version 1".to_string(),
                    v => format!("versions 1 to {}", v - 1),
                };
                cx.error_spanned_by(
                    &m.from,
                    format!(
                        "`extype(migrate(from = {from}))` on `{ident}`, which is version \
                         {version}: a migration is from an older version ({older}); raise \
                         `extype(version = …)` above {from}, or migrate from an older version"
                    ),
                );
            } else if froms.contains(&from) {
                cx.error_spanned_by(
                    &m.from,
                    format!(
                        "two `extype(migrate(from = {from}))` on `{ident}`: one migration per \
                         version; combine them into one function"
                    ),
                );
            } else {
                froms.push(from);
            }
        }
        for field in &cont.fields {
            let Some(default) = &field.attrs.default else {
                continue;
            };
            if version == 1 {
                cx.error_spanned_by(
                    default.key(),
                    format!(
                        "`extype(default)` on field `{}` of `{ident}`, which is version 1: a \
                         default fills a field that files of older versions lack, and every field \
                         of a version-1 type is as old as the type; when adding a field, raise \
                         the struct's `extype(version = …)` (e.g. `version = 2`)",
                        field.path
                    ),
                );
            } else if let Some(skip) = &field.attrs.skip {
                cx.error_spanned_by(
                    skip,
                    format!(
                        "field `{}` is `extype(skip)` and `extype(default)`: a skipped field is \
                         never stored (it is always rebuilt with `Default`); remove one",
                        field.path
                    ),
                );
            }
        }
    }
    // Old field names: not a current field's name, each claimed once.
    let mut claimed: Vec<(String, &str)> = Vec::new();
    for field in &cont.fields {
        for alias in &field.attrs.aliases {
            let old = alias.value();
            if let Some(other) = cont.fields.iter().find(|f| f.path == old) {
                cx.error_spanned_by(
                    alias,
                    format!(
                        "`extype(alias = {old:?})` on field `{}`: `{}` is a field of this struct; \
                         an alias is an old name no current field has",
                        field.path, other.path
                    ),
                );
            } else if let Some((_, first)) = claimed.iter().find(|(a, _)| *a == old) {
                cx.error_spanned_by(
                    alias,
                    format!(
                        "duplicate alias {old:?}: fields `{first}` and `{}` both claim it, so a \
                         stored field of that name could be either; remove one",
                        field.path
                    ),
                );
            } else {
                claimed.push((old, &field.path));
            }
        }
    }
    // Old type names: valid names, not the type's own, each once.
    if let Some((_, aliases)) = &cont.attrs.aliases {
        let own = cont.attrs.name.as_ref().map(LitStr::value);
        let mut seen: Vec<String> = Vec::new();
        for lit in aliases {
            let name = lit.value();
            if let Err(problem) = validate_registered_name(&name) {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "invalid name {name:?} in `extype(aliases)`: {problem}; use dotted \
                         identifiers such as \"my_pkg.OldName\""
                    ),
                );
            } else if own.as_deref() == Some(name.as_str()) {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "`extype(aliases)` lists {name:?}, the type's own `extype(name)`; an \
                         alias is a name the type had before"
                    ),
                );
            } else if seen.contains(&name) {
                cx.error_spanned_by(
                    lit,
                    format!("duplicate alias {name:?} in `extype(aliases)`; list it once"),
                );
            } else {
                seen.push(name);
            }
        }
    }
}

/// `validity_of = field` on a tensor field names another tensor field of the spec, which has
/// one validity at most and is not a validity itself.
fn check_validity(cx: &Ctxt, cont: &Container) {
    let mode = |f: &crate::ast::Field| match (&f.attrs.static_, &f.attrs.skip) {
        (Some(p), _) => Some((p.clone(), "static")),
        (None, Some(p)) => Some((p.clone(), "skip")),
        (None, None) => None,
    };
    let mut claimed: Vec<(&syn::Ident, &str)> = Vec::new();
    for field in &cont.fields {
        let Some((key, target)) = &field.attrs.validity_of else {
            continue;
        };
        let named = syn::Member::Named(target.clone());
        let Some(values) = cont.fields.iter().find(|f| f.member == named) else {
            let wanted = target.to_string();
            let listed = fields_it_could_name(cont, &wanted, Some(&field.path));
            cx.error_spanned_by(
                target,
                format!("`extype(validity_of = {wanted})` names no field of this struct; {listed}"),
            );
            continue;
        };
        if values.path == field.path {
            cx.error_spanned_by(
                target,
                format!(
                    "field `{}` is `extype(validity_of = {target})`: a field cannot be its own \
                     validity; name the field whose elements it marks valid, e.g. \
                     `validity_of = values`",
                    field.path
                ),
            );
            continue;
        }
        for f in [field, values] {
            if let Some((at, mode)) = mode(f) {
                cx.error_spanned_by(
                    at,
                    format!(
                        "field `{}` is `extype({mode})`, but `extype(validity_of = {target})` on \
                         field `{}` pairs two tensor components; remove `{mode}`",
                        f.path, field.path
                    ),
                );
            }
        }
        if values.attrs.validity_of.is_some() {
            cx.error_spanned_by(
                target,
                format!(
                    "field `{}` is itself `extype(validity_of = …)`: a validity cannot have a \
                     validity of its own; point `validity_of` at a values field",
                    values.path
                ),
            );
        }
        if let Some((_, first)) = claimed.iter().find(|(t, _)| *t == target) {
            cx.error_spanned_by(
                key,
                format!(
                    "fields `{first}` and `{}` are both `extype(validity_of = {target})`: a field \
                     has one validity; combine the masks into one field, or remove the attribute \
                     from one",
                    field.path
                ),
            );
        } else {
            claimed.push((target, &field.path));
        }
    }
}

/// What an attribute naming a field says when `wanted` names none: the fields it could name (all
/// but `except`, the field the attribute is on) and the nearest one.
fn fields_it_could_name(cont: &Container, wanted: &str, except: Option<&str>) -> String {
    let names: Vec<String> = cont
        .fields
        .iter()
        .filter(|f| Some(f.path.as_str()) != except)
        .map(|f| format!("`{}`", f.path))
        .collect();
    let hint = cont
        .fields
        .iter()
        .find(|f| extype_shape::edit_distance::edit_distance(wanted, &f.path) <= 2)
        .map(|f| format!("; did you mean `{}`?", f.path))
        .unwrap_or_default();
    let other = if except.is_some() { "other " } else { "" };
    if names.is_empty() {
        format!("the struct has no {other}fields")
    } else {
        format!("its {other}fields are {}{hint}", names.join(", "))
    }
}

/// `tensor_like = field` names a field of the spec.
fn check_tensor_like(cx: &Ctxt, cont: &Container) {
    let Some(crate::attr::TensorLikeAttr::Field(member)) = &cont.attrs.tensor_like else {
        return;
    };
    let Some(field) = cont.fields.iter().find(|f| f.member == *member) else {
        let wanted = quote::quote!(#member).to_string();
        let listed = fields_it_could_name(cont, &wanted, None);
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
/// parser and unifier run when the type is used, so what compiles cannot fail to parse later),
/// in which every name is used at least twice ([`check_single_uses`]).
fn check_shape_contracts(cx: &Ctxt, cont: &Container) {
    let mut unifier = Unifier::new();
    // Every parsed pattern, for the single-use check; `None` once a pattern does not parse.
    let mut parsed: Option<Vec<ParsedPattern<'_>>> = Some(Vec::new());
    // Each name's first use: (is a segment, field path, pattern text).
    let mut first_uses: Vec<(Arc<str>, bool, &str, String)> = Vec::new();
    for field in &cont.fields {
        let Some(lit) = &field.attrs.shape else {
            continue;
        };
        if field.attrs.static_.is_some() || field.attrs.skip.is_some() {
            // Already an error (`check_field_modes`): which names were meant is unclear.
            parsed = None;
        }
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
                parsed = None;
                continue;
            }
        };
        if let Some(parsed) = &mut parsed {
            parsed.push(ParsedPattern {
                lit,
                field: &field.path,
                pattern: pattern.clone(),
            });
        }
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
    // A pattern that does not parse hides its names: judging the others would only guess.
    if let Some(parsed) = parsed {
        check_single_uses(cx, &parsed);
    }
}

/// One field's parsed `shape` pattern.
struct ParsedPattern<'a> {
    lit: &'a syn::LitStr,
    field: &'a str,
    pattern: ShapePattern,
}

/// A name of a shape pattern (`n`, `#n`, `*dims`) and whether it is a segment.
fn pattern_name(item: &PatternDim) -> Option<(&Arc<str>, bool)> {
    match item {
        PatternDim::Name(n) | PatternDim::Broadcastable(n) => Some((n, false)),
        PatternDim::Variadic(Some(n)) => Some((n, true)),
        _ => None,
    }
}

/// A name binds a size (or a segment of sizes) that its other uses must match, so a name used
/// once in the whole contract checks nothing: usually a typo (`*dims` on one field, `*dim` on
/// the other). Each such name is an error at its pattern, suggesting the closest name of another
/// field; a deliberate single use is written `_` (one dim) or `...` (any dims). A name used twice
/// within one pattern (`"n n"`) constrains that field, and is accepted. Two single-use names
/// close enough to be one misspelt (`*dims` / `*dim`) are one mistake: one error, at the later.
fn check_single_uses(cx: &Ctxt, patterns: &[ParsedPattern<'_>]) {
    // Every use: (name, is a segment, index of the pattern).
    let uses: Vec<(&Arc<str>, bool, usize)> = patterns
        .iter()
        .enumerate()
        .flat_map(|(index, p)| {
            p.pattern
                .items()
                .iter()
                .filter_map(move |item| pattern_name(item).map(|(n, seg)| (n, seg, index)))
        })
        .collect();
    let count = |name: &str| uses.iter().filter(|(n, ..)| &***n == name).count();
    let written = |name: &str, segment: bool| {
        if segment {
            format!("`*{name}`")
        } else {
            format!("`{name}`")
        }
    };
    // Single-use names already reported together with a later one.
    let mut paired: Vec<&str> = Vec::new();
    // Each single-use name: (pattern index, name, is a segment, suggestion).
    let mut found: Vec<(usize, &Arc<str>, bool, Option<String>)> = Vec::new();
    // Latest first, so that a pair is reported at its later pattern.
    for &(name, segment, index) in uses.iter().rev() {
        if count(name) != 1 || paired.contains(&&**name) {
            continue;
        }
        // The closest name used in another field, if close enough to be a misspelling (never a
        // whole different name: `n` is not a typo of `b`).
        let closest = uses
            .iter()
            .filter(|(other, _, i)| *i != index && *other != name)
            .map(|&(other, seg, i)| {
                let distance = extype_shape::edit_distance::edit_distance(name, other);
                (distance, other, seg, i)
            })
            .filter(|&(d, other, ..)| d <= 2 && d < name.chars().count().max(other.chars().count()))
            .min_by_key(|&(d, _, _, i)| (d, i));
        let hint = closest.map(|(_, other, seg, i)| {
            let too = if count(other) == 1 {
                paired.push(other);
                ", also used once"
            } else {
                ""
            };
            format!(
                "did you mean {} (field `{}`{too})?",
                written(other, seg),
                patterns[i].field
            )
        });
        found.push((index, name, segment, hint));
    }
    found.reverse();
    for (index, here) in patterns.iter().enumerate() {
        let mine = || found.iter().filter(|(i, ..)| *i == index);
        let deliberate = |segment: bool| {
            if segment {
                "`...` (any number of dims)"
            } else {
                "`_` (one dim of any size)"
            }
        };
        // A likely misspelling: its own error, with the suggestion.
        for (_, name, segment, hint) in mine() {
            if let Some(hint) = hint {
                cx.error_spanned_by(
                    here.lit,
                    format!(
                        "`extype(shape)` name {} is used in field `{}` only, so it checks \
                         nothing (a name makes fields share sizes); {hint} If one use is meant, \
                         write {}",
                        written(name, *segment),
                        here.field,
                        deliberate(*segment),
                    ),
                );
            }
        }
        // The others of the pattern, together: one contract that checks nothing.
        let plain: Vec<(&str, bool)> = mine()
            .filter(|(.., hint)| hint.is_none())
            .map(|(_, name, segment, _)| (&***name, *segment))
            .collect();
        if plain.is_empty() {
            continue;
        }
        let names: Vec<String> = plain.iter().map(|&(n, seg)| written(n, seg)).collect();
        let (subject, verb) = if names.len() == 1 {
            (format!("name {}", names[0]), "is used in field")
        } else {
            (format!("names {}", names.join(", ")), "are used in field")
        };
        let dims = plain.iter().any(|&(_, seg)| !seg);
        let segments = plain.iter().any(|&(_, seg)| seg);
        let write = match (dims, segments) {
            (true, true) => format!(
                "{} for a dim, {} for a segment",
                deliberate(false),
                deliberate(true)
            ),
            (true, false) => deliberate(false).to_string(),
            _ => deliberate(true).to_string(),
        };
        cx.error_spanned_by(
            here.lit,
            format!(
                "`extype(shape)` {subject} {verb} `{}` only, so {} nothing (a name makes fields \
                 share sizes); if one use is meant, write {write}",
                here.field,
                if names.len() == 1 {
                    "it checks"
                } else {
                    "they check"
                },
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::validate_registered_name as v;

    /// The messages of every error the checks find in `input`.
    fn errors(input: syn::DeriveInput) -> Vec<String> {
        let cx = crate::ctxt::Ctxt::new();
        if let Some(cont) = crate::ast::Container::from_ast(&cx, &input) {
            super::check(&cx, &cont);
        }
        match cx.check() {
            Ok(()) => Vec::new(),
            Err(errors) => errors.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn a_name_used_once_is_an_error_suggesting_the_closest() {
        // A misspelt pair: one error, at the later field, suggesting the earlier name.
        let found = errors(syn::parse_quote! {
            struct M {
                #[extype(shape = "*dims")] values: ArrayD<f32>,
                #[extype(shape = "*dim")] mask: ArrayD<bool>,
            }
        });
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("`*dim` is used in field `mask` only"),
            "{found:?}"
        );
        assert!(
            found[0].contains("did you mean `*dims` (field `values`"),
            "{found:?}"
        );
        assert!(found[0].contains("`...`"), "{found:?}");
        // A different one-letter name is not a misspelling of another: no suggestion.
        let found = errors(syn::parse_quote! {
            struct R {
                #[extype(shape = "b n")] values: ArrayD<f32>,
                #[extype(shape = "b")] lengths: ArrayD<i64>,
                #[extype(shape = "b m")] weights: ArrayD<f32>,
            }
        });
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].contains("`n` is used in field `values` only"),
            "{found:?}"
        );
        assert!(
            found[1].contains("`m` is used in field `weights` only"),
            "{found:?}"
        );
        assert!(
            found.iter().all(|m| !m.contains("did you mean")),
            "{found:?}"
        );
        assert!(found.iter().all(|m| m.contains("`_`")), "{found:?}");
    }

    #[test]
    fn names_used_twice_or_unnamed_items_are_fine() {
        for input in [
            syn::parse_quote! { struct S { #[extype(shape = "n n")] m: ArrayD<f32> } },
            syn::parse_quote! { struct S { #[extype(shape = "_ ... 3")] m: ArrayD<f32> } },
            syn::parse_quote! {
                struct S {
                    #[extype(shape = "*batch #n")] a: ArrayD<f32>,
                    #[extype(shape = "*batch n")] b: ArrayD<f32>,
                    #[extype(shape = "...")] c: ArrayD<f32>,
                }
            },
        ] {
            assert_eq!(errors(input), Vec::<String>::new());
        }
    }

    #[test]
    fn single_uses_are_not_judged_beside_another_pattern_error() {
        // The pattern that does not parse might have used `n`: only its own error is reported.
        let found = errors(syn::parse_quote! {
            struct S {
                #[extype(shape = "b n")] a: ArrayD<f32>,
                #[extype(shape = "b $n")] b: ArrayD<f32>,
            }
        });
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("invalid `extype(shape)` pattern"),
            "{found:?}"
        );
        let found = errors(syn::parse_quote! {
            struct S {
                #[extype(shape = "n")] a: ArrayD<f32>,
                #[extype(static, shape = "n")] b: Vec<f32>,
            }
        });
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("marked `extype(static)`"), "{found:?}");
    }

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

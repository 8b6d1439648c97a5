//! The `#[extype(...)]` attributes on a container and on its fields.

use extype_shape::edit_distance::edit_distance;
use syn::{Attribute, LitStr, Meta};

use crate::ctxt::Ctxt;

/// A value given at most once, remembering the token that set it (for duplicate errors).
struct Once<T> {
    name: &'static str,
    value: Option<T>,
}

impl<T> Once<T> {
    fn new(name: &'static str) -> Self {
        Once { name, value: None }
    }

    fn set<S: quote::ToTokens>(&mut self, cx: &Ctxt, at: S, value: T) {
        if self.value.is_some() {
            cx.error_spanned_by(
                at,
                format!("duplicate `extype({})` attribute; give it once", self.name),
            );
        } else {
            self.value = Some(value);
        }
    }
}

/// Attributes on the struct.
pub struct ContainerAttrs {
    /// `name = "pkg.Foo"`: the registered name.
    pub name: Option<LitStr>,
    /// `validate = path`: a `fn(&Self) -> extype::Result<()>` run on construction and load.
    pub validate: Option<syn::ExprPath>,
    /// `batchable` (the default batch encoder: every component gains a leading batch axis) or
    /// `batchable = Enc` (a custom encoder, `Enc: BatchEncoder<Self>`).
    pub batchable: Option<Batchable>,
    /// `tensor_like = field` (the value shows that field's dtype and shape) or `tensor_like`
    /// (the type and its spec implement `TensorLike` by hand).
    pub tensor_like: Option<TensorLikeAttr>,
    /// `getters`: a `&`-getter per named field, so fields can stay private (unchangeable after
    /// the checked constructor).
    pub getters: Option<syn::Path>,
    /// `display`: `Display` as `extype::display` prints the value.
    pub display: Option<syn::Path>,
    /// `builder`: `Foo::builder()` and `FooBuilder`, a setter per named field.
    pub builder: Option<syn::Path>,
    /// `version = N`: the type's version (1 when absent).
    pub version: Option<syn::LitInt>,
    /// `aliases = ["pkg.Old", …]`: names the type was registered under before.
    pub aliases: Option<(syn::Path, Vec<LitStr>)>,
    /// `migrate(from = k, with = path)`, each occurrence.
    pub migrations: Vec<MigrateAttr>,
}

/// One `migrate(from = k, with = path)`.
pub struct MigrateAttr {
    /// The version it migrates from.
    pub from: syn::LitInt,
    /// The function `fn(&mut extype::versioning::Stored) -> extype::Result<()>`.
    pub with: syn::ExprPath,
}

/// The two forms of `extype(default)`.
pub enum DefaultAttr {
    /// `default`: the field type's `Default::default()`.
    Trait(syn::Path),
    /// `default = path`: `fn(&extype::versioning::Stored) -> extype::Result<FieldType>`.
    Function(syn::Path, syn::ExprPath),
}

impl DefaultAttr {
    /// The `default` key, for spans.
    pub fn key(&self) -> &syn::Path {
        match self {
            DefaultAttr::Trait(key) | DefaultAttr::Function(key, _) => key,
        }
    }
}

/// The two forms of `extype(tensor_like)`.
pub enum TensorLikeAttr {
    /// `tensor_like`: the user implements `TensorLike` for the type and its spec.
    Manual(syn::Path),
    /// `tensor_like = field` (or `= 0` on a tuple struct): that field's dtype and shape.
    Field(syn::Member),
}

/// The two forms of `extype(batchable)`.
pub enum Batchable {
    /// `batchable`: the default encoder, field by field.
    Default,
    /// `batchable = Enc`: the encoder type `Enc`.
    Encoder(syn::Path),
}

/// Attributes on one field.
pub struct FieldAttrs {
    /// `shape = "b n"`: the field's shape contract, unified across the value's fields (each name
    /// must occur at least twice in all the patterns; `...` is independent per field).
    pub shape: Option<LitStr>,
    /// `static`: the field's value is static spec data (`__private_v1::Static<Ty>`).
    pub static_: Option<syn::Path>,
    /// `skip`: neither a component nor in the spec; rebuilt with `Default::default()`.
    pub skip: Option<syn::Path>,
    /// `validity_of = values`: this (bool) field is the validity of the named field, which has
    /// the same shape (`true` = valid); with the attribute's key, for spans.
    pub validity_of: Option<(syn::Path, syn::Ident)>,
    /// `alias = "old"` (each occurrence): the field's old names.
    pub aliases: Vec<LitStr>,
    /// `default` or `default = path`: fills the field in stored values of older versions.
    pub default: Option<DefaultAttr>,
}

impl FieldAttrs {
    /// Whether the field is part of the spec (not `skip`).
    pub fn in_spec(&self) -> bool {
        self.skip.is_none()
    }
}

const CONTAINER_KEYS: &[&str] = &[
    "name",
    "validate",
    "batchable",
    "tensor_like",
    "getters",
    "display",
    "builder",
    "version",
    "aliases",
    "migrate",
];
const FIELD_KEYS: &[&str] = &["shape", "static", "skip", "validity_of", "alias", "default"];

fn extype_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("extype"))
}

/// Rejects `#[extype]` and `#[extype = ...]`: only the list form has a meaning.
fn require_list(cx: &Ctxt, attr: &Attribute, keys: &[&str]) -> bool {
    let form = match &attr.meta {
        Meta::List(_) => return true,
        Meta::Path(_) => "`#[extype]` needs a list of attributes",
        Meta::NameValue(_) => "`#[extype = ...]` is not a form of the attribute",
    };
    let listed: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    cx.error_spanned_by(
        &attr.meta,
        format!(
            "{form}; write `#[extype(...)]` with one or more of {}",
            listed.join(", ")
        ),
    );
    false
}

/// Runs `parse_key` on one item of an attribute list; when it fails, records its error and skips
/// the rest of the item (up to the next top-level comma), so every bad item of one list is
/// reported, not only the first.
fn report_and_skip(
    cx: &Ctxt,
    meta: &syn::meta::ParseNestedMeta,
    parse_key: impl FnOnce(&syn::meta::ParseNestedMeta) -> syn::Result<()>,
) -> syn::Result<()> {
    if let Err(err) = parse_key(meta) {
        cx.syn_error(err);
        meta.input.step(|cursor| {
            let mut rest = *cursor;
            while let Some((tree, next)) = rest.token_tree() {
                if matches!(&tree, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',') {
                    break;
                }
                rest = next;
            }
            Ok(((), rest))
        })?;
    }
    Ok(())
}

fn unknown_key(meta: &syn::meta::ParseNestedMeta, keys: &[&str], place: &str) -> syn::Error {
    let path = meta.path.to_token_stream_string();
    let listed: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    let expected = match listed.as_slice() {
        [one] => one.clone(),
        many => format!("one of {}", many.join(", ")),
    };
    // With a single valid key, "expected `shape`" already says it all.
    let hint = keys
        .iter()
        .filter(|_| keys.len() > 1)
        .find(|k| edit_distance(&path, k) <= 2)
        .map(|k| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    meta.error(format!(
        "unknown `extype` attribute `{path}` on a {place}; expected {expected}{hint}"
    ))
}

/// The input after `key =`; a key without a value is an error showing the expected form.
fn value_of<'a>(
    meta: &'a syn::meta::ParseNestedMeta,
    key: &str,
    example: &str,
) -> syn::Result<syn::parse::ParseStream<'a>> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()
    } else {
        Err(meta.error(format!(
            "`extype({key})` needs a value: `{key} = {example}`"
        )))
    }
}

/// `key = "..."`: a string literal, with an error that shows the expected form.
fn string_value(
    meta: &syn::meta::ParseNestedMeta,
    key: &str,
    example: &str,
) -> syn::Result<LitStr> {
    let value: syn::Expr = value_of(meta, key, example)?.parse()?;
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Ok(lit),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`extype({key})` takes a string literal: `{key} = {example}`"),
        )),
    }
}

/// `validate = path::to::function`.
fn validate_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<syn::ExprPath> {
    let value: syn::Expr = value_of(meta, "validate", "check_shapes")?.parse()?;
    match value {
        syn::Expr::Path(path) => Ok(path),
        other => Err(syn::Error::new_spanned(
            other,
            "`extype(validate)` takes the path of a function `fn(&Self) -> extype::Result<()>`, \
             e.g. `validate = check_shapes` (not a string or a closure)",
        )),
    }
}

fn batchable_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Batchable> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(Batchable::Default);
    }
    let value: syn::Expr = meta.value()?.parse()?;
    match value {
        syn::Expr::Path(path) if path.qself.is_none() => Ok(Batchable::Encoder(path.path)),
        other => Err(syn::Error::new_spanned(
            other,
            "`extype(batchable = ...)` takes the path of an encoder type implementing \
             `extype::batch::BatchEncoder<Self>`, e.g. `batchable = RaggedEncoder`; write \
             `batchable` alone for the default encoder",
        )),
    }
}

fn tensor_like_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<TensorLikeAttr> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(TensorLikeAttr::Manual(meta.path.clone()));
    }
    let value: syn::Expr = meta.value()?.parse()?;
    match value {
        syn::Expr::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
            Ok(TensorLikeAttr::Field(syn::Member::Named(
                path.path
                    .get_ident()
                    .cloned()
                    .expect("checked: one identifier"),
            )))
        }
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(index),
            ..
        }) => Ok(TensorLikeAttr::Field(syn::Member::Unnamed(syn::Index {
            index: index.base10_parse()?,
            span: index.span(),
        }))),
        other => Err(syn::Error::new_spanned(
            other,
            "`extype(tensor_like = ...)` takes the name of the field whose dtype and shape the \
             value shows, e.g. `tensor_like = values` (`tensor_like = 0` on a tuple struct); \
             write `tensor_like` alone when the type implements `TensorLike` by hand",
        )),
    }
}

/// A key that is a flag (`getters`, `display`, `builder`): no value.
fn flag(meta: &syn::meta::ParseNestedMeta, key: &str) -> syn::Result<syn::Path> {
    if meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format!(
            "`extype({key})` takes no value: write `#[extype({key})]`"
        )));
    }
    Ok(meta.path.clone())
}

/// `validity_of = field`: the name of the field whose validity this one is.
fn validity_of_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<syn::Ident> {
    let value: syn::Expr = value_of(meta, "validity_of", "values")?.parse()?;
    match value {
        syn::Expr::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
            Ok(path
                .path
                .get_ident()
                .cloned()
                .expect("checked: one identifier"))
        }
        other => Err(syn::Error::new_spanned(
            other,
            "`extype(validity_of = ...)` takes the name of the field whose validity this field \
             is, e.g. `validity_of = values` (not a string or a path)",
        )),
    }
}

/// `version = N`: an integer literal (its range is checked in `check`).
fn version_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<syn::LitInt> {
    let value: syn::Expr = value_of(meta, "version", "2")?.parse()?;
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) => Ok(lit),
        other => Err(syn::Error::new_spanned(
            other,
            "`extype(version)` takes an integer literal: `version = 2`",
        )),
    }
}

/// `aliases = ["pkg.Old", …]`: an array of string literals.
fn aliases_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    let value: syn::Expr = value_of(meta, "aliases", "[\"my_pkg.OldName\"]")?.parse()?;
    let bad = |at: &dyn quote::ToTokens| {
        syn::Error::new_spanned(
            at,
            "`extype(aliases)` takes an array of string literals, the names the type was \
             registered under before: `aliases = [\"my_pkg.OldName\"]`",
        )
    };
    let syn::Expr::Array(array) = &value else {
        return Err(bad(&value));
    };
    array
        .elems
        .iter()
        .map(|e| match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) => Ok(lit.clone()),
            other => Err(bad(other)),
        })
        .collect()
}

/// `migrate(from = k, with = path)`.
fn migrate_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<MigrateAttr> {
    const FORM: &str = "`migrate(from = 1, with = upgrade_v1)`";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!(
            "`extype(migrate)` needs the version and the function: {FORM}"
        )));
    }
    let (mut from, mut with) = (None, None);
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("from") {
            let value: syn::Expr = inner.value()?.parse()?;
            match value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(lit),
                    ..
                }) if from.is_none() => from = Some(lit),
                syn::Expr::Lit(_) if from.is_some() => {
                    return Err(inner.error(format!("duplicate `from` in {FORM}")));
                }
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        format!("`from` takes an integer literal, the old version: {FORM}"),
                    ));
                }
            }
        } else if inner.path.is_ident("with") {
            let value: syn::Expr = inner.value()?.parse()?;
            match value {
                syn::Expr::Path(path) if with.is_none() => with = Some(path),
                syn::Expr::Path(_) => {
                    return Err(inner.error(format!("duplicate `with` in {FORM}")));
                }
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        format!(
                            "`with` takes the path of a function \
                             `fn(&mut extype::versioning::Stored) -> extype::Result<()>`: {FORM}"
                        ),
                    ));
                }
            }
        } else {
            return Err(inner.error(format!(
                "unknown key in `extype(migrate)`; expected `from` and `with`: {FORM}"
            )));
        }
        Ok(())
    })?;
    match (from, with) {
        (Some(from), Some(with)) => Ok(MigrateAttr { from, with }),
        (None, _) => Err(meta.error(format!("`extype(migrate)` needs `from = k`: {FORM}"))),
        (_, None) => Err(meta.error(format!("`extype(migrate)` needs `with = function`: {FORM}"))),
    }
}

/// `default` or `default = path`.
fn default_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<DefaultAttr> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(DefaultAttr::Trait(meta.path.clone()));
    }
    let value: syn::Expr = meta.value()?.parse()?;
    match value {
        syn::Expr::Path(path) => Ok(DefaultAttr::Function(meta.path.clone(), path)),
        other => Err(syn::Error::new_spanned(
            other,
            "`extype(default = ...)` takes the path of a function \
             `fn(&extype::versioning::Stored) -> extype::Result<FieldType>`, e.g. \
             `default = all_valid`; write `default` alone for the field type's `Default`",
        )),
    }
}

trait PathText {
    fn to_token_stream_string(&self) -> String;
}

impl PathText for syn::Path {
    fn to_token_stream_string(&self) -> String {
        quote::quote!(#self).to_string().replace(' ', "")
    }
}

impl ContainerAttrs {
    pub fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut name = Once::new("name");
        let mut validate = Once::new("validate");
        let mut batchable = Once::new("batchable");
        let mut tensor_like = Once::new("tensor_like");
        let mut getters = Once::new("getters");
        let mut display = Once::new("display");
        let mut builder = Once::new("builder");
        let mut version = Once::new("version");
        let mut aliases = Once::new("aliases");
        let mut migrations = Vec::new();
        for attr in extype_attrs(attrs) {
            if !require_list(cx, attr, CONTAINER_KEYS) {
                continue;
            }
            let result = attr.parse_nested_meta(|meta| {
                report_and_skip(cx, &meta, |meta| {
                    if meta.path.is_ident("name") {
                        let lit = string_value(meta, "name", "\"my_pkg.Foo\"")?;
                        name.set(cx, &meta.path, lit);
                    } else if meta.path.is_ident("validate") {
                        let path = validate_value(meta)?;
                        validate.set(cx, &meta.path, path);
                    } else if meta.path.is_ident("batchable") {
                        let value = batchable_value(meta)?;
                        batchable.set(cx, &meta.path, value);
                    } else if meta.path.is_ident("tensor_like") {
                        let value = tensor_like_value(meta)?;
                        tensor_like.set(cx, &meta.path, value);
                    } else if meta.path.is_ident("getters") {
                        let value = flag(meta, "getters")?;
                        getters.set(cx, &meta.path, value);
                    } else if meta.path.is_ident("display") {
                        let value = flag(meta, "display")?;
                        display.set(cx, &meta.path, value);
                    } else if meta.path.is_ident("builder") {
                        let value = flag(meta, "builder")?;
                        builder.set(cx, &meta.path, value);
                    } else if meta.path.is_ident("version") {
                        let value = version_value(meta)?;
                        version.set(cx, &meta.path, value);
                    } else if meta.path.is_ident("aliases") {
                        let value = aliases_value(meta)?;
                        aliases.set(cx, &meta.path, (meta.path.clone(), value));
                    } else if meta.path.is_ident("migrate") {
                        migrations.push(migrate_value(meta)?);
                    } else if meta.path.is_ident("alias") {
                        return Err(meta.error(
                            "`extype(alias)` belongs on a field (its old name); the struct's old \
                             registered names are `extype(aliases = [\"my_pkg.OldName\"])`",
                        ));
                    } else if meta.path.is_ident("shape") {
                        return Err(meta.error(
                            "`extype(shape)` belongs on a field, not on the struct; \
                         put `#[extype(shape = \"...\")]` on each tensor field",
                        ));
                    } else {
                        return Err(unknown_key(meta, CONTAINER_KEYS, "struct"));
                    }
                    Ok(())
                })
            });
            if let Err(err) = result {
                cx.syn_error(err);
            }
        }
        ContainerAttrs {
            name: name.value,
            validate: validate.value,
            batchable: batchable.value,
            tensor_like: tensor_like.value,
            getters: getters.value,
            display: display.value,
            builder: builder.value,
            version: version.value,
            aliases: aliases.value,
            migrations,
        }
    }
}

impl FieldAttrs {
    pub fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut shape = Once::new("shape");
        let mut static_ = Once::new("static");
        let mut skip = Once::new("skip");
        let mut validity_of = Once::new("validity_of");
        let mut default = Once::new("default");
        let mut aliases = Vec::new();
        for attr in extype_attrs(attrs) {
            if !require_list(cx, attr, FIELD_KEYS) {
                continue;
            }
            let result = attr.parse_nested_meta(|meta| {
                report_and_skip(cx, &meta, |meta| {
                    if meta.path.is_ident("shape") {
                        let lit = string_value(meta, "shape", "\"b n\"")?;
                        shape.set(cx, &meta.path, lit);
                    } else if meta.path.is_ident("static") {
                        static_.set(cx, &meta.path, meta.path.clone());
                    } else if meta.path.is_ident("skip") {
                        skip.set(cx, &meta.path, meta.path.clone());
                    } else if meta.path.is_ident("validity_of") {
                        let values = validity_of_value(meta)?;
                        validity_of.set(cx, &meta.path, (meta.path.clone(), values));
                    } else if meta.path.is_ident("alias") {
                        aliases.push(string_value(meta, "alias", "\"old_name\"")?);
                    } else if meta.path.is_ident("default") {
                        let value = default_value(meta)?;
                        default.set(cx, &meta.path, value);
                    } else if [
                        "name",
                        "validate",
                        "batchable",
                        "tensor_like",
                        "version",
                        "aliases",
                        "migrate",
                    ]
                    .iter()
                    .any(|k| meta.path.is_ident(k))
                    {
                        let key = meta.path.to_token_stream_string();
                        return Err(meta.error(format!(
                            "`extype({key})` belongs on the struct, not on a field"
                        )));
                    } else {
                        return Err(unknown_key(meta, FIELD_KEYS, "field"));
                    }
                    Ok(())
                })
            });
            if let Err(err) = result {
                cx.syn_error(err);
            }
        }
        FieldAttrs {
            shape: shape.value,
            static_: static_.value,
            skip: skip.value,
            validity_of: validity_of.value,
            aliases,
            default: default.value,
        }
    }
}

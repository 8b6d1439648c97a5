//! Versions of derived extension types: files outlive code.
//!
//! A derived type has a version (`#[extype(version = N)]`, 1 when unversioned), written into
//! every spec document it serializes (`{"spec": "pkg.Foo", "version": N, "value": …}`, the key
//! left out for version 1, so the documents and files of version-1 types are exactly what they
//! were before versions existed) and so into every file that stores the spec (safetensors
//! `__metadata__`, Arrow extension metadata, Parquet's stored Arrow schema). Reading a stored
//! spec of an older version, or under an old name, upgrades it to the type the program has:
//!
//! 1. a version newer than the program's type is an error naming the type, both versions and
//!    (where a file is read) the file: never a partial load;
//! 2. each migration (`#[extype(migrate(from = k, with = f))]`) from the stored version up to
//!    the current one runs, in order: `f` rewrites the stored value of version `k` ([`Stored`]:
//!    its fields' specs and components, by field name) into the layout of version `k + 1`
//!    (versions without a migration need none: defaults and renames cover them);
//! 3. a field missing under its name but present under an old one (`#[extype(alias = "old")]`)
//!    is renamed;
//! 4. a field still missing that has a default (`#[extype(default)]`: the field type's
//!    `Default`; `#[extype(default = f)]`: `f(&Stored) -> Result<FieldType>`, which may read the
//!    other fields, e.g. an all-true mask shaped like the values) is filled.
//!
//! The result is read as a current spec is: a field still missing, or one the type does not
//! have, is the usual error naming it; the value is rebuilt by `from_components`, so validation
//! and shape contracts run on the upgraded value. A stored spec of the current version under the
//! current name with exactly the current fields takes none of these steps (one comparison of
//! the field count and names): loading a current file costs what it always did.
//!
//! The same steps upgrade a spec document alone (`spec_from_json` of an old document): there is
//! no data, so [`Stored::tensor`] is an error, and a field whose default needs data takes the
//! least specific spec its Rust type admits (`bool[*]` for an `ArrayD<bool>`), refined by the
//! type's shape contract; a migration that reads tensors cannot run on a document alone.
//!
//! A derived value nested in a field (directly, or as an item of a `Vec`, array or tuple field)
//! is upgraded the same way, first (its spec and its components under its path), so the outer
//! type's own steps see the current nested value. (One inside a library type, or in a map
//! field, upgrades its spec only.)

use std::fmt;

use crate::error::{Result, SpecError};
use crate::field::{Components, Field, FieldPath, PathSink};
use crate::spec_tree::{Fields, SpecTree};
use crate::tensor::Tensor;

/// What `#[extype(version = …, aliases = […], migrate(…))]` and the fields' `alias` and
/// `default` attributes put into a derived type's table.
#[derive(Debug)]
pub struct Evolution {
    /// The type's version (1 when unversioned).
    pub version: u32,
    /// Names the type was registered under before (`aliases = ["pkg.Old"]`): stored specs and
    /// files under them load as this type.
    pub aliases: &'static [&'static str],
    /// The fields with old names or defaults.
    pub fields: &'static [FieldEvolution],
    /// The migrations, by increasing `from`.
    pub migrations: &'static [Migration],
}

impl Evolution {
    /// The evolution of a type with no versioning attribute: version 1, nothing else.
    pub const NONE: &'static Evolution = &Evolution {
        version: 1,
        aliases: &[],
        fields: &[],
        migrations: &[],
    };

    /// Whether `name` is one of the type's old names.
    pub fn is_alias(&self, name: &str) -> bool {
        self.aliases.contains(&name)
    }

    /// Upgrades `stored` (of the type named `own`, whose current fields are `keys`) to the
    /// current version: the steps of the [module docs](self). Afterwards `stored` is named
    /// `own` and has the current version; fields still missing are left for the reader's error.
    pub fn upgrade(&self, own: &str, keys: &[&str], stored: &mut Stored) -> Result<()> {
        if stored.version > self.version {
            return Err(SpecError::Version {
                type_name: own.to_string(),
                message: format!(
                    "written by version {} of the type, this program knows versions up to {}; \
                     read it with a newer build",
                    stored.version, self.version
                ),
            }
            .into());
        }
        while stored.version < self.version {
            let from = stored.version;
            if let Some(m) = self.migrations.iter().find(|m| m.from == from) {
                (m.with)(stored).map_err(|e| SpecError::Version {
                    type_name: own.to_string(),
                    message: format!("migration from version {from} to {}: {e}", from + 1),
                })?;
            }
            stored.version = from + 1;
        }
        for f in self.fields {
            if stored.fields.contains_key(f.key) {
                continue;
            }
            if let Some(old) = f.aliases.iter().find(|a| stored.fields.contains_key(a)) {
                stored.rename(old, f.key)?;
            }
        }
        for key in keys {
            if stored.fields.contains_key(key) {
                continue;
            }
            let Some(default) = self.field(key).and_then(|f| f.default) else {
                continue;
            };
            let filled = match (default.fill)(stored) {
                Ok(filled) => filled,
                Err(_) if !stored.has_data() => match (default.unknown)() {
                    Some(spec) => Filled {
                        spec,
                        tensors: Vec::new(),
                    },
                    None => {
                        return Err(SpecError::Version {
                            type_name: own.to_string(),
                            message: format!(
                                "field {key:?} (absent from version {}) has a default computed \
                                 from the data, and its type fixes no spec without it; load a \
                                 file instead of a spec document",
                                stored.original_version
                            ),
                        }
                        .into());
                    }
                },
                Err(e) => {
                    return Err(SpecError::Version {
                        type_name: own.to_string(),
                        message: format!("the default of field {key:?}: {e}"),
                    }
                    .into());
                }
            };
            stored.insert(key, filled);
        }
        // The current declaration order, for documents and messages.
        let order: Vec<String> = keys
            .iter()
            .filter(|k| stored.fields.contains_key(k))
            .map(|k| k.to_string())
            .chain(
                stored
                    .fields
                    .keys()
                    .filter(|k| !keys.contains(&k.as_str()))
                    .cloned(),
            )
            .collect::<Vec<_>>();
        if let Ok(reordered) = std::mem::take(&mut stored.fields).reordered(&order) {
            stored.fields = reordered;
        }
        stored.type_name = own.to_string();
        Ok(())
    }

    fn field(&self, key: &str) -> Option<&FieldEvolution> {
        self.fields.iter().find(|f| f.key == key)
    }
}

/// A field's old names and default.
#[derive(Debug)]
pub struct FieldEvolution {
    /// The field's key (its name, or position in a tuple struct).
    pub key: &'static str,
    /// Its old names (`alias = "old"`).
    pub aliases: &'static [&'static str],
    /// What fills it when a stored value lacks it.
    pub default: Option<FieldDefault>,
}

/// How a field missing from a stored value is filled: what `#[extype(default)]` or
/// `#[extype(default = f)]` generates.
#[derive(Clone, Copy)]
pub struct FieldDefault {
    fill: fn(&Stored) -> Result<Filled>,
    unknown: fn() -> Option<SpecTree>,
}

impl FieldDefault {
    /// A default: `fill` computes the field (through [`Filled::of`]), and `unknown` is the
    /// spec of the field's type alone ([`unknown_spec::<F>`](unknown_spec)), for spec
    /// documents without data.
    pub const fn new(
        fill: fn(&Stored) -> Result<Filled>,
        unknown: fn() -> Option<SpecTree>,
    ) -> Self {
        FieldDefault { fill, unknown }
    }
}

impl fmt::Debug for FieldDefault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FieldDefault")
    }
}

/// The serialized least specific spec of field type `F` ([`Field::unknown_spec`]).
pub fn unknown_spec<F: Field>() -> Option<SpecTree> {
    F::unknown_spec().map(|spec| F::spec_to_value(&spec))
}

/// A migration: `with` rewrites a stored value of version `from` into the layout of version
/// `from + 1` (`#[extype(migrate(from = k, with = f))]`, `f: fn(&mut Stored) -> Result<()>`).
#[derive(Clone, Copy)]
pub struct Migration {
    /// The version it migrates from.
    pub from: u32,
    /// The function.
    pub with: fn(&mut Stored) -> Result<()>,
}

impl fmt::Debug for Migration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Migration {{ from: {} }}", self.from)
    }
}

/// One field's stored form: its spec and its components (by full component path).
#[derive(Debug, Clone)]
pub struct Filled {
    spec: SpecTree,
    tensors: Vec<(String, Tensor)>,
}

impl Filled {
    /// The stored form of `value` as field `key`.
    pub fn of<F: Field>(key: &str, value: F) -> Filled {
        let spec = F::spec_to_value(&value.field_spec());
        let mut sink = PathSink::default();
        value.push_components(&FieldPath::Root.key(key), &mut sink);
        Filled {
            spec,
            tensors: sink.0,
        }
    }
}

/// Components by component path (`values`, `inner.mask`), as a [`Stored`] value holds them.
pub type NamedTensors = Vec<(String, Tensor)>;

/// A stored value of an older version (or old name) on its way to the current type: its fields'
/// specs, by field name, and their components, by component path (`values`, `inner.mask`,
/// `items[1]`). What migrations rewrite and defaults read.
///
/// A spec document alone has no data ([`has_data`](Self::has_data) is `false`): then the
/// components' specs are in the fields' specs, and [`tensor`](Self::tensor) is an error.
///
/// ```
/// use extype_core::versioning::Stored;
/// use extype_core::{SpecTree, Tensor, field::Static};
/// let mut stored = Stored::from_parts("pkg.Old", 1, Default::default(), Some(Vec::new()));
/// stored.set("values", ndarray::array![1.0f32, 2.0].into_dyn())?;
/// stored.set("scale", Static(2u32))?;
/// stored.rename("values", "data")?;
/// assert_eq!(stored.tensor("data")?.shape(), &[2]);
/// assert_eq!(stored.get::<Static<u32>>("scale")?.0, 2);
/// // A renamed field goes last.
/// assert_eq!(stored.keys().collect::<Vec<_>>(), ["scale", "data"]);
/// # Ok::<(), extype_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Stored {
    type_name: String,
    version: u32,
    original_version: u32,
    fields: Fields,
    tensors: Option<NamedTensors>,
}

/// Whether component `path` lies under field `key`.
fn under(path: &str, key: &str) -> bool {
    path.strip_prefix(key)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

impl Stored {
    /// A stored value named `type_name` of `version`, with its fields' specs and, when there is
    /// data, its components by path.
    pub fn from_parts(
        type_name: impl Into<String>,
        version: u32,
        fields: Fields,
        tensors: Option<NamedTensors>,
    ) -> Stored {
        Stored {
            type_name: type_name.into(),
            version,
            original_version: version,
            fields,
            tensors,
        }
    }

    /// Takes the stored value apart: its name, version, fields' specs and components.
    pub fn into_parts(self) -> (String, u32, Fields, Option<NamedTensors>) {
        (self.type_name, self.version, self.fields, self.tensors)
    }

    /// The name it is stored under (an old name, until the upgrade ends).
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The version it is at: the stored version, raised by each migration that ran.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Whether it carries data (a file), or is a spec document alone.
    pub fn has_data(&self) -> bool {
        self.tensors.is_some()
    }

    /// Its field names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.fields.keys().map(String::as_str)
    }

    /// Whether it has field `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.fields.contains_key(key)
    }

    /// The stored spec of field `key` (a tensor field's `TensorSpec`, a static field's value).
    pub fn spec(&self, key: &str) -> Option<&SpecTree> {
        self.fields.get(key)
    }

    /// The component at `path` (`values`, `inner.mask`); an error for a spec document (no data)
    /// or a path that holds no component, naming it.
    pub fn tensor(&self, path: &str) -> Result<&Tensor> {
        let Some(tensors) = &self.tensors else {
            return Err(self.data_error(path, "a component", "a spec document without data"));
        };
        match tensors.iter().find(|(p, _)| p == path) {
            Some((_, t)) => Ok(t),
            None => {
                let paths: Vec<&str> = tensors.iter().map(|(p, _)| p.as_str()).collect();
                Err(self.data_error(
                    path,
                    "a component",
                    &format!("none (components: [{}])", paths.join(", ")),
                ))
            }
        }
    }

    /// Field `key` as a value of field type `F` (a tensor field as its array type, a static
    /// field as `Static<T>`, a nested type): its spec read from the stored spec, its components
    /// (shared, not copied) checked against it.
    pub fn get<F: Field>(&self, key: &str) -> Result<F> {
        let tree = self
            .fields
            .get(key)
            .ok_or_else(|| self.data_error(key, "a field", "nothing (missing field)"))?;
        let path = FieldPath::Root.key(key);
        let spec = F::spec_from_value(tree, &path)?;
        let mut paths = PathSink::default();
        F::component_specs(&spec, &path, &mut paths);
        let mut list = Vec::with_capacity(paths.0.len());
        for (p, _) in &paths.0 {
            list.push(self.tensor(p)?.clone());
        }
        F::from_components(&spec, &path, &mut Components::new(list))
    }

    /// Sets field `key` to `value` (replacing any field of that name and its components).
    pub fn set<F: Field>(&mut self, key: &str, value: F) -> Result<()> {
        self.remove(key);
        self.insert(key, Filled::of(key, value));
        Ok(())
    }

    /// Removes field `key` and its components; its stored spec, if it was there.
    pub fn remove(&mut self, key: &str) -> Option<SpecTree> {
        if let Some(tensors) = &mut self.tensors {
            tensors.retain(|(p, _)| !under(p, key));
        }
        self.fields.remove(key)
    }

    /// Renames field `old` to `new`, with its components (`old.x` becomes `new.x`). An error
    /// when there is no field `old`, or already a field `new`.
    pub fn rename(&mut self, old: &str, new: &str) -> Result<()> {
        if self.fields.contains_key(new) {
            return Err(self.data_error(new, "no field (a rename's target)", "a field"));
        }
        let Some(spec) = self.fields.remove(old) else {
            return Err(self.data_error(old, "a field (to rename)", "nothing"));
        };
        self.fields.insert(new.to_string(), spec);
        if let Some(tensors) = &mut self.tensors {
            for (p, _) in tensors.iter_mut() {
                if under(p, old) {
                    *p = format!("{new}{}", &p[old.len()..]);
                }
            }
        }
        Ok(())
    }

    /// Sets the stored spec of field `key` (a new key goes last), leaving the components as
    /// they are: for an upgrade that rewrote the field's spec and put its components back
    /// ([`take_under`](Self::take_under), [`put_under`](Self::put_under)).
    pub fn set_spec(&mut self, key: &str, spec: SpecTree) {
        self.fields.insert(key.to_string(), spec);
    }

    /// Takes out the components under component path `path` (a field, `items[1]`, `inner.x`),
    /// their paths relative to it (`path.x` as `x`, `path` itself as the empty path), for the
    /// value there to be upgraded on its own; `None` for a spec document (no data).
    pub fn take_under(&mut self, path: &str) -> Option<NamedTensors> {
        let tensors = self.tensors.as_mut()?;
        let (inner, rest): (Vec<_>, Vec<_>) = std::mem::take(tensors)
            .into_iter()
            .partition(|(p, _)| under(p, path));
        *tensors = rest;
        Some(
            inner
                .into_iter()
                .map(|(p, t)| {
                    let rel = &p[path.len()..];
                    (rel.strip_prefix('.').unwrap_or(rel).to_string(), t)
                })
                .collect(),
        )
    }

    /// Puts back components taken out by [`take_under`](Self::take_under), their relative
    /// paths under `path` again.
    pub fn put_under(&mut self, path: &str, tensors: Option<NamedTensors>) {
        if let (Some(all), Some(tensors)) = (&mut self.tensors, tensors) {
            all.extend(tensors.into_iter().map(|(p, t)| {
                let full = if p.is_empty() || p.starts_with('[') {
                    format!("{path}{p}")
                } else {
                    format!("{path}.{p}")
                };
                (full, t)
            }));
        }
    }

    fn insert(&mut self, key: &str, filled: Filled) {
        self.fields.insert(key.to_string(), filled.spec);
        if let Some(tensors) = &mut self.tensors {
            tensors.extend(filled.tensors);
        }
    }

    /// Takes the components at `paths`, in that order; a path without one is an error naming
    /// it, and so is a component left over (no field of the current type has it).
    pub fn take_components(&mut self, paths: &[String]) -> Result<Vec<Tensor>> {
        let Some(tensors) = &mut self.tensors else {
            return Err(self.data_error("", "components", "a spec document without data"));
        };
        let mut out = Vec::with_capacity(paths.len());
        for path in paths {
            let Some(at) = tensors.iter().position(|(p, _)| p == path) else {
                let found: Vec<&str> = tensors.iter().map(|(p, _)| p.as_str()).collect();
                let found = format!("none (components left: [{}])", found.join(", "));
                return Err(self.data_error(path, "a component", &found));
            };
            out.push(tensors.swap_remove(at).1);
        }
        if let Some((extra, _)) = tensors.first() {
            let extra = extra.clone();
            return Err(self.data_error(
                &extra,
                "no component (the current type has no such field)",
                "a component",
            ));
        }
        Ok(out)
    }

    fn data_error(&self, path: &str, expected: &str, found: &str) -> crate::error::Error {
        SpecError::Data {
            path: path.to_string(),
            expected: format!("{expected} in {} version {}", self.type_name, self.version),
            found: found.to_string(),
        }
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Static;
    use ndarray::{ArrayD, array};

    fn stored() -> Stored {
        let mut s = Stored::from_parts("t.Old", 1, Fields::new(), Some(Vec::new()));
        s.set("values", array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn())
            .unwrap();
        s.set("n", Static(3u32)).unwrap();
        s
    }

    fn mask_default(s: &Stored) -> Result<Filled> {
        let values = s.tensor("data")?;
        Ok(Filled::of("mask", ArrayD::from_elem(values.shape(), true)))
    }

    static FIELDS: [FieldEvolution; 2] = [
        FieldEvolution {
            key: "data",
            aliases: &["values"],
            default: None,
        },
        FieldEvolution {
            key: "mask",
            aliases: &[],
            default: Some(FieldDefault::new(
                mask_default,
                unknown_spec::<ArrayD<bool>>,
            )),
        },
    ];

    fn double_n(s: &mut Stored) -> Result<()> {
        let n = s.get::<Static<u32>>("n")?.0;
        s.set("n", Static(n * 2))
    }

    static EVOLUTION: Evolution = Evolution {
        version: 3,
        aliases: &["t.Old"],
        fields: &FIELDS,
        migrations: &[Migration {
            from: 1,
            with: double_n,
        }],
    };

    #[test]
    fn an_old_value_is_migrated_renamed_and_filled() {
        let mut s = stored();
        EVOLUTION
            .upgrade("t.New", &["data", "mask", "n"], &mut s)
            .unwrap();
        assert_eq!((s.type_name(), s.version()), ("t.New", 3));
        assert_eq!(s.keys().collect::<Vec<_>>(), ["data", "mask", "n"]);
        assert_eq!(s.get::<Static<u32>>("n").unwrap().0, 6);
        let mask: ArrayD<bool> = s.get("mask").unwrap();
        assert_eq!(mask.shape(), &[2, 2]);
        let parts = s.take_components(&["data".into(), "mask".into()]).unwrap();
        assert_eq!(parts[0].shape(), &[2, 2]);
    }

    #[test]
    fn a_newer_version_is_an_error_naming_both() {
        let mut s = Stored::from_parts("t.New", 4, Fields::new(), None);
        let err = EVOLUTION.upgrade("t.New", &[], &mut s).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("version 4") && text.contains("up to 3"),
            "{text}"
        );
        assert!(text.contains("t.New"), "{text}");
    }

    #[test]
    fn a_spec_document_fills_a_data_default_with_the_unknown_spec() {
        let mut s = stored();
        s.tensors = None;
        EVOLUTION
            .upgrade("t.New", &["data", "mask", "n"], &mut s)
            .unwrap();
        assert_eq!(s.spec("mask").unwrap().to_string(), "bool*");
        assert!(s.tensor("data").is_err());
    }

    #[test]
    fn renames_move_components_and_refuse_clashes() {
        let mut s = stored();
        assert!(s.rename("values", "n").is_err());
        assert!(s.rename("nothing", "x").is_err());
        s.rename("values", "v").unwrap();
        assert!(s.tensor("v").is_ok() && s.tensor("values").is_err());
        assert!(under("v[1].x", "v") && !under("vv", "v"));
        let err = s.take_components(&[]).unwrap_err().to_string();
        assert!(err.contains("no such field"), "{err}");
    }
}

//! The registry of extension types: stable name → spec deserializer and value constructor.
//!
//! Entries are collected at link time with `inventory` (the derive submits one per type;
//! [`register!`](crate::register) submits one by hand, e.g. per concrete instantiation of a
//! generic type). All access goes through [`registry()`], which builds the table once, lazily
//! and thread-safely. Keeping that one function as the only door lets an explicit-list fallback
//! be added for platforms where link-time collection fails.
//!
//! A name registered twice, or a type registered under two names, breaks only itself: using that
//! name (or type) is an error naming both definitions, and everything else works.
//! [`crate::check()`] (or [`Registry::check`]) fails fast on any such conflict.

pub mod anonymous;
mod entry;
mod upgrade;

pub use anonymous::{AnonymousExtension, AnonymousSpec};
pub use entry::{RegistryEntry, SpecDecoder};
pub use upgrade::Upgrade;

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::error::{Error, RegistryError, Result, SpecError};
use crate::names::NameSource;
use crate::spec::{AnySpec, ExtensionType, Value};
use crate::spec_tree::SpecTree;
use crate::tensor::Tensor;

/// The built table of registered extension types.
#[derive(Debug)]
pub struct Registry {
    by_name: HashMap<&'static str, &'static RegistryEntry>,
    by_type: HashMap<TypeId, &'static RegistryEntry>,
    /// Old names (`#[extype(aliases = [...])]`) → the entry of the type that has them now.
    by_alias: HashMap<&'static str, &'static RegistryEntry>,
    /// Names registered more than once: the error naming the first two definitions.
    name_conflicts: HashMap<&'static str, Error>,
    /// Types registered under more than one name: the error naming the first two.
    type_conflicts: HashMap<TypeId, Error>,
}

static REGISTRY: OnceLock<Registry> = OnceLock::new();

/// The registry, built on first use from every linked-in entry. A name or type registered twice
/// is an error where it is used (naming both definitions); [`crate::check()`] reports every such
/// conflict at once.
pub fn registry() -> &'static Registry {
    REGISTRY.get_or_init(|| Registry::build(inventory::iter::<RegistryEntry>))
}

pub use crate::spec::registered_name;

/// The registry's answer to [`crate::names`]: the name `type_id` is registered under; `None`
/// when it is not registered or the registry failed to build.
fn name_of(type_id: TypeId) -> Option<&'static str> {
    let registry = registry();
    match registry.type_conflicts.contains_key(&type_id) {
        true => None,
        false => registry.by_type.get(&type_id).map(|e| e.name),
    }
}

inventory::submit! { NameSource::new(name_of) }

impl Registry {
    /// Builds a table from entries (the inventory, or an explicit list). Conflicts (a name given
    /// twice, a type under two names) are kept, each naming its first two definitions: using the
    /// name or type is that error, and [`check`](Self::check) lists them all.
    pub fn build(entries: impl IntoIterator<Item = &'static RegistryEntry>) -> Registry {
        let mut entries: Vec<&'static RegistryEntry> = entries.into_iter().collect();
        // Sorted so that a conflict names the same two definitions on every run, whatever the
        // link order.
        entries.sort_by(|a, b| (a.name, a.file, a.line).cmp(&(b.name, b.file, b.line)));
        let mut registry = Registry {
            by_name: HashMap::with_capacity(entries.len()),
            by_type: HashMap::with_capacity(entries.len()),
            by_alias: HashMap::new(),
            name_conflicts: HashMap::new(),
            type_conflicts: HashMap::new(),
        };
        for &entry in &entries {
            match registry.by_name.get(entry.name) {
                Some(first) => {
                    let first = *first;
                    registry
                        .name_conflicts
                        .entry(entry.name)
                        .or_insert_with(|| {
                            RegistryError::DuplicateName {
                                name: entry.name.to_string(),
                                first_type: (first.type_name)().to_string(),
                                first: first.location(),
                                second_type: (entry.type_name)().to_string(),
                                second: entry.location(),
                            }
                            .into()
                        });
                    continue;
                }
                None => {
                    registry.by_name.insert(entry.name, entry);
                }
            }
            if let Some(&first) = registry.by_type.get(&entry.type_id) {
                registry
                    .type_conflicts
                    .entry(entry.type_id)
                    .or_insert_with(|| {
                        RegistryError::DuplicateType {
                            type_name: (entry.type_name)().to_string(),
                            first_name: first.name.to_string(),
                            first: first.location(),
                            second_name: entry.name.to_string(),
                            second: entry.location(),
                        }
                        .into()
                    });
            } else {
                registry.by_type.insert(entry.type_id, entry);
            }
        }
        registry.add_aliases(&entries);
        registry
    }

    /// Adds the old names of the entries' types. An old name that is another type's name or
    /// old name (or given twice by one type) is a conflict of that name alone, as a name
    /// registered twice is: using it is the error, every other name of both types works.
    fn add_aliases(&mut self, entries: &[&'static RegistryEntry]) {
        for &entry in entries {
            for &alias in entry.aliases() {
                let first = self
                    .by_name
                    .get(alias)
                    .or_else(|| self.by_alias.get(alias))
                    .copied();
                match first {
                    Some(first) => {
                        self.name_conflicts.entry(alias).or_insert_with(|| {
                            RegistryError::DuplicateAlias {
                                name: alias.to_string(),
                                first_type: (first.type_name)().to_string(),
                                first: first.location(),
                                second_type: (entry.type_name)().to_string(),
                                second: entry.location(),
                            }
                            .into()
                        });
                    }
                    None => {
                        self.by_alias.insert(alias, entry);
                    }
                }
            }
        }
    }

    /// Every conflict (a name registered twice, a type under two names), sorted by message;
    /// `Ok` when there is none.
    pub fn check(&self) -> Result<()> {
        match Error::all(self.conflicts()) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// The conflicts, sorted by message (empty when there is none).
    pub fn conflicts(&self) -> Vec<Error> {
        let mut all: Vec<Error> = self
            .name_conflicts
            .values()
            .chain(self.type_conflicts.values())
            .cloned()
            .collect();
        all.sort_by_cached_key(ToString::to_string);
        all
    }

    /// The entry named `name`: `Ok(None)` when no type has it, the conflict's error (naming both
    /// definitions) when two do. What every path that turns a name into a type asks (loads,
    /// maps, shards, spec JSON, reinterpreting, dispatch of anonymous values), so that a name
    /// registered twice is reported wherever it is used, never read as an unknown name.
    pub fn resolve(&self, name: &str) -> Result<Option<&'static RegistryEntry>> {
        match self.name_conflicts.get(name) {
            Some(conflict) => Err(conflict.clone()),
            None => Ok(self
                .by_name
                .get(name)
                .or_else(|| self.by_alias.get(name))
                .copied()),
        }
    }

    /// The entry named `name`, or `None` (also when two types are registered under it: use
    /// [`resolve`](Self::resolve) or [`get`](Self::get) where that must be an error).
    pub fn lookup(&self, name: &str) -> Option<&'static RegistryEntry> {
        self.resolve(name).ok().flatten()
    }

    /// The entry named `name`; an error listing every registered name when there is none, or
    /// naming both definitions when two types are registered under it.
    pub fn get(&self, name: &str) -> Result<&'static RegistryEntry> {
        self.resolve(name)?.ok_or_else(|| {
            RegistryError::UnknownName {
                name: name.to_string(),
                known: self.names().into_iter().map(String::from).collect(),
            }
            .into()
        })
    }

    /// The entry of type `T`, or an error saying it is not registered.
    ///
    /// A type registered under two names is an error naming both.
    pub fn entry_of<T: ExtensionType>(&self) -> Result<&'static RegistryEntry> {
        if let Some(conflict) = self.type_conflicts.get(&TypeId::of::<T>()) {
            return Err(conflict.clone());
        }
        self.by_type
            .get(&TypeId::of::<T>())
            .copied()
            .ok_or_else(|| {
                RegistryError::NotRegistered {
                    type_name: std::any::type_name::<T>().to_string(),
                }
                .into()
            })
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names: Vec<_> = self.by_name.keys().copied().collect();
        names.sort_unstable();
        names
    }

    /// Every entry, in no particular order.
    pub fn entries(&self) -> impl Iterator<Item = &'static RegistryEntry> + '_ {
        self.by_name.values().copied()
    }

    /// The number of registered types.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether no type is registered.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Deserializes a registered spec ([`SpecTree::Spec`]) by its name; an unknown name is an
    /// error listing the known ones.
    pub fn deserialize_spec(&self, value: &SpecTree) -> Result<Box<dyn AnySpec>> {
        let SpecTree::Spec(named) = value else {
            return Err(SpecError::Data {
                path: String::new(),
                expected: "a registered spec".into(),
                found: value.describe(),
            }
            .into());
        };
        self.get(&named.name)?.deserialize_spec(value)
    }

    /// Resolves a stored spec (a file's metadata, an Arrow column's extension metadata) that
    /// must name the type `name`: the one place a name read from outside becomes a type, shared
    /// by every reader. A tree that is not a spec named `name` is an error saying what it is; a
    /// name two types are registered under is the conflict's error; a name this program does not
    /// link is [`StoredSpec::Anonymous`].
    ///
    /// ```
    /// use extype_core::registry::{StoredSpec, registry};
    /// use extype_core::SpecTree;
    /// let text = r#"{"extype_spec": 1, "spec": {"spec": "no.such.Type", "value": null}}"#;
    /// let tree = SpecTree::from_json(text).unwrap();
    /// let stored = registry().stored_spec("no.such.Type", tree.clone()).unwrap();
    /// assert!(matches!(stored, StoredSpec::Anonymous(_)));
    /// let err = registry().stored_spec("other.Type", tree).unwrap_err();
    /// assert!(err.to_string().contains("names the type \"other.Type\""), "{err}");
    /// ```
    pub fn stored_spec(&self, name: &str, tree: SpecTree) -> Result<StoredSpec> {
        match &tree {
            SpecTree::Spec(named) if named.name == name => {}
            other => {
                return Err(SpecError::Data {
                    path: String::new(),
                    expected: format!("the spec of the type the metadata names, {name:?}"),
                    found: format!(
                        "{} (the metadata names the type {name:?})",
                        other.describe()
                    ),
                }
                .into());
            }
        }
        if self.resolve(name)?.is_none() {
            return Ok(StoredSpec::Anonymous(tree));
        }
        self.deserialize_spec(&tree).map(StoredSpec::Registered)
    }

    /// Rebuilds a value from a serialized spec and its components. A name that is not linked into
    /// this program gives an [`AnonymousExtension`] (reinterpret it later with
    /// [`AnonymousExtension::reinterpret`]).
    pub fn rebuild(&self, spec: &SpecTree, components: Vec<Tensor>) -> Result<Value> {
        match spec {
            SpecTree::Spec(named) if self.resolve(&named.name)?.is_none() => {
                AnonymousExtension::new(spec.clone(), components).map(Value::from_extension)
            }
            _ => {
                let spec = self.deserialize_spec(spec)?;
                spec.dyn_from_components(components)
            }
        }
    }
}

/// A stored spec resolved by the registry ([`Registry::stored_spec`]).
#[derive(Clone, Debug)]
pub enum StoredSpec {
    /// A type linked into this program: its spec, which checks the components and validates
    /// the value when it is rebuilt.
    Registered(Box<dyn AnySpec>),
    /// A name this program does not link: the value loads as an [`AnonymousExtension`] of this
    /// tree, whatever its components hold.
    Anonymous(SpecTree),
}

impl StoredSpec {
    /// The component paths and specs a registered type expects (`None` for an anonymous one).
    pub fn components(&self) -> Option<Vec<(String, crate::spec::TensorSpec)>> {
        match self {
            StoredSpec::Registered(spec) => Some(
                spec.dyn_component_paths()
                    .into_iter()
                    .zip(spec.dyn_component_specs())
                    .collect(),
            ),
            StoredSpec::Anonymous(_) => None,
        }
    }

    /// The value of these components (in component order): `from_components` of the
    /// registered type (its checks and validation, once), or an anonymous value.
    pub fn rebuild(self, components: Vec<Tensor>) -> Result<Value> {
        match self {
            StoredSpec::Registered(spec) => spec.dyn_from_components(components),
            StoredSpec::Anonymous(tree) => {
                AnonymousExtension::new(tree, components).map(Value::from_extension)
            }
        }
    }
}

//! The registry of extension types: stable name → spec deserializer and value constructor.
//!
//! Entries are collected at link time with `inventory` (the derive submits one per type;
//! [`register!`](crate::register) submits one by hand, e.g. per concrete instantiation of a
//! generic type). All access goes through [`registry()`], which builds and validates the table
//! once, lazily and thread-safely; a build error (duplicate names or types) is returned on every
//! access. Keeping that one function as the only door lets an explicit-list fallback be added for
//! platforms where link-time collection fails.

pub mod anonymous;
mod entry;

pub use anonymous::{AnonymousExtension, AnonymousSpec};
pub use entry::{RegistryEntry, SpecDecoder};

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::error::{RegistryError, Result, SpecError};
use crate::names::NameSource;
use crate::spec::{AnySpec, ExtensionType, Value};
use crate::spec_tree::SpecTree;
use crate::tensor::Tensor;

/// The built, validated table of registered extension types.
#[derive(Debug)]
pub struct Registry {
    by_name: HashMap<&'static str, &'static RegistryEntry>,
    by_type: HashMap<TypeId, &'static RegistryEntry>,
}

static REGISTRY: OnceLock<Result<Registry>> = OnceLock::new();

/// The registry: built on first use from every linked-in entry, validated (duplicate names or
/// types are an error naming both definitions, returned on every call).
pub fn registry() -> Result<&'static Registry> {
    REGISTRY
        .get_or_init(|| Registry::build(inventory::iter::<RegistryEntry>))
        .as_ref()
        .map_err(Clone::clone)
}

pub use crate::spec::registered_name;

/// The registry's answer to [`crate::names`]: the name `type_id` is registered under; `None`
/// when it is not registered or the registry failed to build.
fn name_of(type_id: TypeId) -> Option<&'static str> {
    match registry() {
        Ok(r) => r.by_type.get(&type_id).map(|e| e.name),
        Err(_) => None,
    }
}

inventory::submit! { NameSource::new(name_of) }

impl Registry {
    /// Builds and validates a table from entries (the inventory, or an explicit list).
    pub fn build(entries: impl IntoIterator<Item = &'static RegistryEntry>) -> Result<Registry> {
        let mut entries: Vec<&'static RegistryEntry> = entries.into_iter().collect();
        // Sorted so that a duplicate error is the same on every run, whatever the link order.
        entries.sort_by(|a, b| (a.name, a.file, a.line).cmp(&(b.name, b.file, b.line)));
        let mut by_name = HashMap::with_capacity(entries.len());
        let mut by_type: HashMap<TypeId, &'static RegistryEntry> =
            HashMap::with_capacity(entries.len());
        for entry in entries {
            if let Some(first) = by_name.insert(entry.name, entry) {
                return Err(RegistryError::DuplicateName {
                    name: entry.name.to_string(),
                    first_type: (first.type_name)().to_string(),
                    first: first.location(),
                    second_type: (entry.type_name)().to_string(),
                    second: entry.location(),
                }
                .into());
            }
            if let Some(first) = by_type.insert(entry.type_id, entry) {
                return Err(RegistryError::DuplicateType {
                    type_name: (entry.type_name)().to_string(),
                    first_name: first.name.to_string(),
                    first: first.location(),
                    second_name: entry.name.to_string(),
                    second: entry.location(),
                }
                .into());
            }
        }
        Ok(Registry { by_name, by_type })
    }

    /// The entry named `name`, or `None`.
    pub fn lookup(&self, name: &str) -> Option<&'static RegistryEntry> {
        self.by_name.get(name).copied()
    }

    /// The entry named `name`, or an error listing every registered name.
    pub fn get(&self, name: &str) -> Result<&'static RegistryEntry> {
        self.lookup(name).ok_or_else(|| {
            RegistryError::UnknownName {
                name: name.to_string(),
                known: self.names().into_iter().map(String::from).collect(),
            }
            .into()
        })
    }

    /// The entry of type `T`, or an error saying it is not registered.
    pub fn entry_of<T: ExtensionType>(&self) -> Result<&'static RegistryEntry> {
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

    /// Rebuilds a value from a serialized spec and its components. A name that is not linked into
    /// this program gives an [`AnonymousExtension`] (reinterpret it later with
    /// [`AnonymousExtension::reinterpret`]).
    pub fn rebuild(&self, spec: &SpecTree, components: Vec<Tensor>) -> Result<Value> {
        match spec {
            SpecTree::Spec(named) if self.lookup(&named.name).is_none() => {
                AnonymousExtension::new(spec.clone(), components).map(Value::from_extension)
            }
            _ => {
                let spec = self.deserialize_spec(spec)?;
                spec.dyn_from_components(components)
            }
        }
    }
}

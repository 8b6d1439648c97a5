//! A stored value of an older version (or under an old name) of a linked derived type, read
//! by the names its file gives and upgraded to the current type ([`crate::versioning`]): the one
//! data upgrade that safetensors files (`io`) and Arrow columns (the Arrow crate) share.

use crate::derived::StructDesc;
use crate::error::{Result, SpecError};
use crate::spec::{AnySpec, ExtensionType, TypeSpec, Value};
use crate::spec_tree::{Fields, SpecTree};
use crate::tensor::{Tensor, TensorSpec};
use crate::versioning::{NamedTensors, Stored};

use extype_shape::{Dim, Shape};

use super::Registry;

/// A stored value to upgrade to its type's current version once its components are read
/// ([`Registry::upgrade_of`]).
#[derive(Clone, Debug)]
pub struct Upgrade {
    desc: &'static StructDesc,
    name: String,
    version: u32,
    fields: Fields,
}

impl Registry {
    /// The upgrade the stored spec `tree` (under the name `type_name`, as a file's metadata
    /// gives it) needs before its components load: `None` when the name is no linked derived
    /// type's, or the spec is current (the type's version, its registered name and exactly its
    /// fields: then the components are read as the spec says). A version newer than the
    /// program's type is an error naming the type and both versions: never a partial load.
    ///
    /// An outdated value's components are read by the names the file gives them and passed to
    /// [`Upgrade::rebuild`].
    pub fn upgrade_of(&self, type_name: &str, tree: &SpecTree) -> Result<Option<Upgrade>> {
        let SpecTree::Spec(named) = tree else {
            return Ok(None);
        };
        let Some(desc) = self.resolve(type_name)?.and_then(|entry| entry.desc()) else {
            return Ok(None);
        };
        let known = desc.evolution.version;
        if named.version > known {
            return Err(SpecError::Version {
                type_name: type_name.to_string(),
                message: format!(
                    "written by version {} of the type, this program knows versions up to \
                     {known} (as {}); read it with a newer build",
                    named.version,
                    desc.registered_name()
                ),
            }
            .into());
        }
        if named.name != type_name || desc.is_current(named) && !self.nested_outdated(named)? {
            return Ok(None);
        }
        let SpecTree::Map(fields) = &named.value else {
            return Ok(None);
        };
        Ok(Some(Upgrade {
            desc,
            name: named.name.clone(),
            version: named.version,
            fields: fields.clone(),
        }))
    }
}

impl Registry {
    /// Whether the stored spec `tree` (a field's) holds an outdated derived value: a derived
    /// type's spec that is not current, or one nested in it or in the items of a list or
    /// tuple. (Runs on every read of a stored spec: one registry lookup per nested spec, no
    /// allocation.)
    fn holds_outdated(&self, tree: &SpecTree) -> Result<bool> {
        match tree {
            SpecTree::Spec(named) => {
                let Some(desc) = self.resolve(&named.name)?.and_then(|entry| entry.desc()) else {
                    return Ok(false);
                };
                Ok(!desc.is_current(named) || self.nested_outdated(named)?)
            }
            SpecTree::List(items) | SpecTree::Tuple(items) => {
                for item in items {
                    if self.holds_outdated(item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Ok(false),
        }
    }

    /// Whether a field of `named` holds an outdated derived value.
    fn nested_outdated(&self, named: &crate::spec_tree::NamedSpec) -> Result<bool> {
        let SpecTree::Map(fields) = &named.value else {
            return Ok(false);
        };
        for field in fields.values() {
            if self.holds_outdated(field)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Upgrades the outdated derived values in the fields of `stored` (a value of `desc`), then
/// `stored` itself.
fn upgrade_deep(desc: &'static StructDesc, stored: &mut Stored) -> Result<()> {
    let keys: Vec<String> = stored.keys().map(str::to_string).collect();
    for key in keys {
        let Some(spec) = stored.spec(&key) else {
            continue;
        };
        if !super::registry().holds_outdated(spec)? {
            continue;
        }
        let mut tree = spec.clone();
        upgrade_tree(&mut tree, &key, stored)?;
        stored.set_spec(&key, tree);
    }
    desc.upgrade(stored)?;
    Ok(())
}

/// Upgrades the outdated derived values in `tree`, the stored spec at component path `path`
/// of `stored` (a field, or an item of one): each one's components taken from under its path,
/// upgraded ([`upgrade_deep`]) and put back.
fn upgrade_tree(tree: &mut SpecTree, path: &str, stored: &mut Stored) -> Result<()> {
    match tree {
        SpecTree::Spec(named) => {
            let registry = super::registry();
            let Some(inner) = registry.resolve(&named.name)?.and_then(|e| e.desc()) else {
                return Ok(());
            };
            let SpecTree::Map(fields) = &named.value else {
                return Ok(());
            };
            if inner.is_current(named) && !registry.nested_outdated(named)? {
                return Ok(());
            }
            let tensors = stored.take_under(path);
            let mut nested =
                Stored::from_parts(named.name.clone(), named.version, fields.clone(), tensors);
            upgrade_deep(inner, &mut nested)?;
            *tree = inner.tree_of(&nested);
            let (_, _, _, tensors) = nested.into_parts();
            stored.put_under(path, tensors);
        }
        SpecTree::List(items) | SpecTree::Tuple(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                upgrade_tree(item, &format!("{path}[{i}]"), stored)?;
            }
        }
        _ => {}
    }
    Ok(())
}

impl Upgrade {
    /// The same upgrade for part of the stored batch: every stored tensor spec whose leading
    /// (batch) axis is known takes `rows` as its length, so that a column read in chunks (or an
    /// engine's slice of it) upgrades like the whole batch, and defaults and migrations reading
    /// typed fields ([`Stored::get`]) see the chunk's own shapes.
    pub fn for_rows(mut self, rows: usize) -> Upgrade {
        for tree in self.fields.values_mut() {
            with_leading(tree, rows);
        }
        self
    }

    /// The upgraded spec and its components in component order, from the stored components
    /// `named` (by component path, as the file names them): the steps of
    /// [`crate::versioning`], then the current spec read from the upgraded fields. A component
    /// missing, or one the current type has no field for, is an error naming it.
    pub fn upgraded(self, named: NamedTensors) -> Result<(Box<dyn AnySpec>, Vec<Tensor>)> {
        let mut stored = self.stored(named)?;
        let spec = super::registry().deserialize_spec(&self.desc.tree_of(&stored))?;
        let parts = stored.take_components(&spec.dyn_component_paths())?;
        Ok((spec, parts))
    }

    /// The upgraded value, rebuilt by `from_components` (validation and shape contracts run on
    /// the result).
    pub fn rebuild(self, named: NamedTensors) -> Result<Value> {
        let (spec, parts) = self.upgraded(named)?;
        spec.dyn_from_components(parts)
    }

    /// The upgraded value as a `T` (the type the stored name resolves to).
    pub fn rebuild_as<T: ExtensionType>(self, named: NamedTensors) -> Result<T> {
        let mut stored = self.stored(named)?;
        let spec = T::Spec::deserialize(&self.desc.tree_of(&stored))?;
        let parts = stored.take_components(&spec.component_paths())?;
        spec.from_components(parts)
    }

    fn stored(&self, named: NamedTensors) -> Result<Stored> {
        let mut stored = Stored::from_parts(
            self.name.clone(),
            self.version,
            self.fields.clone(),
            Some(named),
        );
        upgrade_deep(self.desc, &mut stored)?;
        Ok(stored)
    }
}

/// Sets the known leading axis of every tensor spec in `tree` to `rows`.
fn with_leading(tree: &mut SpecTree, rows: usize) {
    match tree {
        SpecTree::TensorSpec(spec) => {
            if let Some(dims) = spec.shape.dims()
                && dims.first().is_some_and(|d| d.value().is_some())
            {
                let shape = Shape::from_dims(
                    std::iter::once(Dim::Known(rows)).chain(dims[1..].iter().cloned()),
                );
                *spec = TensorSpec::new(shape, spec.dtype);
            }
        }
        SpecTree::Spec(named) => with_leading(&mut named.value, rows),
        SpecTree::Map(fields) => {
            for child in fields.values_mut() {
                with_leading(child, rows);
            }
        }
        _ => {}
    }
}

//! A record batch whose columns are the components of one value, named by their field paths
//! (what another writer, such as a dataframe library, makes): the value read back by its
//! type's spec.

use arrow_array::RecordBatch;
use arrow_schema::DataType;
use extype_core::{ExtensionType, SpecSource, SpecTree, Tensor, TensorSpec, TypeSpec};

use crate::error::{Error, Result};
use crate::tensor;

/// A batch of `T` from columns named by `T`'s component paths (`values`, `mask`;
/// `inner.values` for a nested field), with no extype metadata: what another tool writes (a
/// pyarrow table of `pa.fixed_shape_tensor` columns). Every dtype and shape is taken from the
/// columns (the spec built by [`TypeSpec::from_source`], for types without static fields), then
/// checked and validated as any load is. Columns that are not components are ignored (struct
/// columns are not read); a missing one is an error naming it.
pub fn from_columns_as<T: ExtensionType>(batch: &RecordBatch) -> Result<T> {
    let schema = batch.schema();
    let mut tensors = Vec::with_capacity(batch.num_columns());
    for (f, a) in schema.fields().iter().zip(batch.columns()) {
        if let DataType::Struct(_) = f.data_type() {
            continue; // not a tensor: no component's column
        }
        tensors.push((
            f.name().clone(),
            tensor::import(f, a.as_ref(), f.name(), None, None)?,
        ));
    }
    let label = extype_core::registered_name::<T>();
    let mut source = Columns(&tensors);
    let spec = T::Spec::from_source(&mut source).map_err(crate::error::extype(format!(
        "the spec of {label} from the columns"
    )))?;
    let mut components = Vec::new();
    for path in spec.component_paths() {
        let t = tensors
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| Error::Metadata {
                field: path.clone(),
                message: format!("no column for component `{path}` of {label}"),
            })?;
        components.push(t);
    }
    spec.from_components(components)
        .map_err(crate::error::extype(format!("{label} from the columns")))
}

/// Record batch columns as a [`SpecSource`]: tensors by column name.
struct Columns<'a>(&'a [(String, Tensor)]);

impl SpecSource for Columns<'_> {
    fn tensor(&mut self, path: &str) -> extype_core::Result<Option<TensorSpec>> {
        Ok(self
            .0
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| TensorSpec::from_tensor(t)))
    }

    fn has_under(&mut self, path: &str) -> bool {
        self.0.iter().any(|(p, _)| under(p, path).is_some())
    }

    fn keys_under(&mut self, path: &str) -> Vec<String> {
        let mut keys: Vec<String> = self
            .0
            .iter()
            .filter_map(|(p, _)| under(p, path))
            .filter(|rest| !rest.is_empty() && !rest.starts_with('['))
            .map(|rest| {
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                rest[..end].to_string()
            })
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    fn take_static(&mut self, _path: &str) -> Option<SpecTree> {
        None
    }
}

/// What follows `path` in `name` when `name` is `path` or lies under it (`path.…`, `path[…`),
/// the separating dot removed.
fn under<'a>(name: &'a str, path: &str) -> Option<&'a str> {
    if path.is_empty() {
        return Some(name);
    }
    let rest = name.strip_prefix(path)?;
    if rest.is_empty() || rest.starts_with('[') {
        Some(rest)
    } else {
        rest.strip_prefix('.')
    }
}

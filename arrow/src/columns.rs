//! A record batch whose columns are the components of one value, named by their field paths
//! (what another writer, such as a dataframe library, makes): the value read back by its
//! type's spec.

use arrow_array::{Array, FixedSizeListArray, RecordBatch};
use arrow_schema::DataType;
use extype_core::field::path::segments;
use extype_core::{ExtensionType, SpecSource, SpecTree, Tensor, TensorSpec, TypeSpec};

use crate::error::{Error, Result};
use crate::tensor;

/// A batch of `T` from columns named by `T`'s component paths (`values`, `mask`;
/// `inner.values` for a nested field), with no extype metadata: what another tool writes (a
/// pyarrow table of `pa.fixed_shape_tensor` columns). Every dtype and shape is taken from the
/// columns (the spec built by [`TypeSpec::from_source`], for types without static fields), then
/// checked and validated as any load is. Columns that are not components are ignored (struct
/// columns are not read); a missing one is an error naming it.
///
/// A component that `T` declares as another's validity (`#[extype(validity_of = …)]`, such as
/// `MaskedTensor`'s `mask`) and that has no column of its own is read from the validity bitmap
/// of the values' column (its null elements are `false`); a values column without nulls (a
/// pyarrow array with no null, or one whose bitmap was dropped) gives a mask of all `true`.
pub fn from_columns_as<T: ExtensionType>(batch: &RecordBatch) -> Result<T> {
    // First only columns with null elements stand for a missing mask. If that fails (a mask
    // with no column, its values' column without nulls), each column without nulls in turn
    // may, all valid: which column a mask belongs to is the spec's to say, and the spec is
    // what the columns build. The first error is the one reported (the further attempts only
    // ever help a type declaring validity), and they run on the error path only.
    let first = match read::<T>(batch, None) {
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    for (f, a) in batch.schema().fields().iter().zip(batch.columns()) {
        if !matches!(f.data_type(), DataType::Struct(_))
            && !has_bitmap(a.as_ref())
            && let Ok(value) = read::<T>(batch, Some(f.name()))
        {
            return Ok(value);
        }
    }
    Err(first)
}

/// [`from_columns_as`], the column `all_valid` (which has no nulls) standing for a missing mask
/// too.
fn read<T: ExtensionType>(batch: &RecordBatch, all_valid: Option<&str>) -> Result<T> {
    let schema = batch.schema();
    let mut tensors = Vec::with_capacity(batch.num_columns());
    let mut bitmaps = Vec::new();
    for (f, a) in schema.fields().iter().zip(batch.columns()) {
        if let DataType::Struct(_) = f.data_type() {
            continue; // not a tensor: no component's column
        }
        let nulls = has_bitmap(a.as_ref());
        if nulls || all_valid == Some(f.name().as_str()) {
            let (t, m) = tensor::import_masked(f, a.as_ref(), f.name(), None, None)?;
            bitmaps.push(Bitmap {
                column: f.name().clone(),
                mask: m,
                nulls,
            });
            tensors.push((f.name().clone(), t));
        } else {
            tensors.push((
                f.name().clone(),
                tensor::import(f, a.as_ref(), f.name(), None, None)?,
            ));
        }
    }
    let label = extype_core::registered_name::<T>();
    let mut source = Columns {
        tensors: &tensors,
        bitmaps: &bitmaps,
        inferred: Vec::new(),
    };
    let spec = T::Spec::from_source(&mut source).map_err(crate::error::extype(format!(
        "the spec of {label} from the columns"
    )))?;
    let inferred = source.inferred;
    let validity = spec.validity();
    // A mask read from a bitmap must be the declared validity of that column, and a column
    // with nulls must give one: anything else is a column with missing elements.
    for (mask, values) in &inferred {
        if !validity.iter().any(|(m, v)| m == mask && v == values) {
            return Err(Error::Metadata {
                field: mask.clone(),
                message: format!(
                    "no column for component `{mask}` of {label}, which does not declare it the \
                     validity of `{values}` (whose column has null elements)"
                ),
            });
        }
    }
    for b in bitmaps.iter().filter(|b| b.nulls) {
        if !inferred.iter().any(|(_, v)| *v == b.column)
            && let Some((f, a)) = schema
                .fields()
                .iter()
                .zip(batch.columns())
                .find(|(f, _)| *f.name() == b.column)
        {
            tensor::import(f, a.as_ref(), &b.column, None, None)?; // the error of its nulls
        }
    }
    let mut components = Vec::new();
    for path in spec.component_paths() {
        let t = tensors
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.clone())
            .or_else(|| {
                let (_, values) = inferred.iter().find(|(m, _)| *m == path)?;
                bitmaps
                    .iter()
                    .find(|b| b.column == *values)
                    .map(|b| b.mask.clone())
            })
            .ok_or_else(|| Error::Metadata {
                field: path.clone(),
                message: format!("no column for component `{path}` of {label}"),
            })?;
        components.push(t);
    }
    spec.from_components(components)
        .map_err(crate::error::extype(format!("{label} from the columns")))
}

/// A column's validity as a mask: `false` at its null elements (all `true` without nulls).
struct Bitmap {
    column: String,
    mask: Tensor,
    /// Whether the column has null elements.
    nulls: bool,
}

/// Whether the elements of a column (a fixed-size list's values, or the array itself) or its
/// rows have a validity bitmap with a null.
fn has_bitmap(array: &dyn Array) -> bool {
    if array.null_count() > 0 {
        return true;
    }
    match array.as_any().downcast_ref::<FixedSizeListArray>() {
        Some(list) => list.values().null_count() > 0,
        None => false,
    }
}

/// Record batch columns as a [`SpecSource`]: tensors by column name; a tensor without a
/// column, when exactly one sibling column is in `bitmaps` (those with null elements first;
/// the all-valid one of a further attempt if none), is that column's mask (the pairs kept in
/// `inferred`, `(mask, values)`, for the caller to check against the spec).
struct Columns<'a> {
    tensors: &'a [(String, Tensor)],
    bitmaps: &'a [Bitmap],
    inferred: Vec<(String, String)>,
}

impl SpecSource for Columns<'_> {
    fn tensor(&mut self, path: &str) -> extype_core::Result<Option<TensorSpec>> {
        if let Some((_, t)) = self.tensors.iter().find(|(p, _)| p == path) {
            return Ok(Some(TensorSpec::from_tensor(t)));
        }
        let parent = |p: &str| {
            let mut segs = segments(p);
            segs.pop();
            segs
        };
        let siblings: Vec<&Bitmap> = self
            .bitmaps
            .iter()
            .filter(|b| parent(&b.column) == parent(path))
            .collect();
        let with_nulls: Vec<&Bitmap> = siblings.iter().copied().filter(|b| b.nulls).collect();
        let candidates = if with_nulls.is_empty() {
            siblings
        } else {
            with_nulls
        };
        match candidates.as_slice() {
            [b] => {
                if !self.inferred.iter().any(|(m, _)| m == path) {
                    self.inferred.push((path.to_string(), b.column.clone()));
                }
                Ok(Some(TensorSpec::from_tensor(&b.mask)))
            }
            _ => Ok(None),
        }
    }

    fn has_under(&mut self, path: &str) -> bool {
        self.tensors.iter().any(|(p, _)| under(p, path).is_some())
    }

    fn keys_under(&mut self, path: &str) -> Vec<String> {
        let mut keys: Vec<String> = self
            .tensors
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

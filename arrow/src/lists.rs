//! The list layout: a batch whose encoder declares a [`ListLayout`] (a ragged tensor: flat values
//! and one row-splits vector per ragged dimension) as Arrow's nested lists, one `LargeList`
//! level per splits component, the splits its offsets, the flat values the innermost child (a
//! plain array, or an `arrow.fixed_shape_tensor` for uniform inner dimensions).
//!
//! `LargeList`, always: extype's splits are `i64`, so `LargeList`'s `i64` offsets are the splits'
//! own buffer (no copy on export, none on import), whatever the sizes; `List`'s `i32` offsets
//! would need a narrowing copy of every level and a second layout past 2³¹ elements. Engines
//! read both alike (DuckDB and Polars as their list type, awkward as `var`). Reading also takes
//! `List` levels (what pyarrow writes by default), widened with one copy.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, GenericListArray, Int64Array, LargeListArray, OffsetSizeTrait};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef};
use extype_core::batch::ListLayout;
use extype_core::{DType, Tensor, TensorSpec, TensorView};

use crate::error::{Error, Result};
use crate::metadata::LIST_LAYOUT;
use crate::tensor;

/// The layout as the [`LIST_LAYOUT`] metadata value: `{"values":…,"splits":[…]}`.
pub(crate) fn layout_json(layout: &ListLayout) -> String {
    serde_json::json!({ "values": layout.values, "splits": layout.splits }).to_string()
}

/// The index of each of the layout's components among `paths`: `(values, splits…)`; an error
/// when one is not a component, one is named twice, or a component is left out.
fn indices(
    layout: &ListLayout,
    paths: &[String],
    what: impl Fn(String) -> Error,
) -> Result<(usize, Vec<usize>)> {
    let index = |p: &str| {
        paths.iter().position(|q| q == p).ok_or_else(|| {
            what(format!(
                "the list layout names `{p}`, which is not a component (the components are {})",
                paths.join(", ")
            ))
        })
    };
    if layout.splits.is_empty() {
        return Err(what(
            "a list layout without splits: expected one splits component per list level".into(),
        ));
    }
    let values = index(&layout.values)?;
    let splits = layout
        .splits
        .iter()
        .map(|s| index(s))
        .collect::<Result<Vec<_>>>()?;
    let mut named: Vec<usize> = splits.iter().copied().chain([values]).collect();
    named.sort_unstable();
    named.dedup();
    if named.len() != layout.splits.len() + 1 || named.len() != paths.len() {
        return Err(what(format!(
            "the list layout (values `{}`, splits {}) must name each component once; the \
             components are {}",
            layout.values,
            layout.splits.join(", "),
            paths.join(", ")
        )));
    }
    Ok((values, splits))
}

/// A batch in the list layout as an Arrow column named `name`: `components` in the order of
/// `paths` (the spec's component paths). No element or offset is copied when the tensors are in
/// standard layout (`bool` values excepted). The splits are checked: `i64`, rank 1, from 0,
/// never decreasing, ending at the rows of the level below.
pub(crate) fn export(
    name: &str,
    type_name: &str,
    layout: &ListLayout,
    paths: &[String],
    components: &[Tensor],
) -> Result<(Field, ArrayRef)> {
    let what = |message: String| Error::Value {
        op: "to_array",
        message: format!("column `{name}` ({type_name}) as nested lists: {message}"),
    };
    let (v, splits) = indices(layout, paths, what)?;
    let values = &components[v];
    let Some(&values_rows) = values.shape().first() else {
        return Err(what(format!(
            "the values `{}` are a scalar: expected a tensor of rank 1 or more",
            layout.values
        )));
    };
    // Non-null items at every level: a ragged row and a value are never missing (awkward reads
    // nullable ones as `option[…]`).
    let (mut field, mut array) = tensor::export(values, "item")?;
    let mut rows = values_rows;
    for (&c, path) in splits.iter().zip(&layout.splits).rev() {
        let offsets = offsets_of(&components[c], path, rows, &what)?;
        rows = offsets.len() - 1;
        let list = LargeListArray::try_new(Arc::new(field), offsets, array, None).map_err(
            crate::error::arrow(format!("column `{name}`: the splits `{path}`")),
        )?;
        field = Field::new("item", list.data_type().clone(), false);
        array = Arc::new(list);
    }
    Ok((field.with_name(name).with_nullable(false), array))
}

/// The splits tensor `t` (component `path`) as `LargeList` offsets over `rows` rows: its buffer
/// itself in standard layout.
fn offsets_of(
    t: &Tensor,
    path: &str,
    rows: usize,
    what: &impl Fn(String) -> Error,
) -> Result<OffsetBuffer<i64>> {
    let bad = |found: String| {
        what(format!(
            "the splits `{path}`: expected i64 of rank 1, from 0, never decreasing, ending at \
             {rows} (the rows below), found {found}"
        ))
    };
    let TensorView::I64(view) = t.view() else {
        return Err(bad(format!("dtype {:?}", t.dtype())));
    };
    if view.ndim() != 1 || view.is_empty() {
        return Err(bad(format!("shape {:?}", t.shape())));
    }
    let (_, array) = tensor::export(t, path)?;
    let Some(ints) = array.as_any().downcast_ref::<Int64Array>() else {
        return Err(bad(format!("an Arrow {}", array.data_type())));
    };
    let s: &[i64] = ints.values();
    if s[0] != 0 {
        return Err(bad(format!("a first split of {}", s[0])));
    }
    if let Some(i) = s.windows(2).position(|w| w[1] < w[0]) {
        return Err(bad(format!(
            "split {} = {} after {}",
            i + 1,
            s[i + 1],
            s[i]
        )));
    }
    let last = s[s.len() - 1];
    if usize::try_from(last).ok() != Some(rows) {
        return Err(bad(format!("a last split of {last}")));
    }
    // Checked above: non-negative and non-decreasing, as `OffsetBuffer::new` requires.
    Ok(OffsetBuffer::new(ints.values().clone()))
}

/// The components (in the order of `expected`, the spec's component paths and specs) of a column
/// in the list layout: each level's offsets as its splits (viewed in place when they are
/// `LargeList` offsets from 0; rebased or widened with one copy otherwise), the innermost child
/// as the values, read with the spec's dtype and inner dimensions. `field` describes `array`.
pub(crate) fn import(
    field: &Field,
    array: &dyn Array,
    type_name: &str,
    layout: &ListLayout,
    expected: &[(String, TensorSpec)],
) -> Result<Vec<Tensor>> {
    let name = field.name();
    let what = |message: String| Error::Metadata {
        field: name.clone(),
        message: format!("{type_name} in the list layout: {message}"),
    };
    let paths: Vec<String> = expected.iter().map(|(p, _)| p.clone()).collect();
    let (v, split_index) = indices(layout, &paths, what)?;
    if let Some(text) = field.metadata().get(LIST_LAYOUT) {
        let found: serde_json::Value =
            serde_json::from_str(text).map_err(|e| what(format!("{LIST_LAYOUT} {text:?}: {e}")))?;
        let wanted: serde_json::Value =
            serde_json::from_str(&layout_json(layout)).unwrap_or_default();
        if found != wanted {
            return Err(what(format!(
                "{LIST_LAYOUT} is {text}, the type's layout {}",
                layout_json(layout)
            )));
        }
    }
    let levels = layout.splits.len();
    let mut components: Vec<Option<Tensor>> = vec![None; expected.len()];
    let mut child_field: FieldRef = Arc::new(field.clone());
    let mut child: ArrayRef = arrow_array::make_array(array.to_data());
    for (level, (&c, path)) in split_index.iter().zip(&layout.splits).enumerate() {
        let at = format!("{name}.{path}");
        let storage = |found: &DataType| Error::Storage {
            field: at.clone(),
            expected: format!(
                "a LargeList (or List): level {level} of {levels} list levels, whose offsets are \
                 the splits `{path}`"
            ),
            found: found.to_string(),
        };
        let (splits, item, values) = match child.data_type() {
            DataType::LargeList(item) => {
                let list = child
                    .as_any()
                    .downcast_ref::<LargeListArray>()
                    .ok_or_else(|| storage(child.data_type()))?;
                let (s, values) = level_of(list, &at)?;
                (s, item.clone(), values)
            }
            DataType::List(item) => {
                let list = child
                    .as_any()
                    .downcast_ref::<GenericListArray<i32>>()
                    .ok_or_else(|| storage(child.data_type()))?;
                let (s, values) = level_of(list, &at)?;
                (s, item.clone(), values)
            }
            other => return Err(storage(other)),
        };
        let ints = Int64Array::new(splits, None);
        let f = Field::new(path.as_str(), DataType::Int64, false);
        components[c] = Some(tensor::import(&f, &ints, &at, Some(DType::I64), None)?);
        child_field = item;
        child = values;
    }
    let spec = &expected[v].1;
    let inner: Option<Vec<usize>> = spec
        .shape
        .dims()
        .and_then(|d| d.iter().skip(1).map(|d| d.value()).collect());
    components[v] = Some(tensor::import(
        &child_field,
        child.as_ref(),
        &format!("{name}.{}", layout.values),
        Some(spec.dtype),
        inner.as_deref(),
    )?);
    Ok(components.into_iter().flatten().collect())
}

/// One list level: its offsets as splits from 0 (the offsets' own buffer when they are `i64`
/// from 0; otherwise one copy, rebased to 0 and widened), and its child cut to the rows the
/// offsets cover. An error for null rows or offsets past the child.
fn level_of<O: OffsetSizeTrait>(
    list: &GenericListArray<O>,
    at: &str,
) -> Result<(ScalarBuffer<i64>, ArrayRef)> {
    if list.null_count() > 0 {
        return Err(Error::Metadata {
            field: at.to_string(),
            message: format!(
                "{} null rows: a ragged row is a list, never missing",
                list.null_count()
            ),
        });
    }
    let offsets: &[O] = list.value_offsets();
    let (first, last) = (offsets[0].as_usize(), offsets[offsets.len() - 1].as_usize());
    let values = list.values();
    if last > values.len() || first > last {
        return Err(Error::Metadata {
            field: at.to_string(),
            message: format!(
                "offsets from {first} to {last} over {} child rows",
                values.len()
            ),
        });
    }
    let any: &dyn std::any::Any = list.offsets();
    let splits = match any.downcast_ref::<OffsetBuffer<i64>>() {
        Some(own) if first == 0 => own.inner().clone(),
        _ => offsets
            .iter()
            .map(|o| (o.as_usize() - first) as i64)
            .collect::<Vec<i64>>()
            .into(),
    };
    let child = if first == 0 && last == values.len() {
        values.clone()
    } else {
        values.slice(first, last - first)
    };
    Ok((splits, child))
}

//! Batches of extension values (and tensors) written as Arrow struct arrays, with extype's
//! extension metadata, and record batches of them.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{Field, Fields, Schema};
use extype_core::field::path::segments;
use extype_core::{AnyExtension, AnySpec, SpecTree, Tensor, Value};

use crate::error::{Error, Result};
use crate::lists;
use crate::metadata::{EXTENSION_METADATA, EXTENSION_NAME, LIST_LAYOUT};
use crate::paths::{Node, child_tree, tree_named};
use crate::tensor;

/// The extension metadata of a registered spec's tree.
fn extension_metadata(tree: &SpecTree) -> Result<HashMap<String, String>> {
    let SpecTree::Spec(named) = tree else {
        return Ok(HashMap::new());
    };
    let json = tree.to_json().map_err(crate::error::extype(format!(
        "the spec of {} as JSON",
        named.name
    )))?;
    Ok(HashMap::from([
        (EXTENSION_NAME.to_string(), named.name.clone()),
        (EXTENSION_METADATA.to_string(), json),
    ]))
}

fn build(
    name: &str,
    nodes: Vec<(String, Node)>,
    spec: Option<&SpecTree>,
    leaves: &mut [Option<(Field, ArrayRef)>],
    n: usize,
) -> Result<(Field, ArrayRef)> {
    let mut fields = Vec::with_capacity(nodes.len());
    let mut arrays = Vec::with_capacity(nodes.len());
    for (segment, node) in nodes {
        let sub = spec.and_then(|s| child_tree(s, &segment));
        let (f, a) = match node {
            Node::Leaf(i) => leaves[i].take().expect("each component is one leaf"),
            Node::Inner(children) => build(&segment, children, sub, leaves, n)?,
        };
        fields.push(Arc::new(f));
        arrays.push(a);
    }
    let array = StructArray::try_new_with_length(Fields::from(fields), arrays, None, n)
        .map_err(crate::error::arrow(format!("the struct of `{name}`")))?;
    let mut field = Field::new(name, array.data_type().clone(), false);
    if let Some(spec) = spec {
        field = field.with_metadata(extension_metadata(spec)?);
    }
    Ok((field, Arc::new(array)))
}

/// A batch of extension values (`value`, whose every component has the leading batch axis) as
/// an Arrow column named `name`: a struct array with one child per component field (nested
/// types nest, each nested registered type with its own extension metadata), on a field whose
/// metadata holds `ARROW:extension:name` (the registered name) and `ARROW:extension:metadata`
/// (the spec's versioned JSON, which holds the static fields). Each component with items of
/// rank 1 or more is an `arrow.fixed_shape_tensor` child; items of rank 0 are a plain array. A
/// component declared as another's validity ([`AnySpec::dyn_validity`]) is no child: it is the
/// validity bitmap of the values' elements, their field marked [`VALIDITY`](crate::VALIDITY)
/// (it must be `bool` of the values' shape, else an error).
///
/// A batch whose encoder declares a list layout (a `RaggedTensor`:
/// [`list_layout`](extype_core::batch::list_layout)) is nested `LargeList`s instead, the
/// splits the offsets, marked [`LIST_LAYOUT`](crate::LIST_LAYOUT); another batch whose
/// components do not stack along one axis (a sparse batch) takes the row layout (see the
/// [crate docs](crate)).
///
/// No tensor data is copied when the components are in standard layout, except `bool`
/// (see the [crate docs](crate#copies)).
pub fn to_array(value: &dyn AnyExtension, name: &str) -> Result<(Field, ArrayRef)> {
    let spec = value.any_spec();
    let tree = spec.dyn_serialize();
    let paths = spec.dyn_component_paths();
    let components = value.clone_components();
    let Some(first) = components.first() else {
        return Err(Error::Value {
            op: "to_array",
            message: format!(
                "a value of {} has no tensor component to read the batch size from",
                value.name()
            ),
        });
    };
    // A batch that is a nest of lists (its encoder says so: a ragged tensor): nested lists.
    if let Some(layout) = extype_core::batch::list_layout(&*spec) {
        let (field, array) = lists::export(name, value.name(), &layout, &paths, &components)?;
        let mut meta = extension_metadata(&tree)?;
        meta.insert(LIST_LAYOUT.to_string(), lists::layout_json(&layout));
        return Ok((field.with_metadata(meta), array));
    }
    let n = first.shape().first().copied().unwrap_or(0);
    // Each declared validity: the values' index, and the mask's with its leaf name.
    let validity = validity_pairs(&*spec, &paths, value.name())?;
    let shared = components.iter().all(|t| t.shape().first() == Some(&n));
    // A stack along one leading axis of n rows exactly when the spec is that of a batch of n
    // items (a ragged batch's flat values may happen to have n rows too).
    // And every component of a batch of n + 1 items has n + 1 rows: a sparse batch's entries
    // may number n by chance, but they do not follow the batch size.
    // (Not a batchable type: its rows are its components' rows.)
    let follows = |m: usize| extype_core::batch::rebatched_spec(&*spec, Some(m)).ok();
    let stacked = shared
        && match (follows(n), follows(n + 1)) {
            (Some(same), Some(more)) => {
                same == spec
                    && more
                        .dyn_component_specs()
                        .iter()
                        .all(|s| s.shape.dims().and_then(|d| d.first()?.value()) == Some(n + 1))
            }
            _ => true,
        };
    if !stacked {
        return rows_to_array(value, name, &tree);
    }
    let mut written = Vec::with_capacity(components.len());
    let mut leaves = Vec::with_capacity(components.len());
    for (i, (path, t)) in paths.iter().zip(&components).enumerate() {
        if validity.iter().any(|&(_, mask, _)| mask == i) {
            continue; // written as the values' validity bitmap
        }
        let segs = segments(path);
        let leaf_name = segs.last().cloned().unwrap_or_else(|| path.clone());
        let leaf = match validity.iter().find(|&&(values, _, _)| values == i) {
            Some(&(_, mask, ref mask_name)) => {
                tensor::export_masked(t, &components[mask], &leaf_name, mask_name, path)?
            }
            None => tensor::export(t, &leaf_name)?,
        };
        written.push(path.clone());
        leaves.push(Some(leaf));
    }
    // Leaves that fell back to flat paths are named by the whole path.
    let nodes = tree_named(&written, &mut leaves);
    build(name, nodes, Some(&tree), &mut leaves, n)
}

/// The validity declarations of `spec` ([`AnySpec::dyn_validity`]) as component indices into
/// `paths`: `(values, mask, the mask's leaf name)`. The mask must be a sibling of the values
/// (one struct's fields, as the derive declares them) and each a component.
fn validity_pairs(
    spec: &dyn AnySpec,
    paths: &[String],
    type_name: &str,
) -> Result<Vec<(usize, usize, String)>> {
    let mut out = Vec::new();
    for (mask, values) in spec.dyn_validity() {
        let index = |p: &str| paths.iter().position(|q| q == p);
        let (Some(m), Some(v)) = (index(&mask), index(&values)) else {
            return Err(Error::Value {
                op: "to_array",
                message: format!(
                    "{type_name} declares `{mask}` the validity of `{values}`: expected both to \
                     be tensor components, its components are {}",
                    paths.join(", ")
                ),
            });
        };
        let (mut mask_segs, mut values_segs) = (segments(&mask), segments(&values));
        let (Some(mask_name), Some(_)) = (mask_segs.pop(), values_segs.pop()) else {
            continue;
        };
        if mask_segs != values_segs {
            return Err(Error::Value {
                op: "to_array",
                message: format!(
                    "{type_name} declares `{mask}` the validity of `{values}`: expected fields \
                     of one struct"
                ),
            });
        }
        out.push((v, m, mask_name));
    }
    Ok(out)
}

/// The row layout of a batch whose components do not stack along one leading axis (a custom
/// encoder's, such as a ragged batch): the batch is unstacked, and each component of the items
/// becomes an `arrow.variable_shape_tensor` child, one row per item (the elements are copied).
/// The field's metadata holds the batch's spec as always, and the first item's spec under
/// `extype:item_spec`, which import rebuilds each row from.
fn rows_to_array(
    value: &dyn AnyExtension,
    name: &str,
    tree: &SpecTree,
) -> Result<(Field, ArrayRef)> {
    let context = || format!("column `{name}` ({}) row by row", value.name());
    let batch = value
        .any_spec()
        .dyn_from_components(value.clone_components())
        .map_err(crate::error::extype(context()))?;
    let items = extype_core::batch::unstack_value(batch).map_err(crate::error::extype(format!(
        "{}: its components do not share a leading batch axis, and it does not unstack",
        context()
    )))?;
    // The first item's spec; an empty batch's, its spec unbatched.
    let item_spec = match items.first() {
        Some(Value::Extension(first)) => first.any_spec(),
        Some(Value::Tensor(_)) => {
            unreachable!("the items of an extension batch are extension values")
        }
        None => extype_core::batch::item_spec(&*value.any_spec()).map_err(crate::error::extype(
            format!("{}: the item spec of an empty batch", context()),
        ))?,
    };
    let paths = item_spec.dyn_component_paths();
    let mut kinds = Vec::with_capacity(paths.len());
    for (path, spec) in paths.iter().zip(item_spec.dyn_component_specs()) {
        let Some(dims) = spec.shape.dims() else {
            return Err(Error::Value {
                op: "to_array",
                message: format!(
                    "{}: component `{path}` of the item spec ({spec}) has an unknown rank: a \
                     column of variable-shape tensors has one rank",
                    context()
                ),
            });
        };
        kinds.push((spec.dtype, dims.len()));
    }
    let mut rows: Vec<Vec<Tensor>> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::Extension(e) = item else {
            unreachable!("the items of an extension batch are extension values")
        };
        let comps = e.clone_components();
        if comps.len() != paths.len() {
            return Err(Error::Value {
                op: "to_array",
                message: format!(
                    "{}: item {i} has {} components, item 0 has {}",
                    context(),
                    comps.len(),
                    paths.len()
                ),
            });
        }
        rows.push(comps);
    }
    let mut leaves = Vec::with_capacity(paths.len());
    for (c, path) in paths.iter().enumerate() {
        let segs = segments(path);
        let leaf_name = segs.last().cloned().unwrap_or_else(|| path.clone());
        let column: Vec<&Tensor> = rows.iter().map(|r| &r[c]).collect();
        let (dtype, ndim) = kinds[c];
        leaves.push(Some(tensor::export_rows(
            &column, &leaf_name, path, dtype, ndim,
        )?));
    }
    let nodes = tree_named(&paths, &mut leaves);
    let item_tree = item_spec.dyn_serialize();
    let (field, array) = build(name, nodes, Some(&item_tree), &mut leaves, rows.len())?;
    let mut meta = extension_metadata(tree)?;
    meta.insert(
        ITEM_SPEC.to_string(),
        item_tree
            .to_json()
            .map_err(crate::error::extype(context()))?,
    );
    Ok((field.with_metadata(meta), array))
}

/// A batch in the row layout whatever its encoder declares: the layout files written before
/// the list layout hold for a ragged batch (so tests can write one and check it still loads).
#[doc(hidden)]
pub fn to_row_array(value: &dyn AnyExtension, name: &str) -> Result<(Field, ArrayRef)> {
    rows_to_array(value, name, &value.any_spec().dyn_serialize())
}

/// The field metadata key of the first item's spec, in the row layout.
pub const ITEM_SPEC: &str = "extype:item_spec";

/// A dense tensor with a leading batch axis as an Arrow column: a plain array for rank 1, an
/// `arrow.fixed_shape_tensor` otherwise. No copy in standard layout (bool excepted).
pub fn tensor_to_array(tensor: &Tensor, name: &str) -> Result<(Field, ArrayRef)> {
    tensor::export(tensor, name)
}

/// A [`Value`] (a batch) as an Arrow column: [`to_array`] for extension values,
/// [`tensor_to_array`] for tensors.
pub fn value_to_array(value: &Value, name: &str) -> Result<(Field, ArrayRef)> {
    match value {
        Value::Tensor(t) => tensor_to_array(t, name),
        Value::Extension(e) => to_array(&**e, name),
    }
}

/// Named batches as one record batch, one column each (see [`value_to_array`]): all must have
/// the same number of items.
pub fn to_record_batch(columns: &[(&str, &Value)]) -> Result<RecordBatch> {
    let mut fields = Vec::with_capacity(columns.len());
    let mut arrays = Vec::with_capacity(columns.len());
    for (name, value) in columns {
        let (f, a) = value_to_array(value, name)?;
        fields.push(f);
        arrays.push(a);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
        .map_err(crate::error::arrow("to_record_batch"))
}

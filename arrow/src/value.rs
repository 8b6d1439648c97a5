//! Batches of extension values ↔ Arrow struct arrays, and record batches of them.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema};
use extype_core::{
    AnyExtension, AnySpec, ExtensionType, SpecSource, SpecTree, Tensor, TensorSpec, TypeSpec,
    Value, registry,
};

use crate::error::{Error, Result};
use crate::metadata::{
    EXTENSION_METADATA, EXTENSION_NAME, FIXED_SHAPE_TENSOR, VARIABLE_SHAPE_TENSOR,
};
use crate::tensor;

/// A component path split into the names of the nested Arrow fields: `items[1].mask` →
/// `items`, `[1]`, `mask`. Joining the segments back ([`join`]) gives the path again.
fn segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let mut rest = part;
        // `name[1][2]`: the name, then each index.
        let head_end = index_start(rest).unwrap_or(rest.len());
        out.push(rest[..head_end].to_string());
        rest = &rest[head_end..];
        while let Some(close) = rest.find(']') {
            out.push(rest[..=close].to_string());
            rest = &rest[close + 1..];
        }
    }
    // A leading index (`[0].x` of a sequence at the root) leaves an empty head.
    if out.first().is_some_and(String::is_empty) && out.len() > 1 {
        out.remove(0);
    }
    out
}

/// Where the trailing `[i][j]…` indices of a path segment start, if it has them.
fn index_start(part: &str) -> Option<usize> {
    let mut end = part.len();
    let mut start = None;
    while part[..end].ends_with(']') {
        let open = part[..end].rfind('[')?;
        if !part[open + 1..end - 1].bytes().all(|b| b.is_ascii_digit()) || open + 2 > end - 1 {
            break;
        }
        start = Some(open);
        end = open;
    }
    start
}

/// The path of nested field names (the inverse of [`segments`]).
fn join(segments: &[&str]) -> String {
    let mut out = String::new();
    for s in segments {
        if !out.is_empty() && !s.starts_with('[') {
            out.push('.');
        }
        out.push_str(s);
    }
    out
}

/// A tree of component indices by path segment, in component order.
enum Node {
    Leaf(usize),
    Inner(Vec<(String, Node)>),
}

fn insert(children: &mut Vec<(String, Node)>, segs: &[String], index: usize) -> bool {
    let (first, rest) = segs.split_first().expect("a path has a segment");
    if rest.is_empty() {
        if children.iter().any(|(name, _)| name == first) {
            return false;
        }
        children.push((first.clone(), Node::Leaf(index)));
        return true;
    }
    match children.last_mut() {
        Some((name, Node::Inner(grand))) if name == first => insert(grand, rest, index),
        _ => {
            if children.iter().any(|(name, _)| name == first) {
                return false;
            }
            let mut grand = Vec::new();
            let ok = insert(&mut grand, rest, index);
            children.push((first.clone(), Node::Inner(grand)));
            ok
        }
    }
}

/// The nodes of `paths`, nested by segment; a path that does not nest in order (which derived
/// types never produce) becomes a flat leaf named by its whole path.
fn tree(paths: &[String]) -> Vec<(String, Node)> {
    let mut root = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let segs = segments(path);
        let nests = join(&segs.iter().map(String::as_str).collect::<Vec<_>>()) == *path;
        if !(nests && insert(&mut root, &segs, i)) {
            root.push((path.clone(), Node::Leaf(i)));
        }
    }
    root
}

/// The spec subtree at one path segment of `tree`, for the extension metadata of nested
/// registered types.
fn child_tree<'a>(tree: &'a SpecTree, segment: &str) -> Option<&'a SpecTree> {
    let tree = match tree {
        SpecTree::Spec(named) => &named.value,
        other => other,
    };
    match tree {
        SpecTree::Map(fields) => fields.get(segment),
        SpecTree::List(items) | SpecTree::Tuple(items) => {
            let i: usize = segment
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse()
                .ok()?;
            items.get(i)
        }
        _ => None,
    }
}

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
/// rank 1 or more is an `arrow.fixed_shape_tensor` child; items of rank 0 are a plain array.
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
    let n = first.shape().first().copied().unwrap_or(0);
    let shared = components.iter().all(|t| t.shape().first() == Some(&n));
    // A stack along one leading axis of n rows exactly when the spec is that of a batch of n
    // items (a ragged batch's flat values may happen to have n rows too).
    let stacked = shared
        && match extype_core::batch::rebatched_spec(&*spec, Some(n)) {
            Ok(rebatched) => rebatched == spec,
            Err(_) => true, // not a batchable type: its rows are its components' rows
        };
    if !stacked {
        return rows_to_array(value, name, &tree);
    }
    let mut leaves = Vec::with_capacity(components.len());
    for (path, t) in paths.iter().zip(&components) {
        let segs = segments(path);
        let leaf_name = segs.last().cloned().unwrap_or_else(|| path.clone());
        leaves.push(Some(tensor::export(t, &leaf_name)?));
    }
    // Leaves that fell back to flat paths are named by the whole path.
    let nodes = tree_named(&paths, &mut leaves);
    build(name, nodes, Some(&tree), &mut leaves, n)
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
    let Some(Value::Extension(first)) = items.first() else {
        return Err(Error::Value {
            op: "to_array",
            message: format!(
                "{}: an empty batch whose components do not share a leading axis has no item to \
                 describe its rows",
                context()
            ),
        });
    };
    let item_spec = first.any_spec();
    let paths = item_spec.dyn_component_paths();
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
        leaves.push(Some(tensor::export_rows(&column, &leaf_name, path)?));
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

/// The field metadata key of the first item's spec, in the row layout.
pub const ITEM_SPEC: &str = "extype:item_spec";

/// [`tree`], renaming the leaves that do not nest to their whole path.
fn tree_named(paths: &[String], leaves: &mut [Option<(Field, ArrayRef)>]) -> Vec<(String, Node)> {
    let nodes = tree(paths);
    for (name, node) in &nodes {
        if let Node::Leaf(i) = node
            && let Some((f, _)) = &mut leaves[*i]
            && f.name() != name
        {
            *f = f.clone().with_name(name.clone());
        }
    }
    nodes
}

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

/// The leaves of a struct array in depth-first order, each with its component path (from the
/// nested field names) and its field.
fn leaves<'a>(
    prefix: &mut Vec<&'a str>,
    fields: &'a Fields,
    array: &'a StructArray,
    out: &mut Vec<(String, &'a Field, &'a ArrayRef)>,
) {
    for (f, a) in fields.iter().zip(array.columns()) {
        prefix.push(f.name());
        match (f.data_type(), a.as_any().downcast_ref::<StructArray>()) {
            (DataType::Struct(children), Some(s)) if !is_tensor(f) => {
                leaves(prefix, children, s, out)
            }
            _ => out.push((join(prefix), f, a)),
        }
        prefix.pop();
    }
}

fn is_tensor(field: &Field) -> bool {
    matches!(
        field.metadata().get(EXTENSION_NAME).map(String::as_str),
        Some(FIXED_SHAPE_TENSOR | VARIABLE_SHAPE_TENSOR)
    )
}

fn is_variable(field: &Field) -> bool {
    field.metadata().get(EXTENSION_NAME).map(String::as_str) == Some(VARIABLE_SHAPE_TENSOR)
}

/// A batch in the row layout ([`rows_to_array`]): each row rebuilt as an item from the first
/// item's spec (its component specs replaced by the row's), then the items stacked by the
/// type's encoder.
fn rows_from_array(
    field: &Field,
    array: &StructArray,
    found: &[(String, &Field, &ArrayRef)],
    ext: &str,
    linked: bool,
) -> Result<Value> {
    let name = field.name();
    if !linked {
        return Err(Error::Metadata {
            field: name.clone(),
            message: format!(
                "{ext} is not linked into this program: a batch in the row layout is rebuilt by \
                 stacking its items, which needs the type"
            ),
        });
    }
    let text = field
        .metadata()
        .get(ITEM_SPEC)
        .ok_or_else(|| Error::Metadata {
            field: name.clone(),
            message: format!("a row layout (variable-shape tensors) without {ITEM_SPEC}"),
        })?;
    let tree = SpecTree::from_json(text)
        .map_err(crate::error::extype(format!("field `{name}`: {ITEM_SPEC}")))?;
    let item_spec = registry()
        .deserialize_spec(&tree)
        .map_err(crate::error::extype(format!("field `{name}`: {ITEM_SPEC}")))?;
    let expected = item_spec.dyn_component_paths();
    let found_paths: Vec<&str> = found.iter().map(|(p, _, _)| p.as_str()).collect();
    if found_paths != expected.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(Error::Storage {
            field: name.clone(),
            expected: format!(
                "a struct of the item components of {ext} ({})",
                expected.join(", ")
            ),
            found: format!("a struct of {}", found_paths.join(", ")),
        });
    }
    let item_specs = item_spec.dyn_component_specs();
    let mut columns = Vec::with_capacity(found.len());
    for ((path, f, a), spec) in found.iter().zip(&item_specs) {
        columns.push(tensor::import_rows(
            f,
            a.as_ref(),
            &format!("{name}.{path}"),
            spec.dtype,
        )?);
    }
    let mut items = Vec::with_capacity(array.len());
    for i in 0..array.len() {
        let comps: Vec<Tensor> = columns.iter().map(|c| c[i].clone()).collect();
        let specs = comps.iter().map(TensorSpec::from_tensor).collect();
        let context = || format!("field `{name}` ({ext}), row {i}");
        let spec = item_spec
            .dyn_with_component_specs(specs)
            .map_err(crate::error::extype(context()))?;
        items.push(
            spec.dyn_from_components(comps)
                .map_err(crate::error::extype(context()))?,
        );
    }
    extype_core::batch::stack_values(&items).map_err(crate::error::extype(format!(
        "field `{name}` ({ext}): stacking its rows"
    )))
}

/// The value of an Arrow column that [`to_array`] (or another writer following the same
/// layout) made: `field` describes `array`. By the field's extension metadata:
/// - an extype extension (a struct array whose `ARROW:extension:metadata` is a spec's JSON):
///   the batch rebuilt by the registry, with the spec's checks, the shape contract and the
///   type's validation; a type not linked into this program loads as an
///   [`AnonymousExtension`](extype_core::AnonymousExtension) value;
/// - `arrow.fixed_shape_tensor`, a fixed-size list or a plain numeric or boolean array: a
///   dense tensor with the leading batch axis.
///
/// A storage type that does not fit is an error naming the field and both types.
pub fn from_array(field: &Field, array: &dyn Array) -> Result<Value> {
    let name = field.name();
    let ext = field.metadata().get(EXTENSION_NAME).map(String::as_str);
    if ext.is_none() || ext == Some(FIXED_SHAPE_TENSOR) {
        if let DataType::Struct(_) = array.data_type() {
            return Err(Error::Metadata {
                field: name.clone(),
                message: format!(
                    "a struct column without {EXTENSION_NAME}: read it with from_columns_as::<T>, \
                     or give it extype's metadata"
                ),
            });
        }
        return tensor::import(field, array, name, None, None).map(Value::Tensor);
    }
    let ext = ext.unwrap_or_default();
    let text = field
        .metadata()
        .get(EXTENSION_METADATA)
        .ok_or_else(|| Error::Metadata {
            field: name.clone(),
            message: format!("extension {ext:?} without {EXTENSION_METADATA}"),
        })?;
    let tree = SpecTree::from_json(text).map_err(crate::error::extype(format!(
        "field `{name}`: the spec in {EXTENSION_METADATA}"
    )))?;
    match &tree {
        SpecTree::Spec(named) if named.name == ext => {}
        other => {
            return Err(Error::Metadata {
                field: name.clone(),
                message: format!(
                    "{EXTENSION_NAME} is {ext:?} but its metadata holds {}",
                    other.describe()
                ),
            });
        }
    }
    // The spec of a linked type says what each component must be; an unlinked one loads as
    // anonymous values, whatever the leaves hold.
    let spec: Option<Box<dyn AnySpec>> = match registry()
        .resolve(ext)
        .map_err(crate::error::extype(format!("field `{name}`")))?
    {
        Some(_) => Some(
            registry()
                .deserialize_spec(&tree)
                .map_err(crate::error::extype(format!("field `{name}`: its spec")))?,
        ),
        None => None,
    };
    let expected: Option<Vec<(String, TensorSpec)>> = spec.as_ref().map(|s| {
        s.dyn_component_paths()
            .into_iter()
            .zip(s.dyn_component_specs())
            .collect()
    });
    let Some(st) = array.as_any().downcast_ref::<StructArray>() else {
        return Err(Error::Storage {
            field: name.clone(),
            expected: struct_text(ext, expected.as_deref()),
            found: array.data_type().to_string(),
        });
    };
    if st.null_count() > 0 {
        return Err(Error::Metadata {
            field: name.clone(),
            message: format!(
                "{} null rows: a batch has no missing items",
                st.null_count()
            ),
        });
    }
    let mut found = Vec::new();
    leaves(&mut Vec::new(), st.fields(), st, &mut found);
    if found.iter().any(|(_, f, _)| is_variable(f)) {
        return rows_from_array(field, st, &found, ext, spec.is_some());
    }
    if let Some(expected) = &expected {
        let found_paths: Vec<&str> = found.iter().map(|(p, _, _)| p.as_str()).collect();
        let expected_paths: Vec<&str> = expected.iter().map(|(p, _)| p.as_str()).collect();
        if found_paths != expected_paths {
            return Err(Error::Storage {
                field: name.clone(),
                expected: struct_text(ext, Some(expected)),
                found: format!("a struct of {}", found_paths.join(", ")),
            });
        }
    }
    let mut components = Vec::with_capacity(found.len());
    for (i, (path, f, a)) in found.iter().enumerate() {
        let (dtype, item) = match &expected {
            Some(e) => {
                let spec = &e[i].1;
                let item: Option<Vec<usize>> = spec
                    .shape
                    .dims()
                    .and_then(|d| d.iter().skip(1).map(|d| d.value()).collect());
                (Some(spec.dtype), item)
            }
            None => (None, None),
        };
        let t = tensor::import(
            f,
            a.as_ref(),
            &format!("{name}.{path}"),
            dtype,
            item.as_deref(),
        )?;
        components.push(t);
    }
    let context = || format!("field `{name}` ({ext})");
    match (&spec, &expected) {
        (Some(spec), Some(expected)) => {
            // A column holding part of the batch the spec describes (a file read in chunks, an
            // engine's partitions): the spec of a batch of this many rows.
            let rows = array.len();
            let batch_dim = |s: &TensorSpec| s.shape.dims().and_then(|d| d.first()?.value());
            let spec = if expected.iter().all(|(_, s)| batch_dim(s) == Some(rows)) {
                spec.clone()
            } else {
                extype_core::batch::rebatched_spec(&**spec, Some(rows)).map_err(
                    crate::error::extype(format!("{}: the spec of {rows} rows", context())),
                )?
            };
            spec.dyn_from_components(components)
                .map_err(crate::error::extype(context()))
        }
        _ => registry()
            .rebuild(&tree, components)
            .map_err(crate::error::extype(context())),
    }
}

fn struct_text(ext: &str, expected: Option<&[(String, TensorSpec)]>) -> String {
    match expected {
        Some(e) => format!(
            "a struct of the components of {ext} ({})",
            e.iter()
                .map(|(p, s)| format!("{p}: {s}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("a struct of the components of {ext}"),
    }
}

/// [`from_array`] as a `T`: an error names the field and both types when the column holds
/// another type.
pub fn from_array_as<T: ExtensionType>(field: &Field, array: &dyn Array) -> Result<T> {
    let value = from_array(field, array)?;
    value
        .reinterpret::<T>()
        .map_err(crate::error::extype(format!("field `{}`", field.name())))
}

/// Every column of a record batch as a value ([`from_array`]), with its name.
pub fn from_record_batch(batch: &RecordBatch) -> Result<Vec<(String, Value)>> {
    batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, a)| Ok((f.name().clone(), from_array(f, a.as_ref())?)))
        .collect()
}

/// The column `name` of a record batch as a value ([`from_array`]).
pub fn column(batch: &RecordBatch, name: &str) -> Result<Value> {
    let schema = batch.schema();
    let (i, f) = schema
        .column_with_name(name)
        .ok_or_else(|| Error::Metadata {
            field: name.to_string(),
            message: format!(
                "no such column; the batch has {}",
                schema
                    .fields()
                    .iter()
                    .map(|f| f.name().as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })?;
    from_array(f, batch.column(i).as_ref())
}

/// The column `name` of a record batch as a `T` ([`from_array_as`]).
pub fn column_as<T: ExtensionType>(batch: &RecordBatch, name: &str) -> Result<T> {
    let value = column(batch, name)?;
    value
        .reinterpret::<T>()
        .map_err(crate::error::extype(format!("field `{name}`")))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_nested_names_and_back() {
        for (path, segs) in [
            ("values", vec!["values"]),
            ("items[1].mask", vec!["items", "[1]", "mask"]),
            ("grid[0][2]", vec!["grid", "[0]", "[2]"]),
            ("pair.0", vec!["pair", "0"]),
            ("attrs.height", vec!["attrs", "height"]),
            ("odd[x]", vec!["odd[x]"]),
        ] {
            let got = segments(path);
            assert_eq!(got, segs, "{path}");
            assert_eq!(
                join(&got.iter().map(String::as_str).collect::<Vec<_>>()),
                path
            );
        }
    }
}

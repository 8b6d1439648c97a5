//! Arrow columns read back into values: an extype extension column by the registry (core's
//! resolution of stored names), a tensor column as a dense tensor, a record batch column by
//! column.

use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields};
use extype_core::field::path::{join_segments, segments};
use extype_core::registry::StoredSpec;
use extype_core::{
    AnySpec, Dim, ExtensionType, Shape, SpecTree, Tensor, TensorSpec, Value, registry,
};

use crate::error::{Error, Result};
use crate::lists;
use crate::metadata::{
    EXTENSION_METADATA, EXTENSION_NAME, FIXED_SHAPE_TENSOR, VALIDITY, VARIABLE_SHAPE_TENSOR,
};
use crate::paths::child_tree;
use crate::tensor;
use crate::write::ITEM_SPEC;

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
            _ => out.push((join_segments(prefix), f, a)),
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
/// type's encoder; no rows, the type's empty batch of that item spec
/// ([`extype_core::batch::empty_batch`]).
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
    let upgrade = registry()
        .upgrade_of(ext, &tree)
        .map_err(crate::error::extype(format!("field `{name}`: {ITEM_SPEC}")))?;
    if let Some(upgrade) = upgrade
        && !array.is_empty()
    {
        return upgraded_rows(field, array, found, ext, &tree, upgrade);
    }
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
    if array.is_empty() {
        // No rows to stack: the type's empty batch of items of the column's item spec.
        return extype_core::batch::empty_batch(&*item_spec).map_err(crate::error::extype(
            format!("field `{name}` ({ext}): the empty batch of its item spec"),
        ));
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
    stack_rows(name, ext, array.len(), |i| {
        let comps: Vec<Tensor> = columns.iter().map(|c| c[i].clone()).collect();
        let specs = comps.iter().map(TensorSpec::from_tensor).collect();
        Ok((item_spec.dyn_with_component_specs(specs)?, comps))
    })
}

/// The batch of `rows` items, item `i` rebuilt from the spec and components `item(i)` gives
/// (`from_components`: its checks and validation), then stacked by the type's encoder.
fn stack_rows(
    name: &str,
    ext: &str,
    rows: usize,
    item: impl Fn(usize) -> extype_core::Result<(Box<dyn AnySpec>, Vec<Tensor>)>,
) -> Result<Value> {
    let mut items = Vec::with_capacity(rows);
    for i in 0..rows {
        let context = || format!("field `{name}` ({ext}), row {i}");
        let (spec, comps) = item(i).map_err(crate::error::extype(context()))?;
        items.push(
            spec.dyn_from_components(comps)
                .map_err(crate::error::extype(context()))?,
        );
    }
    extype_core::batch::stack_values(&items).map_err(crate::error::extype(format!(
        "field `{name}` ({ext}): stacking its rows"
    )))
}

/// A batch in the row layout whose item spec is of an older version of its type: each row's
/// components read by the names the column gives (their dtypes from the stored item spec), the
/// row upgraded to the current type (core's `versioning`), then the rows stacked.
fn upgraded_rows(
    field: &Field,
    array: &StructArray,
    found: &[(String, &Field, &ArrayRef)],
    ext: &str,
    item_tree: &SpecTree,
    upgrade: extype_core::registry::Upgrade,
) -> Result<Value> {
    let name = field.name();
    let mut columns = Vec::with_capacity(found.len());
    for (path, f, a) in found {
        let at = format!("{name}.{path}");
        let mut node = Some(item_tree);
        for seg in segments(path) {
            node = node.and_then(|t| child_tree(t, &seg));
        }
        let Some(SpecTree::TensorSpec(spec)) = node else {
            return Err(Error::Metadata {
                field: at,
                message: format!(
                    "the stored item spec of {ext} has no tensor spec at `{path}`: expected the \
                     spec of every component the column holds"
                ),
            });
        };
        columns.push(tensor::import_rows(f, a.as_ref(), &at, spec.dtype)?);
    }
    stack_rows(name, ext, array.len(), |i| {
        let named = found
            .iter()
            .zip(&columns)
            .map(|((p, _, _), c)| (p.clone(), c[i].clone()))
            .collect();
        upgrade.clone().upgraded(named)
    })
}

/// A batch in the list layout ([`crate::lists`]): its components read by the layout its type's
/// encoder declares, then the batch rebuilt with its spec (the spec of a part of the batch when
/// the column holds fewer rows than the spec says: a file read in chunks, an engine's slices).
fn lists_from_array(
    field: &Field,
    array: &dyn Array,
    ext: &str,
    stored: StoredSpec,
) -> Result<Value> {
    let name = field.name();
    let StoredSpec::Registered(spec) = stored else {
        return Err(Error::Metadata {
            field: name.clone(),
            message: format!(
                "{ext} is not linked into this program: a column of nested lists is read by the \
                 list layout its type's batch encoder declares, which needs the type"
            ),
        });
    };
    let expected: Vec<(String, TensorSpec)> = spec
        .dyn_component_paths()
        .into_iter()
        .zip(spec.dyn_component_specs())
        .collect();
    let Some(layout) = extype_core::batch::list_layout(&*spec) else {
        return Err(Error::Storage {
            field: name.clone(),
            expected: format!(
                "{} ({ext} declares no list layout)",
                struct_text(ext, Some(&expected))
            ),
            found: array.data_type().to_string(),
        });
    };
    let components = lists::import(field, array, ext, &layout, &expected)?;
    let context = || format!("field `{name}` ({ext})");
    let admitted = expected
        .iter()
        .zip(&components)
        .all(|((_, s), t)| s.admits(t));
    let spec = if admitted {
        spec
    } else {
        // Part of the batch: every component as the spec says but for its length.
        for ((path, s), t) in expected.iter().zip(&components) {
            let any_length = match s.shape.dims() {
                Some(dims) if !dims.is_empty() => TensorSpec::new(
                    Shape::from_dims(
                        std::iter::once(Dim::Unknown).chain(dims[1..].iter().cloned()),
                    ),
                    s.dtype,
                ),
                _ => s.clone(),
            };
            if !any_length.admits(t) {
                return Err(Error::Storage {
                    field: format!("{name}.{path}"),
                    expected: s.to_string(),
                    found: TensorSpec::from_tensor(t).to_string(),
                });
            }
        }
        spec.dyn_with_component_specs(components.iter().map(TensorSpec::from_tensor).collect())
            .map_err(crate::error::extype(context()))?
    };
    spec.dyn_from_components(components)
        .map_err(crate::error::extype(context()))
}

/// The value of an Arrow column that [`to_array`](crate::to_array) (or another writer
/// following the same layout) made: `field` describes `array`. By the field's extension
/// metadata:
/// - an extype extension in nested lists (`LargeList`, or `List`, levels: a batch whose type's
///   encoder declares a list layout, such as a `RaggedTensor`): the batch of its offsets and
///   values (see the [crate docs](crate));
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
    // The one resolution of a stored name (core's, as loads of files use): the spec of a
    // linked type says what each component must be; an unlinked one loads as anonymous values,
    // whatever the leaves hold.
    let at_metadata = || format!("field `{name}`: {EXTENSION_METADATA}");
    // A linked derived type's value of an older version (or under an old name): its leaves are
    // read by the names the column gives, then upgraded (core's `versioning`), as a file's are.
    let upgrade = registry()
        .upgrade_of(ext, &tree)
        .map_err(crate::error::extype(at_metadata()))?;
    let stored = match upgrade {
        Some(_) => StoredSpec::Anonymous(tree),
        None => registry()
            .stored_spec(ext, tree)
            .map_err(crate::error::extype(at_metadata()))?,
    };
    let expected = stored.components();
    if let DataType::List(_) | DataType::LargeList(_) = array.data_type() {
        if upgrade.is_some() {
            return Err(Error::Metadata {
                field: name.clone(),
                message: format!(
                    "{ext} of an older version in nested lists: the list layout is a library \
                     type's, and a derived type's stored versions are read from a struct"
                ),
            });
        }
        return lists_from_array(field, array, ext, stored);
    }
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
        return rows_from_array(
            field,
            st,
            &found,
            ext,
            expected.is_some() || upgrade.is_some(),
        );
    }
    let order = component_order(name, &found, &tree_of(&stored))?;
    if let Some(expected) = &expected {
        let found_paths: Vec<&str> = order.iter().map(|(p, _)| p.as_str()).collect();
        let expected_paths: Vec<&str> = expected.iter().map(|(p, _)| p.as_str()).collect();
        if found_paths != expected_paths {
            return Err(Error::Storage {
                field: name.clone(),
                expected: struct_text(ext, Some(expected)),
                found: format!("a struct of {}", found_text(&order, &found)),
            });
        }
    }
    // Each leaf read with the spec at its place among the components; a leaf holding a
    // validity gives its mask too.
    let mut values: Vec<Option<Tensor>> = vec![None; found.len()];
    let mut masks: Vec<Option<Tensor>> = vec![None; found.len()];
    for (k, (path, source)) in order.iter().enumerate() {
        let Source::Leaf(i) = *source else {
            continue;
        };
        let (_, f, a) = &found[i];
        let (dtype, item) = match &expected {
            Some(e) => {
                let spec = &e[k].1;
                let item: Option<Vec<usize>> = spec
                    .shape
                    .dims()
                    .and_then(|d| d.iter().skip(1).map(|d| d.value()).collect());
                (Some(spec.dtype), item)
            }
            None => (None, None),
        };
        let at = format!("{name}.{path}");
        if f.metadata().contains_key(VALIDITY) {
            let (t, m) = tensor::import_masked(f, a.as_ref(), &at, dtype, item.as_deref())?;
            values[i] = Some(t);
            masks[i] = Some(m);
        } else {
            values[i] = Some(tensor::import(f, a.as_ref(), &at, dtype, item.as_deref())?);
        }
    }
    let mut components = Vec::with_capacity(order.len());
    for (path, source) in &order {
        let t = match *source {
            Source::Leaf(i) => values[i].take(),
            Source::Mask(i) => masks[i].take(),
        };
        components.push(t.ok_or_else(|| Error::Metadata {
            field: format!("{name}.{path}"),
            message: "a component read twice".into(),
        })?);
    }
    let context = || format!("field `{name}` ({ext})");
    let rows = array.len();
    if let Some(upgrade) = upgrade {
        let named = order.into_iter().map(|(p, _)| p).zip(components).collect();
        let (spec, components) = upgrade
            .for_rows(rows)
            .upgraded(named)
            .map_err(crate::error::extype(context()))?;
        return rows_of(spec, rows, components, context);
    }
    match (stored, expected) {
        (StoredSpec::Registered(spec), Some(_)) => rows_of(spec, rows, components, context),
        (stored, _) => stored
            .rebuild(components)
            .map_err(crate::error::extype(context())),
    }
}

/// The batch of `components` with `spec`, or with the spec of a batch of `rows` items when the
/// column holds part of the batch the spec describes (a file read in chunks, an engine's
/// partitions).
fn rows_of(
    spec: Box<dyn AnySpec>,
    rows: usize,
    components: Vec<Tensor>,
    context: impl Fn() -> String,
) -> Result<Value> {
    let batch_dim = |s: &TensorSpec| s.shape.dims().and_then(|d| d.first()?.value());
    let spec = if spec
        .dyn_component_specs()
        .iter()
        .all(|s| batch_dim(s) == Some(rows))
    {
        spec
    } else {
        extype_core::batch::rebatched_spec(&*spec, Some(rows)).map_err(crate::error::extype(
            format!("{}: the spec of {rows} rows", context()),
        ))?
    };
    spec.dyn_from_components(components)
        .map_err(crate::error::extype(context()))
}

/// Where a component read from a column comes from: a leaf of the struct (an index into the
/// leaves), or the validity bitmap of one (the leaf whose field names it in [`VALIDITY`]).
#[derive(Clone, Copy, Debug)]
enum Source {
    Leaf(usize),
    Mask(usize),
}

/// The spec tree a stored spec was read from, for the order of its fields.
fn tree_of(stored: &StoredSpec) -> Option<SpecTree> {
    match stored {
        StoredSpec::Registered(spec) => Some(spec.dyn_serialize()),
        StoredSpec::Anonymous(tree) => Some(tree.clone()),
    }
}

/// The components of a column in component order: its leaves, and after each leaf whose field
/// holds [`VALIDITY`] the mask it names, a sibling placed where the spec's fields put it
/// (declaration order; after the values when the spec does not say).
fn component_order(
    name: &str,
    found: &[(String, &Field, &ArrayRef)],
    tree: &Option<SpecTree>,
) -> Result<Vec<(String, Source)>> {
    let mut order: Vec<(String, Source)> = found
        .iter()
        .enumerate()
        .map(|(i, (p, _, _))| (p.clone(), Source::Leaf(i)))
        .collect();
    for (i, (path, f, _)) in found.iter().enumerate() {
        let Some(mask) = f.metadata().get(VALIDITY) else {
            continue;
        };
        let mut parent = segments(path);
        parent.pop();
        if mask.is_empty() || segments(mask).len() != 1 || mask.starts_with('[') {
            return Err(Error::Metadata {
                field: format!("{name}.{path}"),
                message: format!(
                    "{VALIDITY} = {mask:?}: expected the name of a sibling field (the component \
                     whose values this bitmap is)"
                ),
            });
        }
        let mut segs: Vec<&str> = parent.iter().map(String::as_str).collect();
        segs.push(mask);
        let mask_path = join_segments(&segs);
        if order.iter().any(|(p, _)| *p == mask_path) {
            return Err(Error::Metadata {
                field: format!("{name}.{path}"),
                message: format!(
                    "{VALIDITY} = {mask:?}, and the struct also has a child `{mask_path}`: \
                     expected the component in one place, the bitmap or the child"
                ),
            });
        }
        let at = mask_position(&order, tree.as_ref(), &parent, mask, i);
        order.insert(at, (mask_path, Source::Mask(i)));
    }
    Ok(order)
}

/// Where the mask `mask` (a field under `parent`, the validity of leaf `values`) goes in
/// `order`: before the first sibling whose field the spec declares after it; else after the
/// last sibling; else after the values.
fn mask_position(
    order: &[(String, Source)],
    tree: Option<&SpecTree>,
    parent: &[String],
    mask: &str,
    values: usize,
) -> usize {
    let after_values = order
        .iter()
        .position(|(_, s)| matches!(s, Source::Leaf(i) if *i == values))
        .map_or(order.len(), |p| p + 1);
    let mut node = tree;
    for seg in parent {
        node = node.and_then(|t| child_tree(t, seg));
    }
    let node = match node {
        Some(SpecTree::Spec(named)) => &named.value,
        Some(other) => other,
        None => return after_values,
    };
    let SpecTree::Map(fields) = node else {
        return after_values;
    };
    let keys: Vec<&String> = fields.keys().collect();
    let Some(k) = keys.iter().position(|key| *key == mask) else {
        return after_values;
    };
    let mut last = None;
    for (at, (path, _)) in order.iter().enumerate() {
        let segs = segments(path);
        if segs.len() <= parent.len() || segs[..parent.len()] != *parent {
            continue;
        }
        match keys.iter().position(|key| **key == segs[parent.len()]) {
            Some(j) if j > k => return at,
            _ => last = Some(at + 1),
        }
    }
    last.unwrap_or(after_values)
}

/// The components of `order` for an error message, a mask marked as the bitmap it comes from.
fn found_text(order: &[(String, Source)], found: &[(String, &Field, &ArrayRef)]) -> String {
    order
        .iter()
        .map(|(p, s)| match s {
            Source::Leaf(_) => p.clone(),
            Source::Mask(i) => format!("{p} (the validity of {})", found[*i].0),
        })
        .collect::<Vec<_>>()
        .join(", ")
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

//! Batching of [`Value`]s whose type is known only at run time: each batchable derived type
//! submits a [`BatchEntry`] (by `TypeId`), which [`stack_values`] and [`unstack_value`] find.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::OnceLock;

use super::field::BatchField;
use super::{Batchable, ListLayout, unstack};
use crate::derived::Probe;
use crate::error::{BatchError, Result, ValueError};
use crate::field::{Field, FieldPath};
use crate::spec::{AnySpec, ExtensionType, Value};
use crate::tensor::Tensor;

/// The batching functions of one extension type, on [`Value`]s. `#[extype(batchable)]` submits
/// one for every non-generic type; submit one for a generic instantiation with
/// `inventory::submit! { BatchEntry::of::<Foo<f32>>() }` (through `extype::__private_v1`).
#[derive(Debug)]
pub struct BatchEntry {
    type_id: fn() -> TypeId,
    fns: fn() -> Option<BatchFns>,
}

/// Stacking and unstacking `Value`s of one type, and resizing its batch specs.
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct BatchFns {
    stack: fn(&[Value]) -> Result<Value>,
    unstack: fn(Value) -> Result<Vec<Value>>,
    rebatch: Rebatch,
    unbatch: fn(&dyn AnySpec) -> Result<Box<dyn AnySpec>>,
    empty: fn(&dyn AnySpec) -> Result<Value>,
    lists: fn(&dyn AnySpec) -> Option<ListLayout>,
}

/// A batch spec resized to `n` items ([`rebatched_spec`]).
type Rebatch = fn(&dyn AnySpec, Option<usize>) -> Result<Box<dyn AnySpec>>;

inventory::collect!(BatchEntry);

fn stack_as<T: Batchable>(values: &[Value]) -> Result<Value> {
    let items = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.downcast_ref::<T>().map_err(|e| {
                BatchError::Item {
                    op: "stack",
                    index: i,
                    source: Box::new(e),
                }
                .into()
            })
        })
        .collect::<Result<Vec<&T>>>()?;
    if items.is_empty() {
        return Err(empty());
    }
    Ok(Value::from_extension(T::stack(
        &items,
        &crate::field::FieldPath::Root,
    )?))
}

fn unstack_as<T: Batchable>(value: Value) -> Result<Vec<Value>> {
    let batch = value.downcast::<T>()?;
    Ok(unstack(batch)?
        .into_iter()
        .map(Value::from_extension)
        .collect())
}

/// `op`'s error for a spec that is not `T`'s.
fn spec_mismatch<T: Batchable>(op: &'static str, spec: &dyn AnySpec) -> crate::error::Error {
    ValueError {
        op,
        expected: format!("a spec of {}", std::any::type_name::<T>()),
        found: spec.value_type_name().to_string(),
    }
    .into()
}

/// `spec` as `T`'s spec, or `op`'s error.
fn spec_of<'s, T: Batchable>(
    op: &'static str,
    spec: &'s dyn AnySpec,
) -> Result<&'s <T as Field>::Spec> {
    spec.as_any()
        .downcast_ref::<<T as Field>::Spec>()
        .ok_or_else(|| spec_mismatch::<T>(op, spec))
}

/// The item spec of `T`'s batch spec `spec`.
fn unbatch_as<T: Batchable>(spec: &dyn AnySpec) -> Result<Box<dyn AnySpec>> {
    let mismatch = || spec_mismatch::<T>("item_spec", spec);
    let spec = spec_of::<T>("item_spec", spec)?;
    let item: Box<dyn Any> = Box::new(<T as BatchField>::unbatched_spec(spec, &FieldPath::Root)?);
    match item.downcast::<<T as ExtensionType>::Spec>() {
        Ok(spec) => Ok(spec),
        Err(_) => Err(mismatch()),
    }
}

/// The empty batch of items of spec `spec` (an item spec of `T`).
fn empty_as<T: Batchable>(spec: &dyn AnySpec) -> Result<Value> {
    let spec = spec_of::<T>("empty_batch", spec)?;
    Ok(Value::from_extension(super::stack_with_spec::<T>(
        &[],
        spec,
    )?))
}

/// The list layout of `T`'s batch spec `spec` (`None` for a spec of another type).
fn lists_as<T: Batchable>(spec: &dyn AnySpec) -> Option<ListLayout> {
    let spec = spec.as_any().downcast_ref::<<T as Field>::Spec>()?;
    <T as BatchField>::list_layout(spec)
}

/// How a batch of spec `batch_spec`, of a batchable extension type known only at run time, is a
/// nest of lists: its encoder's [`BatchEncoder::list_layout`](super::BatchEncoder::list_layout)
/// (`None` for a type that declares none, or is not batchable).
///
/// ```
/// use extype_core::{AnonymousSpec, SpecTree, batch};
/// let anon = AnonymousSpec {
///     name: "x.Y".into(),
///     spec: SpecTree::spec("x.Y", SpecTree::None),
///     component_specs: vec![],
/// };
/// assert_eq!(batch::list_layout(&anon), None);
/// ```
pub fn list_layout(batch_spec: &dyn AnySpec) -> Option<ListLayout> {
    entries()
        .get(&batch_spec.value_type_id())
        .and_then(|fns| (fns.lists)(batch_spec))
}

/// The spec of `T` (a batch spec), unbatched and batched again with `n` items.
fn rebatch_as<T: Batchable>(spec: &dyn AnySpec, n: Option<usize>) -> Result<Box<dyn AnySpec>> {
    let mismatch = || -> crate::error::Error {
        ValueError {
            op: "rebatched_spec",
            expected: format!("a spec of {}", std::any::type_name::<T>()),
            found: spec.value_type_name().to_string(),
        }
        .into()
    };
    let spec = spec
        .as_any()
        .downcast_ref::<<T as Field>::Spec>()
        .ok_or_else(mismatch)?;
    let item = <T as BatchField>::unbatched_spec(spec, &FieldPath::Root)?;
    let batched: Box<dyn Any> = Box::new(<T as BatchField>::batched_spec(&item, n));
    // For every type the derive makes batchable, its field spec is its extension spec.
    match batched.downcast::<<T as ExtensionType>::Spec>() {
        Ok(spec) => Ok(spec),
        Err(_) => Err(mismatch()),
    }
}

/// The spec of a batch of `n` items (`None`: unknown) of the batchable type of `spec`, itself
/// the spec of a batch of that type of any size: [`BatchableSpec::unbatched`], then
/// [`BatchableSpec::batched`], for a type known only at run time (a column of a file holding
/// part of a batch whose spec was written for the whole). An error for a spec of a type that is
/// not batchable, or that has no leading batch axis.
///
/// ```
/// use extype_core::{AnonymousSpec, SpecTree, batch};
/// // Anonymous values are not batchable: their spec is refused, naming it.
/// let anon = AnonymousSpec {
///     name: "x.Y".into(),
///     spec: SpecTree::spec("x.Y", SpecTree::None),
///     component_specs: vec![],
/// };
/// let err = batch::rebatched_spec(&anon, Some(2)).unwrap_err();
/// assert!(err.to_string().contains("batchable"));
/// ```
///
/// [`BatchableSpec::unbatched`]: super::BatchableSpec::unbatched
/// [`BatchableSpec::batched`]: super::BatchableSpec::batched
pub fn rebatched_spec(spec: &dyn AnySpec, n: Option<usize>) -> Result<Box<dyn AnySpec>> {
    match entries().get(&spec.value_type_id()) {
        Some(fns) => (fns.rebatch)(spec, n),
        None => Err(ValueError {
            op: "rebatched_spec",
            expected: "a spec of a batchable extension type".into(),
            found: format!("{} ({})", spec.name(), spec.value_type_name()),
        }
        .into()),
    }
}

/// The spec of one item of a batch of spec `batch_spec`, of a batchable extension type known
/// only at run time ([`BatchableSpec::unbatched`](super::BatchableSpec::unbatched)). An error for
/// a spec of a type that is not batchable, or that has no leading batch axis.
pub fn item_spec(batch_spec: &dyn AnySpec) -> Result<Box<dyn AnySpec>> {
    match entries().get(&batch_spec.value_type_id()) {
        Some(fns) => (fns.unbatch)(batch_spec),
        None => Err(ValueError {
            op: "item_spec",
            expected: "a spec of a batchable extension type".into(),
            found: format!("{} ({})", batch_spec.name(), batch_spec.value_type_name()),
        }
        .into()),
    }
}

/// The empty batch (zero items) of items of spec `item_spec`, of a batchable extension type
/// known only at run time: [`stack_with_spec`](super::stack_with_spec) with no items (a column
/// of zero rows read back as a batch). An error for a spec of a type that is not batchable, or
/// whose empty batch cannot be built from the spec (an unknown rank).
///
/// ```
/// use extype_core::{AnonymousSpec, SpecTree, batch};
/// let anon = AnonymousSpec {
///     name: "x.Y".into(),
///     spec: SpecTree::spec("x.Y", SpecTree::None),
///     component_specs: vec![],
/// };
/// let err = batch::empty_batch(&anon).unwrap_err();
/// assert!(err.to_string().contains("batchable"));
/// ```
pub fn empty_batch(item_spec: &dyn AnySpec) -> Result<Value> {
    match entries().get(&item_spec.value_type_id()) {
        Some(fns) => (fns.empty)(item_spec),
        None => Err(ValueError {
            op: "empty_batch",
            expected: "a spec of a batchable extension type".into(),
            found: format!("{} ({})", item_spec.name(), item_spec.value_type_name()),
        }
        .into()),
    }
}

impl BatchEntry {
    /// The entry of batchable type `T`.
    pub const fn of<T: Batchable>() -> BatchEntry {
        BatchEntry {
            type_id: TypeId::of::<T>,
            fns: fns_of::<T>,
        }
    }

    /// The entry the derive submits for `T`: its functions come from `fns`, a
    /// [`Probe`] of `T`, so the entry never names `T`'s impls (a type whose field types are
    /// unsupported gets its one error at the field, not here).
    #[doc(hidden)]
    pub const fn probed<T: 'static>(fns: fn() -> Option<BatchFns>) -> BatchEntry {
        BatchEntry {
            type_id: TypeId::of::<T>,
            fns,
        }
    }
}

fn fns_of<T: Batchable>() -> Option<BatchFns> {
    Some(BatchFns {
        stack: stack_as::<T>,
        unstack: unstack_as::<T>,
        rebatch: rebatch_as::<T>,
        unbatch: unbatch_as::<T>,
        empty: empty_as::<T>,
        lists: lists_as::<T>,
    })
}

/// Chosen by a [`Probe`] of a batchable type: its functions.
#[doc(hidden)]
pub trait ProbeBatch {
    /// The batching functions of the probed type.
    fn batch_fns(&self) -> Option<BatchFns>;
}

impl<T: Batchable> ProbeBatch for Probe<T> {
    #[inline]
    fn batch_fns(&self) -> Option<BatchFns> {
        fns_of::<T>()
    }
}

/// The fallback, one auto-reference further: the probed type's impls do not apply.
#[doc(hidden)]
pub trait NotBatchable {
    /// `None`: no functions.
    fn batch_fns(&self) -> Option<BatchFns> {
        None
    }
}

impl<T> NotBatchable for &Probe<T> {}

fn entries() -> &'static HashMap<TypeId, BatchFns> {
    static TABLE: OnceLock<HashMap<TypeId, BatchFns>> = OnceLock::new();
    TABLE.get_or_init(|| {
        inventory::iter::<BatchEntry>
            .into_iter()
            .filter_map(|e| (e.fns)().map(|fns| ((e.type_id)(), fns)))
            .collect()
    })
}

/// The batching functions of the extension type of `value`, if that type is batchable.
pub(crate) fn entry_of(value: &Value) -> Option<BatchFns> {
    match value {
        Value::Extension(e) => entries().get(&e.as_any().type_id()).copied(),
        Value::Tensor(_) => None,
    }
}

fn empty() -> crate::error::Error {
    BatchError::Argument {
        op: "stack",
        expected: "at least one value".into(),
        found: "none".into(),
    }
    .into()
}

/// [`stack`](super::stack) on values of one registered batchable type (or all tensors); an error names a
/// value of another type or kind by index.
pub fn stack_values(values: &[Value]) -> Result<Value> {
    let Some(first) = values.first() else {
        return Err(empty());
    };
    match first {
        Value::Tensor(_) => {
            let tensors = values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_tensor().map_err(|e| {
                        BatchError::Item {
                            op: "stack",
                            index: i,
                            source: Box::new(e),
                        }
                        .into()
                    })
                })
                .collect::<Result<Vec<&Tensor>>>()?;
            Ok(Value::Tensor(<Tensor as BatchField>::stack(
                &tensors,
                &crate::field::FieldPath::Root,
            )?))
        }
        Value::Extension(_) => match entry_of(first) {
            Some(entry) => (entry.stack)(values),
            None => Err(not_batchable(first)),
        },
    }
}

/// [`unstack`] on a value of a registered batchable type (or a tensor).
pub fn unstack_value(value: Value) -> Result<Vec<Value>> {
    match value {
        Value::Tensor(t) => Ok(unstack(t)?.into_iter().map(Value::Tensor).collect()),
        Value::Extension(_) => match entry_of(&value) {
            Some(entry) => (entry.unstack)(value),
            None => Err(not_batchable(&value)),
        },
    }
}

/// [`concat()`](super::concat) on values of one registered batchable type (or all tensors): the
/// items of every batch, in order, stacked into one batch.
pub fn concat_values(values: &[Value]) -> Result<Value> {
    let items = super::items_of_all(values.iter().cloned(), unstack_value)?;
    stack_values(&items)
}

/// Whether `value` is a tensor or a value of a batchable extension type whose [`BatchEntry`]
/// is linked in.
pub fn is_batchable(value: &Value) -> bool {
    matches!(value, Value::Tensor(_)) || entry_of(value).is_some()
}

/// Whether values of the extension type `type_id` are batchable (its [`BatchEntry`] is linked in
/// and the type is `#[extype(batchable)]`); `false` for `TypeId::of::<Tensor>()` and any other
/// type. What [`ops::supported`](crate::ops::supported) asks of `stack` and `concat`, without a
/// value.
pub fn is_batchable_type(type_id: TypeId) -> bool {
    entries().contains_key(&type_id)
}

fn not_batchable(value: &Value) -> crate::error::Error {
    BatchError::Argument {
        op: "stack",
        expected: "values of a batchable extension type (`#[extype(batchable)]`)".into(),
        found: format!("a value of {}", value.type_name()),
    }
    .into()
}

#[cfg(test)]
mod tests {
    // Both in scope, as in generated code: resolution picks the one that applies (batchable
    // derived types take `ProbeBatch`: `tests/batching/batching.rs` stacks their `Value`s).
    #[allow(unused_imports)]
    use super::{NotBatchable as _, ProbeBatch as _};
    use crate::derived::Probe;
    use crate::tensor::Tensor;

    /// A type that is not a batchable extension type takes the probe's fallback: no functions,
    /// and no compile error.
    #[test]
    fn the_probe_of_a_type_that_is_not_batchable_has_no_functions() {
        assert!((&Probe::<u8>::NEW).batch_fns().is_none());
        assert!((&Probe::<Tensor>::NEW).batch_fns().is_none());
    }
}

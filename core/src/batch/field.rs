//! [`BatchField`], the companion of [`Field`] that says how values of a field type stack into a
//! batch and split back, and how their specs gain and lose the batch dimension.
//! `#[derive(ExtensionType)]` with `#[extype(batchable)]` walks a struct's fields through it (see
//! [`crate::batch`] for the rules and the user front), by the per-field-type table [`BatchOps`].
//!
//! Implemented here for the field types whose batch is again a value of the same type:
//! - dynamic-rank tensors: [`Tensor`], `ArrayD<T>` and `ArcArray<T, IxDyn>` — the batch gains a
//!   leading axis (their rows copied by [`rows`](super::rows)). Fixed-rank arrays (`Array1`, …)
//!   are not batchable: a batch of them would have another Rust type (see the [`BatchField`]
//!   docs);
//! - containers, recursively: `Option` (all `Some` or all `None`), `Vec` and arrays (one length
//!   across items; each element is batched), `BTreeMap<String, _>` (one key set; each entry is
//!   batched), `Box`, tuples.
//!
//! Static data (static values, floats, `PhantomData`, `#[extype(static)]` fields) is batched in
//! [`static_data`](super::static_data).

use std::collections::BTreeMap;

use ndarray::{ArcArray, ArrayBase, ArrayD, Axis, Data, IxDyn};

use super::rows::{
    ArrayStacker, FieldStacker, RowBuffer, RowMode, Subject, array_mismatch, component_mismatch,
    tensor_rows, tensor_stacker,
};
use crate::error::{BatchError, Error, Result};
use crate::field::{Field, FieldPath, SequenceItem};
use crate::spec::seal::Seal;
use crate::tensor::{Element, Tensor, TensorSpec, each_array};
use extype_shape::{Dim, Shape};

/// How values of a field type stack into a batch (one value of the same type with a leading
/// batch dimension) and split back; how its spec gains and loses that dimension.
///
/// Contract: for items `xs` (non-empty) that stack, `stack(xs)?.unstack(xs.len())?` gives items
/// equal to `xs` (up to relaxed static shapes), and `batched_spec(&spec, Some(n))` is the spec
/// of a batch of `n` items of spec `spec` (for the default encoders exactly, for custom ones a
/// compatible spec). Errors name `path` and, for stacking, the item index.
///
/// Fixed-rank arrays (`Array1<T>`, `ArcArray2<T>`, …) do not implement it: a batch of a `Foo`
/// must be a `Foo`, and an array of rank 1 cannot hold a batch of rank-1 items. Use a
/// dynamic-rank field (`ArrayD<T>`, `ArcArray<T, IxDyn>`, `extype::Tensor`) in batchable types.
///
/// ```compile_fail,E0277
/// fn needs_batch<F: extype_core::batch::BatchField>() {}
/// needs_batch::<ndarray::Array1<f32>>(); // fixed rank: use ArrayD<f32>
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a batchable extension type",
    label = "not batchable",
    note = "a batch of a type is a value of the same type with a leading batch axis, so tensor fields of a batchable type need dynamic rank: use `ArrayD<T>`, `ArcArray<T, IxDyn>` or `extype::Tensor` instead of a fixed-rank array",
    note = "nested extension types must be batchable themselves (`#[extype(batchable)]`)"
)]
pub trait BatchField: Field {
    /// The spec of a batch of `n` values of spec `spec` (`None`: unknown batch size).
    fn batched_spec(spec: &Self::Spec, n: Option<usize>) -> Self::Spec;

    /// The spec of one item of a batch of spec `spec`; an error names `path` when a component
    /// has no leading axis.
    fn unbatched_spec(spec: &Self::Spec, path: &FieldPath<'_>) -> Result<Self::Spec>;

    /// The batch size this value reads as a batch: `Some(n)` from its first component's leading
    /// axis, `None` when it has no component; an error when a component has no leading axis.
    fn batch_len(&self, path: &FieldPath<'_>) -> Result<Option<usize>>;

    /// Stacks `items` (at least one) into one batch; an error names `path` and the item that
    /// does not fit item 0.
    fn stack(items: &[&Self], path: &FieldPath<'_>) -> Result<Self>;

    /// Splits a batch of `n` items; an error names `path` when a component's leading axis is
    /// not `n`.
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Self>>;

    /// The empty batch (zero items) of items of spec `spec`, when this type builds it itself
    /// (a custom [`BatchEncoder::empty`](super::BatchEncoder::empty)); `None`: every component
    /// of the batched spec as zeros of length 0 ([`stack_with_spec`](super::stack_with_spec)).
    fn empty(spec: &Self::Spec, path: &FieldPath<'_>) -> Option<Result<Self>> {
        let _ = (spec, path);
        None
    }

    /// How a batch of spec `spec` is a nest of lists, when this type says so itself (a custom
    /// [`BatchEncoder::list_layout`](super::BatchEncoder::list_layout)); `None` (the default):
    /// no such layout.
    fn list_layout(spec: &Self::Spec) -> Option<super::ListLayout> {
        let _ = spec;
        None
    }

    /// A stacker of `n` items like `first` that takes them a chunk at a time: the stacking of
    /// derived structs walks its items once, each chunk feeding every field. The default
    /// collects the items and calls [`stack`](Self::stack) at the end; tensor types copy each
    /// item into the batch as it comes. The stacking of derived structs hands the stacker
    /// pointers to `Self`s, so it must be `Self`'s own: the last parameter is of a type only this
    /// crate can name (`Seal`), which keeps the method to this crate's
    /// tensor types (`tests/ui/soundness/stacker.rs`).
    #[doc(hidden)]
    fn stacker<'a>(
        first: &'a Self,
        n: usize,
        path: &FieldPath<'_>,
        _: Seal,
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        let _ = (first, path);
        Ok(Box::new(Collect::<Self>(Vec::with_capacity(n))))
    }
}

// ---------------------------------------------------------------------------------------------
// Shapes and errors

/// `shape` with the batch dimension `n` in front (`[2]` → `[n, 2]`); unknown rank stays unknown.
pub fn batched_shape(shape: &Shape, n: Option<usize>) -> Shape {
    match shape.dims() {
        Some(dims) => Shape::from_dims(
            std::iter::once(n.map_or(Dim::Unknown, Dim::Known)).chain(dims.iter().copied()),
        ),
        None => Shape::unknown_rank(),
    }
}

/// `shape` without its leading (batch) dimension; unknown rank stays unknown; rank 0 is an
/// error naming `path`.
pub fn unbatched_shape(shape: &Shape, path: &FieldPath<'_>) -> Result<Shape> {
    match shape.dims() {
        Some([]) => Err(no_batch_axis("unbatched", path, "shape [] (rank 0)".into())),
        Some([_, rest @ ..]) => Ok(Shape::from_dims(rest.iter().copied())),
        None => Ok(Shape::unknown_rank()),
    }
}

#[cold]
#[inline(never)]
pub(crate) fn no_batch_axis(op: &'static str, path: &FieldPath<'_>, found: String) -> Error {
    BatchError::NoBatchAxis {
        op,
        path: path.to_string(),
        found,
    }
    .into()
}

#[cold]
#[inline(never)]
pub(super) fn size_mismatch(path: &FieldPath<'_>, expected: usize, found: usize) -> Error {
    BatchError::Size {
        op: "unstack",
        path: path.to_string(),
        expected,
        found,
    }
    .into()
}

#[cold]
#[inline(never)]
fn structure_mismatch(
    path: &FieldPath<'_>,
    index: usize,
    first: String,
    found: String,
    rule: &'static str,
) -> Error {
    BatchError::Structure {
        op: "stack",
        path: path.to_string(),
        index,
        first,
        found,
        rule,
    }
    .into()
}

#[cold]
#[inline(never)]
pub(super) fn no_items(path: &FieldPath<'_>) -> Error {
    BatchError::Argument {
        op: "stack",
        expected: format!("at least one item for {}", Subject(path)),
        found: "none".into(),
    }
    .into()
}

/// A static field that differs between item 0 and item `index`.
#[cold]
#[inline(never)]
pub fn static_mismatch(
    path: &FieldPath<'_>,
    index: usize,
    first: &dyn std::fmt::Debug,
    found: &dyn std::fmt::Debug,
) -> Error {
    BatchError::Static {
        op: "stack",
        path: path.to_string(),
        index,
        first: format!("{first:?}"),
        found: format!("{found:?}"),
    }
    .into()
}

// ---------------------------------------------------------------------------------------------
// The default stacker

/// The stacker of any field type: collects the items, then calls [`BatchField::stack`] (the
/// default of [`BatchField::stacker`]).
struct Collect<'a, F>(Vec<&'a F>);

impl<'a, F: BatchField> FieldStacker<'a> for Collect<'a, F> {
    unsafe fn push(&mut self, items: &[*const u8], offset: usize) -> usize {
        // SAFETY: the caller's contract.
        let fields = items
            .iter()
            .map(|&item| unsafe { &*item.add(offset).cast::<F>() });
        self.0.extend(fields);
        items.len()
    }

    unsafe fn mismatch(&self, index: usize, _item: *const u8, path: &FieldPath<'_>) -> Error {
        unreachable_mismatch(index, path)
    }

    unsafe fn finish(self: Box<Self>, path: &FieldPath<'_>, out: *mut u8) -> Result<()> {
        let batch = F::stack(&self.0, path)?;
        // SAFETY: the caller's contract.
        unsafe { out.cast::<F>().write(batch) };
        Ok(())
    }
}

/// [`FieldStacker::mismatch`] of a stacker that takes every item.
#[cold]
fn unreachable_mismatch(index: usize, path: &FieldPath<'_>) -> Error {
    BatchError::Argument {
        op: "stack",
        expected: format!("item {index} of {} taken", Subject(path)),
        found: "an item refused by a stacker that takes every item".into(),
    }
    .into()
}

// ---------------------------------------------------------------------------------------------
// Tensors

/// Stacks arrays of one element type (`ArrayD`, `ArcArray`): an error names the first item
/// whose shape differs from item 0's.
fn stack_typed<T: Element, S: Data<Elem = T>>(
    items: &[&ArrayBase<S, IxDyn>],
    path: &FieldPath<'_>,
) -> Result<ArrayD<T>> {
    let Some(first) = items.first() else {
        return Err(no_items(path));
    };
    let mut buffer = RowBuffer::new(first.shape(), items.len(), RowMode::One, &Subject(path))?;
    for (i, array) in items.iter().enumerate() {
        if !buffer.push(array) {
            return Err(array_mismatch(path, i, first, array));
        }
    }
    buffer.finish(&Subject(path))
}

fn leading_len(shape: &[usize], path: &FieldPath<'_>) -> Result<usize> {
    match shape.first() {
        Some(&n) => Ok(n),
        None => Err(no_batch_axis("unstack", path, "shape [] (rank 0)".into())),
    }
}

fn check_len(shape: &[usize], n: usize, path: &FieldPath<'_>) -> Result<()> {
    let found = leading_len(shape, path)?;
    if found == n {
        Ok(())
    } else {
        Err(size_mismatch(path, n, found))
    }
}

/// An empty vector with room for the `n` items of a batch, reserved fallibly: `n` comes from a
/// value (a leading axis), which may claim far more items than memory holds.
pub(crate) fn item_vec<T>(n: usize, path: &FieldPath<'_>) -> Result<Vec<T>> {
    let mut items = Vec::new();
    items
        .try_reserve_exact(n)
        .map_err(|_| BatchError::TooManyItems {
            op: "unstack",
            path: path.to_string(),
            n,
            item_bytes: size_of::<T>(),
        })?;
    Ok(items)
}

/// Item `i` of a shared batch: a view of the batch's buffer (the `Arc` is cloned, no element is
/// copied).
#[inline]
fn shared_item<T>(batch: &ArcArray<T, IxDyn>, i: usize) -> ArcArray<T, IxDyn> {
    batch.clone().index_axis_move(Axis(0), i)
}

fn unstack_shared<T>(
    batch: ArcArray<T, IxDyn>,
    n: usize,
    path: &FieldPath<'_>,
) -> Result<Vec<ArcArray<T, IxDyn>>> {
    check_len(batch.shape(), n, path)?;
    let mut items = item_vec(n, path)?;
    items.extend((0..n).map(|i| shared_item(&batch, i)));
    Ok(items)
}

fn tensor_batched_spec(spec: &TensorSpec, n: Option<usize>) -> TensorSpec {
    TensorSpec::new(batched_shape(&spec.shape, n), spec.dtype)
}

fn tensor_unbatched_spec(spec: &TensorSpec, path: &FieldPath<'_>) -> Result<TensorSpec> {
    Ok(TensorSpec::new(
        unbatched_shape(&spec.shape, path)?,
        spec.dtype,
    ))
}

/// The spec side of a tensor field's [`BatchField`] impl: a leading axis of `n`.
macro_rules! tensor_batch_specs {
    () => {
        fn batched_spec(spec: &TensorSpec, n: Option<usize>) -> TensorSpec {
            tensor_batched_spec(spec, n)
        }
        fn unbatched_spec(spec: &TensorSpec, path: &FieldPath<'_>) -> Result<TensorSpec> {
            tensor_unbatched_spec(spec, path)
        }
        fn batch_len(&self, path: &FieldPath<'_>) -> Result<Option<usize>> {
            leading_len(self.shape(), path).map(Some)
        }
    };
}

/// A dtype-erased tensor: shared, so unstacking is O(1) per item (each item views the batch).
impl BatchField for Tensor {
    tensor_batch_specs!();
    fn stack(items: &[&Tensor], path: &FieldPath<'_>) -> Result<Tensor> {
        if items.is_empty() {
            return Err(no_items(path));
        }
        let mismatch = |i: usize| component_mismatch(path, i, items[0], items[i]);
        tensor_rows(items, items.len(), RowMode::One, &Subject(path), &mismatch)
    }
    fn stacker<'a>(
        first: &'a Tensor,
        n: usize,
        path: &FieldPath<'_>,
        _: Seal,
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        tensor_stacker(first, n, &Subject(path))
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Tensor>> {
        if let Tensor::External(e) = &self {
            check_len(e.shape(), n, path)?;
            let mut items = item_vec(n, path)?;
            items.extend((0..n).map(|i| Tensor::External(e.item(i))));
            return Ok(items);
        }
        each_array!(self, a => {
            check_len(a.shape(), n, path)?;
            let mut items = item_vec(n, path)?;
            items.extend((0..n).map(|i| Element::into_tensor(shared_item(&a, i))));
            Ok(items)
        })
    }
}

/// An owned dynamic-rank array: stacking copies each item once; unstacking copies each item out
/// of the batch (use `ArcArray<T, IxDyn>` or [`Tensor`] for O(1) unstacking).
impl<T: Element> BatchField for ArrayD<T> {
    tensor_batch_specs!();
    fn stack(items: &[&ArrayD<T>], path: &FieldPath<'_>) -> Result<ArrayD<T>> {
        stack_typed(items, path)
    }
    fn stacker<'a>(
        first: &'a ArrayD<T>,
        n: usize,
        path: &FieldPath<'_>,
        _: Seal,
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        ArrayStacker::boxed(first, n, &Subject(path), |a| a)
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<ArrayD<T>>> {
        check_len(self.shape(), n, path)?;
        let mut items = item_vec(n, path)?;
        items.extend(self.outer_iter().map(|item| item.to_owned()));
        Ok(items)
    }
}

/// A shared dynamic-rank array: unstacking is O(1) per item (each item views the batch).
impl<T: Element> BatchField for ArcArray<T, IxDyn> {
    tensor_batch_specs!();
    fn stack(items: &[&ArcArray<T, IxDyn>], path: &FieldPath<'_>) -> Result<Self> {
        Ok(stack_typed(items, path)?.into_shared())
    }
    fn stacker<'a>(
        first: &'a Self,
        n: usize,
        path: &FieldPath<'_>,
        _: Seal,
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        ArrayStacker::boxed(first, n, &Subject(path), ArrayD::into_shared)
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Self>> {
        unstack_shared(self, n, path)
    }
}

// ---------------------------------------------------------------------------------------------
// Containers

/// Transposes per-part item lists (`parts[j][i]`: part `j` of item `i`) into items.
fn transpose<P>(parts: Vec<Vec<P>>, n: usize) -> Vec<Vec<P>> {
    let mut items: Vec<Vec<P>> = (0..n).map(|_| Vec::with_capacity(parts.len())).collect();
    for part in parts {
        for (item, p) in items.iter_mut().zip(part) {
            item.push(p);
        }
    }
    items
}

/// All `Some` (stacked inside) or all `None`.
impl<F: BatchField> BatchField for Option<F> {
    fn batched_spec(spec: &Option<F::Spec>, n: Option<usize>) -> Option<F::Spec> {
        spec.as_ref().map(|s| F::batched_spec(s, n))
    }
    fn unbatched_spec(spec: &Option<F::Spec>, path: &FieldPath<'_>) -> Result<Option<F::Spec>> {
        spec.as_ref()
            .map(|s| F::unbatched_spec(s, path))
            .transpose()
    }
    fn batch_len(&self, path: &FieldPath<'_>) -> Result<Option<usize>> {
        match self {
            Some(v) => v.batch_len(path),
            None => Ok(None),
        }
    }
    fn stack(items: &[&Option<F>], path: &FieldPath<'_>) -> Result<Option<F>> {
        let Some(first) = items.first() else {
            return Err(no_items(path));
        };
        let kind = |o: &Option<F>| if o.is_some() { "Some" } else { "None" };
        if let Some(i) = items.iter().position(|o| o.is_some() != first.is_some()) {
            return Err(structure_mismatch(
                path,
                i,
                kind(first).into(),
                kind(items[i]).into(),
                "an Option field must be Some in every item or None in every item",
            ));
        }
        if first.is_none() {
            return Ok(None);
        }
        let inner: Vec<&F> = items.iter().filter_map(|o| o.as_ref()).collect();
        F::stack(&inner, path).map(Some)
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Option<F>>> {
        match self {
            Some(v) => Ok(v.unstack(n, path)?.into_iter().map(Some).collect()),
            None => Ok((0..n).map(|_| None).collect()),
        }
    }
}

/// One length across items; element `j` of the batch is the batch of the items' elements `j`.
impl<F: BatchField + SequenceItem> BatchField for Vec<F> {
    fn batched_spec(spec: &Vec<F::Spec>, n: Option<usize>) -> Vec<F::Spec> {
        spec.iter().map(|s| F::batched_spec(s, n)).collect()
    }
    fn unbatched_spec(spec: &Vec<F::Spec>, path: &FieldPath<'_>) -> Result<Vec<F::Spec>> {
        (spec.iter().enumerate())
            .map(|(i, s)| F::unbatched_spec(s, &path.index(i)))
            .collect()
    }
    fn batch_len(&self, path: &FieldPath<'_>) -> Result<Option<usize>> {
        first_len(&self[..], path)
    }
    fn stack(items: &[&Vec<F>], path: &FieldPath<'_>) -> Result<Vec<F>> {
        let Some(first) = items.first() else {
            return Err(no_items(path));
        };
        if let Some(i) = items.iter().position(|v| v.len() != first.len()) {
            return Err(structure_mismatch(
                path,
                i,
                format!("a list of {}", first.len()),
                format!("a list of {}", items[i].len()),
                "a list field must have one length across a batch",
            ));
        }
        let mut parts: Vec<&F> = Vec::with_capacity(items.len());
        (0..first.len())
            .map(|j| {
                parts.clear();
                parts.extend(items.iter().map(|v| &v[j]));
                F::stack(&parts, &path.index(j))
            })
            .collect()
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Vec<F>>> {
        let parts = (self.into_iter().enumerate())
            .map(|(j, f)| f.unstack(n, &path.index(j)))
            .collect::<Result<Vec<_>>>()?;
        Ok(transpose(parts, n))
    }
}

fn first_len<F: BatchField>(parts: &[F], path: &FieldPath<'_>) -> Result<Option<usize>> {
    for (i, part) in parts.iter().enumerate() {
        if let Some(n) = part.batch_len(&path.index(i))? {
            return Ok(Some(n));
        }
    }
    Ok(None)
}

impl<F: BatchField + SequenceItem, const N: usize> BatchField for [F; N] {
    fn batched_spec(spec: &[F::Spec; N], n: Option<usize>) -> [F::Spec; N] {
        std::array::from_fn(|j| F::batched_spec(&spec[j], n))
    }
    fn unbatched_spec(spec: &[F::Spec; N], path: &FieldPath<'_>) -> Result<[F::Spec; N]> {
        let parts = (spec.iter().enumerate())
            .map(|(i, s)| F::unbatched_spec(s, &path.index(i)))
            .collect::<Result<Vec<_>>>()?;
        Ok(array_of(parts))
    }
    fn batch_len(&self, path: &FieldPath<'_>) -> Result<Option<usize>> {
        first_len(&self[..], path)
    }
    fn stack(items: &[&[F; N]], path: &FieldPath<'_>) -> Result<[F; N]> {
        if items.is_empty() {
            return Err(no_items(path));
        }
        let mut parts: Vec<&F> = Vec::with_capacity(items.len());
        let stacked = (0..N)
            .map(|j| {
                parts.clear();
                parts.extend(items.iter().map(|v| &v[j]));
                F::stack(&parts, &path.index(j))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(array_of(stacked))
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<[F; N]>> {
        let parts = (self.into_iter().enumerate())
            .map(|(j, f)| f.unstack(n, &path.index(j)))
            .collect::<Result<Vec<_>>>()?;
        Ok(transpose(parts, n).into_iter().map(array_of).collect())
    }
}

/// A vector of exactly `N` parts as an array (the callers build exactly `N`).
fn array_of<P, const N: usize>(parts: Vec<P>) -> [P; N] {
    match parts.try_into() {
        Ok(array) => array,
        // Unreachable: every caller maps `0..N` or an `[_; N]`.
        Err(parts) => unreachable!("{} parts for an array of {N}", parts.len()),
    }
}

/// One key set across items; entry `k` of the batch is the batch of the items' entries `k`.
impl<F: BatchField> BatchField for BTreeMap<String, F> {
    fn batched_spec(spec: &BTreeMap<String, F::Spec>, n: Option<usize>) -> Self::Spec {
        spec.iter()
            .map(|(k, s)| (k.clone(), F::batched_spec(s, n)))
            .collect()
    }
    fn unbatched_spec(spec: &Self::Spec, path: &FieldPath<'_>) -> Result<Self::Spec> {
        spec.iter()
            .map(|(k, s)| Ok((k.clone(), F::unbatched_spec(s, &path.key(k))?)))
            .collect()
    }
    fn batch_len(&self, path: &FieldPath<'_>) -> Result<Option<usize>> {
        for (k, part) in self {
            if let Some(n) = part.batch_len(&path.key(k))? {
                return Ok(Some(n));
            }
        }
        Ok(None)
    }
    fn stack(items: &[&Self], path: &FieldPath<'_>) -> Result<Self> {
        let Some(first) = items.first() else {
            return Err(no_items(path));
        };
        if let Some(i) = items.iter().position(|m| !m.keys().eq(first.keys())) {
            let keys = |m: &Self| format!("keys {:?}", m.keys().collect::<Vec<_>>());
            return Err(structure_mismatch(
                path,
                i,
                keys(first),
                keys(items[i]),
                "a map field must have one key set across a batch",
            ));
        }
        let mut parts: Vec<&F> = Vec::with_capacity(items.len());
        first
            .keys()
            .map(|k| {
                parts.clear();
                parts.extend(items.iter().filter_map(|m| m.get(k)));
                Ok((k.clone(), F::stack(&parts, &path.key(k))?))
            })
            .collect()
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Self>> {
        let mut items: Vec<Self> = (0..n).map(|_| BTreeMap::new()).collect();
        for (k, f) in self {
            let parts = f.unstack(n, &path.key(&k))?;
            for (item, p) in items.iter_mut().zip(parts) {
                item.insert(k.clone(), p);
            }
        }
        Ok(items)
    }
}

impl<F: BatchField> BatchField for Box<F> {
    fn batched_spec(spec: &Box<F::Spec>, n: Option<usize>) -> Box<F::Spec> {
        Box::new(F::batched_spec(spec, n))
    }
    fn unbatched_spec(spec: &Box<F::Spec>, path: &FieldPath<'_>) -> Result<Box<F::Spec>> {
        F::unbatched_spec(spec, path).map(Box::new)
    }
    fn batch_len(&self, path: &FieldPath<'_>) -> Result<Option<usize>> {
        (**self).batch_len(path)
    }
    fn stack(items: &[&Box<F>], path: &FieldPath<'_>) -> Result<Box<F>> {
        let inner: Vec<&F> = items.iter().map(|b| &***b).collect();
        F::stack(&inner, path).map(Box::new)
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Box<F>>> {
        Ok((*self)
            .unstack(n, path)?
            .into_iter()
            .map(Box::new)
            .collect())
    }
}

macro_rules! tuple_batch {
    ($($name:ident $i:tt),+) => {
        impl<$($name: BatchField),+> BatchField for ($($name,)+) {
            fn batched_spec(spec: &Self::Spec, n: Option<usize>) -> Self::Spec {
                ($($name::batched_spec(&spec.$i, n),)+)
            }
            fn unbatched_spec(spec: &Self::Spec, path: &FieldPath<'_>) -> Result<Self::Spec> {
                Ok(($($name::unbatched_spec(&spec.$i, &path.tuple($i))?,)+))
            }
            fn batch_len(&self, path: &FieldPath<'_>) -> Result<Option<usize>> {
                $(
                    if let Some(n) = self.$i.batch_len(&path.tuple($i))? {
                        return Ok(Some(n));
                    }
                )+
                Ok(None)
            }
            fn stack(items: &[&Self], path: &FieldPath<'_>) -> Result<Self> {
                if items.is_empty() {
                    return Err(no_items(path));
                }
                Ok(($({
                    let parts: Vec<&$name> = items.iter().map(|t| &t.$i).collect();
                    $name::stack(&parts, &path.tuple($i))?
                },)+))
            }
            #[allow(non_snake_case)]
            fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Self>> {
                $(let $name = self.$i.unstack(n, &path.tuple($i))?.into_iter();)+
                let zipped = itertools_zip!($($name),+);
                Ok(zipped.collect())
            }
        }
    };
}

/// Zips iterators into an iterator of flat tuples.
macro_rules! itertools_zip {
    ($a:ident) => {
        $a.map(|a| (a,))
    };
    ($a:ident, $b:ident) => {
        $a.zip($b)
    };
    ($a:ident, $b:ident, $c:ident) => {
        $a.zip($b).zip($c).map(|((a, b), c)| (a, b, c))
    };
    ($a:ident, $b:ident, $c:ident, $d:ident) => {
        $a.zip($b)
            .zip($c)
            .zip($d)
            .map(|(((a, b), c), d)| (a, b, c, d))
    };
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident) => {
        $a.zip($b)
            .zip($c)
            .zip($d)
            .zip($e)
            .map(|((((a, b), c), d), e)| (a, b, c, d, e))
    };
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $g:ident) => {
        $a.zip($b)
            .zip($c)
            .zip($d)
            .zip($e)
            .zip($g)
            .map(|(((((a, b), c), d), e), g)| (a, b, c, d, e, g))
    };
}

tuple_batch!(A 0);
tuple_batch!(A 0, B 1);
tuple_batch!(A 0, B 1, C 2);
tuple_batch!(A 0, B 1, C 2, D 3);
tuple_batch!(A 0, B 1, C 2, D 3, E 4);
tuple_batch!(A 0, B 1, C 2, D 3, E 4, G 5);

// ---------------------------------------------------------------------------------------------
// The table of a field type's batching functions, behind untyped pointers

/// What one field type does in a batch, with its values and specs behind untyped pointers: the
/// per-field-type table the batch tables of derived structs point to (see `crate::batch`). The
/// derive writes `BatchOps::of::<A>()` for each field type `A` itself: no trait constant names
/// it, so no `BatchField` impl can pass another type's off as its own
/// (`tests/ui/soundness/batch_ops.rs`).
///
/// Every value pointer must point to a live `F` and every spec pointer to a live `F::Spec`;
/// every `out` pointer to writable, suitably aligned, uninitialised memory for one.
pub struct BatchOps {
    pub(crate) batched_spec: unsafe fn(*const u8, Option<usize>, *mut u8),
    pub(crate) unbatched_spec: unsafe fn(*const u8, &FieldPath<'_>, *mut u8) -> Result<()>,
    pub(crate) batch_len: unsafe fn(*const u8, &FieldPath<'_>) -> Result<Option<usize>>,
    pub(crate) unstack: unsafe fn(*mut u8, usize, &FieldPath<'_>, *mut u8, usize) -> Result<()>,
    pub(crate) stacker: for<'a> unsafe fn(
        FieldRef<'a>,
        usize,
        &FieldPath<'_>,
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>>,
}

/// A pointer to a live field value borrowed for `'a` (its type known to the table it is passed
/// to).
#[derive(Clone, Copy)]
pub(crate) struct FieldRef<'a>(
    pub(crate) *const u8,
    pub(crate) std::marker::PhantomData<&'a ()>,
);

impl std::fmt::Debug for BatchOps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BatchOps")
    }
}

mod batch_ops_of {
    use super::*;

    // SAFETY (all functions of this module): callers pass pointers as documented on `BatchOps`.
    pub unsafe fn batched_spec<F: BatchField>(spec: *const u8, n: Option<usize>, out: *mut u8) {
        // SAFETY: the pointers are as `BatchOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe {
            out.cast::<F::Spec>()
                .write(F::batched_spec(&*spec.cast::<F::Spec>(), n))
        }
    }
    pub unsafe fn unbatched_spec<F: BatchField>(
        spec: *const u8,
        path: &FieldPath<'_>,
        out: *mut u8,
    ) -> Result<()> {
        // SAFETY: the pointers are as `BatchOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        let spec = F::unbatched_spec(unsafe { &*spec.cast::<F::Spec>() }, path)?;
        // SAFETY: the pointers are as `BatchOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { out.cast::<F::Spec>().write(spec) };
        Ok(())
    }
    pub unsafe fn batch_len<F: BatchField>(
        value: *const u8,
        path: &FieldPath<'_>,
    ) -> Result<Option<usize>> {
        // SAFETY: the pointers are as `BatchOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { (*value.cast::<F>()).batch_len(path) }
    }
    pub unsafe fn stacker<'a, F: BatchField>(
        first: FieldRef<'a>,
        n: usize,
        path: &FieldPath<'_>,
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        // SAFETY: the pointers are as `BatchOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        F::stacker(unsafe { &*first.0.cast::<F>() }, n, path, Seal)
    }
    /// Moves the value out of `value` (always, also on error), splits it into `n` items and
    /// writes item `j` to `out + j * stride` (on `Ok` only).
    pub unsafe fn unstack<F: BatchField>(
        value: *mut u8,
        n: usize,
        path: &FieldPath<'_>,
        out: *mut u8,
        stride: usize,
    ) -> Result<()> {
        // SAFETY: the pointers are as `BatchOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        let items = unsafe { value.cast::<F>().read() }.unstack(n, path)?;
        if items.len() != n {
            return Err(size_mismatch(path, n, items.len()));
        }
        for (j, item) in items.into_iter().enumerate() {
            // SAFETY: the pointers are as `BatchOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
            unsafe { out.add(j * stride).cast::<F>().write(item) };
        }
        Ok(())
    }
}

impl BatchOps {
    /// The table of field type `F`: a constant of its own, so one per type.
    pub const fn of<F: BatchField>() -> &'static BatchOps {
        BatchOpsOf::<F>::OPS
    }

    const fn build<F: BatchField>() -> BatchOps {
        BatchOps {
            batched_spec: batch_ops_of::batched_spec::<F>,
            unbatched_spec: batch_ops_of::unbatched_spec::<F>,
            batch_len: batch_ops_of::batch_len::<F>,
            unstack: batch_ops_of::unstack::<F>,
            stacker: batch_ops_of::stacker::<F>,
        }
    }
}

/// The table of `F` as an associated constant, evaluated once per type (an inherent constant of a
/// private type: nothing outside can override it).
struct BatchOpsOf<F>(std::marker::PhantomData<F>);

impl<F: BatchField> BatchOpsOf<F> {
    const OPS: &'static BatchOps = &BatchOps::build::<F>();
}

/// Stacks `items` (at least one) of field type `F` through its stacker, as the derive does, for
/// tests that compare it with [`BatchField::stack`].
#[cfg(test)]
fn stack_through_stacker<F: BatchField>(items: &[&F], path: &FieldPath<'_>) -> Result<F> {
    use std::mem::MaybeUninit;
    let mut stacker = F::stacker(items[0], items.len(), path, Seal)?;
    let items: Vec<*const u8> = items.iter().map(|&i| i as *const F as *const u8).collect();
    // In chunks of two, as the derive feeds its stackers in chunks.
    for (c, chunk) in items.chunks(2).enumerate() {
        // SAFETY: each item is a live `F` borrowed for the call (the field at offset 0).
        let taken = unsafe { stacker.push(chunk, 0) };
        if let Some(&item) = chunk.get(taken) {
            // SAFETY: as above.
            return Err(unsafe { stacker.mismatch(2 * c + taken, item, path) });
        }
    }
    let mut out = MaybeUninit::<F>::uninit();
    // SAFETY: `out` is writable for one `F`, and written on `Ok`.
    unsafe {
        stacker.finish(path, out.as_mut_ptr().cast())?;
        Ok(out.assume_init())
    }
}

#[cfg(test)]
mod tests {
    use ndarray::{ArcArray, ArrayD, IxDyn};
    use proptest::prelude::*;

    use super::*;
    use crate::batch::rows::tests::{external, item, reference, shapes};

    proptest! {
        /// Every way in (the stacker of each tensor type, `stack`) gives ndarray's `stack`, for
        /// any layout, zero-size and rank-0 items, and external tensors.
        #[test]
        fn stackers_match_ndarray_stack((shape, n, layouts) in shapes()) {
            let items: Vec<ArrayD<i64>> =
                (0..n).map(|i| item(&shape, 100 * i as i64, layouts[i])).collect();
            let expected = reference(&items);
            let path = FieldPath::Root;

            let refs: Vec<&ArrayD<i64>> = items.iter().collect();
            prop_assert_eq!(&stack_through_stacker(&refs, &path).unwrap(), &expected);
            prop_assert_eq!(&<ArrayD<i64> as BatchField>::stack(&refs, &path).unwrap(), &expected);

            let shared: Vec<ArcArray<i64, IxDyn>> = items.iter().map(|a| a.to_shared()).collect();
            let refs: Vec<&ArcArray<i64, IxDyn>> = shared.iter().collect();
            prop_assert_eq!(&stack_through_stacker(&refs, &path).unwrap(), &expected.to_shared());

            let expected = Tensor::from(expected);
            for tensors in [items.iter().map(|a| Tensor::from(a.clone())).collect(), external(&items)] {
                let refs: Vec<&Tensor> = tensors.iter().collect();
                prop_assert_eq!(&stack_through_stacker(&refs, &path).unwrap(), &expected);
                prop_assert_eq!(&<Tensor as BatchField>::stack(&refs, &path).unwrap(), &expected);
            }
        }
    }

    #[test]
    fn a_mismatch_names_the_item_and_both_specs() {
        let items = [item(&[2], 0, 0), item(&[2], 0, 1), item(&[3], 0, 0)];
        let refs: Vec<&ArrayD<i64>> = items.iter().collect();
        let path = FieldPath::Root;
        let by_stacker = stack_through_stacker(&refs, &path).unwrap_err().to_string();
        let by_stack = <ArrayD<i64> as BatchField>::stack(&refs, &path)
            .unwrap_err()
            .to_string();
        assert_eq!(by_stacker, by_stack);
        assert!(by_stack.contains("item 2"), "{by_stack}");
        assert!(by_stack.contains("[3]"), "{by_stack}");

        let tensors = [
            Tensor::from(item(&[2], 0, 0)),
            Tensor::from(ndarray::arr1(&[1.0f32, 2.0]).into_dyn()),
        ];
        let refs: Vec<&Tensor> = tensors.iter().collect();
        let err = stack_through_stacker(&refs, &path).unwrap_err().to_string();
        assert!(err.contains("item 1") && err.contains("f32"), "{err}");
    }
}

//! Batching, field by field: [`BatchField`], the companion of [`Field`] that says how values of
//! a field type stack into a batch and split back, and how their specs gain and lose the batch
//! dimension. `#[derive(ExtensionType)]` with `#[extype(batchable)]` walks a struct's fields
//! through it (see [`crate::batch`] for the rules and the user front).
//!
//! Implemented here for the field types whose batch is again a value of the same type:
//! - dynamic-rank tensors: [`Tensor`], `ArrayD<T>` and `ArcArray<T, IxDyn>` — the batch gains a
//!   leading axis. Fixed-rank arrays (`Array1`, …) are not batchable: a batch of them would have
//!   another Rust type (see the [`BatchField`] docs);
//! - static data (through [`StaticValue`]'s batching methods: equal across items by default; a
//!   [`Shape`] gains the batch dimension and relaxes), floats (equal), `PhantomData`;
//! - containers, recursively: `Option` (all `Some` or all `None`), `Vec` and arrays (one length
//!   across items; each element is batched), `BTreeMap<String, _>` (one key set; each entry is
//!   batched), `Box`, tuples.

use std::collections::BTreeMap;

use ndarray::{ArcArray, ArrayBase, ArrayD, Axis, Data, IxDyn};

use super::{ExactFloat, Field, FieldPath, StaticValue};
use crate::error::{BatchError, Error, Result};
use crate::shape::{Dim, Shape};
use crate::tensor::{Element, Tensor, TensorSpec, each_array};

mod rows;

#[doc(hidden)]
pub use rows::FieldStacker;
use rows::{
    ArrayStacker, Collect, RowBuffer, RowMode, array_mismatch, tensor_rows, tensor_stacker,
};

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
/// ```compile_fail
/// fn needs_batch<F: extype_core::field::BatchField>() {}
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

    /// A stacker of `n` items like `first` that takes them a chunk at a time: the stacking of
    /// derived structs walks its items once, each chunk feeding every field. The default
    /// collects the items and calls [`stack`](Self::stack) at the end; tensor types copy each
    /// item into the batch as it comes. Overriding it is for this crate's tensor types.
    #[doc(hidden)]
    fn stacker<'a>(
        first: &'a Self,
        n: usize,
        path: &FieldPath<'_>,
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        let _ = (first, path);
        Ok(Box::new(Collect::<Self>(Vec::with_capacity(n))))
    }

    /// This type's batching functions behind untyped pointers, for the batch tables of derived
    /// structs. Not meant to be overridden.
    #[doc(hidden)]
    const BATCH_OPS: &'static BatchOps = &BatchOps::of::<Self>();
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
fn size_mismatch(path: &FieldPath<'_>, expected: usize, found: usize) -> Error {
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
fn component_mismatch(path: &FieldPath<'_>, index: usize, first: &Tensor, found: &Tensor) -> Error {
    BatchError::Component {
        op: "stack",
        path: path.to_string(),
        index,
        first: TensorSpec::from_tensor(first).to_string(),
        found: TensorSpec::from_tensor(found).to_string(),
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
fn no_items(path: &FieldPath<'_>) -> Error {
    BatchError::Argument {
        op: "stack",
        expected: format!("at least one item for {}", Subject(path)),
        found: "none".into(),
    }
    .into()
}

/// What a batch error is about: "the value" at the root, else "field <path>".
struct Subject<'p>(&'p FieldPath<'p>);

impl std::fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            FieldPath::Root => f.write_str("the value"),
            path => write!(f, "field {path}"),
        }
    }
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
// Tensors

/// The tensors `items` joined along their leading axis (one dtype, equal trailing axes): one
/// allocation, each item's elements copied once. A building block for custom
/// [`BatchEncoder`](crate::batch::BatchEncoder)s (a ragged batch's flat values); an error names
/// `what` and the item that does not fit item 0.
pub fn concat_rows(items: &[&Tensor], what: &str) -> Result<Tensor> {
    let mut rows = 0usize;
    for t in items {
        match t.shape().first() {
            Some(&r) => match rows.checked_add(r) {
                Some(sum) => rows = sum,
                None => {
                    return Err(BatchError::Argument {
                        op: "concat_rows",
                        expected: format!("tensors for {what} whose rows can be counted"),
                        found: format!("more than {} rows in all", usize::MAX),
                    }
                    .into());
                }
            },
            None => {
                return Err(BatchError::NoBatchAxis {
                    op: "concat_rows",
                    path: what.to_string(),
                    found: "shape [] (rank 0)".into(),
                }
                .into());
            }
        }
    }
    concat_rows_counted(items, rows, what)
}

/// [`concat_rows`] when the caller knows how many rows the items hold in all (a ragged encoder
/// knows it from its row splits): the items are walked once, not twice. An error names `what`
/// when the items hold another number of rows, or the item that does not fit item 0.
pub fn concat_rows_counted(items: &[&Tensor], rows: usize, what: &str) -> Result<Tensor> {
    if items.is_empty() {
        return Err(BatchError::Argument {
            op: "concat_rows",
            expected: format!("at least one tensor for {what}"),
            found: "none".into(),
        }
        .into());
    }
    let mismatch = |i: usize| -> Error {
        let found = items[i];
        if found.ndim() == 0 {
            return BatchError::NoBatchAxis {
                op: "concat_rows",
                path: what.to_string(),
                found: "shape [] (rank 0)".into(),
            }
            .into();
        }
        BatchError::Component {
            op: "concat_rows",
            path: what.to_string(),
            index: i,
            first: TensorSpec::from_tensor(items[0]).to_string(),
            found: TensorSpec::from_tensor(found).to_string(),
        }
        .into()
    };
    tensor_rows(items, rows, RowMode::Leading, &what, &mismatch)
}

/// Rows `start..end` of `tensor`'s leading axis, sharing its buffer (no copy, O(1)).
pub fn slice_rows(tensor: &Tensor, start: usize, end: usize) -> Result<Tensor> {
    let rows = tensor.shape().first().copied().unwrap_or(0);
    if tensor.ndim() == 0 || start > end || end > rows {
        return Err(BatchError::Argument {
            op: "slice_rows",
            expected: format!("rows within 0..{rows} of a tensor of rank at least 1"),
            found: format!(
                "rows {start}..{end} of a tensor of shape {:?}",
                tensor.shape()
            ),
        }
        .into());
    }
    if let Tensor::External(e) = tensor {
        return Ok(Tensor::External(e.rows(start, end)));
    }
    Ok(each_array!(tensor, a => {
        let mut a = a.clone();
        a.slice_axis_inplace(Axis(0), ndarray::Slice::from(start..end));
        Element::into_tensor(a)
    }))
}

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
    Ok((0..n).map(|i| shared_item(&batch, i)).collect())
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
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        tensor_stacker(first, n, &Subject(path))
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Tensor>> {
        if let Tensor::External(e) = &self {
            check_len(e.shape(), n, path)?;
            return Ok((0..n).map(|i| Tensor::External(e.item(i))).collect());
        }
        each_array!(self, a => Ok(unstack_shared(a, n, path)?
            .into_iter()
            .map(Element::into_tensor)
            .collect()))
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
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        ArrayStacker::boxed(first, n, &Subject(path), |a| a)
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<ArrayD<T>>> {
        check_len(self.shape(), n, path)?;
        Ok(self.outer_iter().map(|item| item.to_owned()).collect())
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
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        ArrayStacker::boxed(first, n, &Subject(path), ArrayD::into_shared)
    }
    fn unstack(self, n: usize, path: &FieldPath<'_>) -> Result<Vec<Self>> {
        unstack_shared(self, n, path)
    }
}

// ---------------------------------------------------------------------------------------------
// Static data

/// Stacks static values that must be equal across items (the default of
/// [`StaticValue::stack_static`]): item 0's value, or an error naming the path, the first item
/// that differs and both values.
pub fn stack_equal<T: Clone + PartialEq + std::fmt::Debug>(
    items: &[&T],
    path: &FieldPath<'_>,
) -> Result<T> {
    let Some(first) = items.first() else {
        return Err(no_items(path));
    };
    match items.iter().position(|x| x != first) {
        None => Ok((*first).clone()),
        Some(i) => Err(static_mismatch(path, i, first, items[i])),
    }
}

/// The `BatchField` impl of a static field type (what
/// [`static_field!`](crate::static_field) emits): what [`StaticValue`]'s batching methods say.
#[doc(hidden)]
#[macro_export]
macro_rules! __batch_static_field {
    ($t:ty) => {
        impl $crate::__private::BatchField for $t {
            fn batched_spec(spec: &$t, n: ::core::option::Option<usize>) -> $t {
                $crate::__private::StaticValue::batched(spec, n)
            }
            fn unbatched_spec(
                spec: &$t,
                path: &$crate::__private::FieldPath<'_>,
            ) -> $crate::__private::Result<$t> {
                $crate::__private::StaticValue::unbatched(spec, path)
            }
            fn batch_len(
                &self,
                _path: &$crate::__private::FieldPath<'_>,
            ) -> $crate::__private::Result<::core::option::Option<usize>> {
                ::core::result::Result::Ok(::core::option::Option::None)
            }
            fn stack(
                items: &[&$t],
                path: &$crate::__private::FieldPath<'_>,
            ) -> $crate::__private::Result<$t> {
                <$t as $crate::__private::StaticValue>::stack_static(items, path)
            }
            fn unstack(
                self,
                n: usize,
                path: &$crate::__private::FieldPath<'_>,
            ) -> $crate::__private::Result<$crate::__private::Vec<$t>> {
                $crate::__private::unstack_static(&self, n, path)
            }
        }
    };
}

/// `n` copies of the item value of a static field's batch value (what the `BatchField` impl of
/// a static field calls).
pub fn unstack_static<T: StaticValue>(batch: &T, n: usize, path: &FieldPath<'_>) -> Result<Vec<T>> {
    let item = batch.unstack_static(n, path)?;
    Ok(vec![item; n])
}

/// The batching rules of a static [`Shape`] field, as TensorFlow's default encoder has them: the
/// batch's shape is the items' shapes relaxed to the most specific shape compatible with all,
/// with the batch size in front (`[2]` → `[n, 2]`); an item's is the batch's without it.
pub(crate) mod shape_rules {
    use super::*;

    pub fn stack(items: &[&Shape], path: &FieldPath<'_>) -> Result<Shape> {
        let Some(first) = items.first() else {
            return Err(no_items(path));
        };
        let relaxed = items[1..]
            .iter()
            .fold((*first).clone(), |acc, s| acc.most_specific_compatible(s));
        Ok(batched_shape(&relaxed, Some(items.len())))
    }

    pub fn unstack(batch: &Shape, n: usize, path: &FieldPath<'_>) -> Result<Shape> {
        match batch.dims() {
            Some([Dim::Known(m), ..]) if *m != n => Err(size_mismatch(path, n, *m)),
            _ => unbatched_shape(batch, path),
        }
    }
}

/// Floats: static data compared bit for bit (as their spec, [`ExactFloat`], is).
macro_rules! float_batch {
    ($($t:ty),*) => {$(
        impl BatchField for $t {
            fn batched_spec(spec: &ExactFloat<$t>, _n: Option<usize>) -> ExactFloat<$t> {
                *spec
            }
            fn unbatched_spec(
                spec: &ExactFloat<$t>,
                _path: &FieldPath<'_>,
            ) -> Result<ExactFloat<$t>> {
                Ok(*spec)
            }
            fn batch_len(&self, _path: &FieldPath<'_>) -> Result<Option<usize>> {
                Ok(None)
            }
            fn stack(items: &[&$t], path: &FieldPath<'_>) -> Result<$t> {
                let first = items.first().map(|x| x.to_bits());
                match items.iter().position(|x| Some(x.to_bits()) != first) {
                    _ if items.is_empty() => Err(no_items(path)),
                    None => Ok(*items[0]),
                    Some(i) => Err(static_mismatch(path, i, items[0], items[i])),
                }
            }
            fn unstack(self, n: usize, _path: &FieldPath<'_>) -> Result<Vec<$t>> {
                Ok(vec![self; n])
            }
        }
    )*};
}

float_batch!(f32, f64);

impl<T: Send + Sync + 'static> BatchField for std::marker::PhantomData<T> {
    fn batched_spec(spec: &Self, _n: Option<usize>) -> Self {
        *spec
    }
    fn unbatched_spec(spec: &Self, _path: &FieldPath<'_>) -> Result<Self> {
        Ok(*spec)
    }
    fn batch_len(&self, _path: &FieldPath<'_>) -> Result<Option<usize>> {
        Ok(None)
    }
    fn stack(_items: &[&Self], _path: &FieldPath<'_>) -> Result<Self> {
        Ok(std::marker::PhantomData)
    }
    fn unstack(self, n: usize, _path: &FieldPath<'_>) -> Result<Vec<Self>> {
        Ok(vec![std::marker::PhantomData; n])
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
impl<F: BatchField + super::SequenceItem> BatchField for Vec<F> {
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

impl<F: BatchField + super::SequenceItem, const N: usize> BatchField for [F; N] {
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
/// per-field-type table the batch tables of derived structs point to (see `crate::batch`).
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
        let spec = F::unbatched_spec(unsafe { &*spec.cast::<F::Spec>() }, path)?;
        unsafe { out.cast::<F::Spec>().write(spec) };
        Ok(())
    }
    pub unsafe fn batch_len<F: BatchField>(
        value: *const u8,
        path: &FieldPath<'_>,
    ) -> Result<Option<usize>> {
        unsafe { (*value.cast::<F>()).batch_len(path) }
    }
    pub unsafe fn stacker<'a, F: BatchField>(
        first: FieldRef<'a>,
        n: usize,
        path: &FieldPath<'_>,
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        F::stacker(unsafe { &*first.0.cast::<F>() }, n, path)
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
        let items = unsafe { value.cast::<F>().read() }.unstack(n, path)?;
        if items.len() != n {
            return Err(size_mismatch(path, n, items.len()));
        }
        for (j, item) in items.into_iter().enumerate() {
            unsafe { out.add(j * stride).cast::<F>().write(item) };
        }
        Ok(())
    }
}

impl BatchOps {
    /// The table of field type `F`.
    pub const fn of<F: BatchField>() -> BatchOps {
        BatchOps {
            batched_spec: batch_ops_of::batched_spec::<F>,
            unbatched_spec: batch_ops_of::unbatched_spec::<F>,
            batch_len: batch_ops_of::batch_len::<F>,
            unstack: batch_ops_of::unstack::<F>,
            stacker: batch_ops_of::stacker::<F>,
        }
    }
}

/// `#[extype(static)]` data: the same for every item (compared by spec form, as specs are), kept
/// once in the batch and copied into each item.
impl<T: super::StaticData> BatchField for super::Static<T> {
    fn batched_spec(spec: &T::Spec, _n: Option<usize>) -> T::Spec {
        spec.clone()
    }
    fn unbatched_spec(spec: &T::Spec, _path: &FieldPath<'_>) -> Result<T::Spec> {
        Ok(spec.clone())
    }
    fn batch_len(&self, _path: &FieldPath<'_>) -> Result<Option<usize>> {
        Ok(None)
    }
    fn stack(items: &[&Self], path: &FieldPath<'_>) -> Result<Self> {
        let specs: Vec<T::Spec> = items.iter().map(|s| s.0.to_spec()).collect();
        let refs: Vec<&T::Spec> = specs.iter().collect();
        stack_equal(&refs, path)?;
        Ok(super::Static(items[0].0.clone()))
    }
    fn unstack(self, n: usize, _path: &FieldPath<'_>) -> Result<Vec<Self>> {
        Ok(vec![self; n])
    }
}

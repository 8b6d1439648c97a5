//! Batching: many values of one extension type become one value of that type with a leading
//! batch dimension, and back (TensorFlow's `BatchableExtensionType`).
//!
//! ```
//! use extype_core::batch;
//! use extype_core::Tensor;
//! use ndarray::array;
//!
//! let items = [Tensor::from(array![1.0f32, 2.0]), Tensor::from(array![3.0f32, 4.0])];
//! let b = batch::stack(&items).unwrap();
//! assert_eq!(b.shape(), &[2, 2]);
//! let back = batch::unstack(b).unwrap(); // each item views the batch's buffer
//! assert_eq!(back, items);
//! ```
//!
//! # Which types are batchable
//!
//! A type is batchable when it implements [`BatchField`]: `#[derive(ExtensionType)]` with
//! `#[extype(batchable)]` writes the *default encoder*, `#[extype(batchable = Enc)]` delegates to
//! a custom [`BatchEncoder`]; tensors ([`Tensor`], `ArrayD<T>`, `ArcArray<T, IxDyn>`) are
//! batchable themselves.
//!
//! The default encoder, field by field (the [`BatchField`] impls of the field types):
//! - a tensor field gains a leading batch axis; the items' components must have one dtype and
//!   shape (an error names the component path, the item and both shapes);
//! - a nested batchable type is batched by its own encoder (default or custom);
//! - a static [`Shape`](crate::Shape) field gains the batch dimension (`[2]` → `[n, 2]`); items
//!   whose shapes differ relax to the most specific shape compatible with all, as TensorFlow's
//!   default encoder does, keeping what the items agree on: `[2]`, `[3]` → `[n, !1]` (a size,
//!   not 1, since no item has 1 there), `[1]`, `[3]` → `[n, ?]`, `[2]`, `[2, 3]` → `*` (an
//!   unknown rank, the batch axis included). Unstacking gives each item the relaxed shape;
//! - any other static field must be equal across the items (an error names the field path, the
//!   item and both values); a static value batches otherwise through its own [`StaticBatch`]
//!   impl (declared with `static_field!(T; impl StaticBatch)`), as [`Shape`](crate::Shape) does;
//! - `Option`: all `Some` (batched inside) or all `None`;
//! - `Vec` and arrays: one length across the items (the length is static spec data), each
//!   element batched on its own — a `Vec<Tensor>` of length 3 is batched into a `Vec<Tensor>` of
//!   length 3 whose tensors have a leading axis, not concatenated;
//! - `BTreeMap<String, _>`: one key set across the items, each entry batched on its own;
//! - `Box` and tuples: batched inside.
//!
//! Fixed-rank array fields (`Array1<T>`, `ArcArray2<T>`, …) are a compile error on a batchable
//! type: a batch of `Foo` is a `Foo`, and a rank-1 array cannot hold a batch of rank-1 items.
//! The alternative (a generated batch type whose fields have `D::Larger`) would make a batch a
//! different type, with its own spec, registry name and handlers, and would break the law that
//! batching nests. Use dynamic rank.
//!
//! Batches are values like any other: stacking validates the batch (its shape contract and
//! `validate`), unstacking validates each item. A shape contract meant for batches writes its
//! leading axes as a named variadic segment shared by the fields (`"*batch n"`; each `...` is
//! independent per field).
//!
//! # Copies
//!
//! Stacking allocates each component of the batch once and copies each item's elements into it
//! once. Unstacking a batch whose tensors are shared ([`Tensor`], `ArcArray<T, IxDyn>`) copies
//! nothing: each item is a view of the batch's buffer, O(1) per item. Owned `ArrayD<T>` fields
//! copy each item out. [`concat()`] and [`split`] unstack, then stack: with shared tensors they
//! copy the data once.
//!
//! # Specs
//!
//! [`BatchableSpec::batched`] / [`BatchableSpec::unbatched`] give the spec of a batch and of an
//! item. For the default encoder, `stack(values).spec() == values[0].spec().batched(Some(len))`
//! when the items' specs are equal, and the batch's spec is compatible with the relaxation of
//! the items' specs, batched, when they differ. A custom encoder's batched spec is compatible
//! with the spec of its batches (a ragged batch's flat values have a size no spec of the items
//! knows).
//!
//! # Operations
//!
//! [`stack`], [`stack_with_spec`] (zero items give an empty batch), [`unstack`], [`concat()`],
//! [`split`]; iterator adapters [`BatchIterExt::batched`] / [`BatchIterExt::unbatched`] over
//! values or `Result`s of values ([`BatchItem`]: they compose, and the input's first error ends
//! the stream);
//! [`map_fn`] and [`map_fn_par`] (rayon); [`stack_values`] / [`unstack_value`] on [`Value`](crate::Value)s of
//! registered batchable types (what `ops::stack` / `ops::concat` fall back to when no handler
//! takes extension values), and [`rebatched_spec`], a batch spec resized for a type known only
//! at run time.
//!
//! # Speed
//!
//! Measured by `cargo bench -p extype --bench batching` (for the figures and yardsticks, see
//! BENCHMARKS.md in the repository): unstacking copies no element and costs tens of nanoseconds
//! per item; `map_fn` adds well under a microsecond per item beyond the function; stacking, of
//! masked tensors or with the ragged encoder, runs close to the speed of allocating and copying
//! the same bytes by hand (one allocation per component, one copy per item and component with a
//! rank-and-length check, the items walked once, 16 at a time through every field).
//!
//! # Custom encoders
//!
//! A [`BatchEncoder`] is trusted: its batches and items are not validated again (the default
//! encoder validates both). Its building blocks: [`concat_rows`] joins tensors along their
//! leading axis (a ragged batch's flat values), [`concat_rows_counted`] does it in one walk
//! when the encoder knows the total row count (from its row splits), and [`slice_rows`] takes
//! rows back out without a copy.
//!
//! # Where it lives
//!
//! All of batching is in this module, above `field`, which knows nothing of it: the user front
//! here; [`BatchField`] and its impls for tensor and container field types (`field.rs`, with the
//! per-field-type table the derive's batch tables point to); the batching of static data and
//! [`StaticBatch`] (`static_data.rs`, with [`static_field!`](crate::static_field), which declares
//! both sides of a static field); row copying and the stackers (`rows.rs`); the default encoder
//! of derived types (`derived.rs`); iterator adapters, `map_fn` and batching of `Value`s.

mod derived;
mod field;
mod iter;
mod map;
mod rows;
mod static_data;
mod value;

#[doc(hidden)]
pub use derived::{
    DerivedBatch, batch_len as derived_batch_len, batched_spec as derived_batched_spec,
    stack as derived_stack, unbatched_spec as derived_unbatched_spec, unstack as derived_unstack,
};
pub use iter::{BatchItem, BatchIterExt, Batched, Unbatched};
pub use map::{map_fn, map_fn_par};
pub use value::{
    BatchEntry, concat_values, empty_batch, is_batchable, is_batchable_type, item_spec,
    list_layout, rebatched_spec, stack_values, unstack_value,
};
#[doc(hidden)]
pub use value::{BatchFns, NotBatchable, ProbeBatch};

#[doc(hidden)]
pub use field::BatchOps;
pub use field::{BatchField, batched_shape, static_mismatch, unbatched_shape};
#[doc(hidden)]
pub use rows::FieldStacker;
pub use rows::{concat_rows, concat_rows_counted, slice_rows};
#[doc(hidden)]
pub use static_data::unstack_static;
pub use static_data::{StaticBatch, stack_equal};

use crate::dtype::DType;
use crate::error::{BatchError, Error, Result};
use crate::field::{Components, Field, FieldPath, Sink};
use crate::spec::{ExtensionType, TypeSpec};
use crate::tensor::{Tensor, TensorSpec};

/// A custom batch encoder for extension type `T`, for types whose batch is not a plain stack of
/// their components (a ragged tensor: stacking concatenates the values and builds new row
/// splits). Name it in `#[extype(batchable = Enc)]`; the derive then implements [`BatchField`]
/// for `T` through it, so `T` nests in other batchable types.
///
/// The contract is [`BatchField`]'s: `unstack(stack(xs)?)? == xs`, and `batched_spec(&s, n)` is
/// compatible with the spec of every batch of `n` items of spec `s`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a batch encoder of `{T}`",
    label = "named by `#[extype(batchable = ...)]`",
    note = "implement `extype::batch::BatchEncoder<{T}>` for `{Self}`, or write `#[extype(batchable)]` alone for the default encoder"
)]
pub trait BatchEncoder<T: Field> {
    /// The spec of a batch of `n` values of spec `spec` (`None`: unknown batch size).
    fn batched_spec(spec: &T::Spec, n: Option<usize>) -> T::Spec;
    /// The spec of one item of a batch of spec `spec`.
    fn unbatched_spec(spec: &T::Spec) -> Result<T::Spec>;
    /// The number of items in `batch`.
    fn batch_len(batch: &T) -> Result<usize>;
    /// One batch of `items` (at least one).
    fn stack(items: &[&T]) -> Result<T>;
    /// The items of `batch`, in order.
    fn unstack(batch: T) -> Result<Vec<T>>;
    /// The empty batch (zero items) of items of spec `spec`, for an encoder whose components
    /// carry more than items along a leading axis (row splits, a dense shape), which zeros of
    /// length 0 would not make valid. `None` (the default): every component of
    /// `batched_spec(spec, Some(0))` as zeros, unknown sizes 0.
    fn empty(spec: &T::Spec) -> Option<Result<T>> {
        let _ = spec;
        None
    }
    /// How a batch of spec `spec` (the spec of a batch, not of an item) is a nest of lists,
    /// for an encoder whose batch is flat values and row splits (a ragged tensor): the
    /// component paths of the values and of each level's splits, outermost first. Formats
    /// with nested lists (Arrow's `LargeList`, as `extype-arrow` writes such a batch) store
    /// the batch as one list level per splits component, the splits its offsets. `None` (the
    /// default): no such layout.
    fn list_layout(spec: &T::Spec) -> Option<ListLayout> {
        let _ = spec;
        None
    }
}

/// How a batch is a nest of lists ([`BatchEncoder::list_layout`]): component `values` holds the
/// elements along its axis 0 (its other axes uniform), and each component of `splits`
/// (outermost first) is a level's row splits: `i64`, rank 1, starting at 0, never decreasing,
/// ending at the number of rows of the level below (the next splits' rows, or the values'
/// along axis 0). The first splits has one entry more than the batch has items. Every other
/// component is derived from these and the spec: the layout names them all.
///
/// ```
/// use extype_core::batch::ListLayout;
/// let layout = ListLayout {
///     values: "flat_values".into(),
///     splits: vec!["nested_row_splits[0]".into(), "nested_row_splits[1]".into()],
/// };
/// assert_eq!(layout.splits.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListLayout {
    /// The component path of the flat values.
    pub values: String,
    /// The component paths of the row splits, outermost first.
    pub splits: Vec<String>,
}

/// [`BatchField::unstack`] through a custom encoder: its items, checked to be `n`.
#[doc(hidden)]
pub fn check_unstacked<T>(items: Result<Vec<T>>, n: usize, path: &FieldPath<'_>) -> Result<Vec<T>> {
    let items = items?;
    if items.len() == n {
        Ok(items)
    } else {
        Err(BatchError::Size {
            op: "unstack",
            path: path.to_string(),
            expected: n,
            found: items.len(),
        }
        .into())
    }
}

/// An extension type whose values stack into batches: an [`ExtensionType`] that is a
/// [`BatchField`] (every `#[extype(batchable)]` type).
pub trait Batchable: ExtensionType + BatchField {}
impl<T: ExtensionType + BatchField> Batchable for T {}

/// The batch and item specs of a batchable type's spec.
pub trait BatchableSpec: Sized {
    /// The spec of a batch of `n` values of this spec (`None`: unknown batch size): every tensor
    /// component gains a leading axis, static shapes gain the batch dimension.
    fn batched(&self, n: Option<usize>) -> Self;
    /// The spec of one item of a batch of this spec; an error names a component that has no
    /// leading axis.
    fn unbatched(&self) -> Result<Self>;
}

impl<S: TypeSpec> BatchableSpec for S
where
    S::Value: BatchField + Field<Spec = S>,
{
    fn batched(&self, n: Option<usize>) -> S {
        <S::Value as BatchField>::batched_spec(self, n)
    }
    fn unbatched(&self) -> Result<S> {
        <S::Value as BatchField>::unbatched_spec(self, &FieldPath::Root)
    }
}

/// One batch of `items` (at least one; see [`stack_with_spec`] for none): every component
/// gains a leading axis of length `items.len()`.
pub fn stack<T: BatchField>(items: &[T]) -> Result<T> {
    if items.is_empty() {
        return Err(BatchError::Argument {
            op: "stack",
            expected: format!(
                "at least one {} (stack_with_spec(&[], &spec) builds an empty batch)",
                std::any::type_name::<T>()
            ),
            found: "none".into(),
        }
        .into());
    }
    let refs: Vec<&T> = items.iter().collect();
    T::stack(&refs, &FieldPath::Root)
}

/// [`stack`] for items of spec `spec`: zero items give an empty batch of that spec (every
/// component with a leading axis of 0; unknown sizes in `spec` become 0); otherwise each item's
/// spec must be compatible with `spec`. With no items, name the type:
/// `stack_with_spec::<Masked>(&[], &spec)`.
///
/// ```
/// use extype_core::{batch, DType, Tensor, TensorSpec};
/// let spec = TensorSpec::new("[3]".parse().unwrap(), DType::F32);
/// let empty = batch::stack_with_spec::<Tensor>(&[], &spec).unwrap();
/// assert_eq!(empty.shape(), &[0, 3]);
/// ```
pub fn stack_with_spec<T: BatchField>(items: &[T], spec: &<T as Field>::Spec) -> Result<T> {
    for (i, item) in items.iter().enumerate() {
        let found = item.field_spec();
        if !T::spec_is_compatible(&found, spec) {
            return Err(BatchError::Item {
                op: "stack_with_spec",
                index: i,
                source: Box::new(
                    BatchError::Argument {
                        op: "stack_with_spec",
                        expected: format!("a value compatible with {}", SpecText::<T>(spec)),
                        found: SpecText::<T>(&found).to_string(),
                    }
                    .into(),
                ),
            }
            .into());
        }
    }
    if !items.is_empty() {
        return stack(items);
    }
    empty::<T>(spec)
}

/// A spec printed compactly through its field type.
struct SpecText<'a, T: Field>(&'a T::Spec);

impl<T: Field> std::fmt::Display for SpecText<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        T::spec_fmt(self.0, f)
    }
}

/// The empty batch of items of spec `spec`: the type's own ([`BatchField::empty`]), or zeros.
fn empty<T: BatchField>(spec: &<T as Field>::Spec) -> Result<T> {
    if let Some(batch) = T::empty(spec, &FieldPath::Root) {
        return batch;
    }
    let batched = T::batched_spec(spec, Some(0));
    let mut specs = ComponentSpecs(Vec::new());
    T::component_specs(&batched, &FieldPath::Root, &mut specs);
    let components = specs
        .0
        .into_iter()
        .map(|(path, s)| zeros(&s, &path))
        .collect::<Result<Vec<_>>>()?;
    T::from_components(&batched, &FieldPath::Root, &mut Components::new(components))
}

struct ComponentSpecs(Vec<(String, TensorSpec)>);

impl Sink<TensorSpec> for ComponentSpecs {
    fn push(&mut self, path: &FieldPath<'_>, item: TensorSpec) {
        self.0.push((path.to_string(), item));
    }
}

/// An all-zero tensor of `spec`'s dtype and shape, unknown sizes taken as 0.
fn zeros(spec: &TensorSpec, path: &str) -> Result<Tensor> {
    let Some(dims) = spec.shape.dims() else {
        return Err(BatchError::Argument {
            op: "stack_with_spec",
            expected: format!("a spec of known rank for component {path} of an empty batch"),
            found: spec.to_string(),
        }
        .into());
    };
    let shape: Vec<usize> = dims.iter().map(|d| d.value().unwrap_or(0)).collect();
    let shape = ndarray::IxDyn(&shape);
    Ok(match spec.dtype {
        DType::Bool => Tensor::from(ndarray::ArrayD::from_elem(shape, false)),
        DType::I8 => Tensor::from(ndarray::ArrayD::<i8>::zeros(shape)),
        DType::I16 => Tensor::from(ndarray::ArrayD::<i16>::zeros(shape)),
        DType::I32 => Tensor::from(ndarray::ArrayD::<i32>::zeros(shape)),
        DType::I64 => Tensor::from(ndarray::ArrayD::<i64>::zeros(shape)),
        DType::U8 => Tensor::from(ndarray::ArrayD::<u8>::zeros(shape)),
        DType::U16 => Tensor::from(ndarray::ArrayD::<u16>::zeros(shape)),
        DType::U32 => Tensor::from(ndarray::ArrayD::<u32>::zeros(shape)),
        DType::U64 => Tensor::from(ndarray::ArrayD::<u64>::zeros(shape)),
        DType::F32 => Tensor::from(ndarray::ArrayD::<f32>::zeros(shape)),
        DType::F64 => Tensor::from(ndarray::ArrayD::<f64>::zeros(shape)),
        DType::F16 => Tensor::from(ndarray::ArrayD::from_elem(shape, half::f16::ZERO)),
        DType::BF16 => Tensor::from(ndarray::ArrayD::from_elem(shape, half::bf16::ZERO)),
    })
}

/// The items of `batch`, in order. Shared tensors ([`Tensor`], `ArcArray`) are not copied: each
/// item views the batch's buffer. An error names a component without a leading axis, or one
/// whose leading axis differs from the batch size.
pub fn unstack<T: BatchField>(batch: T) -> Result<Vec<T>> {
    let root = FieldPath::Root;
    match batch.batch_len(&root)? {
        Some(n) => batch.unstack(n, &root),
        None => Err(no_size::<T>("unstack")),
    }
}

/// The number of items in `batch` (the leading axis of its first component).
pub fn batch_len<T: BatchField>(batch: &T) -> Result<usize> {
    batch
        .batch_len(&FieldPath::Root)?
        .ok_or_else(|| no_size::<T>("batch_len"))
}

#[cold]
fn no_size<T>(op: &'static str) -> Error {
    BatchError::Argument {
        op,
        expected: format!(
            "a batch of {} with a tensor component to read the batch size from",
            std::any::type_name::<T>()
        ),
        found: "no component".into(),
    }
    .into()
}

/// One batch of the items of all `batches`, in order (their leading axes joined). With shared
/// tensors the data is copied once (into the result); owned `ArrayD` fields are also copied
/// when each batch is cloned and split.
pub fn concat<T: BatchField + Clone>(batches: &[T]) -> Result<T> {
    let items = items_of_all(batches.iter().cloned(), unstack)?;
    if let (true, Some(first)) = (items.is_empty(), batches.first()) {
        let spec = T::unbatched_spec(&first.field_spec(), &FieldPath::Root)?;
        return stack_with_spec(&[], &spec);
    }
    stack(&items)
}

/// The items of every batch, in order; an error names the batch that does not split.
pub(crate) fn items_of_all<B, I>(
    batches: impl Iterator<Item = B>,
    unstack: impl Fn(B) -> Result<Vec<I>>,
) -> Result<Vec<I>> {
    let mut items = Vec::new();
    for (i, b) in batches.enumerate() {
        match unstack(b) {
            Ok(part) => items.extend(part),
            Err(e) => {
                return Err(BatchError::Item {
                    op: "concat",
                    index: i,
                    source: Box::new(e),
                }
                .into());
            }
        }
    }
    Ok(items)
}

/// `batch` split into consecutive batches of `sizes[0]`, `sizes[1]`, … items (the sizes must add
/// up to the batch size). With shared tensors the data is copied once (into the parts).
pub fn split<T: BatchField>(batch: T, sizes: &[usize]) -> Result<Vec<T>> {
    let item_spec = T::unbatched_spec(&batch.field_spec(), &FieldPath::Root)?;
    let items = unstack(batch)?;
    let total: usize = sizes.iter().sum();
    if total != items.len() {
        return Err(BatchError::Argument {
            op: "split",
            expected: format!("sizes adding up to the batch size {}", items.len()),
            found: format!("{sizes:?} (adding up to {total})"),
        }
        .into());
    }
    let mut start = 0;
    sizes
        .iter()
        .map(|&k| {
            let part = &items[start..start + k];
            start += k;
            stack_with_spec(part, &item_spec)
        })
        .collect()
}

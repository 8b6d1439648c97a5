//! [`RaggedTensor`]: flat values plus one row partition per ragged dimension, registered as
//! `extype.RaggedTensor`, with TensorFlow 2.x's semantics (`tf.RaggedTensor`).
//!
//! A ragged tensor of shape `[nrows, (r1), …, (rk), d1, …]` is its *flat values* (a dense
//! tensor of rank ≥ 1 whose inner axes `d1, …` are uniform) and `k = ragged_rank ≥ 1` row
//! partitions, outermost first, each a vector of *row splits* (`i64`, starting at 0, never
//! decreasing, ending at the number of rows of the level below). A partition may be *uniform*
//! (TF's `uniform_row_length`): every row has the same length, so that dimension is known.
//!
//! Derived encodings of a partition (`row_lengths`, `value_rowids`, `row_starts`,
//! `row_limits`) are computed once, on first use, and shared by every value built on the same
//! partition (clones, `with_flat_values`, and every op that keeps the partition: elementwise
//! ops, `cast`, `where`). Two tensors built on the same partition combine without comparing
//! splits; two with equal splits held in different buffers combine after one comparison
//! (pointer equality first).
//!
//! Building and taking apart (TF's `tf.ragged.constant`, `rt[i]`, `rt[a:b]`, `to_list`):
//! - [`ragged!`](crate::ragged!) and [`RaggedTensor::from_nested`] build a ragged tensor from
//!   nested lists ([`Nested`]; ragged rank = nesting depth − 1), [`RaggedTensor::to_list`] gives
//!   them back.
//! - [`RaggedTensor::row`] is TF's `rt[i]` (negative `i` counts from the end): a
//!   [`RaggedRow`], dense for ragged rank 1, ragged of one less ragged rank otherwise;
//!   [`RaggedTensor::rows`] (and `for row in &rt`) iterates them; [`RaggedTensor::slice_rows`] is
//!   `rt[a:b]` with Python's clamping; [`RaggedTensor::unstack_rows`] gives the dense rows of a
//!   ragged-rank-1 tensor (TF's `unstack` / `unbatch` of one). Rows and slices view the flat
//!   values (no value is copied). [`RaggedTensor::map_rows`] is TF's `tf.map_fn` over the rows
//!   (results as ragged rows), [`RaggedTensor::map_rows_dense`] with a dense output signature.
//! - [`RaggedTensor::from_tensor_with_lengths`] clamps each length to `0..=ncols` (TF);
//!   [`RaggedTensor::from_tensor_with_padding`] takes a Rust scalar (`&0`, `0.0f32`, in the
//!   tensor's dtype), a rank-0 tensor, or a tensor of the inner shape ([`Padding`]).
//!
//! Ops (through `#[dispatch]`, each with spec inference):
//! - **Unary elementwise** ops and `cast` map the flat values and keep the partitions.
//! - **Binary elementwise** ops and comparisons: two ragged tensors with equal partitions
//!   (TF raises otherwise, and so do we: the error names both shapes); a scalar or a dense
//!   tensor that broadcasts per row: its leading axis is 1 or `nrows`, a ragged axis is 1,
//!   the inner axes broadcast with the flat values' (NumPy rules) — `[nrows, 1]`, `[1]`,
//!   `[1, 1]`, `[d]` for inner `d`. Any other dense shape is an error naming both shapes
//!   (TF raises for `[k]` against a ragged axis too).
//! - `where(cond, x, y)` with a ragged condition and ragged or dense branches (per-row
//!   broadcast as above).
//! - **Reductions** `reduce_sum/mean/max/min/prod/any/all`, see [below](self#reductions).
//! - `gather` of rows and `boolean_mask` (TF's `tf.ragged.boolean_mask`) dispatch;
//!   [`RaggedTensor::concat`] (axis 0, the ragged axis) and [`RaggedTensor::stack`] (axis 0:
//!   TF's `ragged_batch`; axis 1) join any number of ragged tensors, `ops::concat` /
//!   `ops::stack` of two dispatch to them; [`RaggedTensor::from_masked`] takes a
//!   `MaskedTensor`'s valid values.
//! - **Batching** ([`RaggedBatch`]) is TF's `ragged_batch`: one more ragged dimension;
//!   unbatching gives items whose flat values view the batch's buffer.
//! - `shape` gives a [`RaggedShape`] (TF's `tf.shape(rt)`, a `DynamicRaggedShape`): the row
//!   lengths of each ragged dimension and the flat values' shape; its
//!   [`static_shape`](RaggedShape::static_shape) is TF's `rt.shape`, `[nrows, ?, …, inner…]`
//!   (a uniform dimension known). A dense `i64` shape vector cannot hold a ragged dimension (the
//!   bounding shape would claim sizes most rows do not have).
//!
//! Its spec ([`RaggedTensorSpec`]: the flat values' spec, one splits spec per partition, the
//! uniform lengths) shows the partial shape `[nrows, ?, …, inner…]` (a uniform dimension is
//! known); every op above infers its output spec from its inputs' specs.
//!
//! # Reductions
//! Over all axes: the dense reduction of the flat values (an empty tensor's float max is −inf,
//! as TF). Over the ragged axis of a ragged-rank-1 tensor (or the innermost ragged axis): the
//! kernels' segment reductions, one output row per row; empty rows give TF's values: sum 0,
//! prod 1, mean NaN, max the dtype's lowest finite value (`f32::MIN`, `i32::MIN`, `false`), min
//! its highest, any `false`, all `true`. Over axis 0 (ragged rank 1): each column over the rows
//! that have it. Over inner (uniform) axes only: the flat values reduced, partitions kept. For
//! ragged rank ≥ 2, axis 0 and outer ragged axes reduce one axis at a time, highest first (as
//! TF): each entry's rows combine element by element, as long as the longest. Float max and
//! min over a ragged axis or axis 0 follow TF's segment fold exactly, at any ragged rank
//! (`[nan, 1]` → 1, `[1, nan]` → NaN, `[-inf]` → the lowest finite value: see
//! `segment_extreme`); over a uniform (dense) axis they propagate NaN, as TF's dense ones.
//! Negative axes count from the end; `keepdims` keeps size-1 axes. Integer means are `f64`
//! (as TF: `reduce_mean` of a ragged `int32` is `float64`).
//!
//! # Deliberate differences from TensorFlow
//! - `reduce_sum` of integers widens (`i32` → `i64`), as extype's dense `reduce_sum` does;
//!   `reduce_max`/`reduce_min` take the dtypes extype's dense ones take (not `i8`, `i16`,
//!   `u16`, `u32`, `bool`).
//! - A dense operand of higher rank than the ragged tensor is refused (TF broadcasts to a
//!   new outer axis).
//! - Reductions of a tensor of ragged rank ≥ 2 over axis 0 with `keepdims` keep axis 0 as a
//!   ragged partition of one row (shape `[1, ?, …]`), where TF makes it uniform with the
//!   data's row count (`(1, 3, None)`), a length no spec could state; the values are TF's.
//! - `gather` takes axis 0 only.
//! - `to_tensor(default, shape)` does not resize the inner (uniform) axes of the flat values.
//! - A dense `[k]` against a uniform ragged dimension of length `k` is refused, as TF refuses it.
//! - `batch::unstack` (and unbatching a spec) of a ragged-rank-1 tensor is an error pointing to
//!   [`RaggedTensor::unstack_rows`], where TF's `unstack` / `unbatch` gives the dense rows: a
//!   batch's items have the batch's type (`RaggedTensor`), and dense rows are not one.
//! - [`ragged!`](crate::ragged!) / `from_nested` make every dimension but the outermost ragged
//!   (TF's default); TF's `ragged_rank` and `inner_shape` arguments are not taken (build with
//!   `from_row_lengths` and friends for uniform inner axes). A scalar of depth 1 (`ragged![1, 2]`)
//!   is an error (TF returns a dense tensor).
//! - `ops::shape` returns a [`RaggedShape`] value, not a `DynamicRaggedShape`'s full API (no
//!   broadcasting of shapes).
//! - A batch of ragged tensors whose item spec has a known row count (`[2, ?]`) gets a ragged
//!   outer partition (`[?, ?, ?]`), where TF's `Dataset.batch` keeps it uniform
//!   (`[None, 2, None]`, `uniform_row_length = 2`). A spec here is the spec of values: a
//!   stacked value cannot tell items whose row counts agree by rule from items that agree by
//!   chance, so marking the partition uniform would make the batched spec and the spec of the
//!   stacked value disagree (and two stacks of equal rows compare unequal). The values, row
//!   lengths and `to_list` are TF's.
//! - Row partitions are always `int64` (TF's default `row_splits_dtype`). The constructors
//!   take `int32` splits, lengths and row ids too and widen them (TF would keep `int32` as the
//!   tensor's `row_splits_dtype`), so a tensor built from TF's `int32` partitions combines with
//!   any other (TF raises on mixed partition dtypes unless `auto_cast_partition_dtype` is on);
//!   specs, files and Arrow columns (`LargeList` offsets) hold `int64`.

mod batch;
mod construct;
mod display;
mod elementwise;
mod infer;
mod nested;
mod reduce;
mod reduce_outer;
mod reshape;
mod rows;
mod segment_extreme;
mod shape;

pub use batch::RaggedBatch;
pub use construct::Padding;
pub use nested::Nested;
#[doc(hidden)]
pub use nested::RaggedLeaf;
pub use rows::{RaggedRow, Rows};
pub use shape::{RaggedShape, RaggedShapeSpec};

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::ndarray::{ArcArray, Ix1};
use crate::{DType, Dim, Error, Result, Shape, Tensor, TensorLike, with_element};

/// A tensor with ragged dimensions (TF's `tf.RaggedTensor`): flat values plus one row
/// partition per ragged dimension. See the [module docs](self) for every op's semantics.
///
/// ```
/// use extype::types::RaggedTensor;
/// use extype::{ops, Tensor};
/// use ndarray::array;
///
/// let r = RaggedTensor::from_row_splits(array![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], array![0i64, 3, 3, 5, 6])?;
/// assert_eq!(r.to_string(), "f32[4, ?] [[1.0, 2.0, 3.0], [], [4.0, 5.0], [6.0]]");
/// let sums: Tensor = ops::reduce_sum_as(&r, Some(&[1]), false)?;
/// assert_eq!(sums, Tensor::from(array![6.0f32, 0.0, 9.0, 6.0].into_dyn()));
/// let doubled = (&r * 2.0)?; // keeps the partition: no check, no copy of the splits
/// assert_eq!(doubled.to_string(), "f32[4, ?] [[2.0, 4.0, 6.0], [], [8.0, 10.0], [12.0]]");
/// let plus_row: RaggedTensor = ops::add_as(&r, &array![[10.0f32], [20.0], [30.0], [40.0]])?;
/// assert_eq!(plus_row.to_string(), "f32[4, ?] [[11.0, 12.0, 13.0], [], [34.0, 35.0], [46.0]]");
/// # Ok::<(), extype::Error>(())
/// ```
#[crate::dispatch(operators)]
#[derive(Clone, ExtensionType)]
#[extype(
    name = "extype.RaggedTensor",
    validate = check_partitions,
    tensor_like,
    batchable = RaggedBatch
)]
pub struct RaggedTensor {
    /// The flat values: axis 0 runs over the innermost rows' elements, the other axes are the
    /// uniform inner dimensions.
    flat_values: Tensor,
    /// One row-splits vector (`i64`, rank 1) per ragged dimension, outermost first.
    nested_row_splits: Vec<Tensor>,
    /// Per partition: `Some(length)` when it is uniform (TF's `uniform_row_length`).
    uniform_row_lengths: Vec<Option<i64>>,
    /// The derived encodings of the partitions, shared by values built on them.
    #[extype(skip)]
    cache: Partitions,
}

use crate::ExtensionType;

/// The derived encodings of one partition, each computed on first use.
#[derive(Default)]
struct Encodings {
    row_lengths: OnceLock<Tensor>,
    value_rowids: OnceLock<Tensor>,
    row_starts: OnceLock<Tensor>,
    row_limits: OnceLock<Tensor>,
}

/// The derived encodings of every partition of a ragged tensor: shared (an `Arc`) by the
/// values built on the same partitions, so two of them combine without comparing splits.
#[derive(Clone, Default)]
pub struct Partitions(Arc<OnceLock<Box<[Encodings]>>>);

impl fmt::Debug for Partitions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Partitions")
    }
}

impl Partitions {
    fn level(&self, level: usize, levels: usize) -> &Encodings {
        let all = self
            .0
            .get_or_init(|| (0..levels).map(|_| Encodings::default()).collect());
        &all[level]
    }

    fn same(a: &Partitions, b: &Partitions) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl fmt::Debug for RaggedTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RaggedTensor")
            .field("flat_values", &self.flat_values)
            .field("nested_row_splits", &self.nested_row_splits)
            .field("uniform_row_lengths", &self.uniform_row_lengths)
            .finish()
    }
}

/// Equal when the flat values, the splits and the uniform row lengths are.
impl PartialEq for RaggedTensor {
    fn eq(&self, other: &RaggedTensor) -> bool {
        self.flat_values == other.flat_values && self.same_partitions(other)
    }
}

/// An argument error of `op`.
pub(crate) fn arg_error(
    op: &str,
    arg: &str,
    expected: impl Into<String>,
    found: impl Into<String>,
) -> Error {
    Error::argument(op, arg, expected, found)
}

/// The splits of a checked partition as a slice (they are `i64` of rank 1; contiguous unless
/// they view a strided buffer, then copied).
pub(crate) fn splits_of(t: &Tensor) -> std::borrow::Cow<'_, [i64]> {
    // The common case first: an owned `i64` buffer, read in place.
    if let Ok(a) = t.as_arc_array::<i64>()
        && let Some(s) = a.as_slice()
    {
        return std::borrow::Cow::Borrowed(s);
    }
    match t.as_array::<i64, Ix1>() {
        Ok(v) => match v.to_slice() {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(v.to_vec()),
        },
        Err(_) => std::borrow::Cow::Owned(Vec::new()),
    }
}

/// A partition's row splits as an op's shared [`Indices`]: the tensor's own `i64` buffer when
/// it holds one (no copy), else a copy of [`splits_of`].
pub(crate) fn shared_splits(t: &Tensor) -> crate::ops::Indices {
    if let Ok(a) = t.as_arc_array::<i64>()
        && let Ok(a) = a.clone().into_dimensionality::<Ix1>()
    {
        return crate::ops::Indices::from(a);
    }
    crate::ops::Indices::from(splits_of(t).into_owned())
}

/// A tensor of `dtype` and `shape` with no elements (some size is 0; nothing is allocated).
pub(crate) fn empty_tensor(dtype: DType, shape: &[usize]) -> Tensor {
    debug_assert!(shape.contains(&0), "{shape:?}");
    with_element!(dtype, T => {
        Tensor::from(crate::ndarray::ArrayD::<T>::default(crate::ndarray::IxDyn(shape)))
    })
}

/// An `i64` vector as a tensor (moved, no copy).
pub(crate) fn i64_tensor(v: Vec<i64>) -> Tensor {
    Tensor::from(ArcArray::from_vec(v).into_dyn())
}

/// The static values of a ragged tensor read from a file that names only its tensors (written
/// by Python: `flat_values`, `nested_row_splits[0]`, …): one partition per
/// `nested_row_splits[i]` found, none uniform (the row splits say everything), so
/// `io::load_components_inferred::<RaggedTensor>` needs no `uniform_row_lengths` from the caller.
fn statics_from_names(names: &[&str]) -> crate::io::Statics {
    let partitions = (0..)
        .take_while(|i| {
            names
                .binary_search(&format!("nested_row_splits[{i}]").as_str())
                .is_ok()
        })
        .count();
    crate::io::Statics::new().with("uniform_row_lengths", vec![None::<i64>; partitions])
}

crate::infer_statics!(RaggedTensor, statics_from_names);

/// Checks the partitions against each other and the flat values (TF's checks: splits start
/// at zero, never decrease, end at the number of rows below; uniform partitions are uniform).
fn check_partitions(r: &RaggedTensor) -> Result<()> {
    check_parts(
        "RaggedTensor",
        &r.flat_values,
        &r.nested_row_splits,
        &r.uniform_row_lengths,
    )
}

/// [`check_partitions`] on the parts, errors naming `op`.
pub(crate) fn check_parts(
    op: &str,
    flat_values: &Tensor,
    nested: &[Tensor],
    uniform: &[Option<i64>],
) -> Result<()> {
    if flat_values.ndim() == 0 {
        return Err(arg_error(
            op,
            "flat_values",
            "a tensor of rank at least 1",
            "a scalar",
        ));
    }
    if nested.is_empty() {
        return Err(arg_error(
            op,
            "nested_row_splits",
            "at least one row partition (ragged_rank >= 1)",
            "none",
        ));
    }
    if uniform.len() != nested.len() {
        return Err(arg_error(
            op,
            "uniform_row_lengths",
            format!("one entry per partition ({})", nested.len()),
            format!("{} entries", uniform.len()),
        ));
    }
    for (level, splits) in nested.iter().enumerate() {
        let what = format!("nested_row_splits[{level}]");
        if splits.dtype() != DType::I64 || splits.ndim() != 1 {
            return Err(arg_error(
                op,
                &what,
                "row splits of dtype i64 and rank 1",
                format!("{}{:?}", splits.dtype(), splits.shape()),
            ));
        }
        let s = splits_of(splits);
        let below = match nested.get(level + 1) {
            Some(next) => next.len().saturating_sub(1),
            None => flat_values.shape()[0],
        };
        check_splits(op, &what, &s, below)?;
        if let Some(len) = uniform[level] {
            let nrows = s.len() - 1;
            if len < 0 || s.windows(2).any(|w| w[1] - w[0] != len) {
                return Err(arg_error(
                    op,
                    &what,
                    format!("uniform rows of length {len}"),
                    format!("row splits {}", short_list(&s)),
                ));
            }
            debug_assert!(nrows as i64 * len == s[nrows]);
        }
    }
    Ok(())
}

/// TF's checks of row splits: at least one entry, the first zero, never decreasing, the last
/// the number of rows below (`nvals`).
pub(crate) fn check_splits(op: &str, what: &str, s: &[i64], nvals: usize) -> Result<()> {
    let Some(&first) = s.first() else {
        return Err(arg_error(op, what, "at least one row split (0)", "none"));
    };
    if first != 0 {
        return Err(arg_error(
            op,
            what,
            "row splits starting at zero",
            format!("{what}[0] = {first}"),
        ));
    }
    if let Some(i) = s.windows(2).position(|w| w[1] < w[0]) {
        return Err(arg_error(
            op,
            what,
            "monotonic (non-decreasing) row splits",
            format!("{what}[{}] = {} after {}", i + 1, s[i + 1], s[i]),
        ));
    }
    let last = s[s.len() - 1];
    if usize::try_from(last) != Ok(nvals) {
        return Err(arg_error(
            op,
            what,
            format!("row splits ending at the number of values ({nvals})"),
            format!("{what}[{}] = {last}", s.len() - 1),
        ));
    }
    Ok(())
}

/// At most eight entries of a list, then `…`.
pub(crate) fn short_list(s: &[i64]) -> String {
    if s.len() <= 8 {
        format!("{s:?}")
    } else {
        let head: Vec<String> = s[..8].iter().map(i64::to_string).collect();
        format!("[{}, … ({} in all)]", head.join(", "), s.len())
    }
}

impl RaggedTensor {
    /// Parts already checked: a new partition cache.
    pub(crate) fn from_parts_unchecked(
        flat_values: Tensor,
        nested_row_splits: Vec<Tensor>,
        uniform_row_lengths: Vec<Option<i64>>,
    ) -> RaggedTensor {
        debug_assert!(
            check_parts(
                "debug",
                &flat_values,
                &nested_row_splits,
                &uniform_row_lengths
            )
            .is_ok()
        );
        RaggedTensor {
            flat_values,
            nested_row_splits,
            uniform_row_lengths,
            cache: Partitions::default(),
        }
    }

    /// New flat values (the same number of rows) on this tensor's partitions, which are
    /// shared (their derived encodings too).
    pub(crate) fn with_values_unchecked(&self, flat_values: Tensor) -> RaggedTensor {
        debug_assert_eq!(
            flat_values.shape().first(),
            self.flat_values.shape().first()
        );
        RaggedTensor {
            flat_values,
            nested_row_splits: self.nested_row_splits.clone(),
            uniform_row_lengths: self.uniform_row_lengths.clone(),
            cache: self.cache.clone(),
        }
    }

    /// Whether `self` and `other` have the same partitions: built on the same ones (no
    /// comparison), or equal splits (pointer equality, then the elements).
    pub fn same_partitions(&self, other: &RaggedTensor) -> bool {
        if Partitions::same(&self.cache, &other.cache) {
            return true;
        }
        self.nested_row_splits.len() == other.nested_row_splits.len()
            && self.uniform_row_lengths == other.uniform_row_lengths
            && self
                .nested_row_splits
                .iter()
                .zip(&other.nested_row_splits)
                .all(|(a, b)| same_splits(a, b))
    }

    /// Whether `self` and `other` share their partition cache (built on the same partitions).
    pub fn shares_partitions_with(&self, other: &RaggedTensor) -> bool {
        Partitions::same(&self.cache, &other.cache)
    }

    fn encodings(&self, level: usize) -> &Encodings {
        self.cache.level(level, self.nested_row_splits.len())
    }

    /// The number of ragged dimensions (partitions).
    pub fn ragged_rank(&self) -> usize {
        self.nested_row_splits.len()
    }

    /// The rank: 1 + ragged rank + the flat values' inner axes.
    pub fn rank(&self) -> usize {
        1 + self.ragged_rank() + self.flat_values.ndim() - 1
    }

    /// The values' dtype.
    pub fn dtype(&self) -> DType {
        self.flat_values.dtype()
    }

    /// The number of rows (axis 0).
    pub fn nrows(&self) -> usize {
        self.nested_row_splits[0].len() - 1
    }

    /// The flat values (TF's `flat_values`).
    pub fn flat_values(&self) -> &Tensor {
        &self.flat_values
    }

    /// The row splits of every partition, outermost first (TF's `nested_row_splits`).
    pub fn nested_row_splits(&self) -> &[Tensor] {
        &self.nested_row_splits
    }

    /// The outermost row splits (TF's `row_splits`).
    pub fn row_splits(&self) -> &Tensor {
        &self.nested_row_splits[0]
    }

    /// Per partition, its uniform row length when it has one (TF's `uniform_row_length` of
    /// each level).
    pub fn uniform_row_lengths(&self) -> &[Option<i64>] {
        &self.uniform_row_lengths
    }

    /// The values of the outermost partition (TF's `values`): the flat values when the ragged
    /// rank is 1, otherwise a ragged tensor of one less ragged rank (sharing everything).
    pub fn values(&self) -> std::result::Result<RaggedTensor, Tensor> {
        if self.ragged_rank() == 1 {
            Err(self.flat_values.clone())
        } else {
            Ok(RaggedTensor::from_parts_unchecked(
                self.flat_values.clone(),
                self.nested_row_splits[1..].to_vec(),
                self.uniform_row_lengths[1..].to_vec(),
            ))
        }
    }

    /// The row lengths of partition `level` (0: the outermost; TF's `row_lengths(axis =
    /// level + 1)`), `i64`, computed once and shared.
    pub fn nested_row_lengths(&self, level: usize) -> Result<Tensor> {
        let splits = self.level_splits("row_lengths", level)?;
        Ok(self
            .encodings(level)
            .row_lengths
            .get_or_init(|| {
                let s = splits_of(splits);
                i64_tensor(s.windows(2).map(|w| w[1] - w[0]).collect())
            })
            .clone())
    }

    /// The row lengths of the outermost partition (`i64`; TF's `row_lengths()`).
    pub fn row_lengths(&self) -> Tensor {
        // Level 0 always exists.
        self.nested_row_lengths(0)
            .unwrap_or_else(|_| i64_tensor(Vec::new()))
    }

    /// The row of each value of the outermost partition (`i64`, sorted; TF's `value_rowids()`),
    /// computed once and shared. One id per value: an error when they cannot be allocated
    /// (values of zero width can number far more than memory holds).
    pub fn value_rowids(&self) -> Result<Tensor> {
        self.nested_value_rowids(0)
    }

    /// [`value_rowids`](Self::value_rowids) of partition `level`.
    pub fn nested_value_rowids(&self, level: usize) -> Result<Tensor> {
        let splits = self.level_splits("value_rowids", level)?;
        let cell = &self.encodings(level).value_rowids;
        if let Some(ids) = cell.get() {
            return Ok(ids.clone());
        }
        let s = splits_of(splits);
        // Checked splits: the last is the number of values, each step non-negative.
        let n = s[s.len() - 1] as usize;
        let mut ids = crate::types::size::try_reserved("value_rowids", "the value row ids", n)?;
        for (row, w) in s.windows(2).enumerate() {
            ids.resize(ids.len() + (w[1] - w[0]) as usize, row as i64);
        }
        Ok(cell.get_or_init(|| i64_tensor(ids)).clone())
    }

    /// The start of each outermost row in the values (`row_splits[..nrows]`; TF's
    /// `row_starts()`), shared.
    pub fn row_starts(&self) -> Tensor {
        let splits = &self.nested_row_splits[0];
        self.encodings(0)
            .row_starts
            .get_or_init(|| slice_1d(splits, 0, splits.len() - 1))
            .clone()
    }

    /// The end of each outermost row in the values (`row_splits[1..]`; TF's `row_limits()`),
    /// shared.
    pub fn row_limits(&self) -> Tensor {
        let splits = &self.nested_row_splits[0];
        self.encodings(0)
            .row_limits
            .get_or_init(|| slice_1d(splits, 1, splits.len()))
            .clone()
    }

    fn level_splits(&self, op: &str, level: usize) -> Result<&Tensor> {
        self.nested_row_splits.get(level).ok_or_else(|| {
            arg_error(
                op,
                "level",
                format!(
                    "a partition level below the ragged rank {}",
                    self.ragged_rank()
                ),
                level.to_string(),
            )
        })
    }

    /// The shape of the tightest box holding the tensor (TF's `bounding_shape()`): `nrows`,
    /// the longest row of each ragged dimension, the inner dimensions.
    pub fn bounding_shape(&self) -> Vec<usize> {
        let mut shape = vec![self.nrows()];
        for (splits, uniform) in self.nested_row_splits.iter().zip(&self.uniform_row_lengths) {
            let s = splits_of(splits);
            let longest = match uniform {
                Some(len) => *len,
                None => s.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0),
            };
            shape.push(longest as usize);
        }
        shape.extend_from_slice(&self.flat_values.shape()[1..]);
        shape
    }
}

/// Equal splits: the same buffer, or equal elements.
fn same_splits(a: &Tensor, b: &Tensor) -> bool {
    if let (Ok(x), Ok(y)) = (a.as_array::<i64, Ix1>(), b.as_array::<i64, Ix1>())
        && x.len() == y.len()
        && std::ptr::eq(x.as_ptr(), y.as_ptr())
        && x.strides() == y.strides()
    {
        return true;
    }
    a == b
}

/// `t[start..end]` of a rank-1 `i64` tensor, sharing its buffer.
fn slice_1d(t: &Tensor, start: usize, end: usize) -> Tensor {
    crate::batch::slice_rows(t, start, end).unwrap_or_else(|_| i64_tensor(Vec::new()))
}

/// The partial shape of a ragged tensor with these parts' specs: `nrows` (from the outer
/// splits' length), each ragged dimension unknown (or its uniform length), the inner axes.
fn ragged_shape(flat: &Shape, outer_splits: Option<&Shape>, uniform: &[Option<i64>]) -> Shape {
    let nrows = match outer_splits.and_then(|s| s.dims()) {
        Some([Dim::Known(n)]) => Dim::Known(n.saturating_sub(1)),
        _ => Dim::Unknown,
    };
    let Some(flat_dims) = flat.dims() else {
        return Shape::unknown_rank();
    };
    let mut dims = vec![nrows];
    // A spec's lengths are data of a file or a caller, not checked as a value's are: a negative
    // one is no known size.
    dims.extend(uniform.iter().map(|u| match u.map(usize::try_from) {
        Some(Ok(len)) => Dim::Known(len),
        _ => Dim::Unknown,
    }));
    dims.extend(flat_dims.iter().skip(1).cloned());
    Shape::from_dims(dims)
}

impl TensorLike for RaggedTensor {
    fn dtype(&self) -> DType {
        self.flat_values.dtype()
    }
    fn shape(&self) -> Shape {
        let mut dims = vec![Dim::Known(self.nrows())];
        dims.extend(self.uniform_row_lengths.iter().map(|u| match u {
            // Checked non-negative on construction.
            Some(len) => Dim::Known(*len as usize),
            None => Dim::Unknown,
        }));
        dims.extend(self.flat_values.shape()[1..].iter().map(|&d| Dim::Known(d)));
        Shape::from_dims(dims)
    }
}

impl TensorLike for RaggedTensorSpec {
    fn dtype(&self) -> DType {
        self.flat_values.dtype
    }
    fn shape(&self) -> Shape {
        ragged_shape(
            &self.flat_values.shape,
            self.nested_row_splits.first().map(|s| &s.shape),
            &self.uniform_row_lengths,
        )
    }
}

impl RaggedTensorSpec {
    /// The flat values' spec.
    pub fn flat_values(&self) -> &crate::TensorSpec {
        &self.flat_values
    }

    /// The ragged rank.
    pub fn ragged_rank(&self) -> usize {
        self.nested_row_splits.len()
    }

    /// This spec with the flat values' spec replaced (same partitions).
    pub fn with_flat_values(&self, flat_values: crate::TensorSpec) -> RaggedTensorSpec {
        RaggedTensorSpec {
            flat_values,
            nested_row_splits: self.nested_row_splits.clone(),
            uniform_row_lengths: self.uniform_row_lengths.clone(),
        }
    }
}

/// The partial shape text of a ragged tensor, with its row lengths when short (for errors).
pub(crate) fn describe(r: &RaggedTensor) -> String {
    let lengths = splits_of(&r.row_lengths()).into_owned();
    format!(
        "ragged shape {} (row lengths {})",
        TensorLike::shape(r),
        short_list(&lengths)
    )
}

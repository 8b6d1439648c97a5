//! Reductions of a [`SparseTensor`]: TensorFlow's `tf.sparse.reduce_sum` and
//! `tf.sparse.reduce_max`, and a mean.
//!
//! - Over all axes (`None`) or any set of axes (negative ones count from the end, repeats are
//!   one axis, as TensorFlow; an axis out of range is the error every op gives, naming the op
//!   and the rank: [`Op::reduced_axes`](crate::Op::reduced_axes)), with `keepdims`.
//! - `output_is_sparse = false` gives the dense result; `true` a SparseTensor holding the output
//!   elements that at least one stored entry reached (a zero sum included), in canonical order.
//! - `reduce_sum` adds the stored values (repeated indices add up); the dtype is kept, as in
//!   TensorFlow (integers are not widened, unlike the dense `reduce_sum` of the catalog; they wrap;
//!   half floats add in `f32` rounded back after each addition, as TensorFlow's).
//! - `reduce_max` looks at the stored values only, so a slice whose stored values are all
//!   negative has a negative maximum; a slice with no stored value is 0.
//! - Float results are TensorFlow's bit for bit: rounding, NaN and signed zeros. TensorFlow orders
//!   the entries by output element, then by the reduced axes, and reduces each element's values in
//!   Eigen's vectorised order, which the kernels'
//!   [`eigen_fold`](extype_kernels::tf_order::eigen_fold) reproduces. So a sum of
//!   four `f64` or eight `f32` values or more associates in packets (`[1e16, 1, -1e16, 1]` in
//!   `f64` sums to 2), and a NaN among whole packets is skipped by the maximum while one after
//!   them is kept (`[nan, 1] → 1`, `[1, nan] → nan`, `[1, 2, 3, nan]` in `f64` → 3). Elements
//!   whose result cannot depend on the order (fewer values than a packet, already in
//!   TensorFlow's order; a maximum without NaN or zero) keep the one-pass result.
//! - `reduce_mean` is the sum divided by the number of dense elements reduced, implicit zeros
//!   included: NumPy's and TensorFlow's dense rule, so `mean(x) == mean(to_dense(x))`. PyTorch has
//!   no sparse mean and its issue 109194 debates dividing by the number of stored entries instead;
//!   that is a different statistic (the mean of the specified values, which changes when an
//!   explicit zero is stored), and extype does not give it. Integers give `f64`; reducing an empty
//!   extent divides by 0 (NaN, as NumPy).
//!
//! Through dispatch, `ops::reduce_sum(&sparse, axes, keepdims)`, `ops::reduce_max` and
//! `ops::reduce_mean` give the dense result (TensorFlow's default); the other reductions are an
//! error that says to densify first (TensorFlow has no sparse form of them).

use extype_kernels::axis;
use extype_kernels::tf_order::eigen_fold;

use super::SparseTensor;
use super::element::Arith;
use super::elementwise::like;
use crate::dispatch::Call;
use crate::ndarray::{Array1, Array2, ArrayD, ArrayView1, Ix1, IxDyn};
use crate::ops::catalog;
use crate::ops::infer::{self, Inferred};
use crate::ops::rules::Repeats;
use crate::ops::{Fold, Op};
use crate::{DType, Error, ReductionOp, Result, Tensor, TensorSpec, Value, ValueSpec, dispatch};

/// What a reduction computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sum,
    Max,
}

impl SparseTensor {
    /// The sum over `axes` (`None`: all), TensorFlow's `tf.sparse.reduce_sum(x, axis, keepdims,
    /// output_is_sparse)`: a dense [`Tensor`] or a `SparseTensor` in the [`Value`].
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use extype::Tensor;
    /// use ndarray::array;
    /// let x = SparseTensor::new(array![[0i64, 0], [1, 2]], array![1.0f32, 2.0], &[3, 3])?;
    /// let rows = x.reduce_sum(Some(&[1]), false, false)?.into_tensor()?;
    /// assert_eq!(rows, Tensor::from(array![1.0f32, 2.0, 0.0]));
    /// let sparse = x.reduce_sum(Some(&[1]), false, true)?.downcast::<SparseTensor>()?;
    /// assert_eq!(sparse.to_string(), "f32[3] nnz=2 indices [[0], [1]] values [1.0, 2.0]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn reduce_sum(
        &self,
        axes: Option<&[isize]>,
        keepdims: bool,
        output_is_sparse: bool,
    ) -> Result<Value> {
        self.reduce(
            &catalog::REDUCE_SUM,
            Kind::Sum,
            axes,
            keepdims,
            output_is_sparse,
        )
    }

    /// The maximum of the stored values over `axes` (`None`: all), 0 where a slice stores none:
    /// TensorFlow's `tf.sparse.reduce_max` (see the [module docs](self::super) for NaN).
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use extype::Tensor;
    /// use ndarray::array;
    /// let x = SparseTensor::new(array![[0i64, 0], [1, 2]], array![-1.0f64, -2.0], &[3, 3])?;
    /// let m = x.reduce_max(Some(&[1]), false, false)?.into_tensor()?;
    /// assert_eq!(m, Tensor::from(array![-1.0f64, -2.0, 0.0]));
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn reduce_max(
        &self,
        axes: Option<&[isize]>,
        keepdims: bool,
        output_is_sparse: bool,
    ) -> Result<Value> {
        self.reduce(
            &catalog::REDUCE_MAX,
            Kind::Max,
            axes,
            keepdims,
            output_is_sparse,
        )
    }

    /// The mean over `axes` (`None`: all): the sum divided by the number of dense elements
    /// reduced, implicit zeros included (NumPy's rule; see the [module docs](self::super) for
    /// why not PyTorch's open alternative). Floats keep their dtype, integers give `f64`.
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use extype::Tensor;
    /// use ndarray::array;
    /// let x = SparseTensor::new(array![[0i64, 0], [1, 2]], array![3i32, 6], &[2, 3])?;
    /// assert_eq!(x.reduce_mean(Some(&[1]), false)?, Tensor::from(array![1.0f64, 2.0]));
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn reduce_mean(&self, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
        if self.dtype().is_half() {
            // Sum and division in f32, rounded back once (a half mean stays half, as TF's).
            let wide: SparseTensor = crate::ops::cast_as(self, DType::F32)?;
            return crate::ops::cast_as(&wide.reduce_mean(axes, keepdims)?, self.dtype());
        }
        let sum = self
            .reduce(&catalog::REDUCE_MEAN, Kind::Sum, axes, keepdims, false)?
            .into_tensor()?;
        let reduced = catalog::REDUCE_MEAN.reduced_axes(axes, self.rank(), Repeats::Merged)?;
        // A product of some of the dense sizes: at most 2^63 - 1 (the dense shape's bound).
        let count: usize = self
            .dense_shape()
            .iter()
            .zip(&reduced)
            .filter(|(_, r)| **r)
            .map(|(d, _)| d)
            .product();
        let float = match sum.dtype() {
            DType::F32 | DType::F64 => sum,
            _ => crate::ops::cast_as(&sum, DType::F64)?,
        };
        let n = crate::ops::cast_as::<Tensor>(&crate::ndarray::arr0(count as f64), float.dtype())?;
        crate::ops::div_as(&float, &n)
    }

    fn reduce(
        &self,
        op: &'static Op,
        kind: Kind,
        axes: Option<&[isize]>,
        keepdims: bool,
        output_is_sparse: bool,
    ) -> Result<Value> {
        let reduced = op.reduced_axes(axes, self.rank(), Repeats::Merged)?;
        with_arith!(op.name(), self.dtype(), T => reduce_typed::<T>(self, kind, &reduced, keepdims, output_is_sparse))
    }
}

/// How TensorFlow reduces `T`: integers in any order (a wrapping sum and a maximum do not depend
/// on it); floats in TensorFlow's order, as Eigen does
/// ([`eigen_fold`](extype_kernels::tf_order::eigen_fold)).
trait Reduce: Arith + PartialOrd {
    /// The lowest value (where a maximum starts).
    fn lowest() -> Self;
    /// Whether the result depends on the order of the values (floats).
    const ORDERED: bool;
    /// The values an element needs before Eigen's packets change a sum's order.
    const LANES: usize;
    /// TensorFlow's sum (or maximum) of one element's values, in its order.
    fn tf_reduce(values: &[Self], kind: Kind) -> Self;
}
macro_rules! reduce_int {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            fn lowest() -> $t { <$t>::MIN }
            const ORDERED: bool = false;
            const LANES: usize = 1;
            fn tf_reduce(values: &[$t], kind: Kind) -> $t {
                match kind {
                    Kind::Sum => values.iter().fold(0, |a, &v| a.wrapping_add(v)),
                    Kind::Max => values.iter().copied().max().unwrap_or(<$t>::MIN),
                }
            }
        }
    )*};
}
reduce_int!(i8, i16, i32, i64, u8, u16, u32, u64);
macro_rules! reduce_float {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            fn lowest() -> $t { <$t as eigen_fold::Lane>::LOWEST }
            const ORDERED: bool = true;
            const LANES: usize = <$t as eigen_fold::Lane>::LANES;
            fn tf_reduce(values: &[$t], kind: Kind) -> $t {
                match kind {
                    Kind::Sum => eigen_fold::eigen_sum(values),
                    Kind::Max => eigen_fold::eigen_max(values),
                }
            }
        }
    )*};
}
reduce_float!(f32, f64, crate::half::f16, crate::half::bf16);

fn reduce_typed<T: Reduce>(
    x: &SparseTensor,
    kind: Kind,
    reduced: &[bool],
    keepdims: bool,
    output_is_sparse: bool,
) -> Result<Value> {
    let shape = x.dense_shape();
    let kept: Vec<usize> = (0..shape.len()).filter(|&a| !reduced[a]).collect();
    let kept_shape: Vec<usize> = kept.iter().map(|&a| shape[a]).collect();
    let n = super::dense_len("reduce", &kept_shape, size_of::<T>())?;
    let mut strides = vec![1usize; kept.len()];
    for i in (0..kept.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * kept_shape[i + 1];
    }
    let idx = x.indices_array();
    let vals = x.values().as_array::<T, Ix1>()?;
    let init = match kind {
        Kind::Sum => T::default(),
        Kind::Max => T::lowest(),
    };
    // Each element's running result in stored order, and its number of values (saturating:
    // only small counts are compared).
    let mut acc = Vec::new();
    let mut count: Vec<u8> = Vec::new();
    if acc.try_reserve_exact(n).is_err() || count.try_reserve_exact(n).is_err() {
        return Err(Error::unsupported(
            "reduce",
            format!("cannot allocate the {n} output elements of {kept_shape:?}"),
        ));
    }
    acc.resize(n, init);
    count.resize(n, 0);
    let offsets: Vec<usize> = idx
        .outer_iter()
        .map(|row| {
            kept.iter()
                .zip(&strides)
                .map(|(&a, &s)| row[a] as usize * s)
                .sum::<usize>()
        })
        .collect();
    // Max: values without NaN and zeros have one maximum, bits included, in any order; an
    // element that holds a NaN or a zero is reduced again in TensorFlow's order.
    let mut special: Vec<bool> = Vec::new();
    for (&o, &v) in offsets.iter().zip(vals.iter()) {
        count[o] = count[o].saturating_add(1);
        acc[o] = match kind {
            Kind::Sum => acc[o].plus(v),
            Kind::Max => {
                #[allow(clippy::eq_op)] // `v != v`: NaN
                if T::ORDERED && (v != v || v == T::default()) {
                    if special.is_empty() {
                        special.resize(n, false);
                    }
                    special[o] = true;
                }
                if acc[o] < v { v } else { acc[o] }
            }
        };
    }
    if T::ORDERED {
        // A float sum is TensorFlow's when the stored order is its order and no packet forms
        // (fewer values than a packet's lanes); other elements are reduced again.
        let canonical = x.is_canonical();
        let redo = |o: usize| match kind {
            Kind::Sum => usize::from(count[o]) >= T::LANES || (!canonical && count[o] >= 2),
            Kind::Max => !special.is_empty() && special[o],
        };
        in_tf_order(x, &offsets, redo, reduced, kind, &vals, &mut acc);
    }
    let out = axis::reduced_shape(shape, reduced, keepdims);
    if !output_is_sparse {
        let dense: Vec<T> = acc
            .into_iter()
            .zip(&count)
            .map(|(a, &c)| if c > 0 { a } else { T::default() })
            .collect();
        let t = ArrayD::from_shape_vec(IxDyn(&out), dense).expect("the kept elements");
        return Ok(Value::Tensor(Tensor::from(t)));
    }
    // The output elements some entry reached, in row-major (canonical) order.
    let hits: Vec<usize> = (0..n).filter(|&o| count[o] > 0).collect();
    let mut indices = Array2::<i64>::zeros((hits.len(), out.len()));
    let positions: Vec<usize> = if keepdims {
        kept.clone()
    } else {
        (0..kept.len()).collect()
    };
    for (r, &o) in hits.iter().enumerate() {
        let mut rest = o;
        for (k, &s) in strides.iter().enumerate() {
            indices[[r, positions[k]]] = (rest / s) as i64;
            rest %= s;
        }
    }
    let values: Array1<T> = hits.iter().map(|&o| acc[o]).collect();
    Ok(Value::from_extension(SparseTensor::from_parts_unchecked(
        indices,
        Tensor::from(values),
        &out,
        Some(true),
    )))
}

/// TensorFlow's sum or maximum of each output element that `redo` names, into `acc`
/// (`offsets`: each entry's output element). TensorFlow orders the entries by output element,
/// then by the reduced axes (with `std::sort`, reproduced), and reduces each element's values
/// as [`eigen_fold`](extype_kernels::tf_order::eigen_fold) reproduces.
fn in_tf_order<T: Reduce>(
    x: &SparseTensor,
    offsets: &[usize],
    redo: impl Fn(usize) -> bool,
    reduced: &[bool],
    kind: Kind,
    vals: &ArrayView1<'_, T>,
    acc: &mut [T],
) {
    let canonical = x.is_canonical();
    if canonical
        && let Some(values) = vals.as_slice()
        && offsets.is_sorted()
    {
        // Each element's values are one run of the stored values, in TensorFlow's order.
        let mut start = 0;
        for run in offsets.chunk_by(|a, b| a == b) {
            let o = run[0];
            if redo(o) {
                acc[o] = T::tf_reduce(&values[start..start + run.len()], kind);
            }
            start += run.len();
        }
        return;
    }
    let order = if canonical {
        by_element(offsets, acc.len(), &redo)
    } else {
        // TensorFlow's `Reorder`: all entries by the kept axes, then the reduced ones, with its
        // `std::sort` (whose order of repeated indices shows in how their values round).
        let axes: Vec<usize> = (0..reduced.len())
            .filter(|&a| !reduced[a])
            .chain((0..reduced.len()).filter(|&a| reduced[a]))
            .collect();
        let mut order = x.tf_order(&axes);
        order.retain(|&k| redo(offsets[k]));
        order
    };
    let mut values = Vec::new();
    for run in order.chunk_by(|&i, &j| offsets[i] == offsets[j]) {
        values.clear();
        values.extend(run.iter().map(|&k| vals[k]));
        acc[offsets[run[0]]] = T::tf_reduce(&values, kind);
    }
}

/// The entries (positions) of the elements `redo` names, ordered by element (`offsets`, each
/// below `elements`) and in stored order within one: a counting sort when the elements are few
/// beside the entries, else a comparison sort.
fn by_element(offsets: &[usize], elements: usize, redo: impl Fn(usize) -> bool) -> Vec<usize> {
    let keys = || offsets.iter().map(|&o| redo(o).then_some(o));
    // Few elements beside the entries (so the starts are small): a counting sort.
    if elements <= offsets.len().saturating_mul(4).saturating_add(4096)
        && let Ok(grouped) = extype_kernels::buckets::group("reduce", keys, elements)
    {
        return grouped.order;
    }
    let mut order: Vec<usize> = (0..offsets.len()).filter(|&k| redo(offsets[k])).collect();
    order.sort_unstable_by_key(|&k| (offsets[k], k));
    order
}

/// `ops::reduce_sum` / `reduce_max` / `reduce_mean` of a SparseTensor: the dense result; the
/// other reductions are an error that says to densify first.
#[dispatch(reduction, infer = reduce_spec)]
fn sparse_reduction(op: &ReductionOp, x: &SparseTensor) -> Result<Tensor> {
    if !serves(op.op()) {
        return Err(not_sparse(op.name()));
    }
    match op.fold() {
        Some(Fold::Sum) => x.reduce_sum(op.axes(), op.keepdims(), false)?.into_tensor(),
        Some(Fold::Max) => x.reduce_max(op.axes(), op.keepdims(), false)?.into_tensor(),
        Some(Fold::Mean) => x.reduce_mean(op.axes(), op.keepdims()),
        _ => Err(not_sparse(op.name())),
    }
}

/// Whether the sparse form serves `op`: the catalog's `reduce_sum`, `reduce_max` and
/// `reduce_mean` (a segment reduction folds as they do, but takes row splits, not axes).
fn serves(op: &Op) -> bool {
    op.kind() == crate::ops::OpKind::Reduction
        && matches!(op.fold(), Some(Fold::Sum | Fold::Max | Fold::Mean))
}

fn not_sparse(op: &str) -> Error {
    Error::unsupported(
        op,
        "not defined on a SparseTensor (tf.sparse has reduce_sum and reduce_max; extype adds \
         reduce_mean); densify first with `to_dense`",
    )
}

/// The dense reduction's shape; the dtype kept (sum, max) or made a float (mean).
fn reduce_spec(call: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    let l = like(specs)?;
    let o = call.op;
    if !serves(o) {
        return Err(not_sparse(o.name()));
    }
    // Repeated axes are one axis (TensorFlow's sparse reductions), unlike the dense kernels'.
    let rank = l[0].shape.rank();
    let args = match (&call.args.axes, rank) {
        (Some(axes), Some(rank)) => {
            let reduced = o.reduced_axes(Some(axes), rank, Repeats::Merged)?;
            let axes: Vec<isize> = (0..rank)
                .filter(|&a| reduced[a])
                .map(|a| a as isize)
                .collect();
            crate::OpArgs::axes(&axes).keepdims(call.args.keepdims)
        }
        _ => call.args.clone(),
    };
    let dense = infer::dense(o, &[&l[0]], &args)?;
    let shape = dense
        .tensor_spec()
        .map(|s| s.shape.clone())
        .unwrap_or(crate::Shape::unknown_rank());
    let dtype = match (o.fold() == Some(Fold::Mean), l[0].dtype) {
        (true, d @ (DType::F32 | DType::F64)) => d,
        (true, _) => DType::F64,
        (false, d) => d,
    };
    Ok(Inferred {
        spec: ValueSpec::Tensor(TensorSpec::new(shape, dtype)),
        checks: None,
    })
}

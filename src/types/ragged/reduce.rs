//! Reductions of a [`RaggedTensor`] (TF 2.x `tf.reduce_*` on ragged tensors; the module docs
//! of [`ragged`](super) list the cases). Over the ragged axis they run on the kernels'
//! segment reductions over the row splits (shared, never rebuilt); empty rows give TF's
//! values: sum 0, prod 1, mean NaN, max the dtype's lowest finite value, min its highest,
//! any `false`, all `true`.

use super::infer::{ragged, value};
use super::reduce_outer::Reduction;
use super::{RaggedTensor, RaggedTensorSpec, arg_error, shared_splits, splits_of};
use crate::dispatch::Call;
use crate::ndarray::{ArrayD, ArrayViewD, IxDyn, arr0};
use crate::ops::rules::Repeats;
use crate::ops::{self, Fold, OpArgs, catalog, infer};
use crate::tensor::Fill;
use crate::{
    DType, Dim, Element, Op, ReductionOp, Result, Shape, Tensor, TensorSpec, Value, ValueSpec,
    dispatch,
};
use extype_kernels::reduce::segment::segment_fold;

/// What a catalog reduction folds, when a ragged tensor serves it (the seven reductions TF
/// defines on ragged tensors; `None`: the handler declines).
fn served(op: &Op) -> Option<Fold> {
    op.fold().filter(|fold| {
        matches!(
            fold,
            Fold::Sum | Fold::Mean | Fold::Max | Fold::Min | Fold::Prod | Fold::Any | Fold::All
        )
    })
}

/// Which axes a reduction reduces, relative to the ragged layout.
#[derive(Debug, PartialEq, Eq)]
enum Plan {
    /// Every axis: the flat values reduced whole.
    All,
    /// Inner (uniform) axes only: the flat values over these axes (flat-value axes).
    Inner(Vec<isize>),
    /// The innermost ragged axis, then these flat-value inner axes (of the segment result).
    Ragged(Vec<isize>),
    /// Ragged rank 1: axes 0 and 1 and these flat-value inner axes.
    RowsAndRagged(Vec<isize>),
    /// Ragged rank 1: axis 0 (and maybe inner axes), on the padded form.
    Rows,
    /// Ragged rank ≥ 2 with axis 0 or an outer ragged axis: these axes (normalized) one at a
    /// time, highest first.
    Sequential(Vec<usize>),
}

/// The plan of a reduction over the axes flagged in `set` (one flag per axis, from
/// [`ReductionOp::reduced_axes`]) of a tensor of ragged rank `rr`.
fn plan(set: &[bool], rr: usize) -> Plan {
    let rank = set.len();
    if set.iter().all(|&s| s) {
        return Plan::All;
    }
    let inner: Vec<isize> = (1 + rr..rank)
        .filter(|&a| set[a])
        .map(|a| (a - rr) as isize)
        .collect();
    let outer = &set[..=rr];
    if outer.iter().all(|&s| !s) {
        return Plan::Inner(inner);
    }
    if outer[..rr].iter().all(|&s| !s) {
        // Only the innermost ragged axis among the outer ones.
        return Plan::Ragged(inner);
    }
    if rr == 1 {
        return if set[1] {
            Plan::RowsAndRagged(inner)
        } else {
            Plan::Rows
        };
    }
    Plan::Sequential((0..rank).filter(|&a| set[a]).collect())
}

/// Every catalog reduction TF defines on ragged tensors; others decline.
#[dispatch(reduction, infer = infer_reduce)]
fn ragged_reduce(op: &ReductionOp, x: &RaggedTensor) -> Result<Option<Value>> {
    let Some(kind) = served(op.op()) else {
        return Ok(None);
    };
    let name = op.name();
    // The op's dtype check (e.g. `reduce_sum` of bool), on the flat values' spec.
    let out_dtype = out_dtype(op.op(), x.flat_values.dtype())?;
    let rank = x.rank();
    let rr = x.ragged_rank();
    let keep = op.keepdims();
    let flat = &x.flat_values;
    // TF reduces one axis at a time, the highest first; for float max and min the order shows
    // (a ragged axis folds in TF's order, a dense one propagates NaN), so the inner axes of the
    // flat values go first there, as in TF.
    let tf_order = matches!(kind, Fold::Max | Fold::Min) && flat.dtype().is_float();
    let inner_first = |inner: &[isize]| -> Result<Tensor> {
        if inner.is_empty() {
            return Ok(flat.clone());
        }
        dense_reduce(kind, op.op(), flat, &OpArgs::axes(inner), out_dtype, false)
    };
    let reduced = op.reduced_axes(rank)?;
    let mut plan = plan(&reduced, rr);
    if tf_order && rr == 1 && plan == Plan::All && op.axes().is_some() {
        // Every axis named: TF still reduces them one by one (`axis=None` reduces the flat
        // values at once).
        plan = Plan::RowsAndRagged((1..flat.ndim() as isize).collect());
    }
    Ok(Some(match plan {
        Plan::All => {
            let out = dense_reduce(kind, op.op(), flat, &OpArgs::none(), out_dtype, false)?;
            if keep {
                Value::from(reshape(&out, &vec![1; rank])?)
            } else {
                Value::from(out)
            }
        }
        Plan::Inner(axes) => {
            let args = OpArgs::axes(&axes).keepdims(keep);
            let values = dense_reduce(kind, op.op(), flat, &args, out_dtype, false)?;
            Value::from_extension(x.with_values_unchecked(values))
        }
        Plan::Ragged(inner) => {
            let splits_t = &x.nested_row_splits[rr - 1];
            let splits = splits_of(splits_t);
            let mut out = if tf_order {
                segment(
                    op.op(),
                    kind,
                    &inner_first(&inner)?,
                    &splits,
                    splits_t,
                    out_dtype,
                )?
            } else {
                segment(op.op(), kind, flat, &splits, splits_t, out_dtype)?
            };
            if !inner.is_empty() && !tf_order {
                let args = OpArgs::axes(&inner);
                out = dense_reduce(kind, op.op(), &out, &args, out_dtype, true)?;
            }
            if keep {
                let mut shape = out.shape().to_vec();
                shape.insert(1, 1);
                // Inner axes reduced with keepdims keep size 1 too.
                for &a in &inner {
                    shape.insert(a as usize + 1, 1);
                }
                out = reshape(&out, &shape)?;
            }
            if rr == 1 {
                Value::from(out)
            } else {
                Value::from_extension(RaggedTensor::from_parts_unchecked(
                    out,
                    x.nested_row_splits[..rr - 1].to_vec(),
                    x.uniform_row_lengths[..rr - 1].to_vec(),
                ))
            }
        }
        Plan::RowsAndRagged(inner) => {
            let out = if tf_order {
                // The rows' TF fold, then the dense reduction over axis 0.
                let splits_t = &x.nested_row_splits[0];
                let splits = splits_of(splits_t);
                let rows = segment(
                    op.op(),
                    kind,
                    &inner_first(&inner)?,
                    &splits,
                    splits_t,
                    out_dtype,
                )?;
                dense_reduce(kind, op.op(), &rows, &OpArgs::axes(&[0]), out_dtype, false)?
            } else {
                let mut axes = vec![0isize];
                axes.extend(inner.iter().copied());
                dense_reduce(kind, op.op(), flat, &OpArgs::axes(&axes), out_dtype, true)?
            };
            if keep {
                let shape = kept_shape(&[1, 1], flat.shape(), &inner);
                Value::from(reshape(&out, &shape)?)
            } else {
                Value::from(out)
            }
        }
        Plan::Rows if tf_order => {
            let inner: Vec<isize> = (2..rank)
                .filter(|&a| reduced[a])
                .map(|a| a as isize - 1)
                .collect();
            let values = inner_first(&inner)?;
            let splits = splits_of(&x.nested_row_splits[0]);
            let out = super::segment_extreme::by_position(kind == Fold::Max, &values, &splits)?
                .ok_or_else(|| arg_error(name, "argument 0", "a float dtype", "another dtype"))?;
            if keep {
                let shape = kept_shape(&[1, out.shape()[0]], flat.shape(), &inner);
                Value::from(reshape(&out, &shape)?)
            } else {
                Value::from(out)
            }
        }
        Plan::Rows => Value::from(rows(op, kind, x, out_dtype)?),
        Plan::Sequential(axes) => sequential(op, kind, x, &axes, out_dtype)?,
    }))
}

/// The `keepdims` shape of a reduction of ragged rank 1 that leaves dense `outer` dims: the
/// flat values' inner dims after them, 1 where `inner` (flat-value axes) were reduced.
fn kept_shape(outer: &[usize], flat: &[usize], inner: &[isize]) -> Vec<usize> {
    let dims = flat[1..].iter().enumerate().map(|(i, &d)| {
        if inner.contains(&(i as isize + 1)) {
            1
        } else {
            d
        }
    });
    outer.iter().copied().chain(dims).collect()
}

/// The dtype of `op` over flat values of dtype `d` (the op's dtype check: e.g. `reduce_sum` of
/// bool is refused as for a dense tensor), read from the op's own data: no dispatch.
fn out_dtype(op: &'static Op, d: DType) -> Result<DType> {
    let d = op.check_dtypes(1, |_| d)?;
    op.result_dtype(d, &OpArgs::none())
}

/// The dense reduction `op` of `t`; an empty `t` gives TF's identities (max −inf or the
/// integer minimum, min +inf or the maximum, mean NaN) where extype's dense max/min raise.
fn dense_reduce(
    kind: Fold,
    op: &'static Op,
    t: &Tensor,
    args: &OpArgs,
    out: DType,
    ragged_axis: bool,
) -> Result<Tensor> {
    if !t.is_empty() {
        return t.dense_op(op, args);
    }
    let shape = t
        .dense_op(&catalog::REDUCE_ANY, args)
        .map(|s| s.shape().to_vec());
    let shape = match shape {
        Ok(s) => s,
        // bool conversion refused: the sum gives the shape.
        Err(_) => cast(t, DType::F64)?
            .dense_op(&catalog::REDUCE_SUM, args)?
            .shape()
            .to_vec(),
    };
    // TF: an empty extent that includes a ragged axis gives the finite extremes
    // (`unsorted_segment_max`); one of uniform axes only, the dense identity (−inf).
    let fill = match kind {
        Fold::Mean => cast(&Tensor::from(arr0(f64::NAN).into_dyn()), out)?,
        Fold::Max if ragged_axis => Fill::LowestFinite.scalar(t.dtype()),
        Fold::Min if ragged_axis => Fill::HighestFinite.scalar(t.dtype()),
        other => cast(&identity(other, t.dtype()), out)?,
    };
    Tensor::broadcast_to(&fill, &shape)
}

/// The reduction over the ragged axis: one output row per row of `splits` (the contents of
/// `splits_t`, which sum and mean hand to the op shared, not copied).
fn segment(
    op: &Op,
    kind: Fold,
    flat: &Tensor,
    splits: &[i64],
    splits_t: &Tensor,
    out: DType,
) -> Result<Tensor> {
    let dtype = flat.dtype();
    let result: Tensor = match kind {
        Fold::Sum if dtype != DType::Bool => {
            flat.dense_op(&catalog::SEGMENT_SUM, &shared(splits_t))?
        }
        Fold::Mean if dtype != DType::Bool => {
            flat.dense_op(&catalog::SEGMENT_MEAN, &shared(splits_t))?
        }
        Fold::Max | Fold::Min if dtype != DType::Bool => extreme(kind, flat, splits)?,
        Fold::Max | Fold::Any => fold(flat, splits, RowFold::Any)?,
        Fold::Min | Fold::All => fold(flat, splits, RowFold::All)?,
        Fold::Prod => {
            let widened: Tensor = if out != dtype {
                cast(flat, out)?
            } else {
                flat.clone()
            };
            fold(&widened, splits, RowFold::Prod)?
        }
        // bool sum / mean: the dtype check above already refused them (and `served`, the
        // other folds).
        Fold::Sum | Fold::Mean | Fold::CountNonzero | Fold::ArgMax | Fold::ArgMin => {
            return Err(arg_error(
                op.name(),
                "argument 0",
                "a numeric dtype",
                format!("dtype {dtype}"),
            ));
        }
    };
    if result.dtype() != out {
        return cast(&result, out);
    }
    Ok(result)
}

/// The op arguments of a segment reduction over the splits held by `splits_t` (shared with
/// the op, not copied).
fn shared(splits_t: &Tensor) -> OpArgs {
    OpArgs::none().with_shared_indices(shared_splits(splits_t))
}

/// TF's max or min of each row (see [`segment_extreme`](super::segment_extreme)).
fn extreme(kind: Fold, flat: &Tensor, splits: &[i64]) -> Result<Tensor> {
    let reduced = kernel_extreme(kind, flat, splits)?;
    super::segment_extreme::repair_rows(kind == Fold::Max, flat, splits, reduced)
}

/// `segment_max`/`segment_min` on the non-empty rows, and the dtype's lowest / highest finite
/// value in the empty ones (TF's `unsorted_segment_max` identity).
fn kernel_extreme(kind: Fold, flat: &Tensor, splits: &[i64]) -> Result<Tensor> {
    let seg = if kind == Fold::Max {
        &catalog::SEGMENT_MAX
    } else {
        &catalog::SEGMENT_MIN
    };
    let nrows = splits.len() - 1;
    let mut dense_splits = Vec::with_capacity(splits.len());
    dense_splits.push(0i64);
    dense_splits.extend(splits.windows(2).filter(|w| w[1] > w[0]).map(|w| w[1]));
    let non_empty = dense_splits.len() - 1;
    let reduced = flat.dense_op(seg, &OpArgs::none().with_indices(&dense_splits))?;
    if non_empty == nrows {
        return Ok(reduced);
    }
    let mut row = vec![1usize];
    row.extend_from_slice(&flat.shape()[1..]);
    let fill = Tensor::broadcast_to(
        &if kind == Fold::Min {
            Fill::HighestFinite
        } else {
            Fill::LowestFinite
        }
        .scalar(flat.dtype()),
        &row,
    )?;
    let ext = Tensor::append_rows(&reduced, &fill)?;
    let mut k = 0i64;
    let ids: Vec<i64> = splits
        .windows(2)
        .map(|w| {
            if w[1] > w[0] {
                k += 1;
                k - 1
            } else {
                non_empty as i64
            }
        })
        .collect();
    Tensor::take_rows(&ext, &ids)
}

/// The identity of a reduction on the padded form, in `dtype` (the fold's own: float max
/// −inf, so a real −inf wins; the mean pads its sum with 0).
fn identity(kind: Fold, dtype: DType) -> Tensor {
    kind.identity().unwrap_or(Fill::Zero).scalar(dtype)
}

/// Ragged rank 1, axis 0 (and maybe inner axes): the dense reduction of the padded form,
/// padded with the reduction's identity (every column has at least one row, so the identity
/// never shows); the mean is the padded sum over the padded count.
fn rows(op: &ReductionOp, kind: Fold, x: &RaggedTensor, out: DType) -> Result<Tensor> {
    let work = if kind == Fold::Mean || kind == Fold::Sum || kind == Fold::Prod {
        out
    } else {
        x.dtype()
    };
    let values: RaggedTensor = if work != x.dtype() {
        cast_values(x, work)?
    } else {
        x.clone()
    };
    let fill_kind = if kind == Fold::Mean { Fold::Sum } else { kind };
    let fill = identity(fill_kind, work);
    let rank = x.rank() as isize;
    let only_axis0 = op
        .axes()
        .is_some_and(|a| !a.is_empty() && a.iter().all(|&a| a == 0 || a == -rank));
    if only_axis0 && padding_dominates(&values) {
        // Far more padding than values (a few long rows among many short ones): block by block,
        // never the whole padded form.
        let sum_op = if kind == Fold::Mean {
            &catalog::REDUCE_SUM
        } else {
            op.op()
        };
        let total = axis0_in_blocks(fill_kind, sum_op, &values, &fill, out)?;
        let result = if kind == Fold::Mean {
            let ones = ones_like(&values)?;
            let count = axis0_in_blocks(Fold::Sum, &catalog::REDUCE_SUM, &ones, &fill, out)?;
            div(&total, &cast(&count, work)?)?
        } else {
            total
        };
        if !op.keepdims() {
            return Ok(result);
        }
        let mut shape = vec![1];
        shape.extend_from_slice(result.shape());
        return reshape(&result, &shape);
    }
    let padded = values.to_tensor(Some(&fill), None)?;
    if kind != Fold::Mean {
        let args = OpArgs::maybe_axes(op.axes()).keepdims(op.keepdims());
        return dense_reduce(kind, op.op(), &padded, &args, out, true);
    }
    let total: Tensor = op.apply_other_as(&catalog::REDUCE_SUM, &padded)?;
    let ones = ones_like(&values)?;
    let count: Tensor = op.apply_other_as(&catalog::REDUCE_SUM, &ones.to_tensor(None, None)?)?;
    div(&total, &cast(&count, work)?)
}

/// Rows per block of [`axis0_in_blocks`]: the dense kernel's row block (rows it folds
/// sequentially before its pairwise tree), so that block results combine as the kernel's do.
const ROW_BLOCK: usize = 64;

/// Whether the padded form of a ragged-rank-1 `x` would hold far more cells than `x` has rows
/// and values (the padding then costs more than the reduction).
fn padding_dominates(x: &RaggedTensor) -> bool {
    let bounding = x.bounding_shape();
    let cells = bounding[0].saturating_mul(bounding[1]);
    let data = x.flat_values.shape()[0].saturating_add(x.nrows());
    cells > data.saturating_mul(4).saturating_add(1 << 16)
}

/// The reduction over axis 0 of a ragged-rank-1 `x` (position `k` of the result reduces entry
/// `k` of every row that has one), in work proportional to `x`: rows in blocks of
/// [`ROW_BLOCK`], each block's padded form (as long as its longest row) reduced by the dense op,
/// the block results combined by the binary-counter pairwise tree the dense kernel uses over
/// its row blocks (a block with no value is the identity). Floats accumulate in `f64` (the
/// kernel's accumulator for `f32`; half floats run in `f32`) and are rounded once at the end.
fn axis0_in_blocks(
    kind: Fold,
    op: &'static Op,
    x: &RaggedTensor,
    fill: &Tensor,
    out: DType,
) -> Result<Tensor> {
    let work = x.dtype();
    let wide_dtype = match work {
        DType::F32 | DType::F16 | DType::BF16 if matches!(kind, Fold::Sum | Fold::Prod) => {
            DType::F64
        }
        other => other,
    };
    let x: RaggedTensor = if wide_dtype != work {
        cast_values(x, wide_dtype)?
    } else {
        x.clone()
    };
    let fill = cast(fill, wide_dtype)?;
    let splits = splits_of(&x.nested_row_splits[0]).into_owned();
    let nrows = x.nrows();
    // `l` then `r`, position by position; a position only one of them has keeps its value
    // (the other's is the identity there).
    let combine = |l: Tensor, r: Tensor| -> Result<Tensor> {
        let (la, lb) = (l.shape()[0], r.shape()[0]);
        let m = la.min(lb);
        let head_ids: Vec<i64> = (0..m as i64).collect();
        let mut row_shape = vec![1usize];
        row_shape.extend_from_slice(l.shape());
        row_shape[1] = m;
        let (lh, rh) = (
            Tensor::take_rows(&l, &head_ids)?,
            Tensor::take_rows(&r, &head_ids)?,
        );
        let pair = Tensor::append_rows(&reshape(&lh, &row_shape)?, &reshape(&rh, &row_shape)?)?;
        let head = dense_reduce(kind, op, &pair, &OpArgs::axes(&[0]), wide_dtype, true)?;
        let (longer, n) = if la >= lb { (&l, la) } else { (&r, lb) };
        let tail_ids: Vec<i64> = (m as i64..n as i64).collect();
        Tensor::append_rows(&head, &Tensor::take_rows(longer, &tail_ids)?)
    };
    let mut stack: Vec<(u32, Option<Tensor>)> = Vec::new();
    for start in (0..nrows).step_by(ROW_BLOCK) {
        let end = (start + ROW_BLOCK).min(nrows);
        let block = if splits[end] > splits[start] {
            let ids: Vec<i64> = (start as i64..end as i64).collect();
            let padded = x.gather(&ids)?.to_tensor(Some(&fill), None)?;
            Some(dense_reduce(
                kind,
                op,
                &padded,
                &OpArgs::axes(&[0]),
                wide_dtype,
                true,
            )?)
        } else {
            None
        };
        let mut node = (0u32, block);
        while stack.last().is_some_and(|top| top.0 == node.0) {
            let (level, left) = stack.pop().expect("checked non-empty");
            let joined = match (left, node.1) {
                (Some(l), Some(r)) => Some(combine(l, r)?),
                (l, r) => l.or(r),
            };
            node = (level + 1, joined);
        }
        stack.push(node);
    }
    let mut acc = stack.pop().and_then(|(_, t)| t);
    while let Some((_, left)) = stack.pop() {
        acc = match (left, acc) {
            (Some(l), Some(r)) => Some(combine(l, r)?),
            (l, r) => l.or(r),
        };
    }
    // Rows exist with values (the padding dominates), so some block holds a value.
    let acc = acc.ok_or_else(|| arg_error(op.name(), "argument 0", "values", "none"))?;
    let acc = if wide_dtype != work {
        let single = cast(&acc, DType::F32)?;
        cast(&single, work)?
    } else {
        acc
    };
    if acc.dtype() == out {
        Ok(acc)
    } else {
        cast(&acc, out)
    }
}

/// Ragged rank ≥ 2 over axis 0 or outer ragged axes (see `reduce_outer`), `keepdims` applied
/// at each axis as TF does.
fn sequential(
    op: &ReductionOp,
    kind: Fold,
    x: &RaggedTensor,
    axes: &[usize],
    out: DType,
) -> Result<Value> {
    let keep = op.keepdims();
    let work = if matches!(kind, Fold::Mean | Fold::Sum | Fold::Prod) {
        out
    } else {
        x.dtype()
    };
    let values: RaggedTensor = if work != x.dtype() {
        cast_values(x, work)?
    } else {
        x.clone()
    };
    if kind != Fold::Mean {
        let extreme = match kind {
            Fold::Max => Some(true),
            Fold::Min => Some(false),
            _ => None,
        };
        let red = Reduction {
            op: op.op(),
            identity: &identity(kind, work),
            extreme,
        };
        return super::reduce_outer::sequential(&red, &values, axes, keep);
    }
    let sum = Reduction {
        op: &catalog::REDUCE_SUM,
        identity: &identity(Fold::Sum, work),
        extreme: None,
    };
    let total = super::reduce_outer::sequential(&sum, &values, axes, keep)?;
    let ones = ones_like(&values)?;
    let count = super::reduce_outer::sequential(&sum, &ones, axes, keep)?;
    match (total, count) {
        (Value::Tensor(t), Value::Tensor(c)) => Ok(Value::from(div(&t, &c)?)),
        (t, c) => {
            let (t, c) = (t.downcast::<RaggedTensor>()?, c.downcast::<RaggedTensor>()?);
            let mean = div(&t.flat_values, &c.flat_values)?;
            Ok(Value::from_extension(t.with_values_unchecked(mean)))
        }
    }
}

/// A fold over each row of `splits` (prod, any, all), for any dtype.
#[derive(Clone, Copy)]
enum RowFold {
    Prod,
    Any,
    All,
}

/// The elements of one dtype a fold combines.
trait FoldElem: Element + Copy {
    fn one() -> Self;
    fn mul(self, other: Self) -> Self;
}

macro_rules! fold_int {
    ($($t:ty),*) => {$(
        impl FoldElem for $t {
            fn one() -> Self { 1 }
            fn mul(self, other: Self) -> Self { self.wrapping_mul(other) }
        }
    )*};
}
fold_int!(i8, i16, i32, i64, u8, u16, u32, u64);
impl FoldElem for f32 {
    fn one() -> Self {
        1.0
    }
    fn mul(self, other: Self) -> Self {
        self * other
    }
}
impl FoldElem for f64 {
    fn one() -> Self {
        1.0
    }
    fn mul(self, other: Self) -> Self {
        self * other
    }
}

/// The kernels' segment fold of `v` by `splits` from `init` with `combine`, an error of `op`.
fn fold_rows<T: Copy>(
    op: &'static str,
    v: ArrayViewD<'_, T>,
    splits: &[i64],
    init: T,
    combine: impl Fn(T, T) -> T,
) -> Result<ArrayD<T>> {
    segment_fold(op, &v, splits, init, combine).map_err(|source| crate::Error::kernel(op, source))
}

/// The product of each row (`[nrows, inner…]`), 1 for an empty row.
fn prod_rows<T: FoldElem>(v: ArrayViewD<'_, T>, splits: &[i64]) -> Result<Tensor> {
    fold_rows("reduce_prod", v, splits, T::one(), T::mul).map(Tensor::from)
}

/// Any / all of each row of a bool tensor (`false` / `true` for an empty row).
fn bool_rows(v: ArrayViewD<'_, bool>, splits: &[i64], all: bool) -> Result<Tensor> {
    let out = if all {
        fold_rows("reduce_all", v, splits, true, |a, b| a && b)
    } else {
        fold_rows("reduce_any", v, splits, false, |a, b| a || b)
    };
    out.map(Tensor::from)
}

fn fold(flat: &Tensor, splits: &[i64], how: RowFold) -> Result<Tensor> {
    macro_rules! prod {
        ($t:ty) => {
            prod_rows(flat.as_array::<$t, IxDyn>()?, splits)
        };
    }
    match (how, flat.dtype()) {
        (RowFold::Any, DType::Bool) => bool_rows(flat.as_array::<bool, IxDyn>()?, splits, false),
        (RowFold::All, DType::Bool) => bool_rows(flat.as_array::<bool, IxDyn>()?, splits, true),
        (RowFold::Any | RowFold::All, d) => {
            // Numbers: nonzero is true (TF's any/all take bool only; the dense op's dtype
            // check runs first, so this is reached only for what it accepts).
            let b = ops::call_dense(
                &catalog::NOT_EQUAL,
                &[flat, &Fill::Zero.scalar(d)],
                &OpArgs::none(),
            )?;
            fold(&b, splits, how)
        }
        (RowFold::Prod, DType::I8) => prod!(i8),
        (RowFold::Prod, DType::I16) => prod!(i16),
        (RowFold::Prod, DType::I32) => prod!(i32),
        (RowFold::Prod, DType::I64) => prod!(i64),
        (RowFold::Prod, DType::U8) => prod!(u8),
        (RowFold::Prod, DType::U16) => prod!(u16),
        (RowFold::Prod, DType::U32) => prod!(u32),
        (RowFold::Prod, DType::U64) => prod!(u64),
        (RowFold::Prod, DType::F32) => prod!(f32),
        (RowFold::Prod, DType::F64) => prod!(f64),
        (RowFold::Prod, d @ (DType::F16 | DType::BF16)) => {
            // As the dense ops on half floats: computed in f32, rounded back once.
            let wide = cast(flat, DType::F32)?;
            let product = fold(&wide, splits, how)?;
            cast(&product, d)
        }
        (RowFold::Prod, DType::Bool) => Err(arg_error(
            "reduce_prod",
            "argument 0",
            "a numeric dtype",
            "dtype bool",
        )),
    }
}

/// The spec of a reduction of a ragged spec (the same cases as the handler).
fn infer_reduce(call: &Call<'_>, specs: &[&ValueSpec]) -> Result<Option<ValueSpec>> {
    let Some(x) = specs.first().and_then(|s| ragged(s)) else {
        return Ok(None);
    };
    if served(call.op).is_none() {
        return Ok(None);
    }
    let name = call.op.name();
    let rr = x.ragged_rank();
    let Some(flat_rank) = x.flat_values.shape.rank() else {
        return Ok(None);
    };
    let rank = rr + flat_rank;
    let keep = call.args.keepdims;
    let full = crate::TensorLike::shape(x);
    let full = full.dims().unwrap_or(&[]).to_vec();
    // The op's own rules on the flat values' spec: no dispatch.
    let dense = |spec: &TensorSpec, axes: Option<&[isize]>, keepdims: bool| -> Result<TensorSpec> {
        let args = OpArgs::maybe_axes(axes).keepdims(keepdims);
        match infer::dense(call.op, &[spec], &args)?.spec {
            ValueSpec::Tensor(t) => Ok(t),
            other => Err(arg_error(name, "result", "a dense spec", other.to_string())),
        }
    };
    let out_dtype = out_dtype(call.op, x.flat_values.dtype)?;
    let reduced_shape = |axes: &[bool]| -> Shape {
        Shape::from_dims(full.iter().enumerate().filter_map(|(i, d)| {
            if axes[i] {
                keep.then_some(Dim::Known(1))
            } else {
                Some(*d)
            }
        }))
    };
    let set = call
        .op
        .reduced_axes(call.args.axes.as_deref(), rank, Repeats::Refused)?;
    Ok(Some(match plan(&set, rr) {
        Plan::All => ValueSpec::Tensor(TensorSpec::new(
            if keep {
                Shape::known(&vec![1; rank])
            } else {
                Shape::scalar()
            },
            out_dtype,
        )),
        Plan::Inner(axes) => {
            let flat = dense(&x.flat_values, Some(&axes), keep)?;
            value(x.with_flat_values(flat))
        }
        Plan::Ragged(_) | Plan::RowsAndRagged(_) | Plan::Rows if rr == 1 => {
            ValueSpec::Tensor(TensorSpec::new(reduced_shape(&set), out_dtype))
        }
        Plan::Ragged(_) => {
            // The segment result: the level above's rows, the inner axes as reduced.
            let rows = match x.nested_row_splits[rr - 1].shape.dims() {
                Some([Dim::Known(n)]) => Dim::Known(n.saturating_sub(1)),
                _ => Dim::Unknown,
            };
            let mut dims = vec![rows];
            if keep {
                dims.push(Dim::Known(1));
            }
            let tail = reduced_shape(&set);
            let tail_dims = tail.dims().unwrap_or(&[]);
            let skip = if keep { rr + 1 } else { rr };
            dims.extend(tail_dims.iter().skip(skip).cloned());
            let spec = RaggedTensorSpec {
                flat_values: TensorSpec::new(Shape::from_dims(dims), out_dtype),
                nested_row_splits: x.nested_row_splits[..rr - 1].to_vec(),
                uniform_row_lengths: x.uniform_row_lengths[..rr - 1].to_vec(),
            };
            value(spec)
        }
        Plan::RowsAndRagged(_) | Plan::Rows => return Ok(None),
        Plan::Sequential(axes) => sequential_spec(x, &full, &axes, keep, out_dtype),
    }))
}

/// The spec of [`sequential`]: the handler's steps, one axis at a time from the highest, on
/// the partitions' uniform lengths and the flat values' dims (sizes the data decides unknown).
fn sequential_spec(
    x: &RaggedTensorSpec,
    full: &[Dim],
    axes: &[usize],
    keep: bool,
    dtype: DType,
) -> ValueSpec {
    enum Step {
        Dense(Vec<Dim>),
        Ragged(Vec<Option<i64>>, Vec<Dim>),
    }
    let rr0 = x.uniform_row_lengths.len();
    let mut state = Step::Ragged(x.uniform_row_lengths.clone(), full[rr0..].to_vec());
    let one = Dim::Known(1);
    let mut sorted = axes.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    for a in sorted {
        state = match state {
            Step::Dense(mut dims) => {
                if keep {
                    dims[a] = one;
                } else {
                    dims.remove(a);
                }
                Step::Dense(dims)
            }
            Step::Ragged(uniform, mut flat) => {
                let rr = uniform.len();
                if a > rr {
                    if keep {
                        flat[a - rr] = one;
                    } else {
                        flat.remove(a - rr);
                    }
                    Step::Ragged(uniform, flat)
                } else if a == rr {
                    // The innermost ragged axis: one value per row of the level above.
                    let mut dims = vec![Dim::Unknown];
                    if keep {
                        dims.push(one);
                    }
                    dims.extend(flat[1..].iter().copied());
                    if rr == 1 {
                        Step::Dense(dims)
                    } else {
                        Step::Ragged(uniform[..rr - 1].to_vec(), dims)
                    }
                } else {
                    // An outer ragged axis: the levels above kept, the rest rebuilt (ragged).
                    let mut dims = vec![Dim::Unknown];
                    dims.extend(flat[1..].iter().copied());
                    let parts = if a == 0 { 0 } else { a - 1 };
                    let mut left: Vec<Option<i64>> = uniform[..parts].to_vec();
                    left.extend(std::iter::repeat_n(None, rr - 1 - parts));
                    match (left.is_empty(), keep) {
                        (true, false) => Step::Dense(dims),
                        (true, true) => {
                            dims.insert(a, one);
                            Step::Dense(dims)
                        }
                        (false, false) => Step::Ragged(left, dims),
                        (false, true) => {
                            let index = a.saturating_sub(1);
                            left.insert(index, super::reduce_outer::kept_partition(a));
                            Step::Ragged(left, dims)
                        }
                    }
                }
            }
        };
    }
    match state {
        Step::Dense(dims) => ValueSpec::Tensor(TensorSpec::new(Shape::from_dims(dims), dtype)),
        Step::Ragged(uniform, flat) => {
            let any = TensorSpec::new(Shape::from_dims([Dim::Unknown]), DType::I64);
            value(RaggedTensorSpec {
                flat_values: TensorSpec::new(Shape::from_dims(flat), dtype),
                nested_row_splits: vec![any; uniform.len()],
                uniform_row_lengths: uniform,
            })
        }
    }
}

// The dense parts of a reduction run on the op model directly (`Tensor::dense_op`), never
// through the dispatch table: the user's call is the one consultation.

/// `t` in dtype `to`.
fn cast(t: &Tensor, to: DType) -> Result<Tensor> {
    if t.dtype() == to {
        return Ok(t.clone());
    }
    t.dense_op(&catalog::CAST, &OpArgs::none().with_dtype(to))
}

/// `x` with its flat values in dtype `to` (the same partitions, shared).
fn cast_values(x: &RaggedTensor, to: DType) -> Result<RaggedTensor> {
    Ok(x.with_values_unchecked(cast(&x.flat_values, to)?))
}

/// `x` with every value 1 (the same partitions, shared): what a mean counts.
fn ones_like(x: &RaggedTensor) -> Result<RaggedTensor> {
    let ones = x
        .flat_values
        .dense_op(&catalog::ONES_LIKE, &OpArgs::none())?;
    Ok(x.with_values_unchecked(ones))
}

/// `t` with the same elements in `shape`.
fn reshape(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    t.dense_op(&catalog::RESHAPE, &OpArgs::none().with_shape(shape))
}

/// `a / b`, broadcast.
fn div(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    ops::call_dense(&catalog::DIV, &[a, b], &OpArgs::none())
}

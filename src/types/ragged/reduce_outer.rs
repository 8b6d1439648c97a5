//! Reductions of a [`RaggedTensor`] of ragged rank ≥ 2 over axis 0 or an outer ragged axis (TF:
//! one axis at a time, highest first). Reducing ragged axis `a` combines, for each entry of the
//! level above it, its rows element by element: the result has as many rows as the longest
//! of them, and entry `k` of result row `j` reduces entry `k` of every row `j` that has one
//! (TF's `ragged_reduce_aggregate` over the transposed rows). Mean is the sum over the count;
//! float max and min fold each entry's values in row order from the dtype's finite bound, as
//! TF's `unsorted_segment_max` / `_min` at the bottom of that recursion (`segment_extreme`).

use super::{RaggedTensor, arg_error, i64_tensor, splits_of};
use crate::ops::{self, OpArgs};
use crate::types::size::running_splits;
use crate::{Op, Result, Tensor, Value};

/// One reduction, as each axis step needs it.
pub(super) struct Reduction<'a> {
    /// The dense op of one axis.
    pub(super) op: &'static Op,
    /// Its padding value in the working dtype.
    pub(super) identity: &'a Tensor,
    /// `Some(true)` for max, `Some(false)` for min: floats then fold in TF's segment order.
    pub(super) extreme: Option<bool>,
}

/// A list of rows: a dense tensor (rows on axis 0) or a ragged tensor.
enum Rows {
    Dense(Tensor),
    Ragged(RaggedTensor),
}

impl Rows {
    fn nrows(&self) -> usize {
        match self {
            Rows::Dense(t) => t.shape()[0],
            Rows::Ragged(r) => r.nrows(),
        }
    }
}

/// The rows of `x`'s outermost partition as their own tensor (`x.values()`).
fn values_of(x: &RaggedTensor) -> Rows {
    match x.values() {
        Ok(r) => Rows::Ragged(r),
        Err(t) => Rows::Dense(t),
    }
}

/// Rows `ids` of `rows`.
fn take(rows: &Rows, ids: &[i64]) -> Result<Rows> {
    Ok(match rows {
        Rows::Dense(t) => Rows::Dense(Tensor::take_rows(t, ids)?),
        Rows::Ragged(r) => Rows::Ragged(r.gather(ids)?),
    })
}

/// Lists of rows joined as the rows of one tensor with one more (outer) partition: row `j`
/// holds the rows of `parts[j]`. `like` gives the dtype and shape of an empty part.
fn assemble(parts: Vec<Rows>, like: &Rows) -> Result<RaggedTensor> {
    let splits = i64_tensor(running_splits(
        "reduce",
        "rows",
        parts.iter().map(Rows::nrows),
    )?);
    match like {
        Rows::Dense(t) => {
            let mut flat = Tensor::take_rows(t, &[])?;
            for p in parts {
                let Rows::Dense(d) = p else {
                    return Err(arg_error("reduce", "rows", "dense rows", "ragged rows"));
                };
                flat = Tensor::append_rows(&flat, &d)?;
            }
            Ok(RaggedTensor::from_parts_unchecked(
                flat,
                vec![splits],
                vec![None],
            ))
        }
        Rows::Ragged(r) => {
            let mut joined = r.gather(&[])?;
            for p in parts {
                let Rows::Ragged(q) = p else {
                    return Err(arg_error("reduce", "rows", "ragged rows", "dense rows"));
                };
                joined = RaggedTensor::concat(&[&joined, &q], 0)?;
            }
            let mut nested = vec![splits];
            nested.extend(joined.nested_row_splits.iter().cloned());
            let mut uniform = vec![None];
            uniform.extend(joined.uniform_row_lengths.iter().map(|_| None));
            Ok(RaggedTensor::from_parts_unchecked(
                joined.flat_values,
                nested,
                uniform,
            ))
        }
    }
}

/// The reduction of `x` over its axis 0 (rows combined element by element, longest-first).
fn merge0(red: &Reduction<'_>, x: &RaggedTensor) -> Result<Rows> {
    let s = splits_of(&x.nested_row_splits[0]).into_owned();
    let lengths: Vec<i64> = s.windows(2).map(|w| w[1] - w[0]).collect();
    let longest = lengths.iter().copied().max().unwrap_or(0);
    if x.ragged_rank() == 1 {
        if longest == 0 {
            return Ok(Rows::Dense(Tensor::take_rows(&x.flat_values, &[])?));
        }
        // Float max and min fold each position's values in row order, as TF's segment max.
        if let Some(max) = red.extreme
            && let Some(t) = super::segment_extreme::by_position(max, &x.flat_values, &s)?
        {
            return Ok(Rows::Dense(t));
        }
        // Columns of the padded form (every column has at least one value).
        let padded = x.to_tensor(Some(red.identity), None)?;
        return Ok(Rows::Dense(padded.dense_op(red.op, &OpArgs::axes(&[0]))?));
    }
    let values = values_of(x);
    let mut parts =
        crate::types::size::try_reserved("reduce", "a part per position", longest as usize)?;
    for j in 0..longest {
        let ids: Vec<i64> = s[..s.len() - 1]
            .iter()
            .zip(&lengths)
            .filter(|&(_, &len)| len > j)
            .map(|(&start, _)| start + j)
            .collect();
        let Rows::Ragged(column) = take(&values, &ids)? else {
            return Err(arg_error("reduce", "rows", "ragged rows", "dense rows"));
        };
        parts.push(merge0(red, &column)?);
    }
    // An empty part list still needs the row type: the reduction of no rows.
    let like = match &values {
        Rows::Ragged(r) => merge0(red, &r.gather(&[])?)?,
        Rows::Dense(_) => unreachable_rows()?,
    };
    Ok(Rows::Ragged(assemble(parts, &like)?))
}

/// Ragged rank ≥ 2 always has ragged values: this is never reached (an error, not a panic).
fn unreachable_rows() -> Result<Rows> {
    Err(arg_error("reduce", "rows", "ragged values", "dense values"))
}

/// `x` reduced over ragged axis `a` (`0 ≤ a < ragged_rank`).
fn reduce_outer_axis(red: &Reduction<'_>, x: &RaggedTensor, a: usize) -> Result<Value> {
    if a == 0 {
        return Ok(match merge0(red, x)? {
            Rows::Dense(t) => Value::from(t),
            Rows::Ragged(r) => Value::from_extension(r),
        });
    }
    // Each entry of level a - 1 (a row of `cells`) is reduced over its own axis 0.
    let cells = RaggedTensor::from_parts_unchecked(
        x.flat_values.clone(),
        x.nested_row_splits[a - 1..].to_vec(),
        x.uniform_row_lengths[a - 1..].to_vec(),
    );
    let n = cells.nrows();
    let mut parts = Vec::with_capacity(n);
    for c in 0..n {
        let one = cells.gather(&[c as i64])?;
        // Row c as a tensor of its own (its rows are the children of entry c).
        let row = match one.values() {
            Ok(r) => r,
            Err(_) => {
                return Err(arg_error(
                    "reduce",
                    "axis",
                    "a ragged axis",
                    "an inner axis",
                ));
            }
        };
        parts.push(merge0(red, &row)?);
    }
    let empty = match cells.values() {
        Ok(r) => merge0(red, &r.gather(&[])?)?,
        Err(_) => {
            return Err(arg_error(
                "reduce",
                "axis",
                "a ragged axis",
                "an inner axis",
            ));
        }
    };
    let level = assemble(parts, &empty)?;
    // The levels above a - 1 are kept.
    let mut nested = x.nested_row_splits[..a - 1].to_vec();
    nested.extend(level.nested_row_splits.iter().cloned());
    let mut uniform = x.uniform_row_lengths[..a - 1].to_vec();
    uniform.extend(level.uniform_row_lengths.iter().map(|_| None));
    Ok(Value::from_extension(RaggedTensor::from_parts_unchecked(
        level.flat_values,
        nested,
        uniform,
    )))
}

/// `x` reduced by `red` over `axes` (normalized, distinct), one axis at a time from the
/// highest, as TF does.
pub(super) fn sequential(
    red: &Reduction<'_>,
    x: &RaggedTensor,
    axes: &[usize],
    keepdims: bool,
) -> Result<Value> {
    let op = red.op;
    let mut sorted = axes.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut current = Value::from_extension(x.clone());
    for a in sorted {
        // TF applies `keepdims` at each axis (`ragged_reduce_aggregate` one axis at a time).
        let args = OpArgs::axes(&[a as isize]).keepdims(keepdims);
        current = match current {
            Value::Tensor(t) => Value::from(t.dense_op(op, &args)?),
            ext => {
                let r = ext.downcast::<RaggedTensor>()?;
                let rr = r.ragged_rank();
                if a > rr {
                    let args = OpArgs::axes(&[(a - rr) as isize]).keepdims(keepdims);
                    let values = r.flat_values.dense_op(op, &args)?;
                    Value::from_extension(r.with_values_unchecked(values))
                } else if a == rr {
                    ops::call(op, &[crate::ops::AsOperand::as_operand(&r)], &args)?
                } else {
                    let reduced = reduce_outer_axis(red, &r, a)?;
                    if keepdims {
                        keep_axis(reduced, a)?
                    } else {
                        reduced
                    }
                }
            }
        };
    }
    Ok(current)
}

/// The partition that keeps reduced outer axis `axis` (`keepdims`): its length is 1 for
/// `axis ≥ 1` (uniform, as TF's); for axis 0 it holds every row in one, of a length only the
/// data knows, so it is a ragged partition rather than TF's uniform one (a spec could not say
/// its length).
pub(super) fn kept_partition(axis: usize) -> Option<i64> {
    (axis > 0).then_some(1)
}

/// `value` (the reduction over outer `axis`) with a new axis of size 1 at `axis` (TF's
/// `expand_dims` of a ragged tensor).
fn keep_axis(value: Value, axis: usize) -> Result<Value> {
    let r = match value {
        Value::Tensor(t) => {
            let mut shape = t.shape().to_vec();
            shape.insert(axis, 1);
            return Ok(Value::from(ops::reshape_as::<Tensor>(&t, &shape)?));
        }
        ext => ext.downcast::<RaggedTensor>()?,
    };
    // Axis 0: all rows in one row; axis a ≥ 1: each row of level a - 1 alone.
    let (index, splits) = if axis == 0 {
        (0, vec![0, r.nrows() as i64])
    } else {
        let n = match axis - 1 {
            0 => r.nrows() as i64,
            level => splits_of(&r.nested_row_splits[level - 1])
                .last()
                .copied()
                .unwrap_or(0),
        };
        // One split per entry of the level (fallibly: zero-width entries can outnumber memory).
        let mut splits = crate::types::size::try_reserved(
            "reduce",
            "the kept axis's row splits",
            n as usize + 1,
        )?;
        splits.extend(0..=n);
        (axis - 1, splits)
    };
    let mut nested = r.nested_row_splits.clone();
    nested.insert(index, i64_tensor(splits));
    let mut uniform = r.uniform_row_lengths.clone();
    uniform.insert(index, kept_partition(axis));
    Ok(Value::from_extension(RaggedTensor::from_parts_unchecked(
        r.flat_values.clone(),
        nested,
        uniform,
    )))
}

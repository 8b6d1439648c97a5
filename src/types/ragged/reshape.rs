//! Ops that move rows of [`RaggedTensor`]s (TF 2.x): `concat` along axis 0 (rows appended)
//! and along the ragged axis 1 (rows joined row by row), `stack` along axis 0 (TF's
//! `ragged_batch`: one more ragged dimension) and axis 1 (row `i` holds every item's row `i`),
//! `gather` of rows (axis 0), `tile` (TF's `tf.tile` on ragged tensors), and `boolean_mask`
//! (TF's `tf.ragged.boolean_mask`: rows by a `[nrows]` mask, values by a ragged mask of the
//! same partition, a dense tensor by a mask of rank ≥ 2, a [`MaskedTensor`]'s valid values row
//! by row).
//!
//! `ops::gather`, `ops::boolean_mask`, and `ops::concat` / `ops::stack` of any number of
//! ragged tensors, dense tensors mixed in (TF: the dense ones converted by `from_tensor`),
//! dispatch here; [`RaggedTensor::concat`] and [`RaggedTensor::stack`] are the same on ragged
//! tensors only.

use super::batch::{RaggedBatch, joined_flat_values, joined_splits};
use super::infer::{ragged, value};
use super::{RaggedTensor, RaggedTensorSpec, arg_error, describe, i64_tensor, splits_of};
use crate::batch::{BatchEncoder, concat_rows_counted};
use crate::dispatch::Call;
use crate::ndarray::{Ix1, IxDyn};
use crate::ops::{self, OpArgs, catalog};
use crate::types::MaskedTensor;
use crate::types::size::running_splits;
use crate::{
    DType, Dim, OrDense, Result, Shape, Tensor, TensorSpec, TensorView, ValueSpec, dispatch,
};

/// The rows of `x` (its outermost partition) at `ids`, in order, as a ragged tensor of the
/// same ragged rank (TF's `gather(rt, indices)`): the flat values are gathered once.
fn gather_rows(op: &str, x: &RaggedTensor, ids: &[i64]) -> Result<RaggedTensor> {
    let nrows = x.nrows() as i64;
    if let Some(j) = ids.iter().position(|&i| i < 0 || i >= nrows) {
        return Err(arg_error(
            op,
            "indices",
            format!("row indices within 0..{nrows}"),
            format!("indices[{j}] = {}", ids[j]),
        ));
    }
    let mut nested = Vec::with_capacity(x.ragged_rank());
    // The rows taken at the current level, as ranges of the level's rows.
    let mut ranges: Vec<(i64, i64)> = ids.iter().map(|&i| (i, i + 1)).collect();
    for level in 0..x.ragged_rank() {
        let s = splits_of(&x.nested_row_splits[level]);
        let mut splits = Vec::with_capacity(ranges.len() + 1);
        splits.push(0i64);
        let mut next = Vec::with_capacity(ranges.len());
        for &(a, b) in &ranges {
            for row in a..b {
                // Checked splits: `0 <= start <= end`, and `row < nrows` at this level.
                let (start, end) = (s[row as usize], s[row as usize + 1]);
                // Repeated ids may take more rows than the tensor has, past `i64::MAX`.
                let total = splits[splits.len() - 1];
                splits.push(total.checked_add(end - start).ok_or_else(|| {
                    arg_error(
                        op,
                        "indices",
                        format!(
                            "rows holding at most i64::MAX (2^63 - 1) rows of level {} in all",
                            level + 1
                        ),
                        format!("{total} rows and {} more", end - start),
                    )
                })?);
                next.push((start, end));
            }
        }
        nested.push(i64_tensor(splits));
        ranges = next;
    }
    if x.flat_values.is_empty() {
        // No elements (an empty inner axis): such values hold any number of rows in no memory,
        // so the result's rows are counted, not listed. Their number is the last split above
        // (checked to fit `i64`).
        let mut shape = x.flat_values.shape().to_vec();
        shape[0] = ranges.iter().map(|&(a, b)| (b - a) as usize).sum();
        return Ok(RaggedTensor::from_parts_unchecked(
            super::empty_tensor(x.dtype(), &shape),
            nested,
            x.uniform_row_lengths.clone(),
        ));
    }
    let flat_ids: Vec<i64> = ranges.iter().flat_map(|&(a, b)| a..b).collect();
    let flat: Tensor = if flat_ids.len() == x.flat_values.shape()[0]
        && flat_ids.iter().enumerate().all(|(i, &v)| i as i64 == v)
    {
        x.flat_values.clone()
    } else {
        Tensor::take_rows(&x.flat_values, &flat_ids)?
    };
    Ok(RaggedTensor::from_parts_unchecked(
        flat,
        nested,
        x.uniform_row_lengths.clone(),
    ))
}

/// Items that join: the same dtype, ragged rank, uniform lengths and inner shape.
fn check_alike(op: &str, items: &[&RaggedTensor]) -> Result<()> {
    let Some(first) = items.first() else {
        return Err(arg_error(
            op,
            "values",
            "at least one ragged tensor",
            "none",
        ));
    };
    for (i, item) in items.iter().enumerate().skip(1) {
        if item.ragged_rank() != first.ragged_rank()
            || item.uniform_row_lengths != first.uniform_row_lengths
            || item.dtype() != first.dtype()
            || item.flat_values.shape()[1..] != first.flat_values.shape()[1..]
        {
            return Err(arg_error(
                op,
                &format!("values[{i}]"),
                format!(
                    "a ragged tensor like values[0], {} of dtype {}",
                    describe(first),
                    first.dtype()
                ),
                format!("{} of dtype {}", describe(item), item.dtype()),
            ));
        }
    }
    Ok(())
}

impl RaggedTensor {
    /// The rows at `indices` (TF's `tf.gather(rt, indices)`, axis 0); an index outside
    /// `0..nrows` is an error naming it (TF raises too).
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::array;
    /// let r = RaggedTensor::from_row_lengths(array![1, 2, 3, 4], array![3i64, 0, 1])?;
    /// assert_eq!(r.gather(&[2, 0, 0])?.to_string(), "i32[3, ?] [[4], [1, 2, 3], [1, 2, 3]]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn gather(&self, indices: &[i64]) -> Result<RaggedTensor> {
        gather_rows("gather", self, indices)
    }

    /// `concat` along `axis` (TF's `tf.concat`): axis 0 appends the rows; the ragged axis 1
    /// joins row `i` of every item (the items have the same number of rows). Negative axes
    /// count from the end. The items agree on dtype, ragged rank and inner shape.
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::array;
    /// let a = RaggedTensor::from_row_lengths(array![1, 2, 3, 4], array![3i64, 0, 1])?;
    /// let b = RaggedTensor::from_row_lengths(array![5, 6, 7], array![1i64, 2, 0])?;
    /// assert_eq!(RaggedTensor::concat(&[&a, &b], 0)?.to_string(), "i32[6, ?] [[1, 2, 3], [], [4], [5], [6, 7], []]");
    /// assert_eq!(RaggedTensor::concat(&[&a, &b], 1)?.to_string(), "i32[3, ?] [[1, 2, 3, 5], [6, 7], [4]]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn concat(items: &[&RaggedTensor], axis: isize) -> Result<RaggedTensor> {
        const OP: &str = "concat";
        check_alike(OP, items)?;
        let rank = items[0].rank();
        match catalog::CONCAT.axis(axis, rank)? {
            0 => Ok(concat_rows(items)?),
            1 => concat_ragged(items),
            _ => Err(arg_error(
                OP,
                "axis",
                format!(
                    "axis 0 or the ragged axis 1 (or -{rank} / {})",
                    1 - rank as isize
                ),
                format!("axis {axis}"),
            )),
        }
    }

    /// `stack` along `axis` (TF's `tf.stack`): axis 0 is TF's `ragged_batch` (one more ragged
    /// dimension, outermost); axis 1 makes row `i` the list of every item's row `i`.
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::array;
    /// let a = RaggedTensor::from_row_lengths(array![1, 2, 3, 4], array![3i64, 0, 1])?;
    /// let b = RaggedTensor::from_row_lengths(array![5, 6, 7], array![1i64, 2, 0])?;
    /// let s = RaggedTensor::stack(&[&a, &b], 1)?;
    /// assert_eq!(s.to_string(), "i32[3, ?, ?] [[[1, 2, 3], [5]], [[], [6, 7]], [[4], []]]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn stack(items: &[&RaggedTensor], axis: isize) -> Result<RaggedTensor> {
        const OP: &str = "stack";
        check_alike(OP, items)?;
        let rank = items[0].rank() + 1;
        match catalog::STACK.axis(axis, rank)? {
            0 => RaggedBatch::stack(items),
            1 => {
                // Each item as [nrows, 1, …] (its rows become sub-rows), then joined on axis 1.
                let expanded = items
                    .iter()
                    .map(|x| {
                        let n = x.nrows() as i64;
                        let mut nested = vec![i64_tensor((0..=n).collect())];
                        nested.extend(x.nested_row_splits.iter().cloned());
                        let mut uniform = vec![None];
                        uniform.extend(x.uniform_row_lengths.iter().cloned());
                        RaggedTensor::from_parts_unchecked(x.flat_values.clone(), nested, uniform)
                    })
                    .collect::<Vec<_>>();
                let refs: Vec<&RaggedTensor> = expanded.iter().collect();
                concat_ragged(&refs)
            }
            _ => Err(arg_error(
                OP,
                "axis",
                format!("axis 0 or 1 (or -{rank} / {})", 1 - rank as isize),
                format!("axis {axis}"),
            )),
        }
    }

    /// The valid values of a masked tensor row by row (TF's `tf.ragged.boolean_mask(values,
    /// mask)` with the full mask): a rank-`k` masked tensor gives a ragged tensor of ragged
    /// rank `k - 1` whose innermost rows hold the valid values.
    ///
    /// ```
    /// use extype::types::{MaskedTensor, RaggedTensor};
    /// use ndarray::array;
    /// let m = MaskedTensor::new(array![[1, 2, 3], [4, 5, 6]], array![[true, false, true], [false, false, false]])?;
    /// assert_eq!(RaggedTensor::from_masked(&m)?.to_string(), "i32[2, ?] [[1, 3], []]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_masked(masked: &MaskedTensor) -> Result<RaggedTensor> {
        dense_boolean_mask(
            "boolean_mask",
            &masked.values().view(),
            &masked.mask().view(),
        )
    }

    /// TF's `tf.ragged.boolean_mask(data, mask)` for dense `data` and a dense `mask` of rank
    /// ≥ 2 (a prefix of `data`'s shape): entry `[i, j, …]` keeps `data[i, j, …][mask[i, j, …]]`.
    pub fn boolean_mask_dense(data: &Tensor, mask: &Tensor) -> Result<RaggedTensor> {
        dense_boolean_mask("boolean_mask", &data.view(), &mask.view())
    }
}

/// Rows of several items appended (the splits of every level rebased).
fn concat_rows(items: &[&RaggedTensor]) -> Result<RaggedTensor> {
    let rr = items[0].ragged_rank();
    let mut nested = Vec::with_capacity(rr);
    for level in 0..rr {
        nested.push(joined_splits("concat", items.iter().copied(), level)?);
    }
    let flat = joined_flat_values("concat", items)?;
    Ok(RaggedTensor::from_parts_unchecked(
        flat,
        nested,
        items[0].uniform_row_lengths.clone(),
    ))
}

/// Row `i` of the result is row `i` of every item, joined (TF: concat on axis 1): the items'
/// values appended (axis 0), then their value-rows gathered in row order.
fn concat_ragged(items: &[&RaggedTensor]) -> Result<RaggedTensor> {
    let nrows = items[0].nrows();
    if let Some(k) = items.iter().position(|r| r.nrows() != nrows) {
        return Err(arg_error(
            "concat",
            &format!("values[{k}]"),
            format!("{nrows} rows (as values[0]) to join on the ragged axis"),
            format!("{} rows", items[k].nrows()),
        ));
    }
    // The outer partition of each item, and the offset of its value-rows in the appended values.
    let outer: Vec<Vec<i64>> = items
        .iter()
        .map(|r| splits_of(&r.nested_row_splits[0]).into_owned())
        .collect();
    // Checked to fit `i64`: every value-row index below is under the total.
    let offsets = running_splits(
        "concat",
        "values",
        // Checked splits: the last is non-negative.
        outer.iter().map(|s| s[s.len() - 1] as usize),
    )?;
    let total = offsets[offsets.len() - 1];
    let mut splits = Vec::with_capacity(nrows + 1);
    splits.push(0i64);
    // One entry per value-row of the result (allocated fallibly: empty inner axes let many
    // rows take no memory).
    let mut order =
        crate::types::size::try_reserved("concat", "the value rows' order", total as usize)?;
    for i in 0..nrows {
        for (s, &off) in outer.iter().zip(&offsets) {
            // `s[i] <= s[i + 1] <= s[last]`, and `off + s[last]` is the next (checked) offset.
            order.extend(s[i] + off..s[i + 1] + off);
        }
        splits.push(order.len() as i64);
    }
    let uniform0 = None;
    if items[0].ragged_rank() == 1 {
        let flats: Vec<&Tensor> = items.iter().map(|r| &r.flat_values).collect();
        let flat = concat_rows_counted(&flats, total as usize, "flat_values")?;
        let flat = Tensor::take_rows(&flat, &order)?;
        return Ok(RaggedTensor::from_parts_unchecked(
            flat,
            vec![i64_tensor(splits)],
            vec![uniform0],
        ));
    }
    let values: Vec<RaggedTensor> = items
        .iter()
        .map(|r| {
            RaggedTensor::from_parts_unchecked(
                r.flat_values.clone(),
                r.nested_row_splits[1..].to_vec(),
                r.uniform_row_lengths[1..].to_vec(),
            )
        })
        .collect();
    let refs: Vec<&RaggedTensor> = values.iter().collect();
    let inner = gather_rows("concat", &concat_rows(&refs)?, &order)?;
    let mut nested = vec![i64_tensor(splits)];
    nested.extend(inner.nested_row_splits);
    let mut uniform = vec![uniform0];
    uniform.extend(inner.uniform_row_lengths);
    Ok(RaggedTensor::from_parts_unchecked(
        inner.flat_values,
        nested,
        uniform,
    ))
}

/// `tf.ragged.boolean_mask` of dense data by a dense mask of rank ≥ 2.
fn dense_boolean_mask(
    op: &str,
    data: &TensorView<'_>,
    mask: &TensorView<'_>,
) -> Result<RaggedTensor> {
    let d = mask.shape().len();
    if mask.dtype() != DType::Bool || d < 2 || data.shape().get(..d) != Some(mask.shape()) {
        return Err(arg_error(
            op,
            "mask",
            format!(
                "a bool mask of rank at least 2 whose shape is a prefix of the data's {:?}",
                data.shape()
            ),
            format!("{}{:?}", mask.dtype(), mask.shape()),
        ));
    }
    let m = mask.clone().into_array::<bool, IxDyn>()?;
    let shape = mask.shape();
    // Outer levels keep every entry (TF: results[i, j] = data[i, j][mask[i, j]]).
    let mut nested = Vec::with_capacity(d - 1);
    let mut count = 1usize;
    for l in 0..d - 2 {
        count *= shape[l];
        let len = shape[l + 1] as i64;
        nested.push(i64_tensor((0..=count as i64).map(|i| i * len).collect()));
    }
    // The innermost level: one row per entry of the leading d-1 axes, its true entries.
    let last = shape[d - 1];
    let flat_mask: Vec<bool> = m.iter().copied().collect();
    let mut splits = Vec::with_capacity(flat_mask.len() / last.max(1) + 1);
    splits.push(0i64);
    let mut ids = Vec::new();
    for (row, chunk) in flat_mask
        .chunks(last.max(1))
        .enumerate()
        .take(count * shape[d - 2])
    {
        for (j, &keep) in chunk.iter().enumerate() {
            if keep {
                ids.push((row * last + j) as i64);
            }
        }
        splits.push(ids.len() as i64);
    }
    if last == 0 {
        splits = vec![0; count * shape[d - 2] + 1];
    }
    nested.push(i64_tensor(splits));
    let mut flat_shape = vec![shape.iter().product::<usize>()];
    flat_shape.extend_from_slice(&data.shape()[d..]);
    let flat: Tensor = ops::reshape_as(&data.to_tensor(), &flat_shape)?;
    let flat = Tensor::take_rows(&flat, &ids)?;
    let uniform = vec![None; nested.len()];
    Ok(RaggedTensor::from_parts_unchecked(flat, nested, uniform))
}

/// `ops::gather(rt, indices, 0)`: the rows at `indices` (TF's `tf.gather` on axis 0).
#[dispatch(Gather, infer = infer_rows)]
fn ragged_gather(x: &RaggedTensor, args: &OpArgs) -> Result<RaggedTensor> {
    let rank = x.rank() as isize;
    if args.axis != 0 && args.axis != -rank {
        return Err(arg_error(
            "gather",
            "axis",
            "axis 0 (the rows) for a ragged tensor",
            format!("axis {}", args.axis),
        ));
    }
    x.gather(args.indices.as_deref().unwrap_or(&[]))
}

/// `ops::boolean_mask(data, mask)` with a ragged operand (TF's `tf.ragged.boolean_mask`):
/// ragged data by a `[nrows]` mask keeps rows; by a ragged bool mask of the same partitions
/// keeps values inside rows; dense data by a ragged mask keeps entries of each row.
#[dispatch(BooleanMask, infer = infer_rows)]
fn ragged_boolean_mask(
    data: &OrDense<RaggedTensor>,
    mask: &OrDense<RaggedTensor>,
) -> Result<RaggedTensor> {
    const OP: &str = "boolean_mask";
    match (data, mask) {
        (OrDense::Ext(x), OrDense::Dense(m)) => {
            if m.dtype() != DType::Bool || m.shape() != [x.nrows()] {
                return Err(arg_error(
                    OP,
                    "mask",
                    format!(
                        "a bool mask of shape [{}] (one entry per row of {})",
                        x.nrows(),
                        describe(x)
                    ),
                    format!("{}{:?}", m.dtype(), m.shape()),
                ));
            }
            let keep = m.clone().into_array::<bool, Ix1>()?;
            let ids: Vec<i64> = keep
                .iter()
                .enumerate()
                .filter(|(_, k)| **k)
                .map(|(i, _)| i as i64)
                .collect();
            gather_rows(OP, x, &ids)
        }
        (data, OrDense::Ext(m)) => {
            if m.dtype() != DType::Bool {
                return Err(arg_error(
                    OP,
                    "mask",
                    "a bool mask",
                    format!("dtype {}", m.dtype()),
                ));
            }
            let x = match data {
                OrDense::Ext(x) => (*x).clone(),
                // Dense data: its rows cut to the mask's row lengths first.
                OrDense::Dense(v) => {
                    let lengths = m.row_lengths();
                    if m.ragged_rank() != 1 {
                        return Err(arg_error(
                            OP,
                            "mask",
                            "a ragged mask of ragged rank 1 for dense data",
                            describe(m),
                        ));
                    }
                    RaggedTensor::from_tensor_with_lengths(v.to_tensor(), lengths)?
                }
            };
            if !x.same_partitions(m) || m.flat_values.ndim() != 1 {
                return Err(arg_error(
                    OP,
                    "mask",
                    format!(
                        "a ragged bool mask with the partitions of the data, {}",
                        describe(&x)
                    ),
                    describe(m),
                ));
            }
            let keep = m.flat_values.as_array::<bool, Ix1>()?;
            let ids: Vec<i64> = keep
                .iter()
                .enumerate()
                .filter(|(_, k)| **k)
                .map(|(i, _)| i as i64)
                .collect();
            // Each innermost row keeps its true entries.
            let rr = x.ragged_rank();
            let s = splits_of(&x.nested_row_splits[rr - 1]);
            let mut splits = Vec::with_capacity(s.len());
            splits.push(0i64);
            let mut count = 0i64;
            for w in s.windows(2) {
                count += keep
                    .slice(crate::ndarray::s![w[0] as usize..w[1] as usize])
                    .iter()
                    .filter(|k| **k)
                    .count() as i64;
                splits.push(count);
            }
            let flat = Tensor::take_rows(&x.flat_values, &ids)?;
            let mut nested = x.nested_row_splits[..rr - 1].to_vec();
            nested.push(i64_tensor(splits));
            let mut uniform = x.uniform_row_lengths.clone();
            uniform[rr - 1] = None;
            Ok(RaggedTensor::from_parts_unchecked(flat, nested, uniform))
        }
        // All-dense calls never reach an `OrDense` handler.
        (OrDense::Dense(_), OrDense::Dense(_)) => {
            Err(arg_error(OP, "data", "a ragged operand", "dense operands"))
        }
    }
}

/// The spec of `gather` / `boolean_mask` of a ragged tensor: the same ragged rank, dtype and
/// inner shape; row counts unknown (known for `gather`: the number of indices).
fn infer_rows(call: &Call<'_>, specs: &[&ValueSpec]) -> Result<Option<ValueSpec>> {
    let Some(base) = specs.iter().find_map(|s| ragged(s)) else {
        return Ok(None);
    };
    let data_dtype = match specs.first() {
        Some(ValueSpec::Tensor(t)) => t.dtype,
        _ => base.flat_values.dtype,
    };
    let any = TensorSpec::new(Shape::from_dims([Dim::Unknown]), DType::I64);
    let mut nested = vec![any; base.ragged_rank()];
    if let Some(ids) = &call.args.indices
        && call.op == &crate::ops::catalog::GATHER
    {
        nested[0] = TensorSpec::new(Shape::known(&[ids.len() + 1]), DType::I64);
    }
    let flat_shape = match base.flat_values.shape.dims() {
        Some(dims) => {
            Shape::from_dims(std::iter::once(Dim::Unknown).chain(dims[1..].iter().cloned()))
        }
        None => Shape::unknown_rank(),
    };
    let spec = RaggedTensorSpec {
        flat_values: TensorSpec::new(flat_shape, data_dtype),
        nested_row_splits: nested,
        uniform_row_lengths: base.uniform_row_lengths.clone(),
    };
    Ok(Some(value(spec)))
}

/// `x` with its flat values split into uniform rows until it has ragged rank `k` (TF's
/// `_increase_ragged_rank_to`: `from_tensor` of the flat values, level by level).
fn with_ragged_rank(op: &str, arg: &str, x: RaggedTensor, k: usize) -> Result<RaggedTensor> {
    let mut x = x;
    while x.ragged_rank() < k {
        if x.flat_values.ndim() < 2 {
            return Err(arg_error(
                op,
                arg,
                format!("a value of rank at least {} (ragged rank {k})", k + 1),
                describe(&x),
            ));
        }
        let inner = RaggedTensor::from_tensor(x.flat_values.clone())?;
        let mut nested = x.nested_row_splits.clone();
        nested.push(inner.nested_row_splits[0].clone());
        let mut uniform = x.uniform_row_lengths.clone();
        uniform.push(None);
        x = RaggedTensor::from_parts_unchecked(inner.flat_values, nested, uniform);
    }
    Ok(x)
}

/// The operands of `concat` / `stack` as ragged tensors of one ragged rank (TF's
/// `_ragged_stack_concat_helper`): a dense operand is `from_tensor` of it, every operand raised
/// to the largest ragged rank among them (at least 1). An operand of too low a rank is an
/// error naming it.
fn as_ragged_alike(op: &str, xs: &[OrDense<RaggedTensor>]) -> Result<Vec<RaggedTensor>> {
    let k = xs
        .iter()
        .filter_map(|x| x.ext().map(RaggedTensor::ragged_rank))
        .max()
        .unwrap_or(1)
        .max(1);
    xs.iter()
        .enumerate()
        .map(|(i, x)| {
            let arg = format!("values[{i}]");
            let ragged = match x {
                OrDense::Ext(r) if r.ragged_rank() == k => return Ok((*r).clone()),
                OrDense::Ext(r) => (*r).clone(),
                OrDense::Dense(v) => {
                    if v.shape().len() < k + 1 {
                        return Err(arg_error(
                            op,
                            &arg,
                            format!(
                                "a dense tensor of rank at least {} (the ragged operands' ragged \
                                 rank {k}, plus one)",
                                k + 1
                            ),
                            format!("shape {:?}", v.shape()),
                        ));
                    }
                    RaggedTensor::from_tensor(v.to_tensor())?
                }
            };
            with_ragged_rank(op, &arg, ragged, k)
        })
        .collect()
}

/// `ops::concat(&[a, b, …], axis)` of ragged tensors (any number), dense tensors mixed in (TF's
/// `tf.concat` of a RaggedTensor and a Tensor: the dense one converted by `from_tensor`, every
/// operand raised to the largest ragged rank): [`RaggedTensor::concat`].
#[dispatch(Concat, infer = infer_join)]
fn ragged_concat(xs: &[OrDense<RaggedTensor>], args: &OpArgs) -> Result<RaggedTensor> {
    let items = as_ragged_alike("concat", xs)?;
    RaggedTensor::concat(&items.iter().collect::<Vec<_>>(), args.axis)
}

/// `ops::stack(&[a, b, …], axis)` of ragged tensors (any number), dense tensors mixed in as for
/// `concat`: [`RaggedTensor::stack`].
#[dispatch(Stack, infer = infer_join)]
fn ragged_stack(xs: &[OrDense<RaggedTensor>], args: &OpArgs) -> Result<RaggedTensor> {
    let items = as_ragged_alike("stack", xs)?;
    RaggedTensor::stack(&items.iter().collect::<Vec<_>>(), args.axis)
}

/// The spec of `concat` / `stack` of ragged tensors (dense ones mixed in): the dtype and inner
/// shape of the ragged operand of the largest ragged rank kept, every partition's length
/// unknown; `stack` on axis 0 or 1 adds a partition.
fn infer_join(call: &Call<'_>, specs: &[&ValueSpec]) -> Result<Option<ValueSpec>> {
    let Some(base) = specs
        .iter()
        .filter_map(|s| ragged(s))
        .max_by_key(|r| r.ragged_rank())
    else {
        return Ok(None);
    };
    let stack = call.op == &crate::ops::catalog::STACK;
    let any = TensorSpec::new(Shape::from_dims([Dim::Unknown]), DType::I64);
    let mut uniform = base.uniform_row_lengths.clone();
    if stack {
        uniform.insert(0, None);
    }
    let flat_shape = match base.flat_values.shape.dims() {
        Some(dims) => {
            Shape::from_dims(std::iter::once(Dim::Unknown).chain(dims[1..].iter().cloned()))
        }
        None => Shape::unknown_rank(),
    };
    Ok(Some(value(RaggedTensorSpec {
        flat_values: TensorSpec::new(flat_shape, base.flat_values.dtype),
        nested_row_splits: vec![any; uniform.len()],
        uniform_row_lengths: uniform,
    })))
}

/// The bound on a number of rows `tile` builds: what a vector of `i64` ids can hold.
const MAX_TILED_ROWS: u128 = (isize::MAX as u128) / 8;

/// A number of rows of `tile`'s result, checked against [`MAX_TILED_ROWS`].
fn tiled_rows(what: &str, n: u128) -> Result<usize> {
    if n > MAX_TILED_ROWS {
        return Err(arg_error(
            "tile",
            "multiples",
            format!("multiples that give at most {MAX_TILED_ROWS} {what}"),
            format!("{n} {what}"),
        ));
    }
    Ok(n as usize)
}

impl RaggedTensor {
    /// `tile` (TF's `tf.tile` on a RaggedTensor, `ragged_array_ops.tile`): the tensor repeated
    /// `multiples[i]` times along each axis `i` (one multiple per axis). Along axis 0 the rows
    /// are repeated as a whole; along a ragged axis each row holds its entries repeated
    /// `multiples[i]` times, so its length is multiplied; the inner axes of the flat values are
    /// tiled as a dense tensor's. A uniform partition stays uniform (its length multiplied).
    ///
    /// ```
    /// let r = extype::ragged![[1, 2], [3]]?;
    /// // TF: tf.tile(rt, [3, 2]).
    /// assert_eq!(
    ///     r.tile(&[3, 2])?.to_string(),
    ///     "i32[6, ?] [[1, 2, 1, 2], [3, 3], [1, 2, 1, 2], [3, 3], [1, 2, 1, 2], [3, 3]]"
    /// );
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn tile(&self, multiples: &[usize]) -> Result<RaggedTensor> {
        const OP: &str = "tile";
        let k = self.ragged_rank();
        if multiples.len() != self.rank() {
            return Err(arg_error(
                OP,
                "multiples",
                format!(
                    "{} multiples (one per axis of {})",
                    self.rank(),
                    describe(self)
                ),
                format!("{multiples:?}"),
            ));
        }
        let mut flat = self.flat_values.clone();
        if multiples[k + 1..].iter().any(|&m| m != 1) {
            let mut reps = vec![1];
            reps.extend_from_slice(&multiples[k + 1..]);
            flat = flat.dense_op(&catalog::TILE, &OpArgs::none().with_shape(&reps))?;
        }
        // The rows of each level the result holds, outermost first, as indices of this
        // tensor's rows at that level.
        let n = self.nrows();
        let total = tiled_rows("rows", n as u128 * multiples[0] as u128)?;
        let mut rows: Vec<i64> = crate::types::size::try_reserved(OP, "the rows", total)?;
        for _ in 0..multiples[0] {
            rows.extend(0..n as i64);
        }
        let mut nested = Vec::with_capacity(k);
        let mut uniform = Vec::with_capacity(k);
        for level in 0..k {
            let s = splits_of(&self.nested_row_splits[level]);
            let m = multiples[level + 1];
            // Checked splits: non-decreasing, so each difference is a row's length.
            let wide: u128 = rows
                .iter()
                .map(|&r| (s[r as usize + 1] - s[r as usize]) as u128 * m as u128)
                .sum();
            let total = tiled_rows("values", wide)?;
            let mut next: Vec<i64> = crate::types::size::try_reserved(OP, "the rows", total)?;
            let mut splits: Vec<i64> =
                crate::types::size::try_reserved(OP, "the row splits", rows.len() + 1)?;
            splits.push(0);
            for &r in &rows {
                let (a, b) = (s[r as usize], s[r as usize + 1]);
                for _ in 0..m {
                    next.extend(a..b);
                }
                splits.push(next.len() as i64);
            }
            nested.push(i64_tensor(splits));
            let scaled = match self.uniform_row_lengths[level] {
                Some(u) => Some(u.checked_mul(m as i64).ok_or_else(|| {
                    arg_error(
                        OP,
                        "multiples",
                        "multiples whose uniform row lengths fit in i64",
                        format!("{u} * {m}"),
                    )
                })?),
                None => None,
            };
            uniform.push(scaled);
            rows = next;
        }
        let flat = Tensor::take_rows(&flat, &rows)?;
        Ok(RaggedTensor::from_parts_unchecked(flat, nested, uniform))
    }
}

/// `ops::tile(&ragged, multiples)`: [`RaggedTensor::tile`].
#[dispatch(Tile, infer = infer_tile)]
fn ragged_tile(args: &OpArgs, x: &RaggedTensor) -> Result<RaggedTensor> {
    let Some(multiples) = args.shape.as_deref() else {
        return Err(arg_error(
            "tile",
            "multiples",
            "one multiple per axis (OpArgs::shape)",
            "none",
        ));
    };
    x.tile(multiples)
}

/// The spec of `tile` of a ragged tensor: the ragged rank and dtype kept; the number of rows
/// multiplied when known, uniform lengths and inner axes multiplied, other lengths unknown.
fn infer_tile(call: &Call<'_>, specs: &[&ValueSpec]) -> Result<Option<ValueSpec>> {
    let Some(base) = specs.first().and_then(|s| ragged(s)) else {
        return Ok(None);
    };
    let k = base.ragged_rank();
    let Some(flat_dims) = base.flat_values.shape.dims() else {
        return Ok(None);
    };
    let rank = k + flat_dims.len();
    let multiples = match call.args.shape.as_deref() {
        Some(m) if m.len() == rank => m,
        other => {
            return Err(arg_error(
                "tile",
                "multiples",
                format!("{rank} multiples (one per axis)"),
                format!("{other:?}"),
            ));
        }
    };
    let scale = |d: &Dim, m: usize| match d {
        Dim::Known(n) => n.checked_mul(m).map_or(Dim::Unknown, Dim::Known),
        _ => Dim::Unknown,
    };
    let outer = match base.nested_row_splits[0].shape.dims() {
        Some([Dim::Known(n)]) => n
            .saturating_sub(1)
            .checked_mul(multiples[0])
            .and_then(|rows| rows.checked_add(1))
            .map_or(Dim::Unknown, Dim::Known),
        _ => Dim::Unknown,
    };
    let mut nested = vec![TensorSpec::new(Shape::from_dims([outer]), DType::I64)];
    nested.extend((1..k).map(|_| TensorSpec::new(Shape::from_dims([Dim::Unknown]), DType::I64)));
    let uniform = base
        .uniform_row_lengths
        .iter()
        .zip(&multiples[1..])
        .map(|(u, &m)| u.and_then(|u| u.checked_mul(m as i64)))
        .collect();
    let flat_shape = Shape::from_dims(
        std::iter::once(Dim::Unknown).chain(
            flat_dims[1..]
                .iter()
                .zip(&multiples[k + 1..])
                .map(|(d, &m)| scale(d, m)),
        ),
    );
    Ok(Some(value(RaggedTensorSpec {
        flat_values: TensorSpec::new(flat_shape, base.flat_values.dtype),
        nested_row_splits: nested,
        uniform_row_lengths: uniform,
    })))
}

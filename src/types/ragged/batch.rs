//! Batching of [`RaggedTensor`]s (TF's `ragged_batch`): a batch of ragged tensors is a ragged
//! tensor with one more ragged dimension, outermost, whose rows are the items. Stacking
//! concatenates the flat values once and rebases each level's splits; unstacking slices: each
//! item's flat values view the batch's buffer (no value is copied; only the splits, rebased to
//! start at 0, are new). [`RaggedTensor::from_dense_batch`] is TF's `dense_to_ragged_batch`.
//!
//! The items of a batch are `RaggedTensor`s, so a tensor of ragged rank 1, whose rows are
//! dense, does not unbatch here (TF's unbatch gives its rows as dense tensors): the error
//! points to [`RaggedTensor::unstack_rows`] and [`RaggedTensor::rows`], which do.

use super::{RaggedTensor, RaggedTensorSpec, arg_error, i64_tensor, splits_of};
use crate::batch::{BatchEncoder, concat_rows_counted, slice_rows};
use crate::types::size::running_splits;
use crate::{Dim, Result, Shape, Tensor, TensorSpec, with_element};

/// The batch encoder of [`RaggedTensor`] (named by its `#[extype(batchable = RaggedBatch)]`).
#[derive(Debug, Clone, Copy)]
pub struct RaggedBatch;

/// A splits spec of unknown length.
fn any_splits() -> TensorSpec {
    TensorSpec::new(Shape::from_dims([Dim::Unknown]), crate::DType::I64)
}

/// A flat-values spec with an unknown number of rows.
fn any_rows(flat: &TensorSpec) -> TensorSpec {
    let shape = match flat.shape.dims() {
        Some(dims) if !dims.is_empty() => {
            Shape::from_dims(std::iter::once(Dim::Unknown).chain(dims[1..].iter().cloned()))
        }
        _ => flat.shape.clone(),
    };
    TensorSpec::new(shape, flat.dtype)
}

impl BatchEncoder<RaggedTensor> for RaggedBatch {
    fn batched_spec(spec: &RaggedTensorSpec, n: Option<usize>) -> RaggedTensorSpec {
        let outer = match n {
            Some(n) => TensorSpec::new(Shape::known(&[n + 1]), crate::DType::I64),
            None => any_splits(),
        };
        let mut nested = vec![outer];
        nested.extend(spec.nested_row_splits.iter().map(|_| any_splits()));
        let mut uniform = vec![None];
        uniform.extend(spec.uniform_row_lengths.iter().cloned());
        RaggedTensorSpec {
            flat_values: any_rows(&spec.flat_values),
            nested_row_splits: nested,
            uniform_row_lengths: uniform,
        }
    }

    fn unbatched_spec(spec: &RaggedTensorSpec) -> Result<RaggedTensorSpec> {
        if spec.nested_row_splits.len() < 2 {
            return Err(arg_error(
                "unbatch",
                "spec",
                "a ragged spec of ragged rank at least 2 (a batch of ragged tensors; the rows \
                 of ragged rank 1 are dense: `RaggedTensor::unstack_rows` gives them)",
                format!("ragged rank {}", spec.nested_row_splits.len()),
            ));
        }
        Ok(RaggedTensorSpec {
            flat_values: any_rows(&spec.flat_values),
            nested_row_splits: spec.nested_row_splits[1..]
                .iter()
                .map(|_| any_splits())
                .collect(),
            uniform_row_lengths: spec.uniform_row_lengths[1..].to_vec(),
        })
    }

    fn batch_len(batch: &RaggedTensor) -> Result<usize> {
        Ok(batch.nrows())
    }

    fn stack(items: &[&RaggedTensor]) -> Result<RaggedTensor> {
        let Some(first) = items.first() else {
            return Err(arg_error(
                "stack",
                "items",
                "at least one ragged tensor",
                "none",
            ));
        };
        let rr = first.ragged_rank();
        for (i, item) in items.iter().enumerate() {
            if item.ragged_rank() != rr
                || item.uniform_row_lengths != first.uniform_row_lengths
                || item.dtype() != first.dtype()
                || item.flat_values.shape()[1..] != first.flat_values.shape()[1..]
            {
                return Err(arg_error(
                    "stack",
                    &format!("item {i}"),
                    format!("a ragged tensor like item 0, {}", super::describe(first)),
                    format!("{} of dtype {}", super::describe(item), item.dtype()),
                ));
            }
        }
        let outer = running_splits("stack", "items", items.iter().map(|r| r.nrows()))?;
        let mut nested = Vec::with_capacity(rr.saturating_add(1));
        nested.push(i64_tensor(outer));
        for level in 0..rr {
            nested.push(joined_splits("stack", items.iter().copied(), level)?);
        }
        let flat_values = joined_flat_values("stack", items)?;
        let mut uniform = vec![None];
        uniform.extend(first.uniform_row_lengths.iter().cloned());
        Ok(RaggedTensor::from_parts_unchecked(
            flat_values,
            nested,
            uniform,
        ))
    }

    /// Zero rows: every level's splits `[0]` (the batch's outer level and each of the items'),
    /// no flat values (their inner dimensions the spec's, unknown sizes 0).
    fn empty(spec: &RaggedTensorSpec) -> Option<Result<RaggedTensor>> {
        let Some(dims) = spec.flat_values.shape.dims() else {
            return Some(Err(arg_error(
                "stack_with_spec",
                "spec",
                "flat values of known rank for an empty batch",
                spec.flat_values.to_string(),
            )));
        };
        let mut shape = vec![0usize];
        shape.extend(dims.iter().skip(1).map(|d| d.value().unwrap_or(0)));
        let flat = with_element!(spec.flat_values.dtype, T => {
            crate::ndarray::ArrayD::<T>::from_shape_vec(crate::ndarray::IxDyn(&shape), Vec::new())
                .map(Tensor::from)
        });
        let flat = match flat {
            Ok(flat) => flat,
            Err(e) => {
                return Some(Err(arg_error(
                    "stack_with_spec",
                    "spec",
                    "flat values of zero rows",
                    format!("{shape:?}: {e}"),
                )));
            }
        };
        let splits = (0..=spec.nested_row_splits.len())
            .map(|_| i64_tensor(vec![0]))
            .collect();
        let mut uniform = vec![None];
        uniform.extend(spec.uniform_row_lengths.iter().cloned());
        Some(Ok(RaggedTensor::from_parts_unchecked(
            flat, splits, uniform,
        )))
    }

    /// The flat values, nested in one list level per ragged dimension (the row splits the
    /// offsets, outermost first): Arrow's nested lists, as `extype-arrow` writes a column of
    /// ragged tensors. Every ragged tensor is such a nest, of ragged rank 1 too.
    fn list_layout(spec: &RaggedTensorSpec) -> Option<crate::batch::ListLayout> {
        Some(crate::batch::ListLayout {
            values: "flat_values".into(),
            splits: (0..spec.nested_row_splits.len())
                .map(|i| format!("nested_row_splits[{i}]"))
                .collect(),
        })
    }

    fn unstack(batch: RaggedTensor) -> Result<Vec<RaggedTensor>> {
        let rr = batch.ragged_rank();
        if rr < 2 {
            return Err(arg_error(
                "unstack",
                "batch",
                "a ragged tensor of ragged rank at least 2 (a batch of ragged tensors; the \
                 rows of ragged rank 1 are dense tensors: `RaggedTensor::unstack_rows` or \
                 `RaggedTensor::rows` gives them)",
                super::describe(&batch),
            ));
        }
        let levels: Vec<Vec<i64>> = batch
            .nested_row_splits
            .iter()
            .map(|s| splits_of(s).into_owned())
            .collect();
        let mut items = Vec::with_capacity(batch.nrows());
        for i in 0..batch.nrows() {
            let (mut start, mut end) = (levels[0][i] as usize, levels[0][i + 1] as usize);
            let mut nested = Vec::with_capacity(rr - 1);
            for s in &levels[1..] {
                let base = s[start];
                nested.push(i64_tensor(
                    s[start..=end].iter().map(|&v| v - base).collect(),
                ));
                (start, end) = (s[start] as usize, s[end] as usize);
            }
            let flat = slice_rows(&batch.flat_values, start, end)?;
            items.push(RaggedTensor::from_parts_unchecked(
                flat,
                nested,
                batch.uniform_row_lengths[1..].to_vec(),
            ));
        }
        Ok(items)
    }
}

impl RaggedTensor {
    /// Dense tensors of different lengths (axis 0) as the rows of one ragged tensor (TF's
    /// `dense_to_ragged_batch`): the items' flat values are concatenated once; their other
    /// axes must agree.
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use extype::Tensor;
    /// use ndarray::array;
    /// let items = [Tensor::from(array![1, 2, 3]), Tensor::from(array![4])];
    /// let batch = RaggedTensor::from_dense_batch(&items)?;
    /// assert_eq!(batch.to_string(), "i32[2, ?] [[1, 2, 3], [4]]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_dense_batch<'a>(
        items: impl IntoIterator<Item = &'a Tensor>,
    ) -> Result<RaggedTensor> {
        const OP: &str = "dense_to_ragged_batch";
        let items: Vec<&Tensor> = items.into_iter().collect();
        let Some(first) = items.first() else {
            return Err(arg_error(OP, "items", "at least one dense tensor", "none"));
        };
        for (i, t) in items.iter().enumerate() {
            if t.ndim() == 0 || t.dtype() != first.dtype() || t.shape()[1..] != first.shape()[1..] {
                return Err(arg_error(
                    OP,
                    &format!("item {i}"),
                    format!(
                        "a tensor of dtype {} and shape [?, {:?}] like item 0",
                        first.dtype(),
                        first.shape().get(1..).unwrap_or(&[])
                    ),
                    format!("dtype {} shape {:?}", t.dtype(), t.shape()),
                ));
            }
        }
        let splits = running_splits(OP, "items", items.iter().map(|t| t.shape()[0]))?;
        // The total is below `i64::MAX` (checked above).
        let nvals = splits[splits.len() - 1] as usize;
        let flat = concat_rows_counted(&items, nvals, "items")?;
        Ok(RaggedTensor::from_parts_unchecked(
            flat,
            vec![i64_tensor(splits)],
            vec![None],
        ))
    }
}

/// The flat values of `items` appended (axis 0), their row count checked to fit `i64` (the
/// splits' type) first: an error of `op` otherwise.
pub(super) fn joined_flat_values(op: &str, items: &[&RaggedTensor]) -> Result<Tensor> {
    let counts = running_splits(
        op,
        "flat_values",
        items.iter().map(|r| r.flat_values.shape()[0]),
    )?;
    let flats: Vec<&Tensor> = items.iter().map(|r| &r.flat_values).collect();
    // The total is below `i64::MAX` (checked above).
    concat_rows_counted(&flats, counts[counts.len() - 1] as usize, "flat_values")
}

/// The row splits of partition `level` of `items` joined end to end (each item's splits
/// rebased on the rows before it): the partition of their concatenation along axis 0, shared
/// by `stack` (below the new outer level) and `concat`; an error of `op` when the rows below
/// total more than `i64::MAX`.
pub(super) fn joined_splits<'a>(
    op: &str,
    items: impl Iterator<Item = &'a RaggedTensor> + Clone,
    level: usize,
) -> Result<Tensor> {
    // Each item's rows below start at the total of the items before it (checked to fit `i64`).
    let offsets = running_splits(
        op,
        "values",
        items.clone().map(|r| {
            let s = splits_of(&r.nested_row_splits[level]);
            // Checked splits: the last is non-negative.
            s[s.len() - 1] as usize
        }),
    )?;
    // Each item's splits are non-empty: at most `len` entries each (a length of a buffer).
    let total: usize = items
        .clone()
        .map(|r| r.nested_row_splits[level].len() - 1)
        .fold(0usize, usize::saturating_add);
    let mut splits = Vec::with_capacity(total.saturating_add(1));
    splits.push(0i64);
    for (item, &offset) in items.zip(&offsets) {
        let s = splits_of(&item.nested_row_splits[level]);
        // No overflow: `v <= s[last]`, and `offset + s[last]` is the next (checked) offset.
        splits.extend(s[1..].iter().map(|&v| v + offset));
    }
    Ok(i64_tensor(splits))
}

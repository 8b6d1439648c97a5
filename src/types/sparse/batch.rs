//! Batching of [`SparseTensor`]s, TensorFlow's encoding: a batch of `n` sparse tensors of rank
//! `r` is one sparse tensor of rank `r + 1` whose first index column is the item (TensorFlow's
//! `tf.data` batching and `tf.sparse` stacking). The batch's dense shape is `[n, …]` with each
//! axis the largest of the items' (TensorFlow's rule), so its spec is the batched join of the
//! item specs (`[2, 3]` and `[5, 3]` → `[n, !1, 3]`). Unbatching gives the items back, each with
//! its entries in their stored order; an item's dense shape is the batch's trailing axes, so
//! items of one dense shape come back exactly, and items of different shapes come back padded to
//! the batch's shape (what TensorFlow's `unbatch` gives).
//!
//! ```
//! use extype::batch::{stack, unstack, BatchableSpec};
//! use extype::types::SparseTensor;
//! use extype::ExtensionType;
//! use ndarray::array;
//! let a = SparseTensor::new(array![[0i64, 1]], array![1.0f32], &[2, 3])?;
//! let b = SparseTensor::new(array![[1i64, 0], [1, 2]], array![2.0f32, 3.0], &[2, 3])?;
//! let batch = stack(&[a.clone(), b.clone()])?;
//! assert_eq!(batch.to_string(),
//!     "f32[2, 2, 3] nnz=3 indices [[0, 0, 1], [1, 1, 0], [1, 1, 2]] values [1.0, 2.0, 3.0]");
//! assert_eq!(batch.spec(), a.spec().batched(Some(2)));
//! assert_eq!(unstack(batch)?, vec![a, b]);
//! # Ok::<(), extype::Error>(())
//! ```

use super::{SparseTensor, SparseTensorSpec};
use crate::batch::BatchEncoder;
use crate::ndarray::{Array1, Array2, Ix1};
use crate::{Dim, Error, Result, Shape, Tensor, with_element};

/// The batch encoder of [`SparseTensor`] (named by `#[extype(batchable = SparseBatch)]`).
pub struct SparseBatch;

impl BatchEncoder<SparseTensor> for SparseBatch {
    fn batched_spec(spec: &SparseTensorSpec, n: Option<usize>) -> SparseTensorSpec {
        let lead = Shape::from_dims([n.map_or(Dim::Unknown, Dim::Known)]);
        SparseTensorSpec::new(lead.concatenate(spec.dense_shape()), spec.dtype())
    }

    fn unbatched_spec(spec: &SparseTensorSpec) -> Result<SparseTensorSpec> {
        let shape = match spec.dense_shape().dims() {
            None => Shape::unknown_rank(),
            Some([]) => {
                return Err(Error::invalid(
                    "a rank-0 SparseTensor spec has no batch axis to unbatch",
                ));
            }
            Some(dims) => Shape::from_dims(dims[1..].to_vec()),
        };
        Ok(SparseTensorSpec::new(shape, spec.dtype()))
    }

    fn batch_len(batch: &SparseTensor) -> Result<usize> {
        batch
            .dense_shape()
            .first()
            .copied()
            .ok_or_else(|| Error::invalid("a rank-0 SparseTensor has no batch axis"))
    }

    fn stack(items: &[&SparseTensor]) -> Result<SparseTensor> {
        let Some(first) = items.first() else {
            return Err(Error::invalid("stack: no SparseTensor to stack"));
        };
        let (rank, dtype) = (first.rank(), first.dtype());
        let mut shape = vec![0usize; rank];
        for (i, x) in items.iter().enumerate() {
            if x.rank() != rank || x.dtype() != dtype {
                return Err(Error::invalid(format!(
                    "stack: item {i} is {}{:?}, item 0 {dtype}{:?}: items need one dtype and rank",
                    x.dtype(),
                    x.dense_shape(),
                    first.dense_shape()
                )));
            }
            for (s, &d) in shape.iter_mut().zip(x.dense_shape()) {
                *s = (*s).max(d);
            }
        }
        // Each item's first entry (the entries in all checked to fit `i64`: an item may repeat).
        let rows = super::running_splits("stack", "items", items.iter().map(|x| x.nnz()))?;
        let mut indices = Array2::<i64>::zeros((rows[items.len()] as usize, rank + 1));
        for (i, (x, w)) in items.iter().zip(rows.windows(2)).enumerate() {
            let idx = x.indices_array();
            let mut block = indices.slice_mut(crate::ndarray::s![w[0] as usize..w[1] as usize, ..]);
            block.column_mut(0).fill(i as i64);
            block.slice_mut(crate::ndarray::s![.., 1..]).assign(&idx);
        }
        let values: Vec<crate::Operand<'_>> = items
            .iter()
            .map(|x| crate::ops::AsOperand::as_operand(x.values()))
            .collect();
        let values: Tensor = crate::ops::concat_as(&values, 0)?;
        let mut dense_shape = vec![items.len()];
        dense_shape.extend(shape);
        super::check_dims("stack: the batch's dense_shape", &dense_shape)?;
        let canonical = items.iter().all(|x| x.is_canonical()).then_some(true);
        Ok(SparseTensor::from_parts_unchecked(
            indices,
            values,
            &dense_shape,
            canonical,
        ))
    }

    /// No entries, the dense shape `[0, …]` of the spec's (unknown sizes 0).
    fn empty(spec: &SparseTensorSpec) -> Option<Result<SparseTensor>> {
        let Some(dims) = spec.dense_shape().dims() else {
            return Some(Err(Error::invalid(
                "an empty SparseTensor batch needs a spec of known rank, found an unknown rank",
            )));
        };
        let mut dense_shape = vec![0usize];
        dense_shape.extend(dims.iter().map(|d| d.value().unwrap_or(0)));
        let values = with_element!(spec.dtype(), T => Tensor::from(Array1::<T>::from(Vec::new())));
        let indices = Array2::<i64>::zeros((0, dense_shape.len()));
        Some(Ok(SparseTensor::from_parts_unchecked(
            indices,
            values,
            &dense_shape,
            Some(true),
        )))
    }

    fn unstack(batch: SparseTensor) -> Result<Vec<SparseTensor>> {
        let n = Self::batch_len(&batch)?;
        let idx = batch.indices_array();
        let item_shape = &batch.dense_shape()[1..];
        // The entries of each item, in stored order (a counting sort by item: every first index
        // is below `n`, checked for every value).
        let items_of = || idx.column(0).into_iter().map(|&i| Some(i as usize));
        let grouped = extype_kernels::buckets::group("unstack", items_of, n)
            .map_err(super::kernel_error("unstack"))?;
        let mut items = super::super::size::try_reserved("unstack", "the SparseTensor items", n)?;
        let canonical = batch.is_canonical().then_some(true);
        for item in 0..n {
            let entries = grouped.of(item);
            let indices = Array2::from_shape_fn((entries.len(), item_shape.len()), |(r, c)| {
                idx[[entries[r], c + 1]]
            });
            let values = with_element!(batch.dtype(), T => {
                let v = batch.values().as_array::<T, Ix1>()?;
                Tensor::from(entries.iter().map(|&e| v[e]).collect::<Array1<T>>())
            });
            items.push(SparseTensor::from_parts_unchecked(
                indices, values, item_shape, canonical,
            ));
        }
        Ok(items)
    }
}

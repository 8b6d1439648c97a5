//! Ops that move the entries of a [`SparseTensor`], as `tf.sparse` does them:
//!
//! - [`concat`](SparseTensor::concat) along any axis (negative counts from the end), with
//!   `expand_nonconcat_dims` (the other axes take the largest size instead of having to match);
//!   the result is sorted as TensorFlow sorts it (each input with the concat axis first, then the
//!   whole in row-major order, with its `std::sort`, so repeated indices come out in its order).
//!   TensorFlow's errors: "Ranks of all input tensors must match", "Input shapes must match:
//!   expected 2 for dimension 0 but got 3 at position 1", "Concat dimension must be in range
//!   [-2, 2), got 2". `ops::concat` of two
//!   SparseTensors dispatches here (any axis, without expansion); of more than two, along axis 0,
//!   the catalog's fallback joins them with the batch encoder (the same entries; trailing dense
//!   shapes that differ are padded to the largest instead of refused), and along another axis it
//!   has no handler (dispatch handlers take a fixed number of arguments): call
//!   `SparseTensor::concat`.
//! - [`slice`](SparseTensor::slice)`(start, size)`: the entries with `start <= index < start +
//!   size`, shifted by `start`; the result's dense shape is `size` clipped to the input's bounds
//!   (TensorFlow's `tf.sparse.slice`: a start past the end gives an empty slice, a negative
//!   start a slice that begins before index 0, and a negative size is its error "Expected a
//!   non-negative size, got -1").
//! - [`transpose`](SparseTensor::transpose)`(perm)` (`ops::transpose`): the indices' columns
//!   permuted, the result reordered as [`reorder`](SparseTensor::reorder), as TensorFlow. A
//!   `perm` that is not a permutation is an error (TensorFlow returns a malformed value for
//!   `[0, 0]`).
//! - [`reshape`](SparseTensor::reshape) (`ops::reshape`): same row-major offsets, new shape, one
//!   `-1` allowed, entry order kept (so a canonical input stays canonical); TensorFlow's "Input to
//!   reshape is a tensor with 6 dense values, but the requested shape has 8".
//! - `ops::cast`: the values cast, the indices kept.

use super::elementwise::{like, sparse_of};
use super::{SparseTensor, row_major_strides, running_splits};
use crate::dispatch::Call;
use crate::ndarray::Array2;
use crate::ops::infer::{self, Inferred};
use crate::ops::{self, AsOperand};
use crate::{Error, OpArgs, Result, Tensor, ValueSpec, dispatch};

impl SparseTensor {
    /// `xs` joined along `axis` (TensorFlow's `tf.sparse.concat(axis, sp_inputs,
    /// expand_nonconcat_dims)`), in canonical order.
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use ndarray::array;
    /// let a = SparseTensor::new(array![[0i64, 1], [1, 2]], array![1.0f32, 2.0], &[2, 3])?;
    /// let c = SparseTensor::new(array![[0i64, 0], [1, 1]], array![5.0f32, 6.0], &[2, 2])?;
    /// let j = SparseTensor::concat(&[&a, &c], 1, false)?;
    /// assert_eq!(j.to_string(), "f32[2, 5] nnz=4 indices [[0, 1], [0, 3], [1, 2], [1, 4]] values [1.0, 5.0, 2.0, 6.0]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn concat(
        xs: &[&SparseTensor],
        axis: isize,
        expand_nonconcat_dims: bool,
    ) -> Result<SparseTensor> {
        const OP: &str = "sparse concat";
        let Some(first) = xs.first() else {
            return Err(Error::unsupported(OP, "needs at least one SparseTensor"));
        };
        let rank = first.rank();
        let Some(ax) = extype_kernels::axis::normalize(axis, rank) else {
            return Err(Error::unsupported(
                OP,
                format!("Concat dimension must be in range [-{rank}, {rank}), got {axis}"),
            ));
        };
        let mut shape = first.dense_shape().to_vec();
        shape[ax] = 0;
        for (pos, x) in xs.iter().enumerate() {
            if x.rank() != rank {
                return Err(Error::unsupported(
                    OP,
                    format!(
                        "Ranks of all input tensors must match: expected {rank} but got {} at position {pos}",
                        x.rank()
                    ),
                ));
            }
            if x.dtype() != first.dtype() {
                return Err(Error::unsupported(
                    OP,
                    format!(
                        "dtypes of all inputs must match: expected {} but got {} at position {pos}",
                        first.dtype(),
                        x.dtype()
                    ),
                ));
            }
            for (d, (&have, &want)) in x.dense_shape().iter().zip(first.dense_shape()).enumerate() {
                if d == ax {
                    continue;
                }
                if expand_nonconcat_dims {
                    shape[d] = shape[d].max(have);
                } else if have != want {
                    return Err(Error::unsupported(
                        OP,
                        format!(
                            "Input shapes must match: expected {want} for dimension {d} but got {have} at position {pos}"
                        ),
                    ));
                }
            }
        }
        // The concat axis is the sum of the inputs' (checked: it may exceed `i64::MAX`).
        let mut offsets = Vec::with_capacity(xs.len());
        for (pos, x) in xs.iter().enumerate() {
            offsets.push(shape[ax]);
            shape[ax] = shape[ax]
                .checked_add(x.dense_shape()[ax])
                .filter(|&n| n <= i64::MAX as usize)
                .ok_or_else(|| {
                    Error::unsupported(
                        OP,
                        format!(
                            "the concatenated dimension {ax} exceeds 2^63 - 1 at position {pos} \
                             (adding {} to {})",
                            x.dense_shape()[ax],
                            shape[ax]
                        ),
                    )
                })?;
        }
        super::check_dims(OP, &shape)?;
        // TensorFlow reorders each input with the concat axis first, appends them, and reorders
        // the whole; an input's repeated indices keep the order those two sorts leave them in.
        let concat_order: Vec<usize> = std::iter::once(ax)
            .chain((0..rank).filter(|&d| d != ax))
            .collect();
        // Each input's first entry (the entries in all checked to fit `i64`: an input may repeat).
        let rows = running_splits(OP, "xs", xs.iter().map(|x| x.nnz()))?;
        let mut indices = Array2::<i64>::zeros((rows[xs.len()] as usize, rank));
        let mut values: Vec<Tensor> = Vec::with_capacity(xs.len());
        for ((x, &offset), w) in xs.iter().zip(&offsets).zip(rows.windows(2)) {
            let mut block = indices.slice_mut(crate::ndarray::s![w[0] as usize..w[1] as usize, ..]);
            if x.is_canonical() {
                // No ties: the first sort leaves nothing the second does not decide.
                block.assign(&x.indices_array());
                values.push(x.values().clone());
            } else {
                let (idx, vals) = x.permuted(&x.tf_order(&concat_order))?;
                block.assign(&idx);
                values.push(vals);
            }
            // In range: an index is below its input's size, and offset + size <= the checked sum.
            block.column_mut(ax).mapv_inplace(|i| i + offset as i64);
        }
        let values: Vec<crate::Operand<'_>> = values.iter().map(|v| v.as_operand()).collect();
        let values: Tensor = ops::concat_as(&values, 0)?;
        SparseTensor::from_parts_unchecked(indices, values, &shape, None).reorder()
    }

    /// The entries with `start <= index < start + size`, shifted by `start`
    /// (TensorFlow's `tf.sparse.slice`; the result's size is clipped to the bounds). As in
    /// TensorFlow, a negative start counts from before the first index (`start = [-1]`,
    /// `size = [3]` keeps indices 0 and 1 as 1 and 2 of a dense size 3); `start + size` is
    /// exact where TensorFlow's overflows, and a result whose dense size cannot exist is an
    /// error.
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use ndarray::array;
    /// let a = SparseTensor::new(array![[0i64, 1], [1, 2]], array![1.0f32, 2.0], &[2, 3])?;
    /// let s = a.slice(&[1, 1], &[5, 5])?;
    /// assert_eq!(s.to_string(), "f32[1, 2] nnz=1 indices [[0, 1]] values [2.0]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn slice(&self, start: &[i64], size: &[i64]) -> Result<SparseTensor> {
        const OP: &str = "sparse slice";
        let rank = self.rank();
        for (name, v) in [("start", start), ("size", size)] {
            if v.len() != rank {
                return Err(Error::unsupported(
                    OP,
                    format!(
                        "Expected {name} to be a vector of length {rank} but got length {}",
                        v.len()
                    ),
                ));
            }
        }
        if let Some(&bad) = size.iter().find(|&&n| n < 0) {
            return Err(Error::unsupported(
                OP,
                format!("Expected a non-negative size, got {bad}"),
            ));
        }
        // TensorFlow's output size: the overlap of `start..start + size` with `..input` (a
        // negative start counts from before the first index, as TensorFlow's does), in exact
        // arithmetic: `start + size` may pass either `i64` limit, where TensorFlow's overflows.
        let shape: Vec<usize> = (0..rank)
            .map(|d| {
                let (input, start, size) = (
                    self.dense_shape()[d] as i128,
                    start[d] as i128,
                    size[d] as i128,
                );
                (input.min(start + size) - start).max(0) as usize
            })
            .collect();
        // Each size is at most `size[d]`, but a negative start can make it exceed the input's,
        // and their product overflow (TensorFlow: "Encountered overflow when multiplying").
        super::check_dims(OP, &shape)?;
        let idx = self.indices_array();
        let keep: Vec<usize> = idx
            .outer_iter()
            .enumerate()
            .filter(|(_, row)| {
                row.iter()
                    .zip(start.iter().zip(&shape))
                    .all(|(&i, (&s, &n))| i >= s && ((i as i128 - s as i128) as u128) < n as u128)
            })
            .map(|(e, _)| e)
            .collect();
        // Kept entries have `start <= index < start + n`: the shifted index is in `0..n`, so
        // it fits (`n <= i64::MAX`).
        let indices =
            Array2::from_shape_fn((keep.len(), rank), |(r, c)| idx[[keep[r], c]] - start[c]);
        let perm: Vec<i64> = keep.iter().map(|&e| e as i64).collect();
        let values: Tensor = ops::gather_as(self.values(), &perm, 0)?;
        let canonical = self.is_canonical().then_some(true);
        Ok(SparseTensor::from_parts_unchecked(
            indices, values, &shape, canonical,
        ))
    }

    /// The axes permuted by `perm` (`None` reverses them), in canonical order (TensorFlow's
    /// `tf.sparse.transpose`).
    pub fn transpose(&self, perm: Option<&[usize]>) -> Result<SparseTensor> {
        let rank = self.rank();
        let perm: Vec<usize> = match perm {
            Some(p) => p.to_vec(),
            None => (0..rank).rev().collect(),
        };
        let mut seen = vec![false; rank];
        if perm.len() != rank
            || !perm
                .iter()
                .all(|&p| p < rank && !std::mem::replace(&mut seen[p], true))
        {
            return Err(Error::unsupported(
                "sparse transpose",
                format!("perm must be a permutation of 0..{rank}, found {perm:?}"),
            ));
        }
        let idx = self.indices_array();
        let indices = Array2::from_shape_fn((self.nnz(), rank), |(r, c)| idx[[r, perm[c]]]);
        let shape: Vec<usize> = perm.iter().map(|&p| self.dense_shape()[p]).collect();
        SparseTensor::from_parts_unchecked(indices, self.values().clone(), &shape, None).reorder()
    }

    /// The same elements in the dense shape `shape` (row-major; one entry may be `-1`, inferred),
    /// TensorFlow's `tf.sparse.reshape`; the entry order is kept.
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use ndarray::array;
    /// let a = SparseTensor::new(array![[0i64, 1], [1, 2]], array![1.0f32, 2.0], &[2, 3])?;
    /// assert_eq!(a.reshape(&[-1])?.indices_array(), array![[1i64], [5]]);
    /// let err = a.reshape(&[4, 2]).unwrap_err();
    /// assert!(err.to_string().contains("Input to reshape is a tensor with 6 dense values, but the requested shape has 8"), "{err}");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn reshape(&self, shape: &[i64]) -> Result<SparseTensor> {
        const OP: &str = "sparse reshape";
        // Offsets are computed in `usize`: the input's element count must fit (not its bytes).
        let total = super::dense_len(OP, self.dense_shape(), 1)?;
        // TensorFlow's checks and words, in its order.
        let unknown: Vec<usize> = (0..shape.len()).filter(|&i| shape[i] == -1).collect();
        if let [first, second, ..] = unknown[..] {
            return Err(Error::unsupported(
                OP,
                format!("only one output dimension may be -1, not both {first} and {second}"),
            ));
        }
        if let Some(d) = (0..shape.len()).find(|&d| shape[d] < -1) {
            return Err(Error::unsupported(
                OP,
                format!("size {d} must be non-negative, not {}", shape[d]),
            ));
        }
        // The product of the given sizes, exact (it may pass any integer width: an error then,
        // since the input's count is below 2^63).
        let known = shape
            .iter()
            .filter(|&&d| d >= 0)
            .try_fold(1u128, |p, &d| p.checked_mul(d as u128))
            .filter(|&p| p <= i64::MAX as u128)
            .ok_or_else(|| {
                Error::unsupported(
                    OP,
                    format!(
                        "the requested shape {shape:?} has more than 2^63 - 1 elements; the input \
                         has {total} (input_shape={:?})",
                        self.dense_shape()
                    ),
                )
            })?;
        let mut out: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        if let Some(&u) = unknown.first() {
            if known == 0 {
                return Err(Error::unsupported(
                    OP,
                    "reshape cannot infer the missing input size for an empty tensor unless all \
                     specified input sizes are non-zero",
                ));
            }
            if !(total as u128).is_multiple_of(known) {
                return Err(Error::unsupported(
                    OP,
                    format!(
                        "Input to reshape is a SparseTensor with {total} dense values, but the requested shape requires a multiple of {known}. input_shape={:?} output_shape={shape:?}",
                        self.dense_shape()
                    ),
                ));
            }
            out[u] = (total as u128 / known) as usize;
        } else if known != total as u128 {
            return Err(Error::unsupported(
                OP,
                format!(
                    "Input to reshape is a tensor with {total} dense values, but the requested shape has {known}. input_shape={:?} output_shape={shape:?}",
                    self.dense_shape()
                ),
            ));
        }
        super::check_dims(OP, &out)?;
        let strides = row_major_strides(&out);
        let offsets = self.linear_offsets();
        let indices = Array2::from_shape_fn((self.nnz(), out.len()), |(r, c)| {
            let o = offsets[r];
            ((o / strides[c]) % out[c].max(1)) as i64
        });
        let canonical = self.canonical.0.get().copied();
        Ok(SparseTensor::from_parts_unchecked(
            indices,
            self.values().clone(),
            &out,
            canonical,
        ))
    }
}

/// `ops::reshape(&sparse, shape)`.
#[dispatch(Reshape, infer = moved_spec)]
fn sparse_reshape(x: &SparseTensor, args: &OpArgs) -> Result<SparseTensor> {
    let shape = args
        .shape
        .as_deref()
        .ok_or_else(|| Error::unsupported("reshape", "needs a shape"))?;
    let shape: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    x.reshape(&shape)
}

/// `ops::transpose(&sparse, perm)`.
#[dispatch(Transpose, infer = moved_spec)]
fn sparse_transpose(x: &SparseTensor, args: &OpArgs) -> Result<SparseTensor> {
    x.transpose(args.perm.as_deref())
}

/// `ops::cast(&sparse, dtype)`: the values cast.
#[dispatch(Cast, infer = moved_spec)]
fn sparse_cast(x: &SparseTensor, args: &OpArgs) -> Result<SparseTensor> {
    let dtype = args
        .dtype
        .ok_or_else(|| Error::unsupported("cast", "needs a dtype"))?;
    let values: Tensor = ops::cast_as(x.values(), dtype)?;
    Ok(SparseTensor::from_parts_unchecked(
        x.indices_array().to_owned(),
        values,
        x.dense_shape(),
        x.canonical.0.get().copied(),
    ))
}

/// `ops::concat(&[a, b, …], axis)` of SparseTensors (any number).
#[dispatch(Concat, infer = moved_spec)]
fn sparse_concat(xs: &[&SparseTensor], args: &OpArgs) -> Result<SparseTensor> {
    SparseTensor::concat(xs, args.axis, false)
}

/// The dense op's inference on the dense shapes, as a sparse spec.
fn moved_spec(call: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    let l = like(specs)?;
    let refs: Vec<&crate::TensorSpec> = l.iter().collect();
    sparse_of(infer::dense(call.op, &refs, call.args)?)
}

//! Constructors of a [`RaggedTensor`], each checking its input as TensorFlow's does (and
//! raising where TF raises), and the conversions to and from dense tensors.

use super::{RaggedTensor, arg_error, check_parts, check_splits, i64_tensor, splits_of};
use crate::ndarray::{Ix1, IxDyn};
use crate::ops;
use crate::{DType, Result, Tensor};

/// A rank-1 index tensor (`i64` kept as it is, no copy; `i32` widened) of argument `what` of
/// `op`.
fn index_tensor(op: &str, what: &str, t: Tensor) -> Result<Tensor> {
    let bad = |t: &Tensor| {
        arg_error(
            op,
            what,
            "a rank-1 tensor of dtype i64 or i32",
            format!("{}{:?}", t.dtype(), t.shape()),
        )
    };
    if t.ndim() != 1 {
        return Err(bad(&t));
    }
    match t.dtype() {
        DType::I64 => Ok(t),
        DType::I32 => Ok(i64_tensor(
            t.as_array::<i32, Ix1>()?
                .iter()
                .map(|&v| v as i64)
                .collect(),
        )),
        _ => Err(bad(&t)),
    }
}

/// The values of a constructor: rank at least 1.
fn values_of(op: &str, values: Tensor) -> Result<Tensor> {
    if values.ndim() == 0 {
        return Err(arg_error(
            op,
            "values",
            "a tensor of rank at least 1",
            format!("a scalar of dtype {}", values.dtype()),
        ));
    }
    Ok(values)
}

/// Row splits from row lengths (checked non-negative).
fn splits_from_lengths(op: &str, lengths: &[i64]) -> Result<Vec<i64>> {
    let mut splits = Vec::with_capacity(lengths.len() + 1);
    let mut total = 0i64;
    splits.push(0);
    for (i, &len) in lengths.iter().enumerate() {
        if len < 0 {
            return Err(arg_error(
                op,
                "row_lengths",
                "non-negative row lengths",
                format!("row_lengths[{i}] = {len}"),
            ));
        }
        total = total.checked_add(len).ok_or_else(|| {
            arg_error(
                op,
                "row_lengths",
                "row lengths whose sum fits in i64",
                "an overflow",
            )
        })?;
        splits.push(total);
    }
    Ok(splits)
}

impl RaggedTensor {
    /// Row `i` is `values[row_splits[i]..row_splits[i + 1]]` (TF's `from_row_splits`). The
    /// splits are `i64` or `i32`; they must start at 0, never decrease and end at the number
    /// of values (`values.shape[0]`), as TF checks.
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::array;
    /// let r = RaggedTensor::from_row_splits(array![1, 2, 3], array![0i32, 2, 3])?;
    /// assert_eq!(r.to_string(), "i32[2, ?] [[1, 2], [3]]");
    /// let err = RaggedTensor::from_row_splits(array![1, 2, 3], array![1i64, 3]).unwrap_err();
    /// assert_eq!(err.to_string(), "from_row_splits: row_splits: expected row splits starting at zero, found row_splits[0] = 1");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_row_splits(
        values: impl Into<Tensor>,
        row_splits: impl Into<Tensor>,
    ) -> Result<RaggedTensor> {
        const OP: &str = "from_row_splits";
        let values = values_of(OP, values.into())?;
        let splits = index_tensor(OP, "row_splits", row_splits.into())?;
        check_splits(OP, "row_splits", &splits_of(&splits), values.shape()[0])?;
        Ok(RaggedTensor::from_parts_unchecked(
            values,
            vec![splits],
            vec![None],
        ))
    }

    /// Row `i` has `row_lengths[i]` values, in order (TF's `from_row_lengths`): lengths are
    /// non-negative and sum to the number of values. The values are moved, not copied.
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::array;
    /// let r = RaggedTensor::from_row_lengths(array![1.0f64, 2.0, 3.0], array![2i64, 0, 1])?;
    /// assert_eq!(r.to_string(), "f64[3, ?] [[1.0, 2.0], [], [3.0]]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_row_lengths(
        values: impl Into<Tensor>,
        row_lengths: impl Into<Tensor>,
    ) -> Result<RaggedTensor> {
        const OP: &str = "from_row_lengths";
        let values = values_of(OP, values.into())?;
        let lengths = index_tensor(OP, "row_lengths", row_lengths.into())?;
        let splits = splits_from_lengths(OP, &splits_of(&lengths))?;
        let total = splits[splits.len() - 1];
        if usize::try_from(total) != Ok(values.shape()[0]) {
            return Err(arg_error(
                OP,
                "row_lengths",
                format!(
                    "row lengths summing to the number of values ({})",
                    values.shape()[0]
                ),
                format!("a sum of {total}"),
            ));
        }
        Ok(RaggedTensor::from_parts_unchecked(
            values,
            vec![i64_tensor(splits)],
            vec![None],
        ))
    }

    /// Value `j` is in row `value_rowids[j]` (TF's `from_value_rowids(values, value_rowids,
    /// nrows)`): one id per value, sorted, non-negative, below `nrows`; rows with no value are
    /// empty.
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::array;
    /// let r = RaggedTensor::from_value_rowids(array![1, 2, 3], array![0i64, 0, 2], 4)?;
    /// assert_eq!(r.to_string(), "i32[4, ?] [[1, 2], [], [3], []]");
    /// let err = RaggedTensor::from_value_rowids(array![1, 2, 3], array![0i64, 0, 4], 4).unwrap_err();
    /// assert!(err.to_string().contains("expected nrows >= value_rowids[-1] + 1"), "{err}");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_value_rowids(
        values: impl Into<Tensor>,
        value_rowids: impl Into<Tensor>,
        nrows: usize,
    ) -> Result<RaggedTensor> {
        const OP: &str = "from_value_rowids";
        let values = values_of(OP, values.into())?;
        let ids = index_tensor(OP, "value_rowids", value_rowids.into())?;
        let ids = splits_of(&ids);
        if ids.len() != values.shape()[0] {
            return Err(arg_error(
                OP,
                "value_rowids",
                format!("one row id per value ({})", values.shape()[0]),
                format!("{} row ids", ids.len()),
            ));
        }
        // The ids are checked before the `nrows + 1` splits are allocated (a bad call with a
        // huge `nrows` must not take that memory first).
        let mut prev = 0i64;
        for (j, &id) in ids.iter().enumerate() {
            if id < 0 {
                return Err(arg_error(
                    OP,
                    "value_rowids",
                    "non-negative row ids",
                    format!("value_rowids[{j}] = {id}"),
                ));
            }
            if id < prev {
                return Err(arg_error(
                    OP,
                    "value_rowids",
                    "sorted row ids",
                    format!("value_rowids[{j}] = {id} after {prev}"),
                ));
            }
            if id as u64 >= nrows as u64 {
                return Err(arg_error(
                    OP,
                    "value_rowids",
                    format!("nrows >= value_rowids[-1] + 1 (nrows = {nrows})"),
                    format!("value_rowids[{j}] = {id}"),
                ));
            }
            prev = id;
        }
        let mut splits = zeroed_splits(OP, nrows)?;
        for &id in ids.iter() {
            splits[id as usize + 1] += 1;
        }
        for i in 1..splits.len() {
            splits[i] += splits[i - 1];
        }
        Ok(RaggedTensor::from_parts_unchecked(
            values,
            vec![i64_tensor(splits)],
            vec![None],
        ))
    }

    /// Rows of `uniform_row_length` values each (TF's `from_uniform_row_length`): `nrows` is
    /// `values.shape[0] / uniform_row_length` when not given (0 rows for a length of 0);
    /// `uniform_row_length * nrows` must equal the number of values. The dimension is uniform
    /// (known in the shape).
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use extype::TensorLike;
    /// use ndarray::array;
    /// let r = RaggedTensor::from_uniform_row_length(array![1, 2, 3, 4, 5, 6], 3, None)?;
    /// assert_eq!(r.shape().to_string(), "[2, 3]");
    /// let err = RaggedTensor::from_uniform_row_length(array![1, 2, 3], 2, None).unwrap_err();
    /// assert!(err.to_string().contains("uniform_row_length=2 times nrows=1 must equal nvals=3"), "{err}");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_uniform_row_length(
        values: impl Into<Tensor>,
        uniform_row_length: i64,
        nrows: Option<usize>,
    ) -> Result<RaggedTensor> {
        const OP: &str = "from_uniform_row_length";
        let values = values_of(OP, values.into())?;
        let (splits, len) = uniform_splits(OP, values.shape()[0], uniform_row_length, nrows)?;
        Ok(RaggedTensor::from_parts_unchecked(
            values,
            vec![splits],
            vec![Some(len)],
        ))
    }

    /// One partition per ragged dimension, outermost first (TF's `from_nested_row_splits`):
    /// each level's splits are checked against the number of rows of the level below.
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::array;
    /// let r = RaggedTensor::from_nested_row_splits(array![1, 2, 3, 4], vec![array![0i64, 2, 3].into(), array![0i64, 1, 1, 4].into()])?;
    /// assert_eq!(r.to_string(), "i32[2, ?, ?] [[[1], []], [[2, 3, 4]]]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_nested_row_splits(
        flat_values: impl Into<Tensor>,
        nested_row_splits: Vec<Tensor>,
    ) -> Result<RaggedTensor> {
        const OP: &str = "from_nested_row_splits";
        let values = values_of(OP, flat_values.into())?;
        let nested = nested_row_splits
            .into_iter()
            .enumerate()
            .map(|(i, s)| index_tensor(OP, &format!("nested_row_splits[{i}]"), s))
            .collect::<Result<Vec<_>>>()?;
        let uniform = vec![None; nested.len()];
        check_parts(OP, &values, &nested, &uniform)?;
        Ok(RaggedTensor::from_parts_unchecked(values, nested, uniform))
    }

    /// A ragged tensor whose rows are the rows of `self` grouped by one more outer partition
    /// of `uniform_row_length` rows each: a uniform dimension *between* this tensor's ragged
    /// ones (TF: `from_uniform_row_length(rt, n)`).
    pub fn with_uniform_outer(&self, uniform_row_length: i64) -> Result<RaggedTensor> {
        const OP: &str = "from_uniform_row_length";
        let (splits, len) = uniform_splits(OP, self.nrows(), uniform_row_length, None)?;
        let mut nested = vec![splits];
        nested.extend(self.nested_row_splits.iter().cloned());
        let mut uniform = vec![Some(len)];
        uniform.extend(self.uniform_row_lengths.iter().cloned());
        Ok(RaggedTensor::from_parts_unchecked(
            self.flat_values.clone(),
            nested,
            uniform,
        ))
    }

    /// A ragged tensor whose rows are this tensor's rows grouped by `row_splits` (TF's
    /// `from_row_splits(rt, splits)`): one more ragged dimension, outermost.
    pub fn with_outer_splits(&self, row_splits: impl Into<Tensor>) -> Result<RaggedTensor> {
        const OP: &str = "from_row_splits";
        let splits = index_tensor(OP, "row_splits", row_splits.into())?;
        check_splits(OP, "row_splits", &splits_of(&splits), self.nrows())?;
        let mut nested = vec![splits];
        nested.extend(self.nested_row_splits.iter().cloned());
        let mut uniform = vec![None];
        uniform.extend(self.uniform_row_lengths.iter().cloned());
        Ok(RaggedTensor::from_parts_unchecked(
            self.flat_values.clone(),
            nested,
            uniform,
        ))
    }

    /// The same partitions with new flat values (TF's `with_flat_values`), e.g. the values
    /// mapped by an op: `new` must have as many rows (axis 0) as the flat values. The
    /// partitions — and their derived encodings — are shared, so the result combines with
    /// `self` without any check.
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use extype::ops;
    /// use ndarray::array;
    /// let r = RaggedTensor::from_row_lengths(array![1.0f32, 4.0, 9.0], array![2i64, 1])?;
    /// let roots = r.with_flat_values(ops::sqrt_as::<extype::Tensor>(r.flat_values())?)?;
    /// assert!(roots.shares_partitions_with(&r));
    /// assert_eq!(roots.to_string(), "f32[2, ?] [[1.0, 2.0], [3.0]]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn with_flat_values(&self, new: impl Into<Tensor>) -> Result<RaggedTensor> {
        let new = new.into();
        if new.shape().first() != self.flat_values.shape().first() {
            return Err(arg_error(
                "with_flat_values",
                "new_values",
                format!(
                    "a tensor with {} rows (the flat values' axis 0)",
                    self.flat_values.shape()[0]
                ),
                format!("shape {:?}", new.shape()),
            ));
        }
        Ok(self.with_values_unchecked(new))
    }

    /// The rows of a dense tensor of rank ≥ 2 (TF's `from_tensor(tensor)`): every row full.
    pub fn from_tensor(dense: impl Into<Tensor>) -> Result<RaggedTensor> {
        let dense = dense_of("from_tensor", dense.into())?;
        let (nrows, ncols) = (dense.shape()[0], dense.shape()[1]);
        // One length per row, allocated fallibly: a dense tensor of zero-width rows holds no
        // data, yet may have far more rows than memory holds lengths.
        let lengths =
            crate::types::size::try_filled("from_tensor", "the row lengths", nrows, ncols as i64)?;
        from_dense_rows(&dense, &lengths)
    }

    /// The rows of a dense tensor, row `i` cut to its first `lengths[i]` entries (TF's
    /// `from_tensor(tensor, lengths=…)`). As TF, a length is clamped to `0..=ncols`: one
    /// longer than the row keeps the whole row, a negative one keeps nothing. One length per
    /// row, else an error.
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::array;
    /// let r = RaggedTensor::from_tensor_with_lengths(array![[1, 2, 3], [4, 5, 6]], array![1i64, 3])?;
    /// assert_eq!(r.to_string(), "i32[2, ?] [[1], [4, 5, 6]]");
    /// // Clamped to the row, as TF: 9 keeps all 3 entries, -1 keeps none.
    /// let r = RaggedTensor::from_tensor_with_lengths(array![[1, 2, 3], [4, 5, 6]], array![9i64, -1])?;
    /// assert_eq!(r.to_string(), "i32[2, ?] [[1, 2, 3], []]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_tensor_with_lengths(
        dense: impl Into<Tensor>,
        lengths: impl Into<Tensor>,
    ) -> Result<RaggedTensor> {
        const OP: &str = "from_tensor";
        let dense = dense_of(OP, dense.into())?;
        let lengths = index_tensor(OP, "lengths", lengths.into())?;
        let lengths = splits_of(&lengths).into_owned();
        let (nrows, ncols) = (dense.shape()[0], dense.shape()[1]);
        if lengths.len() != nrows {
            return Err(arg_error(
                OP,
                "lengths",
                format!("one length per row ({nrows})"),
                format!("{} lengths", lengths.len()),
            ));
        }
        // TF clamps: `minimum(lengths, ncols)`, then `maximum(lengths, 0)`.
        let ncols = i64::try_from(ncols).unwrap_or(i64::MAX);
        let lengths: Vec<i64> = lengths.iter().map(|&l| l.clamp(0, ncols)).collect();
        from_dense_rows(&dense, &lengths)
    }

    /// The rows of a dense tensor with their trailing `padding` entries removed (TF's
    /// `from_tensor(tensor, padding=…)`): an entry is padding when it equals `padding`
    /// everywhere. The padding is a Rust scalar (`0`, `&0`, `0.0f32`: it takes the tensor's
    /// dtype exactly, as a Python scalar does in TF, see [`Padding`]), a rank-0 tensor or array,
    /// or a tensor of the inner shape (of the tensor's dtype).
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::{array, arr0};
    /// let r = RaggedTensor::from_tensor_with_padding(array![[1, 0, 3, 0, 0], [0, 0, 0, 0, 0]], &0)?;
    /// assert_eq!(r.to_string(), "i32[2, ?] [[1, 0, 3], []]");
    /// // A rank-0 array works too, and an integer scalar pads a float tensor (taking its dtype).
    /// let r = RaggedTensor::from_tensor_with_padding(array![[1, 0], [0, 0]], arr0(0))?;
    /// assert_eq!(r.to_string(), "i32[2, ?] [[1], []]");
    /// let r = RaggedTensor::from_tensor_with_padding(array![[1.5f32, 0.0], [0.0, 0.0]], 0)?;
    /// assert_eq!(r.to_string(), "f32[2, ?] [[1.5], []]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_tensor_with_padding(
        dense: impl Into<Tensor>,
        padding: impl Padding,
    ) -> Result<RaggedTensor> {
        const OP: &str = "from_tensor";
        let dense = dense_of(OP, dense.into())?;
        let padding = padding.padding_for(&dense).map_err(|e| {
            arg_error(
                OP,
                "padding",
                format!("a padding value of the tensor's dtype {}", dense.dtype()),
                e.to_string(),
            )
        })?;
        let (nrows, ncols) = (dense.shape()[0], dense.shape()[1]);
        let is_pad: Tensor = ops::equal_as(&dense, &padding).map_err(|e| {
            arg_error(
                OP,
                "padding",
                "a padding value of the tensor's dtype and inner shape",
                e.to_string(),
            )
        })?;
        let is_pad: Tensor = if is_pad.ndim() > 2 {
            let inner: Vec<isize> = (2..is_pad.ndim() as isize).collect();
            ops::reduce_all_as(&is_pad, Some(&inner), false)?
        } else {
            is_pad
        };
        if is_pad.shape() != [nrows, ncols] {
            return Err(arg_error(
                OP,
                "padding",
                format!(
                    "a padding that broadcasts to the entries of shape {:?}",
                    &dense.shape()[2..]
                ),
                format!("shape {:?}", padding.shape()),
            ));
        }
        let pad = is_pad.as_array::<bool, IxDyn>()?;
        let lengths: Vec<i64> = pad
            .outer_iter()
            .map(|row| {
                let row: Vec<bool> = row.iter().copied().collect();
                (row.len() - row.iter().rev().take_while(|&&p| p).count()) as i64
            })
            .collect();
        from_dense_rows(&dense, &lengths)
    }

    /// A dense tensor (TF's `to_tensor(default_value, shape)`): rows padded with `default`
    /// (a scalar of the values' dtype; `None`: zero) to the bounding shape, or padded and
    /// truncated to `shape` (one entry per axis, `None` keeps the bounding size; the inner
    /// axes must keep their size).
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use extype::Tensor;
    /// use ndarray::{array, arr0};
    /// let r = RaggedTensor::from_row_lengths(array![1, 2, 3], array![2i64, 0, 1])?;
    /// assert_eq!(r.to_tensor(None, None)?, Tensor::from(array![[1, 2], [0, 0], [3, 0]].into_dyn()));
    /// let t = r.to_tensor(Some(&arr0(-1).into()), Some(&[Some(2), Some(3)]))?;
    /// assert_eq!(t, Tensor::from(array![[1, 2, -1], [-1, -1, -1]].into_dyn()));
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn to_tensor(
        &self,
        default: Option<&Tensor>,
        shape: Option<&[Option<usize>]>,
    ) -> Result<Tensor> {
        const OP: &str = "to_tensor";
        let rank = self.rank();
        if let Some(shape) = shape
            && shape.len() != rank
        {
            return Err(arg_error(
                OP,
                "shape",
                format!("one size (or None) per axis of the rank-{rank} tensor"),
                format!("{} sizes", shape.len()),
            ));
        }
        let inner = &self.flat_values.shape()[1..];
        if let Some(shape) = shape {
            for (k, (&want, &have)) in shape[1 + self.ragged_rank()..]
                .iter()
                .zip(inner)
                .enumerate()
            {
                if let Some(want) = want
                    && want != have
                {
                    return Err(arg_error(
                        OP,
                        "shape",
                        format!(
                            "inner axis {} of size {have} (inner axes are not resized)",
                            1 + self.ragged_rank() + k
                        ),
                        want.to_string(),
                    ));
                }
            }
        }
        let default_row = default_row(OP, self.dtype(), inner, default)?;
        let bounding = self.bounding_shape();
        let want = |axis: usize| shape.and_then(|s| s[axis]).unwrap_or(bounding[axis]);
        // The result's size first, before anything is allocated; an empty result is made
        // directly (its padded levels could be far larger than it).
        let out_shape: Vec<usize> = (0..=self.ragged_rank())
            .map(want)
            .chain(inner.iter().copied())
            .collect();
        let len = crate::types::size::dense_len(OP, &out_shape, self.dtype().size_of()).map_err(
            |_| {
                arg_error(
                    OP,
                    "shape",
                    "a dense shape whose size fits in memory (at most isize::MAX bytes)",
                    format!("{out_shape:?}"),
                )
            },
        )?;
        if len == 0 {
            return Ok(super::empty_tensor(self.dtype(), &out_shape));
        }
        let mut current = self.flat_values.clone();
        for level in (0..self.ragged_rank()).rev() {
            let splits = splits_of(&self.nested_row_splits[level]);
            current = pad_rows(&current, &splits, want(level + 1), &default_row)?;
        }
        // Axis 0: truncate or pad whole rows (one row of rows, padded to `want(0)`).
        let nrows = want(0);
        let have = current.shape()[0];
        if nrows != have {
            let mut shape = vec![nrows];
            shape.extend_from_slice(&current.shape()[1..]);
            let one = pad_rows(&current, &[0, have as i64], nrows, &default_row)?;
            current = ops::reshape_as(&one, &shape)?;
        }
        Ok(current)
    }
}

/// The padding of [`RaggedTensor::from_tensor_with_padding`]: a Rust scalar (by value or by
/// reference), which takes the padded tensor's dtype exactly (the rules of
/// [`ops::Scalar`](crate::ops::Scalar): `0` pads an `f32` tensor, `1.5` cannot pad an `i32`
/// one), or a tensor or array (rank 0 or the inner shape), taken as it is. Implemented for
/// the numeric scalars, `bool`, [`Tensor`], ndarray arrays and references to any of them.
pub trait Padding {
    /// The padding as a tensor to compare with the entries of `dense`.
    fn padding_for(&self, dense: &Tensor) -> Result<Tensor>;
}

impl<P: Padding + ?Sized> Padding for &P {
    fn padding_for(&self, dense: &Tensor) -> Result<Tensor> {
        (**self).padding_for(dense)
    }
}

impl Padding for Tensor {
    fn padding_for(&self, _: &Tensor) -> Result<Tensor> {
        Ok(self.clone())
    }
}

impl<A: crate::Element, S: crate::ndarray::Data<Elem = A>, D: crate::ndarray::Dimension> Padding
    for crate::ndarray::ArrayBase<S, D>
{
    fn padding_for(&self, _: &Tensor) -> Result<Tensor> {
        Ok(Tensor::from(self.to_owned().into_dyn()))
    }
}

macro_rules! scalar_paddings {
    ($($t:ty),*) => {$(
        /// A scalar: converted exactly to the padded tensor's dtype.
        impl Padding for $t {
            fn padding_for(&self, dense: &Tensor) -> Result<Tensor> {
                ops::scalar_like(&ops::catalog::EQUAL, dense, *self)
            }
        }
    )*};
}

scalar_paddings!(
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    crate::half::f16,
    crate::half::bf16
);

/// `bool`: pads a `bool` tensor (taken as a rank-0 `bool` tensor).
impl Padding for bool {
    fn padding_for(&self, _: &Tensor) -> Result<Tensor> {
        Ok(Tensor::from(crate::ndarray::arr0(*self).into_dyn()))
    }
}

/// `nrows + 1` zero splits, or an error naming `op` when they cannot be allocated.
fn zeroed_splits(op: &str, nrows: usize) -> Result<Vec<i64>> {
    let too_many = || {
        arg_error(
            op,
            "nrows",
            "a number of rows whose splits fit in memory",
            nrows.to_string(),
        )
    };
    let n = nrows.checked_add(1).ok_or_else(too_many)?;
    let mut splits = Vec::new();
    splits.try_reserve_exact(n).map_err(|_| too_many())?;
    splits.resize(n, 0i64);
    Ok(splits)
}

/// A dense operand of `from_tensor`: rank at least 2.
fn dense_of(op: &str, dense: Tensor) -> Result<Tensor> {
    if dense.ndim() < 2 {
        return Err(arg_error(
            op,
            "tensor",
            "a tensor of rank at least 2",
            format!("shape {:?}", dense.shape()),
        ));
    }
    Ok(dense)
}

/// The first `lengths[i]` entries of each row of `dense` (`[nrows, ncols, …]`) as a ragged
/// tensor of ragged rank 1.
fn from_dense_rows(dense: &Tensor, lengths: &[i64]) -> Result<RaggedTensor> {
    let (nrows, ncols) = (dense.shape()[0], dense.shape()[1]);
    let mut flat_shape = vec![nrows * ncols];
    flat_shape.extend_from_slice(&dense.shape()[2..]);
    let flat: Tensor = ops::reshape_as(dense, &flat_shape)?;
    let values = if lengths.iter().all(|&l| l as usize == ncols) {
        flat
    } else {
        let mut ids = Vec::with_capacity(lengths.iter().sum::<i64>() as usize);
        for (i, &len) in lengths.iter().enumerate() {
            let start = (i * ncols) as i64;
            ids.extend(start..start + len);
        }
        Tensor::take_rows(&flat, &ids)?
    };
    let splits = splits_from_lengths("from_tensor", lengths)?;
    Ok(RaggedTensor::from_parts_unchecked(
        values,
        vec![i64_tensor(splits)],
        vec![None],
    ))
}

/// The splits of a uniform partition of `nvals` rows into rows of `len`, as TF checks them.
fn uniform_splits(op: &str, nvals: usize, len: i64, nrows: Option<usize>) -> Result<(Tensor, i64)> {
    if len < 0 {
        return Err(arg_error(
            op,
            "uniform_row_length",
            "uniform_row_length must be >= 0",
            len.to_string(),
        ));
    }
    let nrows = match nrows {
        Some(n) => n,
        None if len == 0 => 0,
        None => nvals / len as usize,
    };
    if (nrows as u128) * (len as u128) != nvals as u128 {
        return Err(arg_error(
            op,
            "uniform_row_length",
            format!("uniform_row_length={len} times nrows={nrows} must equal nvals={nvals}"),
            format!("{} values", nvals),
        ));
    }
    Ok((
        {
            let mut splits = zeroed_splits(op, nrows)?;
            for (i, s) in splits.iter_mut().enumerate() {
                *s = i as i64 * len;
            }
            i64_tensor(splits)
        },
        len,
    ))
}

/// The default row (`[1, inner…]`) of `to_tensor`: `default` (a scalar or a tensor that
/// broadcasts to the inner shape) or zeros.
fn default_row(
    op: &str,
    dtype: DType,
    inner: &[usize],
    default: Option<&Tensor>,
) -> Result<Tensor> {
    let mut shape = vec![1usize];
    shape.extend_from_slice(inner);
    let scalar = match default {
        Some(d) => {
            if d.dtype() != dtype {
                return Err(arg_error(
                    op,
                    "default_value",
                    format!("a value of dtype {dtype} (the values' dtype)"),
                    format!("dtype {}", d.dtype()),
                ));
            }
            d.clone()
        }
        None => crate::tensor::Fill::Zero.scalar(dtype),
    };
    Tensor::broadcast_to(&scalar, &shape).map_err(|_| {
        arg_error(
            op,
            "default_value",
            format!("a value that broadcasts to the inner shape {inner:?}"),
            format!("shape {:?}", scalar.shape()),
        )
    })
}

/// Rows `splits[i]..splits[i + 1]` of `values` as a dense `[nrows, width, …]`, cut or padded
/// with `default_row` (`[1, …]`, the values' inner shape).
fn pad_rows(values: &Tensor, splits: &[i64], width: usize, default_row: &Tensor) -> Result<Tensor> {
    let nrows = splits.len() - 1;
    let cell: Vec<usize> = values.shape()[1..].to_vec();
    let mut shape = vec![nrows, width];
    shape.extend_from_slice(&cell);
    // The result's size first, then its memory, fallibly, before anything else is built: the
    // width comes from the caller's shape and may be far beyond the values.
    let too_large = || {
        arg_error(
            "to_tensor",
            "shape",
            "a dense shape whose size fits in memory",
            format!("{nrows} rows of {width} entries of shape {cell:?}"),
        )
    };
    let len = crate::types::size::dense_len("to_tensor", &shape, values.dtype().size_of())
        .map_err(|_| too_large())?;
    let mut one_cell = vec![1usize];
    one_cell.extend_from_slice(&cell);
    let fill = Tensor::broadcast_to(default_row, &one_cell)?;
    crate::with_element!(values.dtype(), T => {
        let v = values.as_array::<T, IxDyn>()?;
        let v = v.as_standard_layout();
        let v = v.as_slice().expect("standard layout");
        let fill = fill.as_array::<T, IxDyn>()?;
        let fill = fill.as_standard_layout();
        let fill = fill.as_slice().expect("standard layout");
        let step = fill.len();
        let mut out: Vec<T> = Vec::new();
        out.try_reserve_exact(len).map_err(|_| too_large())?;
        for w in splits.windows(2).filter(|_| step > 0) {
            // Checked splits: `0 <= w[0] <= w[1] <= the number of cells`.
            let (start, end) = (w[0] as usize, w[1] as usize);
            let kept = (end - start).min(width);
            out.extend_from_slice(&v[start * step..(start + kept) * step]);
            for _ in kept..width {
                out.extend_from_slice(fill);
            }
        }
        Ok(Tensor::from(
            crate::ndarray::ArrayD::from_shape_vec(IxDyn(&shape), out).expect("len cells"),
        ))
    })
}

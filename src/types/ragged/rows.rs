//! The rows of a [`RaggedTensor`] (TF's `rt[i]`, `rt[a:b]`, iteration and `unstack`) and its
//! columns (`rt[:, a:b]`, [`RaggedTensor::slice_columns`]): a row of
//! a ragged-rank-1 tensor is a dense tensor, a row of a tensor of ragged rank `k ≥ 2` a ragged
//! tensor of ragged rank `k − 1` ([`RaggedRow`]). Rows and slices are zero-copy views of the
//! flat values; only splits that do not start at 0 are rebased into new vectors.

use std::fmt;

use super::{RaggedTensor, arg_error, i64_tensor, slice_1d, splits_of};
use crate::{Result, Tensor, Value};

/// One row of a [`RaggedTensor`] (TF's `rt[i]`): a dense tensor for ragged rank 1 (TF returns
/// a `tf.Tensor` there), a ragged tensor of one less ragged rank otherwise (TF returns a
/// `tf.RaggedTensor`). Both view the ragged tensor's flat values (no value is copied).
///
/// ```
/// use extype::types::{RaggedRow, RaggedTensor};
/// use extype::Tensor;
/// use ndarray::array;
///
/// let r = RaggedTensor::from_row_lengths(array![1, 2, 3], array![2i64, 0, 1])?;
/// assert_eq!(r.row(0)?, RaggedRow::Dense(Tensor::from(array![1, 2].into_dyn())));
/// assert_eq!(r.row(-1)?.into_dense()?, Tensor::from(array![3].into_dyn()));
/// # Ok::<(), extype::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum RaggedRow {
    /// A row of a ragged-rank-1 tensor: a dense tensor of shape `[row length, inner…]`.
    Dense(Tensor),
    /// A row of a tensor of ragged rank `k ≥ 2`: a ragged tensor of ragged rank `k − 1`.
    Ragged(RaggedTensor),
}

impl RaggedRow {
    /// The dense row, if the tensor had ragged rank 1.
    pub fn as_dense(&self) -> Option<&Tensor> {
        match self {
            RaggedRow::Dense(t) => Some(t),
            RaggedRow::Ragged(_) => None,
        }
    }

    /// The ragged row, if the tensor had ragged rank 2 or more.
    pub fn as_ragged(&self) -> Option<&RaggedTensor> {
        match self {
            RaggedRow::Ragged(r) => Some(r),
            RaggedRow::Dense(_) => None,
        }
    }

    /// The dense row; an error for a ragged row (naming its shape).
    pub fn into_dense(self) -> Result<Tensor> {
        match self {
            RaggedRow::Dense(t) => Ok(t),
            RaggedRow::Ragged(r) => Err(arg_error(
                "into_dense",
                "row",
                "a dense row (a row of a ragged tensor of ragged rank 1)",
                format!("a ragged row, {}", super::describe(&r)),
            )),
        }
    }

    /// The ragged row; an error for a dense row (naming its shape).
    pub fn into_ragged(self) -> Result<RaggedTensor> {
        match self {
            RaggedRow::Ragged(r) => Ok(r),
            RaggedRow::Dense(t) => Err(arg_error(
                "into_ragged",
                "row",
                "a ragged row (a row of a ragged tensor of ragged rank at least 2)",
                format!("a dense row of shape {:?}", t.shape()),
            )),
        }
    }

    /// The row as a [`Value`] (a dense tensor or a `RaggedTensor` extension value).
    pub fn into_value(self) -> Value {
        self.into()
    }
}

impl From<RaggedRow> for Value {
    fn from(row: RaggedRow) -> Value {
        match row {
            RaggedRow::Dense(t) => Value::Tensor(t),
            RaggedRow::Ragged(r) => Value::from_extension(r),
        }
    }
}

/// The row as the tensor it is.
impl fmt::Display for RaggedRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RaggedRow::Dense(t) => t.fmt(f),
            RaggedRow::Ragged(r) => r.fmt(f),
        }
    }
}

/// The rows of a [`RaggedTensor`], front to back ([`RaggedTensor::rows`]).
#[derive(Debug, Clone)]
pub struct Rows<'a> {
    tensor: &'a RaggedTensor,
    front: usize,
    back: usize,
}

impl Iterator for Rows<'_> {
    type Item = RaggedRow;

    fn next(&mut self) -> Option<RaggedRow> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        Some(self.tensor.row_at(self.front - 1))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Rows<'_> {
    fn next_back(&mut self) -> Option<RaggedRow> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        Some(self.tensor.row_at(self.back))
    }
}

impl ExactSizeIterator for Rows<'_> {}

impl<'a> IntoIterator for &'a RaggedTensor {
    type Item = RaggedRow;
    type IntoIter = Rows<'a>;

    fn into_iter(self) -> Rows<'a> {
        self.rows()
    }
}

/// `s[a..=b]` of the splits `t` rebased to start at 0: a view of `t` when `s[a]` is 0 already.
fn rebased(t: &Tensor, s: &[i64], a: usize, b: usize) -> Tensor {
    if s[a] == 0 {
        slice_1d(t, a, b + 1)
    } else {
        i64_tensor(s[a..=b].iter().map(|&v| v - s[a]).collect())
    }
}

/// Python's index of `i` into `n` items: negative counts from the end; `None` out of range.
fn resolve_index(i: i64, n: usize) -> Option<usize> {
    let n = i64::try_from(n).ok()?;
    let i = if i < 0 { i.checked_add(n)? } else { i };
    (0..n).contains(&i).then_some(i as usize)
}

/// Python's slice bound: `None` is `default`, negative counts from the end, clamped to `0..=n`.
fn resolve_bound(b: Option<i64>, n: usize, default: usize) -> usize {
    let Some(b) = b else { return default };
    let n64 = i64::try_from(n).unwrap_or(i64::MAX);
    let b = if b < 0 { b.saturating_add(n64) } else { b };
    b.clamp(0, n64) as usize
}

impl RaggedTensor {
    /// Rows `start..end` (checked: `start <= end <= nrows`) as a ragged tensor of the same
    /// ragged rank: each level's splits cut and rebased, the flat values viewed.
    fn rows_between(&self, start: usize, end: usize) -> RaggedTensor {
        let mut nested = Vec::with_capacity(self.ragged_rank());
        let (mut a, mut b) = (start, end);
        for splits in &self.nested_row_splits {
            let s = splits_of(splits);
            nested.push(rebased(splits, &s, a, b));
            // Checked splits: non-negative, within the level below.
            (a, b) = (s[a] as usize, s[b] as usize);
        }
        let flat = crate::batch::slice_rows(&self.flat_values, a, b)
            .unwrap_or_else(|_| self.flat_values.clone());
        RaggedTensor::from_parts_unchecked(flat, nested, self.uniform_row_lengths.clone())
    }

    /// Row `i` (checked `< nrows`).
    fn row_at(&self, i: usize) -> RaggedRow {
        let s = splits_of(&self.nested_row_splits[0]);
        // Checked splits: non-negative, within the values.
        let (a, b) = (s[i] as usize, s[i + 1] as usize);
        match self.values() {
            Err(flat) => RaggedRow::Dense(
                crate::batch::slice_rows(&flat, a, b).unwrap_or_else(|_| flat.clone()),
            ),
            Ok(values) => RaggedRow::Ragged(values.rows_between(a, b)),
        }
    }

    /// Row `i` (TF's `rt[i]`; negative `i` counts from the end): a dense tensor for ragged rank
    /// 1, a ragged tensor of one less ragged rank otherwise ([`RaggedRow`]), viewing the flat
    /// values. An index out of range is an error naming it and the number of rows (TF raises
    /// too).
    ///
    /// ```
    /// let r = extype::ragged![[[1, 2], [3]], [], [[4]]]?;
    /// assert_eq!(r.row(0)?.to_string(), "i32[2, ?] [[1, 2], [3]]");
    /// assert_eq!(r.row(-1)?.to_string(), "i32[1, ?] [[4]]");
    /// assert_eq!(
    ///     r.row(3).unwrap_err().to_string(),
    ///     "row: i: expected a row index within -3..3 (the tensor has 3 rows; a negative \
    ///      index counts from the end), found 3"
    /// );
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn row(&self, i: i64) -> Result<RaggedRow> {
        let n = self.nrows();
        let i = resolve_index(i, n).ok_or_else(|| {
            arg_error(
                "row",
                "i",
                format!(
                    "a row index within -{n}..{n} (the tensor has {n} rows; a negative index \
                     counts from the end)"
                ),
                i.to_string(),
            )
        })?;
        Ok(self.row_at(i))
    }

    /// The rows, front to back (TF's iteration over a ragged tensor): an
    /// [`ExactSizeIterator`] of [`RaggedRow`]s, each a view of the flat values. `&RaggedTensor`
    /// iterates the same way (`for row in &r`).
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use ndarray::array;
    ///
    /// let r = RaggedTensor::from_row_lengths(array![1.0f32, 2.0, 3.0], array![2i64, 0, 1])?;
    /// let lens: Vec<usize> = r.rows().map(|row| row.as_dense().unwrap().len()).collect();
    /// assert_eq!(lens, [2, 0, 1]);
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn rows(&self) -> Rows<'_> {
        Rows {
            tensor: self,
            front: 0,
            back: self.nrows(),
        }
    }

    /// The rows of a ragged-rank-1 tensor as dense tensors (TF's `tf.unstack(rt)` and
    /// `Dataset.unbatch()` of a ragged-rank-1 tensor: its rows as `tf.Tensor`s), each a view of
    /// the flat values. For ragged rank 2 or more the rows are ragged: an error pointing to
    /// [`batch::unstack`](crate::batch::unstack) and [`rows`](Self::rows).
    ///
    /// `batch::unstack` of a `RaggedTensor` yields `RaggedTensor`s (its item type), so it cannot
    /// return dense rows: for ragged rank 1 it refuses and points here (a deliberate difference
    /// from TF, whose unbatch returns the dense rows).
    ///
    /// ```
    /// use extype::types::RaggedTensor;
    /// use extype::Tensor;
    /// use ndarray::array;
    ///
    /// let r = RaggedTensor::from_row_lengths(array![1, 2, 3], array![2i64, 0, 1])?;
    /// let rows = r.unstack_rows()?;
    /// assert_eq!(rows[0], Tensor::from(array![1, 2].into_dyn()));
    /// assert_eq!(rows[1].shape(), [0]);
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn unstack_rows(&self) -> Result<Vec<Tensor>> {
        if self.ragged_rank() != 1 {
            return Err(arg_error(
                "unstack_rows",
                "tensor",
                "a ragged tensor of ragged rank 1 (whose rows are dense; for ragged rows use \
                 `batch::unstack` or `RaggedTensor::rows`)",
                super::describe(self),
            ));
        }
        let mut rows = crate::types::size::try_reserved("unstack_rows", "the rows", self.nrows())?;
        rows.extend(self.rows().filter_map(|r| r.as_dense().cloned()));
        Ok(rows)
    }

    /// Rows `start..stop` (TF's `rt[start:stop]`, Python's slice semantics: `None` is the
    /// start or the end, a negative bound counts from the end, bounds are clamped to the rows,
    /// and `stop <= start` gives no rows; never an error). A ragged tensor of the same ragged
    /// rank whose flat values view this one's (splits that do not start at 0 are rebased into
    /// new vectors).
    ///
    /// ```
    /// let r = extype::ragged![[1, 2], [], [3], [4, 5, 6]]?;
    /// assert_eq!(r.slice_rows(1, 3).to_string(), "i32[2, ?] [[], [3]]");
    /// assert_eq!(r.slice_rows(-2, None).to_string(), "i32[2, ?] [[3], [4, 5, 6]]");
    /// assert_eq!(r.slice_rows(None, 100).nrows(), 4);
    /// assert_eq!(r.slice_rows(3, 1).nrows(), 0);
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn slice_rows(
        &self,
        start: impl Into<Option<i64>>,
        stop: impl Into<Option<i64>>,
    ) -> RaggedTensor {
        let n = self.nrows();
        let start = resolve_bound(start.into(), n, 0);
        let stop = resolve_bound(stop.into(), n, n).max(start);
        self.rows_between(start, stop)
    }

    /// Each row cut to its entries `start..stop` (TF's `rt[:, start:stop]`, the ragged axis 1):
    /// Python's slice semantics per row, as TF's — `None` is the row's start or end, a negative
    /// bound counts from the end of that row, bounds are clamped to the row's length, and
    /// `stop <= start` leaves the row empty; never an error. The same number of rows and the
    /// same ragged rank; an outermost partition of uniform length stays uniform.
    ///
    /// ```
    /// let r = extype::ragged![[1, 2, 3], [], [4, 5], [6]]?;
    /// assert_eq!(r.slice_columns(None, 2)?.to_string(), "i32[4, ?] [[1, 2], [], [4, 5], [6]]");
    /// assert_eq!(r.slice_columns(-1, None)?.to_string(), "i32[4, ?] [[3], [], [5], [6]]");
    /// assert_eq!(r.slice_columns(1, -1)?.to_string(), "i32[4, ?] [[2], [], [], []]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn slice_columns(
        &self,
        start: impl Into<Option<i64>>,
        stop: impl Into<Option<i64>>,
    ) -> Result<RaggedTensor> {
        const OP: &str = "slice_columns";
        let (start, stop) = (start.into(), stop.into());
        let s = splits_of(&self.nested_row_splits[0]);
        let mut splits = crate::types::size::try_reserved(OP, "the row splits", s.len())?;
        splits.push(0i64);
        let mut ids: Vec<i64> = Vec::new();
        for w in s.windows(2) {
            // Checked splits: non-decreasing, within the level below.
            let len = (w[1] - w[0]) as usize;
            let a = resolve_bound(start, len, 0);
            let b = resolve_bound(stop, len, len).max(a);
            ids.extend(w[0] + a as i64..w[0] + b as i64);
            splits.push(ids.len() as i64);
        }
        let (flat, mut nested, mut uniform) = match self.values() {
            Err(flat) => (Tensor::take_rows(&flat, &ids)?, Vec::new(), Vec::new()),
            Ok(values) => {
                let inner = values.gather(&ids)?;
                (
                    inner.flat_values,
                    inner.nested_row_splits,
                    inner.uniform_row_lengths,
                )
            }
        };
        // A uniform outermost partition: every row cut alike.
        let outer = self.uniform_row_lengths[0].map(|len| {
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            let a = resolve_bound(start, len, 0);
            (resolve_bound(stop, len, len).max(a) - a) as i64
        });
        nested.insert(0, i64_tensor(splits));
        uniform.insert(0, outer);
        Ok(RaggedTensor::from_parts_unchecked(flat, nested, uniform))
    }
}

impl RaggedTensor {
    /// TF's `tf.map_fn(f, rt)` with its default output signature (the input's row signature):
    /// `f` on each row, its results the rows of a new ragged tensor. Dense results (the rows of
    /// a ragged-rank-1 tensor, or any tensors of rank ≥ 1 agreeing after axis 0) become a
    /// ragged tensor of ragged rank 1; ragged results are stacked, one ragged rank more.
    ///
    /// An error of `f` is returned placed (`map_rows over RaggedTensor, item 2: …`), and so is
    /// a result that cannot be a row: a rank-0 tensor (use [`map_rows_dense`](Self::map_rows_dense)),
    /// a dtype or inner shape unlike row 0's, a ragged result among dense ones. No rows: `f`
    /// is not called, and the result is this tensor's empty slice (TF: the input's signature).
    ///
    /// ```
    /// let digits = extype::ragged![[3, 1, 4, 1], [], [5, 9, 2], [6], []]?;
    /// let squares = digits.map_rows(|row| {
    ///     let row = row.into_dense()?;
    ///     extype::ops::mul_as::<extype::Tensor>(&row, &row)
    /// })?;
    /// assert_eq!(squares.to_string(), "i32[5, ?] [[9, 1, 16, 1], [], [25, 81, 4], [36], []]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn map_rows<U, F>(&self, mut f: F) -> Result<RaggedTensor>
    where
        U: Into<RaggedRow>,
        F: FnMut(RaggedRow) -> Result<U>,
    {
        const OP: &str = "map_rows";
        if self.nrows() == 0 {
            return Ok(self.rows_between(0, 0));
        }
        let mut out = crate::types::size::try_reserved(OP, "the rows", self.nrows())?;
        for (i, row) in self.rows().enumerate() {
            out.push(f(row).map(Into::into).map_err(|e| row_error(OP, i, e))?);
        }
        match &out[0] {
            RaggedRow::Dense(_) => {
                let mut dense = Vec::with_capacity(out.len());
                for (i, row) in out.iter().enumerate() {
                    match row {
                        RaggedRow::Dense(t) if t.ndim() > 0 => dense.push(t),
                        other => {
                            return Err(row_error(
                                OP,
                                i,
                                not_a_row(other, "dense rows of rank ≥ 1 (as row 0)"),
                            ));
                        }
                    }
                }
                RaggedTensor::from_dense_batch(dense).map_err(|e| row_error(OP, 0, e))
            }
            RaggedRow::Ragged(_) => {
                let mut ragged = Vec::with_capacity(out.len());
                for (i, row) in out.iter().enumerate() {
                    match row {
                        RaggedRow::Ragged(r) => ragged.push(r),
                        other => {
                            return Err(row_error(
                                OP,
                                i,
                                not_a_row(other, "ragged rows (as row 0)"),
                            ));
                        }
                    }
                }
                RaggedTensor::stack(&ragged, 0)
            }
        }
    }

    /// TF's `tf.map_fn(f, rt, fn_output_signature=tf.TensorSpec(…))`: `f` on each row, its
    /// dense results (one shape and dtype) stacked along a new axis 0 — a row's sum, its
    /// length, a fixed-size summary.
    ///
    /// An error of `f` is returned placed (`map_rows_dense over RaggedTensor, item 2: …`), and
    /// so are results of different shapes or dtypes. No rows is an error: the result's shape
    /// and dtype are not known without `f`'s signature.
    ///
    /// ```
    /// use extype::Tensor;
    /// use ndarray::array;
    /// let r = extype::ragged![[1.0f32, 2.0], [], [3.0]]?;
    /// let sums = r.map_rows_dense(|row| extype::ops::reduce_sum_as(&row.into_dense()?, None, false))?;
    /// assert_eq!(sums, Tensor::from(array![3.0f32, 0.0, 3.0]));
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn map_rows_dense<F>(&self, mut f: F) -> Result<Tensor>
    where
        F: FnMut(RaggedRow) -> Result<Tensor>,
    {
        const OP: &str = "map_rows_dense";
        if self.nrows() == 0 {
            return Err(arg_error(
                OP,
                "tensor",
                "at least one row (without a row, the result's shape and dtype are unknown)",
                "no rows",
            ));
        }
        let mut out: Vec<Tensor> = crate::types::size::try_reserved(OP, "the rows", self.nrows())?;
        for (i, row) in self.rows().enumerate() {
            let t = f(row).map_err(|e| row_error(OP, i, e))?;
            if i > 0 && (t.shape() != out[0].shape() || t.dtype() != out[0].dtype()) {
                let first: &Tensor = &out[0];
                let e = arg_error(
                    OP,
                    "f",
                    format!(
                        "a result of dtype {} and shape {:?}, as row 0's",
                        first.dtype(),
                        first.shape()
                    ),
                    format!("dtype {} and shape {:?}", t.dtype(), t.shape()),
                );
                return Err(row_error(OP, i, e));
            }
            out.push(t);
        }
        crate::batch::stack(&out)
    }
}

/// An error of row `index`'s function or result, placed as `batch::map_fn` places an item's.
fn row_error(op: &'static str, index: usize, e: crate::Error) -> crate::Error {
    crate::BatchError::Map {
        op,
        type_name: "RaggedTensor".into(),
        index,
        source: Box::new(e),
    }
    .into()
}

/// A result that cannot be a row beside row 0's.
fn not_a_row(row: &RaggedRow, expected: &str) -> crate::Error {
    let found = match row {
        RaggedRow::Dense(t) => format!(
            "a dense tensor of dtype {} and shape {:?}",
            t.dtype(),
            t.shape()
        ),
        RaggedRow::Ragged(r) => format!("a ragged tensor, {}", super::describe(r)),
    };
    arg_error("map_rows", "f", expected, found)
}

impl From<Tensor> for RaggedRow {
    fn from(t: Tensor) -> RaggedRow {
        RaggedRow::Dense(t)
    }
}

impl From<RaggedTensor> for RaggedRow {
    fn from(r: RaggedTensor) -> RaggedRow {
        RaggedRow::Ragged(r)
    }
}

//! TensorFlow's segment max and min on floats (`tf.math.unsorted_segment_max` / `_min`, which
//! its ragged reductions over a ragged axis and over axis 0 use): each output starts at the
//! dtype's lowest (max) or highest (min) finite value, `limit`, and takes every value of its
//! segment in order as `acc = if v < acc { acc } else { v }` (max; mirrored for min). So a NaN
//! is kept unless a later value replaces it (`[nan, 1]` → 1, `[1, nan]` → NaN, `[2, nan, 3]` →
//! 3), and a segment of `-inf` alone has the lowest finite maximum (`[-inf]` →
//! `-3.4028235e38` in `f32`), where a dense maximum propagates NaN and keeps `-inf`.
//!
//! [`repair_rows`] turns the kernels' fast segment maximum into TF's (only rows holding a NaN
//! are folded again); [`by_position`] is TF's reduction over axis 0 of ragged rows.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};

use crate::error::{KernelError, Result};
use crate::layout::check_output;
use crate::reduce::segment::check_row_splits;

/// One step of TF's fold.
#[inline]
pub fn step<T: PartialOrd + Copy>(acc: T, v: T, max: bool) -> T {
    let keep = if max { v < acc } else { v > acc };
    if keep { acc } else { v }
}

/// TF's result from `reduced` (`[nrows, inner…]`: a plain max or min of each segment of
/// `values` by `row_splits`, `limit` in empty segments): `None` when it is TF's already (no
/// NaN, nothing beyond `limit`), else the repaired result.
///
/// ```
/// use extype_kernels::tf_order::segment_extreme::repair_rows;
/// let values = ndarray::array![f32::NAN, 1.0, 2.0, f32::NAN].into_dyn();
/// let plain = ndarray::array![f32::NAN, f32::NAN].into_dyn();
/// let tf = repair_rows(true, f32::MIN, values.view(), &[0, 2, 4], plain.view()).unwrap();
/// let tf = tf.unwrap();
/// assert_eq!(tf[[0]], 1.0); // [nan, 1] → 1
/// assert!(tf[[1]].is_nan()); // [2, nan] → nan
/// ```
pub fn repair_rows<T: PartialOrd + Copy>(
    max: bool,
    limit: T,
    values: ArrayViewD<'_, T>,
    row_splits: &[i64],
    reduced: ArrayViewD<'_, T>,
) -> Result<Option<ArrayD<T>>> {
    const OP: &str = "segment_extreme";
    check_row_splits(OP, row_splits, values.shape().first().copied().unwrap_or(0))?;
    let mut expected = vec![row_splits.len() - 1];
    expected.extend_from_slice(values.shape().get(1..).unwrap_or(&[]));
    if reduced.shape() != expected.as_slice() {
        return Err(KernelError::Shape {
            op: OP,
            arg: "reduced".into(),
            expected,
            found: reduced.shape().to_vec(),
        });
    }
    #[allow(clippy::eq_op)] // NaN is the one value not equal to itself.
    let clean = reduced.iter().all(|&v| v == v && step(limit, v, max) == v);
    if clean {
        return Ok(None);
    }
    let mut out = reduced.to_owned();
    for (r, mut row) in out.axis_iter_mut(Axis(0)).enumerate() {
        #[allow(clippy::eq_op)] // NaN is the one value not equal to itself.
        if row.iter().any(|&v| v != v) {
            row.fill(limit);
            // Checked above: the splits are non-decreasing and end inside `values`.
            for j in row_splits[r] as usize..row_splits[r + 1] as usize {
                row.zip_mut_with(&values.index_axis(Axis(0), j), |a, &v| {
                    *a = step(*a, v, max)
                });
            }
        } else {
            // No NaN: TF's result is the plain one, but never beyond the bound.
            row.mapv_inplace(|v| step(limit, v, max));
        }
    }
    Ok(Some(out))
}

/// TF's reduction over axis 0 of ragged rows (`values` by `row_splits`): output `k` folds the
/// `k`-th value of every row that has one, rows in order, from `limit`
/// (`[longest row, inner…]`).
///
/// ```
/// use extype_kernels::tf_order::segment_extreme::by_position;
/// let values = ndarray::array![1.0f64, 5.0, 3.0].into_dyn();
/// let out = by_position(true, f64::MIN, values.view(), &[0, 2, 3]).unwrap();
/// assert_eq!(out, ndarray::array![3.0f64, 5.0].into_dyn());
/// ```
pub fn by_position<T: PartialOrd + Copy>(
    max: bool,
    limit: T,
    values: ArrayViewD<'_, T>,
    row_splits: &[i64],
) -> Result<ArrayD<T>> {
    const OP: &str = "segment_extreme";
    check_row_splits(OP, row_splits, values.shape().first().copied().unwrap_or(0))?;
    let longest = row_splits
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .max()
        .unwrap_or(0);
    let mut shape = vec![longest];
    shape.extend_from_slice(values.shape().get(1..).unwrap_or(&[]));
    check_output::<T>(OP, &shape)?;
    let mut out = ArrayD::from_elem(IxDyn(&shape), limit);
    for w in row_splits.windows(2) {
        for (k, j) in (w[0] as usize..w[1] as usize).enumerate() {
            out.index_axis_mut(Axis(0), k)
                .zip_mut_with(&values.index_axis(Axis(0), j), |a, &v| {
                    *a = step(*a, v, max)
                });
        }
    }
    Ok(out)
}

//! TensorFlow's segment max and min on floats, which ragged reductions over a ragged axis and
//! over axis 0 use (`tf.math.unsorted_segment_max` / `_min`): each output starts at the
//! dtype's lowest (max) or highest (min) finite value and takes every value of its segment in
//! order as `acc = if v < acc { acc } else { v }` (max; mirrored for min). So a NaN is kept
//! unless a later value replaces it (`[nan, 1]` → 1, `[1, nan]` → NaN, `[2, nan, 3]` → 3), and a
//! segment of `-inf` alone has the lowest finite maximum (`[-inf]` → `-3.4028235e38` in `f32`),
//! where a dense `reduce_max` propagates NaN and keeps `-inf`.
//!
//! The rows' reduction keeps the kernels' fast segment max and repairs what differs: a result
//! beyond the finite bound becomes the bound, and a row whose result is NaN is folded again in
//! TF's order (only rows holding a NaN pay for it).

use crate::ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};
use crate::tensor::Fill;
use crate::{DType, Result, Tensor};

/// One step of TF's fold.
#[inline]
fn step<T: PartialOrd + Copy>(acc: T, v: T, max: bool) -> T {
    let keep = if max { v < acc } else { v > acc };
    if keep { acc } else { v }
}

/// Runs `$body` with `$t` the element type of a float `$dtype`; `$other` for other dtypes.
macro_rules! with_float {
    ($dtype:expr, $t:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            DType::F32 => {
                type $t = f32;
                $body
            }
            DType::F64 => {
                type $t = f64;
                $body
            }
            DType::F16 => {
                type $t = crate::half::f16;
                $body
            }
            DType::BF16 => {
                type $t = crate::half::bf16;
                $body
            }
            _ => $other,
        }
    };
}

/// The finite bound a fold starts from: the lowest finite value for max, the highest for min.
fn bound<T: crate::Element>(max: bool) -> Result<T> {
    let fill = if max {
        Fill::LowestFinite
    } else {
        Fill::HighestFinite
    };
    let t = fill.scalar(T::DTYPE);
    Ok(t.as_array::<T, IxDyn>()?[[]])
}

/// Repairs `reduced` (`[nrows, inner…]`: the kernels' max or min of each row of `flat` by
/// `splits`, the bound in empty rows) into TF's result. Other dtypes are returned as they are
/// (their fold is the plain max or min).
pub(super) fn repair_rows(
    max: bool,
    flat: &Tensor,
    splits: &[i64],
    reduced: Tensor,
) -> Result<Tensor> {
    with_float!(reduced.dtype(), T => {
        let limit = bound::<T>(max)?;
        // Most results need nothing: only then is the output copied.
        #[allow(clippy::eq_op)] // NaN is the one value not equal to itself.
        let clean = reduced
            .as_array::<T, IxDyn>()?
            .iter()
            .all(|&v| v == v && step(limit, v, max) == v);
        if clean {
            return Ok(reduced);
        }
        let values = flat.as_array::<T, IxDyn>()?;
        let mut out = reduced.as_array::<T, IxDyn>()?.to_owned();
        repair::<T>(max, limit, values, splits, &mut out);
        Ok(Tensor::from(out))
    }, _ => Ok(reduced))
}

fn repair<T: crate::Element + PartialOrd>(
    max: bool,
    limit: T,
    values: ArrayViewD<'_, T>,
    splits: &[i64],
    out: &mut ArrayD<T>,
) {
    for (r, mut row) in out.axis_iter_mut(Axis(0)).enumerate() {
        #[allow(clippy::eq_op)] // NaN is the one value not equal to itself.
        if row.iter().any(|&v| v != v) {
            row.fill(limit);
            for j in splits[r]..splits[r + 1] {
                row.zip_mut_with(&values.index_axis(Axis(0), j as usize), |a, &v| {
                    *a = step(*a, v, max)
                });
            }
        } else {
            // No NaN: TF's result is the plain one, but never beyond the bound.
            row.mapv_inplace(|v| step(limit, v, max));
        }
    }
}

/// TF's reduction over axis 0 of a ragged-rank-1 tensor (`flat` by `splits`): output `k`
/// folds the `k`-th value of every row that has one, rows in order (`[longest row, inner…]`).
/// `None` for dtypes other than floats (their fold is the plain max or min).
pub(super) fn by_position(max: bool, flat: &Tensor, splits: &[i64]) -> Result<Option<Tensor>> {
    with_float!(flat.dtype(), T => {
        let values = flat.as_array::<T, IxDyn>()?;
        let longest = splits.windows(2).map(|w| (w[1] - w[0]) as usize).max().unwrap_or(0);
        let mut shape = vec![longest];
        shape.extend_from_slice(&values.shape()[1..]);
        let mut out = ArrayD::from_elem(IxDyn(&shape), bound::<T>(max)?);
        for w in splits.windows(2) {
            for (k, j) in (w[0]..w[1]).enumerate() {
                out.index_axis_mut(Axis(0), k)
                    .zip_mut_with(&values.index_axis(Axis(0), j as usize), |a, &v| {
                        *a = step(*a, v, max)
                    });
            }
        }
        Ok(Some(Tensor::from(out)))
    }, _ => Ok(None))
}

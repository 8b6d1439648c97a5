//! TensorFlow's segment max and min on floats, for the ragged reductions over a ragged axis
//! and over axis 0: the kernels' [`tf_order::segment_extreme`] (what it computes and why is
//! documented there) for each float dtype, from the dtype's finite bound ([`Fill`]).

use extype_kernels::tf_order;

use crate::ndarray::IxDyn;
use crate::tensor::Fill;
use crate::{DType, Result, Tensor};

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
        let repaired = tf_order::segment_extreme::repair_rows(
            max,
            bound::<T>(max)?,
            flat.as_array::<T, IxDyn>()?,
            splits,
            reduced.as_array::<T, IxDyn>()?,
        )
        .map_err(kernel_error(max))?;
        // Most results need nothing: only then is the output copied.
        Ok(repaired.map_or(reduced, Tensor::from))
    }, _ => Ok(reduced))
}

/// TF's reduction over axis 0 of a ragged-rank-1 tensor (`flat` by `splits`): output `k`
/// folds the `k`-th value of every row that has one, rows in order (`[longest row, inner…]`).
/// `None` for dtypes other than floats (their fold is the plain max or min).
pub(super) fn by_position(max: bool, flat: &Tensor, splits: &[i64]) -> Result<Option<Tensor>> {
    with_float!(flat.dtype(), T => {
        let out = tf_order::segment_extreme::by_position(
            max,
            bound::<T>(max)?,
            flat.as_array::<T, IxDyn>()?,
            splits,
        )
        .map_err(kernel_error(max))?;
        Ok(Some(Tensor::from(out)))
    }, _ => Ok(None))
}

/// A kernel's error, as the op the user called (`reduce_max` or `reduce_min`) reports it.
fn kernel_error(max: bool) -> impl Fn(extype_kernels::KernelError) -> crate::Error {
    move |source| crate::Error::kernel(if max { "reduce_max" } else { "reduce_min" }, source)
}

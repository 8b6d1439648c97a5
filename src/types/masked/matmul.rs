//! `matmul` of a [`MaskedTensor`] with a MaskedTensor or a dense operand, on either side.
//!
//! The values are those of the `masked_matmul` of TensorFlow's extension-type guide,
//! `tf.matmul(a.with_default(0), b.with_default(0))`: a masked-out element counts as 0, a dense
//! operand as it is, bit for bit the guide's result. The guide returns that dense tensor; the
//! library keeps a mask, by the rule of its reductions (a matrix product is a sum of products,
//! and `reduce_sum` is valid where at least one reduced element is): an element of the result
//! is valid where at least one term of its contraction has both factors valid
//! (`matmul(a.mask, b.mask) > 0`, a dense operand's mask `true` everywhere). An element
//! without a valid term holds 0 (or NaN, `0 * inf`, as in the guide) under a false mask;
//! [`values`](MaskedTensor::values) is the guide's tensor, [`to_dense`](MaskedTensor::to_dense)
//! with 0 the same with those elements 0.

use super::MaskedTensor;
use crate::ndarray::{ArrayD, IxDyn};
use crate::ops::{self, OpArgs, catalog};
use crate::tensor::Fill;
use crate::{DType, OrDense, Result, Tensor, dispatch};

/// An operand's values with the masked-out ones 0, and its mask as `i64` (1 = valid).
fn zero_filled_and_count(x: &OrDense<MaskedTensor>) -> Result<(Tensor, Tensor)> {
    match x {
        OrDense::Ext(m) => {
            let zero = Fill::Zero.scalar(m.dtype());
            let values = ops::call_dense(
                &catalog::WHERE,
                &[&m.mask, &m.values, &zero],
                &OpArgs::none(),
            )?;
            let valid = ops::call_dense(
                &catalog::CAST,
                &[&m.mask],
                &OpArgs::none().with_dtype(DType::I64),
            )?;
            Ok((values, valid))
        }
        OrDense::Dense(view) => Ok((
            view.to_tensor(),
            Tensor::from(ArrayD::from_elem(IxDyn(view.shape()), 1i64)),
        )),
    }
}

/// `matmul(a, b)` with a MaskedTensor on either side or both (see the [module docs](self)):
/// values `matmul(where(a.mask, a.values, 0), where(b.mask, b.values, 0))`, mask
/// `matmul(a.mask, b.mask) > 0`. Shapes and dtypes are checked by the dense `matmul`.
#[dispatch(Matmul)]
fn masked_matmul(
    a: &OrDense<MaskedTensor>,
    b: &OrDense<MaskedTensor>,
    args: &OpArgs,
) -> Result<MaskedTensor> {
    let (av, ac) = zero_filled_and_count(a)?;
    let (bv, bc) = zero_filled_and_count(b)?;
    let values = ops::call_dense(&catalog::MATMUL, &[&av, &bv], args)?;
    let terms = ops::call_dense(&catalog::MATMUL, &[&ac, &bc], args)?;
    let mask = ops::call_dense(
        &catalog::GREATER,
        &[&terms, &Fill::Zero.scalar(DType::I64)],
        &OpArgs::none(),
    )?;
    Ok(MaskedTensor::from_parts_unchecked(values, mask))
}

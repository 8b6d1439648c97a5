//! Elementwise ops on [`MaskedTensor`]: unary ops keep the mask; binary ops and `where`
//! broadcast and combine the masks (a dense operand is valid everywhere).

use super::{MaskedTensor, broadcast_mask};
use crate::ndarray::arr0;
use crate::ops;
use crate::{BinaryOp, Operand, OrDense, Result, Tensor, UnaryOp, dispatch};

/// Unary elementwise ops (TF: `op(values)`, same mask).
#[dispatch(unary_elementwise)]
pub fn masked_unary(op: &UnaryOp, x: &MaskedTensor) -> Result<MaskedTensor> {
    let values = op.apply_as(&x.values)?;
    Ok(MaskedTensor::from_parts_unchecked(values, x.mask.clone()))
}

/// The values of an operand and its mask (`None`: dense, valid everywhere).
fn parts<'s>(x: &'s OrDense<'_, MaskedTensor>) -> (Operand<'s>, Option<&'s Tensor>) {
    (x.values_or_dense(|m| &m.values), x.ext().map(|m| &m.mask))
}

/// Binary elementwise ops and comparisons on every mix of MaskedTensor and dense operands
/// (TF: `op(x.values, y.values)`, mask `x.mask & y.mask`, broadcast).
#[dispatch(binary_elementwise)]
pub fn masked_binary(
    op: &BinaryOp,
    x: &OrDense<MaskedTensor>,
    y: &OrDense<MaskedTensor>,
) -> Result<MaskedTensor> {
    let ((xv, xm), (yv, ym)) = (parts(x), parts(y));
    let values: Tensor = op.apply_as(&xv, &yv)?;
    let mask = match (xm, ym) {
        // Already the values' shape when neither mask is broadcast (then shared, not copied).
        (Some(a), Some(b)) => {
            broadcast_mask(&ops::logical_and_as::<Tensor>(a, b)?, values.shape())?
        }
        (Some(m), None) | (None, Some(m)) => broadcast_mask(m, values.shape())?,
        // All-dense calls never reach an `OrDense` handler.
        (None, None) => broadcast_mask(&Tensor::from(arr0(true).into_dyn()), values.shape())?,
    };
    Ok(MaskedTensor::from_parts_unchecked(values, mask))
}

/// `where(cond, x, y)` on every mix of MaskedTensor and dense operands (TF: values
/// `where(cond, x.values, y.values)`, mask `where(cond, x.mask, y.mask)`, and `cond.mask` when
/// the condition is masked).
#[dispatch(Where)]
pub fn masked_where(
    cond: &OrDense<MaskedTensor>,
    x: &OrDense<MaskedTensor>,
    y: &OrDense<MaskedTensor>,
) -> Result<MaskedTensor> {
    let ((cv, cm), (xv, xm), (yv, ym)) = (parts(cond), parts(x), parts(y));
    let values: Tensor = ops::where_as(&cv, &xv, &yv)?;
    let all = Tensor::from(arr0(true).into_dyn());
    let picked: Tensor = ops::where_as(&cv, xm.unwrap_or(&all), ym.unwrap_or(&all))?;
    let mut mask = broadcast_mask(&picked, values.shape())?;
    if let Some(cm) = cm {
        mask = ops::logical_and_as(&mask, &broadcast_mask(cm, values.shape())?)?;
    }
    Ok(MaskedTensor::from_parts_unchecked(values, mask))
}

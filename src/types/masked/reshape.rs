//! Ops that move or convert elements of a [`MaskedTensor`]: `cast` acts on the values and keeps
//! the mask (`zeros_like` and `ones_like` are unary elementwise ops: `masked_unary`);
//! `reshape`, `transpose`, `tile` and `gather` act on values and mask alike (each element keeps its validity); `stack` and `concat` join
//! values and masks alike, a dense operand valid everywhere.

use super::MaskedTensor;
use crate::ndarray::{ArrayD, IxDyn};
use crate::ops::{self, OpArgs, catalog};
use crate::{Op, OrDense, Result, Tensor, dispatch};

/// The values through `op`, the mask kept.
fn on_values(op: &'static Op, args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
    let values = x.values.dense_op(op, args)?;
    Ok(MaskedTensor::from_parts_unchecked(values, x.mask.clone()))
}

/// Values and mask through the same `op`.
fn on_both(op: &'static Op, args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
    let values = x.values.dense_op(op, args)?;
    let mask = x.mask.dense_op(op, args)?;
    Ok(MaskedTensor::from_parts_unchecked(values, mask))
}

/// `cast` (TF: `cast(values)`, same mask).
#[dispatch(Cast)]
fn masked_cast(args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
    on_values(&catalog::CAST, args, x)
}

/// `reshape` of values and mask.
#[dispatch(Reshape)]
fn masked_reshape(args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
    on_both(&catalog::RESHAPE, args, x)
}

/// `transpose` of values and mask.
#[dispatch(Transpose)]
fn masked_transpose(args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
    on_both(&catalog::TRANSPOSE, args, x)
}

/// `tile` of values and mask.
#[dispatch(Tile)]
fn masked_tile(args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
    on_both(&catalog::TILE, args, x)
}

/// `gather` of values and mask.
#[dispatch(Gather)]
fn masked_gather(args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
    on_both(&catalog::GATHER, args, x)
}

/// The values of each operand and its mask: a dense operand is its own values, valid
/// everywhere (a mask of `true` of its shape).
fn values_and_masks(xs: &[OrDense<MaskedTensor>]) -> (Vec<Tensor>, Vec<Tensor>) {
    xs.iter()
        .map(|x| match x {
            OrDense::Ext(m) => (m.values.clone(), m.mask.clone()),
            OrDense::Dense(view) => (
                view.to_tensor(),
                Tensor::from(ArrayD::from_elem(IxDyn(view.shape()), true)),
            ),
        })
        .unzip()
}

/// `op` (`stack` or `concat`) of the values and of the masks.
fn join(op: &'static Op, args: &OpArgs, xs: &[OrDense<MaskedTensor>]) -> Result<MaskedTensor> {
    let (values, masks) = values_and_masks(xs);
    let values = ops::call_dense(op, &values.iter().collect::<Vec<_>>(), args)?;
    let mask = ops::call_dense(op, &masks.iter().collect::<Vec<_>>(), args)?;
    Ok(MaskedTensor::from_parts_unchecked(values, mask))
}

/// `stack` of MaskedTensors and dense operands in any mix (TF's extension-type guide:
/// `tf.stack` dispatched on a list of `Union[MaskedTensor, tf.Tensor]`, a dense operand as
/// `MaskedTensor(v, ones_like(v, bool))`): the values stacked, the masks stacked.
#[dispatch(Stack)]
fn masked_stack(xs: &[OrDense<MaskedTensor>], args: &OpArgs) -> Result<MaskedTensor> {
    join(&catalog::STACK, args, xs)
}

/// `concat` of MaskedTensors and dense operands in any mix, as [`masked_stack`].
#[dispatch(Concat)]
fn masked_concat(xs: &[OrDense<MaskedTensor>], args: &OpArgs) -> Result<MaskedTensor> {
    join(&catalog::CONCAT, args, xs)
}

//! Ops that move or convert elements of a [`MaskedTensor`]: `cast`, `zeros_like` and
//! `ones_like` act on the values and keep the mask; `reshape`, `transpose`, `tile` and `gather`
//! act on values and mask alike (each element keeps its validity).

use super::MaskedTensor;
use crate::ops::{OpArgs, catalog};
use crate::{Op, Result, dispatch};

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

/// `zeros_like` (zeros where the values are, same mask).
#[dispatch(ZerosLike)]
fn masked_zeros_like(args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
    on_values(&catalog::ZEROS_LIKE, args, x)
}

/// `ones_like` (ones where the values are, same mask).
#[dispatch(OnesLike)]
fn masked_ones_like(args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
    on_values(&catalog::ONES_LIKE, args, x)
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

//! Elementwise ops on a [`RaggedTensor`] (TF 2.x): unary ops, `cast`, `zeros_like` and
//! `ones_like` map the flat values and keep the partitions; binary ops, comparisons and
//! `where` combine ragged operands with equal partitions, scalars and dense tensors that
//! broadcast per row (leading axis 1 or `nrows`, every ragged axis 1, inner axes by NumPy's
//! rules). Any other combination is an error naming both shapes, where TF raises too.

use super::{RaggedTensor, arg_error, describe, infer};
use crate::ops::AsOperand;
use crate::ops::{self, OpArgs, catalog};
use crate::{BinaryOp, Operand, OrDense, Result, Tensor, TensorView, UnaryOp, dispatch};

/// Unary elementwise ops, `zeros_like` and `ones_like` among them (TF: `op(flat_values)`,
/// same partitions).
#[dispatch(unary_elementwise, infer = infer::unary)]
fn ragged_unary(op: &UnaryOp, x: &RaggedTensor) -> Result<RaggedTensor> {
    Ok(x.with_values_unchecked(op.apply_as(&x.flat_values)?))
}

/// `cast` (TF: `cast(flat_values)`, same partitions).
#[dispatch(Cast, infer = infer::unary)]
fn ragged_cast(args: &OpArgs, x: &RaggedTensor) -> Result<RaggedTensor> {
    Ok(x.with_values_unchecked(x.flat_values.dense_op(&catalog::CAST, args)?))
}

/// Binary elementwise ops and comparisons (TF: `op(x.flat_values, y.flat_values)` on equal
/// partitions; a dense operand broadcast per row).
#[dispatch(binary_elementwise, infer = infer::elementwise)]
fn ragged_binary(
    op: &BinaryOp,
    x: &OrDense<RaggedTensor>,
    y: &OrDense<RaggedTensor>,
) -> Result<RaggedTensor> {
    let base = base_of([x.ext(), y.ext()])?;
    let (xa, ya) = (
        aligned(op.name(), base, x, 0)?,
        aligned(op.name(), base, y, 1)?,
    );
    let xv = xa
        .as_ref()
        .map_or_else(|| flat_or_dense(x), |t| t.as_operand());
    let yv = ya
        .as_ref()
        .map_or_else(|| flat_or_dense(y), |t| t.as_operand());
    let values: Tensor = op.apply_as(&xv, &yv)?;
    Ok(base.with_values_unchecked(values))
}

/// `where(cond, x, y)` with any of the three ragged (TF: `where` on the flat values of
/// operands with equal partitions, dense ones broadcast per row).
#[dispatch(Where, infer = infer::elementwise)]
fn ragged_where(
    cond: &OrDense<RaggedTensor>,
    x: &OrDense<RaggedTensor>,
    y: &OrDense<RaggedTensor>,
) -> Result<RaggedTensor> {
    let base = base_of([cond.ext(), x.ext(), y.ext()])?;
    let ca = aligned("where", base, cond, 0)?;
    let (xa, ya) = (aligned("where", base, x, 1)?, aligned("where", base, y, 2)?);
    let c = ca
        .as_ref()
        .map_or_else(|| flat_or_dense(cond), |t| t.as_operand());
    let xv = xa
        .as_ref()
        .map_or_else(|| flat_or_dense(x), |t| t.as_operand());
    let yv = ya
        .as_ref()
        .map_or_else(|| flat_or_dense(y), |t| t.as_operand());
    let values: Tensor = ops::where_as(&c, &xv, &yv)?;
    Ok(base.with_values_unchecked(values))
}

/// A ragged operand's flat values, or a dense operand as it is (no copy).
fn flat_or_dense<'s>(x: &'s OrDense<'_, RaggedTensor>) -> Operand<'s> {
    x.values_or_dense(|r| &r.flat_values)
}

/// The first ragged operand (an `OrDense` handler runs only when one is ragged; an all-dense
/// call never reaches it, so the error is for a direct call).
fn base_of<const N: usize>(operands: [Option<&RaggedTensor>; N]) -> Result<&RaggedTensor> {
    operands.into_iter().flatten().next().ok_or_else(|| {
        arg_error(
            "elementwise",
            "operands",
            "a ragged operand",
            "dense operands only",
        )
    })
}

/// Operand `index` as a tensor that broadcasts against `base`'s flat values; `None` when the
/// operand serves as it is (a ragged operand's flat values, a dense operand of no more axes
/// than the inner ones: both read in place).
fn aligned(
    op: &str,
    base: &RaggedTensor,
    x: &OrDense<RaggedTensor>,
    index: usize,
) -> Result<Option<Tensor>> {
    match x {
        OrDense::Ext(r) => {
            if std::ptr::eq(*r, base) || r.same_partitions(base) {
                Ok(None)
            } else {
                Err(arg_error(
                    op,
                    &format!("argument {index}"),
                    format!(
                        "a ragged tensor with the partitions of the first ragged operand, {}",
                        describe(base)
                    ),
                    describe(r),
                ))
            }
        }
        // A scalar, or no more axes than the inner ones: NumPy broadcasting against the flat
        // values is per-row broadcasting already.
        OrDense::Dense(view)
            if view.shape().len() < base.flat_values.ndim()
                && view
                    .shape()
                    .iter()
                    .rev()
                    .zip(base.flat_values.shape().iter().rev())
                    .all(|(&d, &f)| d == 1 || d == f) =>
        {
            Ok(None)
        }
        OrDense::Dense(view) => dense_per_row(op, base, view, index).map(Some),
    }
}

/// A dense operand broadcast per row against `base`, as a tensor that broadcasts against the
/// flat values: `[1, inner…]` when its leading axis is 1 (no copy beyond the operand), else
/// its rows gathered by each value's row (`[nvals, inner…]`).
pub(crate) fn dense_per_row(
    op: &str,
    base: &RaggedTensor,
    view: &TensorView<'_>,
    index: usize,
) -> Result<Tensor> {
    let rank = base.rank();
    let rr = base.ragged_rank();
    let shape = view.shape();
    let refuse = || {
        arg_error(
            op,
            &format!("argument {index}"),
            format!(
                "a dense shape that broadcasts per row against {} (rank at most {rank}, leading \
                 axis 1 or {}, every ragged axis 1)",
                describe(base),
                base.nrows()
            ),
            format!("dense shape {shape:?}"),
        )
    };
    if shape.len() > rank {
        return Err(refuse());
    }
    let mut dims = vec![1usize; rank - shape.len()];
    dims.extend_from_slice(shape);
    if dims[1..=rr].iter().any(|&d| d != 1) {
        return Err(refuse());
    }
    let lead = dims[0];
    let dense = view.to_tensor();
    let mut target = vec![lead];
    target.extend_from_slice(&dims[1 + rr..]);
    let dense: Tensor = ops::reshape_as(&dense, &target)?;
    if lead == 1 {
        return Ok(dense);
    }
    if lead != base.nrows() {
        return Err(refuse());
    }
    // Each flat value's outermost row: compose the value row ids of every partition.
    let mut ids = super::splits_of(&base.nested_value_rowids(rr - 1)?).into_owned();
    for level in (0..rr - 1).rev() {
        let up = base.nested_value_rowids(level)?;
        let up = super::splits_of(&up);
        for id in &mut ids {
            *id = up[*id as usize];
        }
    }
    Tensor::take_rows(&dense, &ids)
}

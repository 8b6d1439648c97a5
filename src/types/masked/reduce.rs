//! Reductions of a [`MaskedTensor`]: each is TensorFlow's reduction of the values with the
//! masked-out ones replaced by the reduction's identity, and the result is valid where at least
//! one reduced element was (`count > 0`).

use super::MaskedTensor;
use crate::ndarray::{ArrayD, IxDyn};
use crate::ops::Fold;
use crate::ops::{self, catalog};
use crate::tensor::Fill;
use crate::{DType, ReductionOp, Result, Tensor, dispatch};

/// How a catalog reduction treats masked-out elements, from what it folds ([`Fold`]).
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// The kernels' masked sum (masked-out elements are skipped).
    Sum,
    /// Masked sum over the count of valid elements (NaN where it is 0).
    Mean,
    /// The dense reduction of `where(mask, values, fill)`, the fold's identity.
    Filled(Fill),
    /// `argmax` / `argmin`: the first extreme among the valid elements (masked-out ones hold
    /// the identity of the extreme).
    Arg(Fill),
}

impl Rule {
    /// The rule of a catalog reduction; `None` for a user-declared reduction (its identity is
    /// unknown, so the handler declines).
    fn of(fold: Fold) -> Option<Rule> {
        Some(match fold {
            Fold::Sum => Rule::Sum,
            Fold::Mean => Rule::Mean,
            Fold::ArgMax | Fold::ArgMin => Rule::Arg(fold.identity()?),
            other => Rule::Filled(other.identity()?),
        })
    }

    /// The fill of the result over an empty extent: the identity of the reduction (NaN for the
    /// mean, index 0 for argmax/argmin).
    fn empty_fill(self) -> Fill {
        match self {
            Rule::Sum | Rule::Arg(_) => Fill::Zero,
            Rule::Mean => Fill::Zero, // replaced by NaN in `empty`
            Rule::Filled(fill) => fill,
        }
    }
}

/// `scalar` broadcast to `shape`.
fn full(shape: &[usize], scalar: &Tensor) -> Result<Tensor> {
    let everywhere = Tensor::from(ArrayD::from_elem(IxDyn(shape), true));
    dense(&catalog::WHERE, &[&everywhere, scalar, scalar])
}

/// Whether each output element reduces no element (a reduced axis of size 0); the axes are
/// checked (an error naming the op). Not a product of the sizes: that could overflow.
fn reduces_nothing(op: &ReductionOp, shape: &[usize]) -> Result<bool> {
    let reduced = op.reduced_axes(shape.len())?;
    Ok(shape.iter().zip(&reduced).any(|(&d, &r)| r && d == 0))
}

/// Every reduction of the catalog (user-declared reductions decline: their identity is unknown).
#[dispatch(reduction)]
fn masked_reduction(op: &ReductionOp, x: &MaskedTensor) -> Result<Option<MaskedTensor>> {
    let Some(rule) = op.fold().and_then(Rule::of) else {
        return Ok(None);
    };
    let empty_extent = reduces_nothing(op, x.shape())?;
    let valid: Tensor = op.apply_other_as(&catalog::REDUCE_ANY, &x.mask)?;
    let values = if empty_extent {
        empty(op, rule, x, valid.shape())?
    } else {
        match rule {
            Rule::Sum => sum(op, x)?,
            Rule::Mean => mean(op, x)?,
            Rule::Filled(fill) => op.apply_as(&filled(x, fill)?)?,
            Rule::Arg(fill) => arg(op, x, fill)?,
        }
    };
    Ok(Some(MaskedTensor::from_parts_unchecked(values, valid)))
}

/// The dtype the reduction returns for the values' dtype (the op's own rule: no inference).
fn result_dtype(op: &ReductionOp, x: &MaskedTensor) -> Result<DType> {
    op.result_dtype(x.dtype())
}

/// `where(mask, values, fill)`.
fn filled(x: &MaskedTensor, fill: Fill) -> Result<Tensor> {
    dense(
        &catalog::WHERE,
        &[&x.mask, &x.values, &fill.scalar(x.dtype())],
    )
}

/// The result over an empty extent (no element reduced): the identity, in the op's result dtype.
fn empty(op: &ReductionOp, rule: Rule, x: &MaskedTensor, shape: &[usize]) -> Result<Tensor> {
    let out = result_dtype(op, x)?;
    let scalar = match rule {
        Rule::Mean => dense(
            &catalog::DIV,
            &[&Fill::Zero.scalar(out), &Fill::Zero.scalar(out)],
        )?,
        other => other.empty_fill().scalar(out),
    };
    full(shape, &scalar)
}

/// The sum of the valid values: the kernels' masked sum when the dtype has one, else the dense
/// sum of `where(mask, values, 0)`.
fn sum(op: &ReductionOp, x: &MaskedTensor) -> Result<Tensor> {
    if x.dtype().is_float() {
        ops::masked_reduce(&catalog::REDUCE_SUM, &x.values, &x.mask, op.args())
    } else {
        op.apply_other_as(&catalog::REDUCE_SUM, &filled(x, Fill::Zero)?)
    }
}

/// The sum of the valid values over their count, in the mean's dtype (`f64` for integers).
fn mean(op: &ReductionOp, x: &MaskedTensor) -> Result<Tensor> {
    let out = result_dtype(op, x)?;
    let total = cast(&sum(op, x)?, out)?;
    let count: Tensor = op.apply_other_as(&catalog::COUNT_NONZERO, &x.mask)?;
    let count = cast(&count, out)?;
    dense(&catalog::DIV, &[&total, &count])
}

/// `argmax` / `argmin` among the valid elements: the dense op on the filled values, except
/// where the extreme equals the fill (every valid value is the fill, or none is valid): there
/// the first valid element (`argmax` of the mask), so a masked-out element is never picked
/// over a valid one of the same value.
fn arg(op: &ReductionOp, x: &MaskedTensor, fill: Fill) -> Result<Tensor> {
    let values = filled(x, fill)?;
    let index: Tensor = op.apply_as(&values)?;
    let extreme_op = if fill == Fill::Lowest {
        &catalog::REDUCE_MAX
    } else {
        &catalog::REDUCE_MIN
    };
    let extreme: Tensor = op.apply_other_as(extreme_op, &values)?;
    let at_fill = dense(&catalog::EQUAL, &[&extreme, &fill.scalar(x.dtype())])?;
    let first_valid: Tensor = op.apply_other_as(&catalog::ARGMAX, &cast(&x.mask, DType::U8)?)?;
    dense(&catalog::WHERE, &[&at_fill, &first_valid, &index])
}

// The dense parts run on the op model directly, never through the dispatch table: the user's
// call is the one consultation.

/// `op`'s dense default on these tensors.
fn dense(op: &'static crate::Op, xs: &[&Tensor]) -> Result<Tensor> {
    ops::call_dense(op, xs, &crate::ops::OpArgs::none())
}

/// `t` in dtype `to`.
fn cast(t: &Tensor, to: DType) -> Result<Tensor> {
    if t.dtype() == to {
        return Ok(t.clone());
    }
    ops::call_dense(
        &catalog::CAST,
        &[t],
        &crate::ops::OpArgs::none().with_dtype(to),
    )
}

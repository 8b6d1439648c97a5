//! Reductions of a [`MaskedTensor`]: each is TensorFlow's reduction of the values with the
//! masked-out ones replaced by the reduction's identity, and the result is valid where at least
//! one reduced element was (`count > 0`).

use super::MaskedTensor;
use crate::ndarray::{ArrayD, IxDyn, arr0};
use crate::ops::{self, catalog};
use crate::{DType, Op, ReductionOp, Result, Tensor, TensorSpec, dispatch};

/// A reduction's identity, in the values' dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fill {
    Zero,
    One,
    /// `-inf` for floats, the dtype's minimum for integers, `false` for bools.
    Lowest,
    /// `+inf` for floats, the dtype's maximum for integers, `true` for bools.
    Highest,
}

/// How a catalog reduction treats masked-out elements.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// The kernels' masked sum (masked-out elements are skipped).
    Sum,
    /// Masked sum over the count of valid elements (NaN where it is 0).
    Mean,
    /// The dense reduction of `where(mask, values, fill)`.
    Filled(Fill),
    /// `argmax` / `argmin`: the first extreme among the valid elements.
    Arg(Fill),
}

impl Rule {
    /// The rule of a catalog reduction; `None` for a user-declared reduction (its identity is
    /// unknown, so the handler declines).
    fn of(op: &Op) -> Option<Rule> {
        let is = |other: &Op| op == other;
        Some(if is(&catalog::REDUCE_SUM) {
            Rule::Sum
        } else if is(&catalog::REDUCE_MEAN) {
            Rule::Mean
        } else if is(&catalog::REDUCE_MAX) {
            Rule::Filled(Fill::Lowest)
        } else if is(&catalog::REDUCE_MIN) {
            Rule::Filled(Fill::Highest)
        } else if is(&catalog::REDUCE_PROD) || is(&catalog::REDUCE_ALL) {
            Rule::Filled(Fill::One)
        } else if is(&catalog::REDUCE_ANY) || is(&catalog::COUNT_NONZERO) {
            Rule::Filled(Fill::Zero)
        } else if is(&catalog::ARGMAX) {
            Rule::Arg(Fill::Lowest)
        } else if is(&catalog::ARGMIN) {
            Rule::Arg(Fill::Highest)
        } else {
            return None;
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

/// A rank-0 tensor of `dtype` holding `fill`.
fn fill_scalar(dtype: DType, fill: Fill) -> Tensor {
    macro_rules! number {
        ($t:ty, $lowest:expr, $highest:expr) => {
            Tensor::from(
                arr0::<$t>(match fill {
                    Fill::Zero => 0 as $t,
                    Fill::One => 1 as $t,
                    Fill::Lowest => $lowest,
                    Fill::Highest => $highest,
                })
                .into_dyn(),
            )
        };
    }
    macro_rules! half_number {
        ($t:ident) => {
            Tensor::from(
                arr0(match fill {
                    Fill::Zero => crate::half::$t::ZERO,
                    Fill::One => crate::half::$t::ONE,
                    Fill::Lowest => crate::half::$t::NEG_INFINITY,
                    Fill::Highest => crate::half::$t::INFINITY,
                })
                .into_dyn(),
            )
        };
    }
    match dtype {
        DType::Bool => Tensor::from(arr0(matches!(fill, Fill::One | Fill::Highest)).into_dyn()),
        DType::I8 => number!(i8, i8::MIN, i8::MAX),
        DType::I16 => number!(i16, i16::MIN, i16::MAX),
        DType::I32 => number!(i32, i32::MIN, i32::MAX),
        DType::I64 => number!(i64, i64::MIN, i64::MAX),
        DType::U8 => number!(u8, u8::MIN, u8::MAX),
        DType::U16 => number!(u16, u16::MIN, u16::MAX),
        DType::U32 => number!(u32, u32::MIN, u32::MAX),
        DType::U64 => number!(u64, u64::MIN, u64::MAX),
        DType::F32 => number!(f32, f32::NEG_INFINITY, f32::INFINITY),
        DType::F64 => number!(f64, f64::NEG_INFINITY, f64::INFINITY),
        DType::F16 => half_number!(f16),
        DType::BF16 => half_number!(bf16),
    }
}

/// `scalar` broadcast to `shape`.
fn full(shape: &[usize], scalar: &Tensor) -> Result<Tensor> {
    ops::where_as(&ArrayD::from_elem(IxDyn(shape), true), scalar, scalar)
}

/// Whether each output element reduces no element (a reduced axis of size 0), when the axes are
/// valid (`None` otherwise: the dense op reports the bad axis). Not a product of the sizes:
/// repeated axes would multiply past `usize::MAX`.
fn reduces_nothing(shape: &[usize], axes: Option<&[isize]>) -> Option<bool> {
    let rank = shape.len() as isize;
    match axes {
        None => Some(shape.contains(&0)),
        Some(axes) => axes.iter().try_fold(false, |empty, &axis| {
            // No overflow: `axis < 0 <= rank`.
            let axis = if axis < 0 { axis + rank } else { axis };
            (0..rank)
                .contains(&axis)
                .then(|| empty || shape[axis as usize] == 0)
        }),
    }
}

/// Every reduction of the catalog (user-declared reductions decline: their identity is unknown).
#[dispatch(reduction)]
fn masked_reduction(op: &ReductionOp, x: &MaskedTensor) -> Result<Option<MaskedTensor>> {
    let Some(rule) = Rule::of(op.op()) else {
        return Ok(None);
    };
    let valid: Tensor = op.apply_other_as(&catalog::REDUCE_ANY, &x.mask)?;
    let values = if reduces_nothing(x.shape(), op.axes()) == Some(true) {
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

/// `where(mask, values, fill)`.
fn filled(x: &MaskedTensor, fill: Fill) -> Result<Tensor> {
    ops::where_as(&x.mask, &x.values, &fill_scalar(x.dtype(), fill))
}

/// The result over an empty extent (no element reduced): the identity, in the op's result dtype.
fn empty(op: &ReductionOp, rule: Rule, x: &MaskedTensor, shape: &[usize]) -> Result<Tensor> {
    let out = op.infer(&TensorSpec::from_tensor(&x.values))?.dtype;
    let scalar = match rule {
        Rule::Mean => ops::div_as(&fill_scalar(out, Fill::Zero), &fill_scalar(out, Fill::Zero))?,
        other => fill_scalar(out, other.empty_fill()),
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
    let out = op.infer(&TensorSpec::from_tensor(&x.values))?.dtype;
    let total: Tensor = ops::cast_as(&sum(op, x)?, out)?;
    let count: Tensor = op.apply_other_as(&catalog::COUNT_NONZERO, &x.mask)?;
    let count: Tensor = ops::cast_as(&count, out)?;
    ops::div_as(&total, &count)
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
    let at_fill: Tensor = ops::equal_as(&extreme, &fill_scalar(x.dtype(), fill))?;
    let first_valid: Tensor = op.apply_other_as(
        &catalog::ARGMAX,
        &ops::cast_as::<Tensor>(&x.mask, DType::U8)?,
    )?;
    ops::where_as(&at_fill, &first_valid, &index)
}

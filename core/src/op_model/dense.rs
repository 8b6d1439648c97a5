//! The dense default: [`run`] runs an op's dense default on dense arguments — a catalog op's
//! kernel entry point, or a user op's `dense = f` — and `run_default` is the last step of a call
//! no handler took (the dense default, or the op's fallback for extension values). Masked
//! reductions run here too ([`run_masked`]). What each op computes is its entry's data
//! ([`catalog`](super::catalog)); this file only runs it.

use smallvec::SmallVec;

use super::args::OpArgs;
use super::catalog::ALL;
use super::dense_args::DenseArgs;
use super::glue::check_output;
use super::op::{Dense, Op};
use super::operand::{Operand, bad_argument};
use crate::error::{DispatchError, Error, Result};
use crate::spec::TensorSpec;
use crate::spec::value::Value;
use crate::tensor::{Tensor, TensorView};

/// Runs `op`'s dense default on dense arguments: a catalog op's kernel, or a user op's
/// `dense = f` (which receives the arguments as tensors). Checks the arity first.
pub fn run(op: &Op, xs: &[TensorView<'_>], args: &OpArgs) -> Result<Tensor> {
    op.check_arity(xs.len())?;
    run_unchecked(op, DenseArgs::Views(xs), args)?.into_tensor()
}

/// [`run`] for a caller that has checked the arity ([`Op::check_arity`]), returning the result
/// as the [`Value`] a call returns.
#[inline(always)]
pub(crate) fn run_unchecked(op: &Op, xs: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Value> {
    match op.dense() {
        Dense::Kernel(kernel) => kernel(op, xs, args),
        Dense::User(f) => {
            // A user op receives tensors: views are copied, so each copy is checked first.
            if let DenseArgs::Views(vs) = xs {
                for v in vs {
                    check_output(op, v.shape(), v.dtype())?;
                }
            }
            f(&xs.to_tensors(), args).map(Value::Tensor)
        }
        Dense::None => Err(no_dense_default(op, xs)),
    }
}

#[cold]
fn no_dense_default(op: &Op, xs: DenseArgs<'_, '_>) -> Error {
    DispatchError::NoMatch {
        op: op.name().to_string(),
        args: xs
            .views()
            .iter()
            .map(|v| format!("Tensor({})", TensorSpec::from_view(v)))
            .collect(),
        tried: vec![format!(
            "dense default (none: {} has no dense default)",
            op.name()
        )],
    }
    .into()
}

/// The operand as a tensor whose arms the kernels match on (an ndarray array inside); `None`
/// for a [`Tensor::External`], which the kernels read through its view.
#[inline(always)]
fn array_tensor<'a>(operand: &Operand<'a>) -> Option<&'a Tensor> {
    operand
        .as_tensor()
        .filter(|t| !matches!(t, Tensor::External(_)))
}

/// The last step of a call no handler took: `op`'s dense default when every operand is dense
/// and the op has one ([`run_operands`]); otherwise the op's fallback for extension values
/// ([`Op::fallback`]: `stack` and `concat` batch them), when it has one that applies; otherwise
/// the error `no_match()` builds (the dispatch table's, naming what was tried).
#[inline(always)]
pub(crate) fn run_default(
    op: &Op,
    operands: &[Operand<'_>],
    args: &OpArgs,
    no_match: impl FnOnce() -> Error,
) -> Result<Value> {
    if op.has_dense() {
        run_operands(op, operands, args, || {
            run_fallback(op, operands, args).unwrap_or_else(|| Err(no_match()))
        })
    } else {
        run_fallback(op, operands, args).unwrap_or_else(|| Err(no_match()))
    }
}

/// The op's fallback for extension values (`None`: it has none, or it does not apply).
#[cold]
#[inline(never)]
fn run_fallback(op: &Op, operands: &[Operand<'_>], args: &OpArgs) -> Option<Result<Value>> {
    op.fallback().and_then(|f| f(op, operands, args))
}

/// Runs `op`'s dense default ([`run_unchecked`]) on the operands: on the tensors themselves
/// when every operand is a [`Tensor`] holding an array, else on views. When some operand is an
/// extension value, returns `otherwise()`.
#[inline(always)]
fn run_operands(
    op: &Op,
    operands: &[Operand<'_>],
    args: &OpArgs,
    otherwise: impl FnOnce() -> Result<Value>,
) -> Result<Value> {
    match operands {
        [a] => match (array_tensor(a), a.as_view()) {
            (Some(a), _) => run_unchecked(op, DenseArgs::Tensors(&[a]), args),
            (None, Some(a)) => run_unchecked(op, DenseArgs::Views(&[a]), args),
            (None, None) => otherwise(),
        },
        [a, b] => match (array_tensor(a), array_tensor(b)) {
            (Some(a), Some(b)) => run_unchecked(op, DenseArgs::Tensors(&[a, b]), args),
            _ => match (a.as_view(), b.as_view()) {
                (Some(a), Some(b)) => run_unchecked(op, DenseArgs::Views(&[a, b]), args),
                _ => otherwise(),
            },
        },
        _ => run_many(op, operands, args).unwrap_or_else(otherwise),
    }
}

/// [`run_operands`] for three or more operands (`None`: some operand is an extension value).
fn run_many(op: &Op, operands: &[Operand<'_>], args: &OpArgs) -> Option<Result<Value>> {
    let tensors: Option<SmallVec<[&Tensor; 4]>> = operands.iter().map(array_tensor).collect();
    if let Some(ts) = tensors {
        return Some(run_unchecked(op, DenseArgs::Tensors(&ts), args));
    }
    let views: Option<SmallVec<[TensorView<'_>; 3]>> =
        operands.iter().map(Operand::as_view).collect();
    views.map(|vs| run_unchecked(op, DenseArgs::Views(&vs), args))
}

/// A masked reduction of `x` where `mask` (bool, broadcastable to `x`) is true, on the op's
/// masked kernel (the reductions that have one: see [`Op::has_masked`]).
pub(crate) fn run_masked(
    op: &Op,
    x: &TensorView<'_>,
    mask: &TensorView<'_>,
    args: &OpArgs,
) -> Result<Tensor> {
    let TensorView::Bool(m) = mask else {
        return Err(bad_argument(
            op.name(),
            "argument 1",
            "dtype bool (the mask)",
            format!("dtype {}", mask.dtype()),
        ));
    };
    let Some(kernel) = op.masked_kernel() else {
        let with: Vec<&str> = ALL
            .iter()
            .filter(|o| o.has_masked())
            .map(|o| o.name())
            .collect();
        return Err(bad_argument(
            op.name(),
            "mask",
            format!("a reduction with a masked kernel ({})", with.join(", ")),
            format!("{} (no masked form)", op.name()),
        ));
    };
    kernel(op, x, m, args)
}

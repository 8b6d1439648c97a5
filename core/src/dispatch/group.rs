//! The op callables group handlers receive: [`UnaryOp`], [`BinaryOp`], [`ReductionOp`]. Each runs
//! the op being dispatched, with its extra arguments (axes, keepdims, …) bound, on any operand
//! ([`AsOperand`]): dense operands run the op's dense default directly (no table lookup);
//! an extension value goes through the dispatch table ([`table()`]), so a handler can apply the
//! op to a field that is itself an extension value.

use extype_kernels::axis::Repeats;

use super::entry::Call;
use super::table::{no_dense_default, table};
use crate::dtype::DType;
use crate::error::Result;
use crate::op_model::args::OpArgs;
use crate::op_model::op::Op;
use crate::op_model::operand::{AsOperand, FromValue, Operand, bad_argument};
use crate::op_model::rules::Fold;
use crate::op_model::{dense, infer};
use crate::spec::TensorSpec;
use crate::spec::value::{Value, ValueSpec};
use crate::tensor::Tensor;
macro_rules! common {
    ($t:ident) => {
        impl<'a> $t<'a> {
            /// Wraps the call being dispatched.
            #[inline]
            pub fn new(call: &Call<'a>) -> Self {
                $t { call: *call }
            }

            /// The op being dispatched.
            #[inline]
            pub fn op(&self) -> &'static Op {
                self.call.op
            }

            /// The op's name.
            #[inline]
            pub fn name(&self) -> &'static str {
                self.call.op.name()
            }

            /// The op's extra arguments.
            #[inline]
            pub fn args(&self) -> &'a OpArgs {
                self.call.args
            }
        }
    };
}

/// `apply` and `apply_as` of the ops of one operand (unary elementwise ops and reductions).
macro_rules! one_operand {
    ($t:ident) => {
        impl $t<'_> {
            /// Runs the op on any operand (a tensor, an ndarray array, a scalar, a [`Value`] or
            /// an extension value), with the call's extra arguments: dense operands on the op's
            /// dense default, extension values through the dispatch table.
            #[inline]
            pub fn apply(&self, x: &impl AsOperand) -> Result<Value> {
                run(self.call.op, &[x.as_operand()], self.call.args)
            }

            /// [`apply`](Self::apply), returning the concrete type `T` ([`Tensor`], an ndarray
            /// array moved out of the result, an extension type, …).
            #[inline]
            pub fn apply_as<T: FromValue>(&self, x: &impl AsOperand) -> Result<T> {
                T::from_value(self.apply(x)?)
            }
        }
    };
}

/// A unary elementwise op (the `op` of a `#[dispatch(unary_elementwise)]` handler).
#[derive(Debug, Clone, Copy)]
pub struct UnaryOp<'a> {
    call: Call<'a>,
}
common!(UnaryOp);
one_operand!(UnaryOp);

impl UnaryOp<'_> {
    /// The dtype the op returns for an input of dtype `input` (`is_nan` of `f32`: `bool`), or
    /// the error the op gives for that dtype. A handler whose type holds one dtype declines with
    /// it (`Ok(None)` when the result would not fit).
    pub fn result_dtype(&self, input: DType) -> Result<DType> {
        result_dtype(self.call.op, &[input], self.call.args)
    }

    /// The op's output spec for a dense input spec.
    pub fn infer(&self, x: &TensorSpec) -> Result<TensorSpec> {
        dense_spec(self.call.op, &[x], self.call.args)
    }
}

/// A binary elementwise op (the `op` of a `#[dispatch(binary_elementwise)]` handler).
#[derive(Debug, Clone, Copy)]
pub struct BinaryOp<'a> {
    call: Call<'a>,
}
common!(BinaryOp);

impl BinaryOp<'_> {
    /// Runs the op on any two operands (with broadcasting): on the dense default when both are
    /// dense, through the dispatch table otherwise.
    #[inline]
    pub fn apply(&self, x: &impl AsOperand, y: &impl AsOperand) -> Result<Value> {
        run(
            self.call.op,
            &[x.as_operand(), y.as_operand()],
            self.call.args,
        )
    }

    /// [`apply`](Self::apply), returning the concrete type `T`.
    #[inline]
    pub fn apply_as<T: FromValue>(&self, x: &impl AsOperand, y: &impl AsOperand) -> Result<T> {
        T::from_value(self.apply(x, y)?)
    }

    /// The dtype the op returns for inputs of these dtypes (`less` of two `f32`: `bool`), or the
    /// error the op gives for them (e.g. two different dtypes).
    pub fn result_dtype(&self, x: DType, y: DType) -> Result<DType> {
        result_dtype(self.call.op, &[x, y], self.call.args)
    }

    /// The op's output spec for dense input specs.
    pub fn infer(&self, x: &TensorSpec, y: &TensorSpec) -> Result<TensorSpec> {
        dense_spec(self.call.op, &[x, y], self.call.args)
    }
}

/// A reduction (the `op` of a `#[dispatch(reduction)]` handler), with its axes and keepdims bound.
#[derive(Debug, Clone, Copy)]
pub struct ReductionOp<'a> {
    call: Call<'a>,
}
common!(ReductionOp);
one_operand!(ReductionOp);

impl ReductionOp<'_> {
    /// Runs the reduction over the elements of dense `values` where the dense `mask` (bool,
    /// broadcastable to `values`) is true, with the kernels' masked reductions. Available for
    /// `reduce_sum`, `reduce_mean`, `reduce_max`, `reduce_min`; other reductions, and an
    /// extension value in either place, are an error naming the op.
    pub fn apply_masked(&self, values: &impl AsOperand, mask: &impl AsOperand) -> Result<Tensor> {
        let op = self.call.op;
        let (v, m) = (values.as_operand(), mask.as_operand());
        let err = |o: &Operand<'_>, what: &str| {
            bad_argument(op.name(), what, "a dense tensor", o.describe())
        };
        let vv = v.as_view().ok_or_else(|| err(&v, "values"))?;
        let mv = m.as_view().ok_or_else(|| err(&m, "mask"))?;
        dense::run_masked(op, &vv, &mv, self.call.args)
    }

    /// Whether [`apply_masked`](Self::apply_masked) supports this reduction (the op has a masked
    /// kernel).
    pub fn has_masked(&self) -> bool {
        self.call.op.has_masked()
    }

    /// The axes reduced (`None`: all).
    pub fn axes(&self) -> Option<&[isize]> {
        self.call.args.axes.as_deref()
    }

    /// Whether reduced axes are kept with size 1.
    pub fn keepdims(&self) -> bool {
        self.call.args.keepdims
    }

    /// What the reduction folds an extent into ([`Op::fold`]; `None` for a user-declared
    /// reduction, whose identity is unknown).
    pub fn fold(&self) -> Option<Fold> {
        self.call.op.fold()
    }

    /// Which of the `rank` axes the call reduces, one flag per axis ([`Op::reduced_axes`], a
    /// repeated axis refused as the dense op refuses it): an error naming the op the user called.
    pub fn reduced_axes(&self, rank: usize) -> Result<Vec<bool>> {
        self.call
            .op
            .reduced_axes(self.axes(), rank, Repeats::Refused)
    }

    /// The output shape for an input of `shape` ([`Op::reduced_shape`]).
    pub fn reduced_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        self.call
            .op
            .reduced_shape(shape, self.axes(), self.keepdims())
    }

    /// Runs an arbitrary reduction op with the same axes and keepdims (e.g. `reduce_any` of a
    /// mask beside the op on the values), on any operand as [`apply`](Self::apply) does.
    #[inline]
    pub fn apply_other(&self, op: &'static Op, x: &impl AsOperand) -> Result<Value> {
        run(op, &[x.as_operand()], self.call.args)
    }

    /// [`apply_other`](Self::apply_other), returning the concrete type `T`.
    #[inline]
    pub fn apply_other_as<T: FromValue>(&self, op: &'static Op, x: &impl AsOperand) -> Result<T> {
        T::from_value(self.apply_other(op, x)?)
    }

    /// The dtype the reduction returns for an input of dtype `input` (`reduce_sum` of `i32`:
    /// `i64`; `reduce_mean` of `i32`: `f64`; `argmax`: `i64`), or the error it gives for that
    /// dtype.
    pub fn result_dtype(&self, input: DType) -> Result<DType> {
        result_dtype(self.call.op, &[input], self.call.args)
    }

    /// The reduction's output spec for a dense input spec.
    pub fn infer(&self, x: &TensorSpec) -> Result<TensorSpec> {
        dense_spec(self.call.op, &[x], self.call.args)
    }
}

/// Runs `op` on `operands`: the dense default at once when every operand is dense (the hot
/// path: no table lookup; never a handler, so a handler applying its own op to dense parts
/// cannot reach itself again), else a call through the dispatch table.
#[inline]
fn run(op: &'static Op, operands: &[Operand<'_>], args: &OpArgs) -> Result<Value> {
    if operands.iter().all(Operand::is_dense) {
        op.check_arity(operands.len())?;
        dense::run_default(op, operands, args, || no_dense_default(op, operands, &[]))
    } else {
        table()?.call(op, operands, args)
    }
}

/// The op's result dtype for inputs of these dtypes, checked as a call checks them.
fn result_dtype(op: &'static Op, inputs: &[DType], args: &OpArgs) -> Result<DType> {
    op.check_arity(inputs.len())?;
    let d = op.check_dtypes(inputs.len(), |i| inputs[i])?;
    op.result_dtype(d, args)
}

fn dense_spec(op: &'static Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<TensorSpec> {
    match infer::dense(op, specs, args)?.spec {
        ValueSpec::Tensor(t) => Ok(t),
        // Dense inference only produces tensor specs.
        ValueSpec::Extension(s) => Err(crate::error::SpecError::Incompatible {
            op: "infer",
            left: format!("{s:?}"),
            right: "a tensor spec".into(),
        }
        .into()),
    }
}

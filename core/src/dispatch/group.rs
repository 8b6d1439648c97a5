//! The op callables group handlers receive: [`UnaryOp`], [`BinaryOp`], [`ReductionOp`]. Each runs
//! the op being dispatched on dense tensors, with its extra arguments (axes, keepdims, …) bound.

use super::entry::Call;
use crate::error::Result;
use crate::op_model::args::OpArgs;
use crate::op_model::op::Op;
use crate::op_model::{dense, infer};
use crate::spec::TensorSpec;
use crate::spec::value::ValueSpec;
use crate::tensor::{Tensor, TensorView};

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

/// A unary elementwise op (the `op` of a `#[dispatch(unary_elementwise)]` handler).
#[derive(Debug, Clone, Copy)]
pub struct UnaryOp<'a> {
    call: Call<'a>,
}
common!(UnaryOp);

impl UnaryOp<'_> {
    /// Runs the op on a dense tensor.
    pub fn apply(&self, x: &Tensor) -> Result<Tensor> {
        dense::run(self.call.op, &[x.view()], self.call.args)
    }

    /// Runs the op on a dense view.
    pub fn apply_view(&self, x: TensorView<'_>) -> Result<Tensor> {
        dense::run(self.call.op, &[x], self.call.args)
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
    /// Runs the op on dense tensors (with broadcasting).
    pub fn apply(&self, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        dense::run(self.call.op, &[x.view(), y.view()], self.call.args)
    }

    /// Runs the op on dense views.
    pub fn apply_view<'v>(&self, x: TensorView<'v>, y: TensorView<'v>) -> Result<Tensor> {
        dense::run(self.call.op, &[x, y], self.call.args)
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

impl ReductionOp<'_> {
    /// Runs the reduction on a dense tensor.
    pub fn apply(&self, x: &Tensor) -> Result<Tensor> {
        dense::run(self.call.op, &[x.view()], self.call.args)
    }

    /// Runs the reduction over the elements of `values` where `mask` (bool, broadcastable to
    /// `values`) is true, with the kernels' masked reductions. Available for `reduce_sum`,
    /// `reduce_mean`, `reduce_max`, `reduce_min`; other reductions are an error naming the op.
    pub fn apply_masked(&self, values: &Tensor, mask: &Tensor) -> Result<Tensor> {
        dense::run_masked(self.call.op, &values.view(), &mask.view(), self.call.args)
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

    /// Runs an arbitrary reduction op with the same axes and keepdims (e.g. `reduce_all` of a
    /// mask beside the op on the values).
    pub fn apply_other(&self, op: &'static Op, x: &Tensor) -> Result<Tensor> {
        dense::run(op, &[x.view()], self.call.args)
    }

    /// The reduction's output spec for a dense input spec.
    pub fn infer(&self, x: &TensorSpec) -> Result<TensorSpec> {
        dense_spec(self.call.op, &[x], self.call.args)
    }
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

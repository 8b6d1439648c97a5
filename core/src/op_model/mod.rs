//! The op *model*: what an op is and what running it on dense tensors means — below
//! [`dispatch`](crate::dispatch), which picks a handler, and the user front
//! [`ops`](crate::ops), which users call (`ops::add`).
//!
//! - [`catalog`]: the ops ([`Op`]), each carrying its signature, kernels and rules as data.
//! - [`rules`]: the data kinds an entry carries ([`DTypeSet`], [`Operands`], [`ResultDType`],
//!   [`InferRule`]) and the checks they drive, shared by calls and spec inference.
//! - [`args`]: [`OpArgs`], the non-tensor arguments.
//! - [`operand`]: [`Operand`] and the conversions in and out of op calls.
//! - [`infer`]: spec inference on dense specs ([`Inferred`]).
//! - [`size`]: output sizes, checked before anything proportional to them is allocated.
//! - `dense`: the kernel glue and the dense default.
//!
//! Nothing here imports from `dispatch` or `ops`. Users reach these items through
//! [`crate::ops`], which re-exports them (`extype::ops::catalog::ADD`, `extype::ops::OpArgs`).

pub mod args;
pub mod catalog;
pub(crate) mod dense;
pub mod infer;
pub mod operand;
pub mod rules;
pub mod size;

pub use args::OpArgs;
pub use catalog::{Arity, DenseFn, Op, OpKind, Signature};
pub use infer::Inferred;
pub use operand::{AsOperand, FromValue, IntoValue, Operand};
pub use rules::{DTypeSet, InferRule, Operands, ResultDType, ShapeFn};

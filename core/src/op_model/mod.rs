//! The op *model*: what an op is and what running it on dense tensors means — below
//! [`dispatch`](crate::dispatch), which picks a handler, and the user front
//! [`ops`](crate::ops), which users call (`ops::add`).
//!
//! Files, bottom to top; each imports only files listed before it (no two import each other):
//!
//! - [`args`]: [`OpArgs`], the non-tensor arguments.
//! - [`rules`]: the dtype rules an op carries ([`DTypeSet`], [`Operands`], [`ResultDType`]).
//! - [`size`]: output sizes, checked before anything proportional to them is allocated.
//! - `dense_args`: the dense arguments of a kernel call (tensors or views).
//! - [`operand`]: [`Operand`] and the conversions in and out of op calls.
//! - `op`: [`Op`] and all the data it holds (its kernel entry points, [`InferRule`], its
//!   fallback), with the one `impl Op`: construction, accessors and the checks the data drive.
//! - [`infer`]: spec inference on dense specs ([`Inferred`]), the custom shape rules, and the
//!   default of handlers without `infer = …` on extension specs ([`infer::componentwise`]).
//! - `glue`: the kernel glue — the entry macros that make a kernel entry point from an
//!   `extype-kernels` function, and the checks they share.
//! - `bodies`: the dense bodies of the ops that are more than one kernel call (`reshape`,
//!   `tile`, `concat`, …).
//! - `fallback`: what `stack`, `concat` and `shape` run for extension values no handler takes
//!   (batch encoders on axis 0; tensor-like values component by component, or their shape).
//! - [`catalog`]: the ops, each entry one line of data (how to add one: its module docs).
//! - `dense`: the dense default (and the fallback) as the last step of a call, masked reductions.
//!
//! Nothing here imports from `dispatch` or `ops`. Users reach these items through
//! [`crate::ops`], which re-exports them (`extype::ops::catalog::ADD`, `extype::ops::OpArgs`).

pub mod args;
pub(crate) mod bodies;
pub mod catalog;
pub(crate) mod dense;
pub(crate) mod dense_args;
pub(crate) mod fallback;
pub(crate) mod glue;
pub mod infer;
pub(crate) mod op;
pub mod operand;
pub mod rules;
pub mod size;
#[cfg(test)]
mod tests;

pub use args::{Indices, OpArgs};
pub use catalog::{Arity, OpKind, Signature};
pub use infer::Inferred;
pub use op::{DenseFn, InferRule, Op, ShapeFn};
pub use operand::{AsOperand, FromValue, IntoValue, Operand};
pub use rules::{DTypeSet, Fold, Operands, ResultDType};

//! # extype-core
//!
//! The runtime of extype. Generated code from `extype-macros` calls into this crate; users reach it
//! through the `extype` facade.
//!
//! - [`shape`]: partial shapes ([`Dim`], [`Shape`]), broadcasting and shape patterns.
//! - [`dtype`]: [`DType`] and the [`Element`] scalars.
//! - [`tensor`]: [`Tensor`] (dtype-erased, shared) and [`TensorView`].
//! - [`spec`]: [`TensorSpec`], the [`TypeSpec`] / [`ExtensionType`] traits, [`AnySpec`] /
//!   [`AnyExtension`].
//! - [`field`]: the per-field trait [`Field`] that `#[derive(ExtensionType)]` targets.
//! - [`serial`]: [`SpecValue`] and its JSON form.
//! - [`registry`]: name → type table; [`anonymous`]: values of types not linked in.
//! - [`value`]: [`Value`] (tensor or extension value).
//! - [`nest`]: `flatten`, `pack_sequence_as`, `map_structure`, `assert_same_structure`.
//! - [`contract`]: shape contracts of derived types (`#[extype(shape = "b n")]`).
//! - [`ops`]: the op catalog and `ops::add(&x, &y)` & co. on tensors, arrays and extension values;
//!   [`dispatch`]: the handler table behind them (`#[dispatch(...)]`).
//! - [`error`]: the one [`Error`] type of the project.
#![warn(missing_docs)]

pub mod anonymous;
pub mod contract;
pub mod dispatch;
pub mod dtype;
pub mod error;
pub mod field;
pub mod nest;
pub mod ops;
pub mod registry;
pub mod serial;
pub mod shape;
pub mod spec;
pub mod tensor;
pub mod value;

#[doc(hidden)]
pub mod __private;

pub use anonymous::{AnonymousExtension, AnonymousSpec};
pub use dispatch::{BinaryOp, Handled, ReductionOp, UnaryOp};
pub use dtype::{DType, Element};
pub use error::ArgRef;
pub use error::{
    DispatchError, Error, JsonError, NestError, RegistryError, Result, ShapeError, SpecError,
    TensorError, ValueError,
};
pub use field::{ExactFloat, Field, FieldPath, PathSink, Sink, StaticValue};
pub use ops::{AsOperand, Op, OpArgs, OpKind, Operand};
pub use registry::{Registry, RegistryEntry, registered_name, registry};
pub use serial::{NamedSpec, SpecValue};
pub use shape::{
    Bindings, BroadcastChecks, DimensionCalculator, Policy, ShapePattern, StaticBroadcast, Unifier,
    broadcast_shapes, broadcast_static, enforce_shape,
};
pub use shape::{Dim, Shape};
pub use spec::{AnyExtension, AnySpec, ExtensionType, TensorSpec, TypeSpec};
pub use tensor::{Tensor, TensorView};
pub use value::{Value, ValueSpec};

//! # extype-core
//!
//! The runtime of extype (TensorFlow's Extension Types RFC, in Rust). Generated code from
//! `extype-macros` calls into this crate; users reach it through the `extype` facade.
//!
//! Modules, bottom to top (a module uses only those listed before it, and `shape`; see
//! `ARCHITECTURE.md`, checked by `core/tests/layering.rs`):
//!
//! - [`shape`]: partial shapes ([`Dim`], [`Shape`]), broadcasting and shape patterns.
//! - [`dtype`]: [`DType`], the element types of tensors.
//! - [`error`]: the one [`Error`] type of the project.
//! - [`tensor`]: [`Tensor`] (dtype-erased, shared, O(1) clone), [`TensorView`], the [`Element`]
//!   scalars and [`TensorSpec`].
//! - [`spec_tree`]: the serialized spec tree ([`SpecTree`], [`NamedSpec`]), its text form and its
//!   stable JSON form ([`spec_tree::json`], format version 1).
//! - `names` (internal): the `TypeId` → registered name lookup the specs need, supplied by the
//!   registry from above.
//! - [`spec`]: the [`TypeSpec`] / [`ExtensionType`] traits, [`AnySpec`] / [`AnyExtension`], and
//!   [`value`]: [`Value`] (tensor or extension value), [`ValueSpec`].
//! - [`field`]: the per-field trait [`Field`] that `#[derive(ExtensionType)]` targets.
//! - `contract` (internal): shape contracts.
//! - [`versioning`]: type versions, old names, field defaults and migrations, and the one upgrade
//!   of a stored value of an older version ([`versioning::Stored`]).
//! - `derived` (reached through `__private`): the runtime of
//!   derived types — their tables, and the field-by-field logic the derive calls (one
//!   implementation for every derived type).
//! - [`mod@registry`]: name → type table ([`registry()`]); [`anonymous`]: values of types not
//!   linked in.
//! - [`serial`]: typed specs to and from JSON, by registered name ([`serial::json`]).
//! - [`nest`]: `flatten`, `pack_sequence_as`, `map_structure`, `assert_same_structure`.
//! - [`io`]: values as safetensors files: `save`, `load`, `load_as`, `map`, shards.
//! - `op_model` (internal, re-exported by [`ops`]): what an op is — the catalog, whose entries
//!   carry their kernels, dtype sets, result and inference rules as data; arguments, operands,
//!   spec inference and the dense default.
//! - [`dispatch`]: the handler table (`#[dispatch(...)]`) and its precedence rules.
//! - [`ops`]: the user front: `ops::add(&x, &y)` & co. on tensors, arrays and extension values.
//! - `conflicts` (internal, re-exported as [`check()`]): every registration conflict of the
//!   program (registry names, dispatch keys) at once.
//!
//! ## How a derived type is put together
//!
//! For `struct Foo { a: A, b: B }` the derive emits `FooSpec { a: <A as Field>::Spec, b: <B as
//! Field>::Spec }`, a table of the struct (`__private_v1::Derived`: each field's offsets and its
//! type's [`Field`] functions), impls of [`Field`] and [`ExtensionType`] that name the table (their
//! methods are the traits' provided ones, which walk it), one-line impls of the spec's std traits
//! that call `__private_v1::derived` (where the field-by-field logic lives, once), and one registry
//! entry. Every impl is bounded by the field types, so an unsupported one is a single error, at
//! the field. `FooSpec`'s [`TypeSpec`] is a blanket impl over `__private_v1::DerivedSpec`. A
//! type that does not use the derive implements [`TypeSpec`] and [`ExtensionType`] by hand and
//! registers with [`register!`]: `core/tests/common/masked.rs` is one, on the public API.
//!
//! ```
//! use extype_core::{DType, Shape, Tensor, TensorSpec};
//! use ndarray::array;
//!
//! let t = Tensor::from(array![[1.0f32, 2.0, 3.0]]);
//! let exact = TensorSpec::from_tensor(&t);
//! let loose = TensorSpec::new("[?, 3]".parse::<Shape>()?, DType::F32);
//! assert!(loose.admits(&t) && exact.is_compatible_with(&loose) && exact != loose);
//! # Ok::<(), extype_core::Error>(())
//! ```
//!
//! ## Performance
//!
//! A components round trip of a two-field value, a spec from a value and spec compatibility each
//! cost tens of nanoseconds (TensorFlow: microseconds); `ops::add` adds a few tens of nanoseconds
//! of dispatch to the kernel it runs. Every figure, with the command that reproduces it
//! (`cargo bench -p extype --bench runtime`, `cargo bench -p extype-core --bench dispatch`), is in
//! `BENCHMARKS.md` at the repository root.
//!
#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

// In layer order, bottom to top (see the list above); one per group, so rustfmt keeps the order.
pub use extype_shape as shape;

/// The ndarray extype is built on (0.17): tensor fields must be arrays of this version; use it
/// as `extype::ndarray` to be sure.
pub use ndarray;

/// The `half` crate (2.x) whose `f16` and `bf16` are the element types of [`DType::F16`] and
/// [`DType::BF16`]: tensor fields of half precision are arrays of these (`ArrayD<half::bf16>`);
/// use it as `extype::half` to be sure of the version.
pub use half;

pub mod dtype;

pub mod error;

pub mod tensor;

pub mod spec_tree;

mod names;

pub mod spec;
pub use spec::value;

pub mod field;

mod contract;

pub mod versioning;

mod derived;

pub mod registry;
pub use registry::anonymous;

pub mod serial;

pub mod nest;

pub mod io;

pub mod batch;

mod op_model;

pub mod dispatch;

pub mod ops;

mod conflicts;

#[doc(hidden)]
pub mod __private;
/// The door's current version under the name generated code uses (a module re-exported at the
/// root, so compiler messages name its items as `__private_v1::Field`, not by private paths).
#[doc(hidden)]
pub use __private::v1 as __private_v1;

pub use conflicts::check;
pub use dispatch::{BinaryOp, Handled, OrDense, ReductionOp, UnaryOp};
pub use dtype::DType;
pub use error::ArgRef;
pub use error::{
    BatchError, DispatchError, Error, IoError, JsonError, NestError, RegistryError, Result,
    ShapeError, SpecError, TensorError, ValueError,
};
pub use extype_shape::{
    Bindings, BroadcastChecks, DimensionCalculator, Policy, ShapePattern, StaticBroadcast, Unifier,
    broadcast_shapes, broadcast_static, enforce_shape,
};
pub use extype_shape::{Dim, Shape};
pub use field::{
    ExactFloat, Field, FieldPath, PathSink, SequenceItem, Sink, StaticData, StaticValue,
};
pub use ops::{AsOperand, Op, OpArgs, OpKind, Operand};
pub use registry::anonymous::{AnonymousExtension, AnonymousSpec};
pub use registry::{Registry, RegistryEntry, registered_name, registry};
pub use spec::value::{SharedExtension, Value, ValueSpec};
pub use spec::{AnyExtension, AnySpec, ExtensionType, SpecSource, TensorSpec, TypeSpec, display};
pub use spec_tree::{NamedSpec, SpecTree};
pub use tensor::{Element, ExternalBytes, ExternalTensor, Tensor, TensorLike, TensorView};

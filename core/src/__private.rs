//! The one door for generated code: everything `#[derive(ExtensionType)]`, `#[dispatch]` and the
//! core macros (`register!`, `static_field!`) emit paths into. Not public API: names here may
//! change with the macro crate.
//!
//! Generated code reaches it as `::extype::__private` (the facade re-exports core). It holds
//! re-exports only: the logic lives in the module it belongs to — the derive's runtime in
//! `derived` and `contract` (reachable only from here), fields in [`crate::field`], the
//! registry entry in [`mod@crate::registry`], op arguments beside [`Operand`].

pub use inventory;
pub use serde;
pub use std::vec::Vec;

/// The derived-type runtime: struct tables and the field-by-field logic over them.
pub mod derived {
    pub use crate::derived::*;
}
pub use crate::derived::{
    Derived, DerivedSpec, FieldDesc, NotDerived, Probe, ProbeDerived, SkippedDesc, SkippedField,
    StructDesc, StructFields, validated,
};

/// The batching runtime: the default encoder of derived types and custom encoders.
pub use crate::batch::{
    BatchEncoder, BatchEntry, BatchField, BatchFns, BatchOps, DerivedBatch, NotBatchable,
    ProbeBatch, StaticBatch, check_unstacked, derived_batch_len, derived_batched_spec,
    derived_stack, derived_unbatched_spec, derived_unstack, unstack_static,
};
pub use crate::contract::{ShapeContract, ShapedField};
pub use crate::dispatch::param::{
    GroupParam, HandlerParam, dispatch_indices, dispatched_count, dispatched_params,
};
pub use crate::dispatch::{
    BinaryOp, Call, DispatchEntry, Handled, IntoHandled, IntoInferred, ParamKind, ReductionOp,
    Target, UnaryOp,
};
pub use crate::dtype::DType;
pub use crate::error::{Error, Result, SpecError};
pub use crate::field::{
    Components, ExactFloat, Field, FieldPath, SequenceItem, Sink, Static, StaticData, StaticValue,
    StructTable, data_error,
};
pub use crate::field::{
    static_struct_items, static_struct_to_value, static_tuple_items, static_variant_from_value,
    static_variant_to_value,
};
pub use crate::ops;
pub use crate::ops::catalog;
pub use crate::ops::operand::{arg_extension, arg_tensor, arg_value};
pub use crate::ops::{AsOperand, Inferred, OpKind, Operand};
pub use crate::registry::RegistryEntry;
pub use crate::serial::json::{deserialize_spec, serialize_spec};
pub use crate::shape::Shape;
pub use crate::spec::{
    ExtensionType, TensorSpec, TypeSpec, Value, ValueSpec, ValueTable, registered_name,
};
pub use crate::spec_tree::{NamedSpec, SpecTree, write_struct};
pub use crate::tensor::{Element, Tensor, TensorView};

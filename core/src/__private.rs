//! The one door for generated code: everything `#[derive(ExtensionType)]`,
//! `#[derive(StaticValue)]`, `#[dispatch]` and the core macros (`register!`, `static_field!`)
//! emit paths into. Not public API.
//!
//! The door is versioned: generated code names `::extype::__private_v1` (the crate root's
//! name for [`v1`]; the facade re-exports core) and checks, with [`expect_version`], that this runtime carries the version its macros
//! were written against, so a macro crate and a runtime from different releases fail to compile
//! with a message that says so, instead of with errors deep in generated code. A change to what
//! generated code relies on is a new `vN` module (re-exported as `__private_vN`, with a new
//! [`VERSION`]), made together with the macros.
//!
//! It holds re-exports only, each named (no glob): the logic lives in the module it belongs to —
//! the derive's runtime in `derived` and `contract` (reachable only from here), fields in
//! [`crate::field`], the registry entry in [`mod@crate::registry`], op arguments beside
//! [`Operand`](crate::ops::Operand).

/// The version of this door the runtime carries: `v1`.
pub const VERSION: u32 = 1;

/// Fails compilation (as a `const` evaluation) when generated code was written against another
/// version of this door than [`VERSION`]. The macros emit
/// `const _: () = ::extype::__private::expect_version(N);` beside every expansion.
pub const fn expect_version(version: u32) {
    if version != VERSION {
        panic!(
            "extype-macros and extype-core are from different releases: the generated code is \
             written against another version of `extype::__private` than this extype-core \
             carries; depend on both through the `extype` facade, or on matching versions"
        );
    }
}

/// Version 1 of the door: every item generated code names, and nothing else. Hidden like the door
/// itself, so compiler messages name its items `extype::__private_v1::…` and it lends no name to
/// the short paths they print.
#[doc(hidden)]
pub mod v1 {
    pub use inventory;
    pub use serde;
    pub use std::vec::Vec;

    /// The derived-type runtime the derive calls by path: the erased functions of a type's
    /// table, its spec's std impls, refinement by shape contracts.
    pub mod derived {
        pub use crate::derived::{
            TypeFns, clone_spec, erase_validate, refine, spec_debug, spec_display, spec_eq,
            spec_hash,
        };
    }
    pub use crate::derived::{
        Derived, DerivedSpec, FieldDesc, NotDerived, Probe, ProbeDerived, SkipOps, SkippedDesc,
        SkippedField, StructDesc, Vouched, unset_field, validated,
    };

    /// The batching runtime: the default encoder of derived types and custom encoders.
    pub use crate::batch::{
        BatchEncoder, BatchEntry, BatchField, BatchFns, BatchOps, DerivedBatch, ListLayout,
        NotBatchable, ProbeBatch, StaticBatch, check_unstacked, derived_batch_len,
        derived_batched_spec, derived_stack, derived_unbatched_spec, derived_unstack,
        unstack_static,
    };
    pub use crate::contract::{ShapeContract, ShapeOps, ShapedField};
    pub use crate::dispatch::param::{
        GroupParam, HandlerParam, dispatch_indices, dispatched_count, dispatched_params,
    };
    pub use crate::dispatch::{
        Call, DispatchEntry, Handled, IntoHandled, IntoInferred, ParamKind, Target,
    };
    pub use crate::dtype::DType;
    pub use crate::error::Result;
    pub use crate::field::{
        Components, Field, FieldOps, FieldPath, SequenceItem, Sink, Static, StaticData,
        StaticValue, StructTable,
    };
    pub use crate::field::{
        static_struct_items, static_struct_to_value, static_tuple_items, static_variant_from_value,
        static_variant_to_value,
    };
    pub use crate::ops;
    pub use crate::ops::catalog;
    pub use crate::ops::{AsOperand, Inferred, OpKind, Operand};
    pub use crate::registry::RegistryEntry;
    pub use crate::serial::json::{deserialize_spec, serialize_spec};
    pub use crate::spec::{
        ExtensionType, TensorSpec, TypeSpec, Value, ValueSpec, ValueTable, display,
    };
    pub use crate::spec_tree::SpecTree;
    pub use crate::tensor::{Tensor, TensorLike, TensorView};
    pub use crate::versioning::{
        Evolution, FieldDefault, FieldEvolution, Filled, Migration, Stored, unknown_spec,
    };
    pub use extype_shape::Shape;
}

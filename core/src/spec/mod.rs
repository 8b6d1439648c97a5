//! Specs: [`TensorSpec`], the [`TypeSpec`] / [`ExtensionType`] traits, their object-safe
//! twins [`AnySpec`] / [`AnyExtension`], and [`Value`], the erased handle they hand out.
//!
//! Specs and values are one layer: [`AnySpec::dyn_from_components`] returns a [`Value`], and a
//! [`Value`] holds a `dyn AnyExtension`. [`value`] is also reachable as `crate::value`.

mod any_spec;
mod shared;
mod type_spec;
pub mod value;
mod value_table;

pub use crate::tensor::TensorSpec;
pub use any_spec::{AnyExtension, AnySpec};
pub use type_spec::{ExtensionType, TypeSpec, registered_name};
pub use value::{SharedExtension, Value, ValueSpec};
#[doc(hidden)]
pub use value_table::{ValueOps, ValueTable};

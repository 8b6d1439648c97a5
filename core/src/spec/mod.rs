//! Specs: [`TensorSpec`], the [`TypeSpec`] / [`ExtensionType`] traits, and their object-safe
//! twins [`AnySpec`] / [`AnyExtension`].

mod any_spec;
mod type_spec;

pub use any_spec::{AnyExtension, AnySpec};
pub use crate::tensor::TensorSpec;
pub use type_spec::{ExtensionType, TypeSpec, registered_name};

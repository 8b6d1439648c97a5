//! Specs: [`TensorSpec`], the [`TypeSpec`] / [`ExtensionType`] traits, and their object-safe
//! twins [`AnySpec`] / [`AnyExtension`].

mod any_spec;
mod tensor_spec;
mod type_spec;

pub use any_spec::{AnyExtension, AnySpec};
pub use tensor_spec::TensorSpec;
pub use type_spec::{ExtensionType, TypeSpec};

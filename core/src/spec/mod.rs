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

/// The seal of provided trait methods that are this crate's machinery (some trusted by its
/// `unsafe` code): a type that is public (so it may appear in public traits) in a module no other
/// crate can reach, so no other crate can name it. A method taking a `Seal` can be neither
/// overridden nor called outside extype (as ndarray's `private_decl!`): `Field::from_components_into`,
/// `BatchField::stacker`, `ExtensionType::dynamic_name` / `dynamic_value_name`.
pub(crate) mod seal {
    /// The token; see the module.
    #[derive(Clone, Copy, Debug)]
    pub struct Seal;
}

pub use crate::tensor::TensorSpec;
pub use any_spec::{AnyExtension, AnySpec};
pub use type_spec::{ExtensionType, TypeSpec, registered_name};
pub use value::{SharedExtension, Value, ValueSpec};
#[doc(hidden)]
pub use value_table::{ValueOps, ValueTable};

//! Specs: [`TensorSpec`], the [`TypeSpec`] / [`ExtensionType`] traits, their object-safe
//! twins [`AnySpec`] / [`AnyExtension`], and [`Value`], the erased handle they hand out.
//!
//! Files, bottom to top; each imports only files listed before it (no two import each other):
//! `value_table` ([`ValueOps`], [`ValueTable`]) → `type_spec` ([`TypeSpec`], [`ExtensionType`])
//! → `spare` (the block cache of [`SharedExtension`]) → [`value`] ([`Value`], [`ValueSpec`],
//! [`SharedExtension`], and the object-safe traits [`AnySpec`] / [`AnyExtension`], which name
//! `Value` and each other: one recursive type, one file; see its docs) → `any_spec` (the blanket
//! impls of the object-safe traits for every extension type and its spec).
//!
//! [`value`] is also reachable as `crate::value`.

mod any_spec;
mod spare;
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
pub use any_spec::display;
pub use type_spec::{ExtensionType, SpecSource, TypeSpec, registered_name};
pub use value::{AnyExtension, AnySpec, SharedExtension, Value, ValueSpec};
#[doc(hidden)]
pub use value_table::{ValueOps, ValueTable};

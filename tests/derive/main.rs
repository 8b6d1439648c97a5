//! `#[derive(ExtensionType)]` on users' structs: fields, static data, validation and shape
//! contracts, serde, erased tables, half floats, the tensor-like interface and `nest`. One test
//! binary, one module per concern (one link instead of twelve). Each registered name is the
//! module's own, so sharing a registry changes nothing a module sees.

#[path = "../common/mod.rs"]
mod common;

mod contract_errors;
mod derive_basic;
mod derive_component_specs;
mod derive_erased;
mod derive_fields;
mod derive_hygiene;
mod derive_serde;
mod derive_static;
mod derive_validate;
mod half_fields;
mod nest;
mod opt_in;
mod recursive;
mod tensor_like;

//! Serialization of specs: the typed and registry-backed API over the spec tree.
//!
//! The tree itself ([`SpecTree`], [`NamedSpec`]), its text form and its JSON codec live below
//! the specs, in [`crate::spec_tree`]; they are re-exported here so `serial::SpecTree` and
//! `serial::json::…` keep working. This module sits above the registry: [`any_spec_from_json`]
//! finds a spec's type by the name it carries.

pub mod json;

pub use crate::spec_tree::{NamedSpec, SpecTree, write_struct};

pub use json::{any_spec_from_json, spec_from_json, spec_to_json};

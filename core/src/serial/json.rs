//! The stable JSON form of specs (format version 1): typed specs to and from JSON documents.
//!
//! The document format and the tree codec are [`crate::spec_tree::json`] (re-exported here);
//! this module adds the typed ends: a [`TypeSpec`] through its [`SpecTree`], and a spec of any
//! registered type found by the name the document carries.

pub use crate::spec_tree::json::{FORMAT_KEY, FORMAT_VERSION};

use crate::error::Result;
use crate::registry::registry;
use crate::spec::{AnySpec, TypeSpec};
use crate::spec_tree::SpecTree;

/// Serializes a spec to its JSON document.
pub fn spec_to_json<S: TypeSpec>(spec: &S) -> Result<String> {
    spec.serialize().to_json()
}

/// Deserializes a spec of a known type from its JSON document.
pub fn spec_from_json<S: TypeSpec>(text: &str) -> Result<S> {
    S::deserialize(&SpecTree::from_json(text)?)
}

/// Deserializes a spec of any registered type from its JSON document, by the name it carries.
pub fn any_spec_from_json(text: &str) -> Result<Box<dyn AnySpec>> {
    registry().deserialize_spec(&SpecTree::from_json(text)?)
}

//! Serialization of specs: [`SpecValue`] and its stable JSON form (see [`json`]).

mod display;
pub mod json;
mod value;

pub use display::write_struct;

pub use json::{any_spec_from_json, spec_from_json, spec_to_json};
pub use value::{NamedSpec, SpecValue};

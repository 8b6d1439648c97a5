//! Serialization of specs: [`SpecValue`] and its stable JSON form.

mod value;

pub use value::{NamedSpec, SpecValue};

//! The serialized spec tree: [`SpecValue`] (with [`NamedSpec`]), its compact text form
//! (`Display`) and its stable JSON form ([`json`]).
//!
//! This layer knows the tree only: no `TypeSpec`, no registry. Turning a tree into a typed spec
//! (`TypeSpec::deserialize`) or into a spec of a type found by name is done above it, by the
//! spec types themselves and by [`crate::serial`] through the registry.

mod display;
pub mod json;

pub use display::write_struct;

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use crate::dtype::DType;
use crate::shape::Shape;
use crate::tensor::TensorSpec;

/// The serialized form of a spec: a nested structure of a few kinds of values (TF's
/// `TypeSpec.serialize` output). Every registered spec serializes to [`SpecValue::Spec`], which
/// carries its registered name, so a document names every nested registered type.
///
/// Equality and hashing are strict and structural; floats compare by bits (so the relation is an
/// equivalence and `NaN == NaN`, `0.0 != -0.0`).
#[derive(Debug, Clone)]
pub enum SpecValue {
    /// No value (`Option::None`).
    None,
    /// A boolean.
    Bool(bool),
    /// An integer; every Rust integer up to 64 bits fits.
    Int(i128),
    /// A float (f32 values are widened exactly).
    Float(f64),
    /// A string.
    Str(String),
    /// A dtype.
    DType(DType),
    /// A partial shape.
    Shape(Shape),
    /// A tensor spec.
    TensorSpec(TensorSpec),
    /// A nested registered spec: its registered name and its own data.
    Spec(Box<NamedSpec>),
    /// A variable-length sequence (`Vec`).
    List(Vec<SpecValue>),
    /// A fixed-length heterogeneous sequence (tuples, arrays).
    Tuple(Vec<SpecValue>),
    /// String-keyed entries, sorted by key (struct fields, `BTreeMap<String, _>`).
    Map(BTreeMap<String, SpecValue>),
}

/// A registered spec's name and data, inside [`SpecValue::Spec`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NamedSpec {
    /// The registered name of the extension type (`"pkg.MaskedTensor"`).
    pub name: String,
    /// The spec's data (for derived types, a [`SpecValue::Map`] of the fields).
    pub value: SpecValue,
}

impl SpecValue {
    /// A short name of this value's kind, used in error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            SpecValue::None => "none",
            SpecValue::Bool(_) => "bool",
            SpecValue::Int(_) => "int",
            SpecValue::Float(_) => "float",
            SpecValue::Str(_) => "string",
            SpecValue::DType(_) => "dtype",
            SpecValue::Shape(_) => "shape",
            SpecValue::TensorSpec(_) => "tensor spec",
            SpecValue::Spec(_) => "spec",
            SpecValue::List(_) => "list",
            SpecValue::Tuple(_) => "tuple",
            SpecValue::Map(_) => "map",
        }
    }

    /// A description for error messages: the kind, plus the name of a nested spec.
    pub fn describe(&self) -> String {
        match self {
            SpecValue::Spec(named) => format!("spec {:?}", named.name),
            SpecValue::Str(s) if s.len() <= 40 => format!("string {s:?}"),
            SpecValue::Int(i) => format!("int {i}"),
            SpecValue::Bool(b) => format!("bool {b}"),
            SpecValue::List(l) => format!("list of {}", l.len()),
            SpecValue::Tuple(l) => format!("tuple of {}", l.len()),
            other => other.kind().to_string(),
        }
    }

    /// Wraps a registered spec's data with its name.
    pub fn spec(name: impl Into<String>, value: SpecValue) -> SpecValue {
        SpecValue::Spec(Box::new(NamedSpec {
            name: name.into(),
            value,
        }))
    }
}

impl PartialEq for SpecValue {
    fn eq(&self, other: &Self) -> bool {
        use SpecValue::*;
        match (self, other) {
            (None, None) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (Str(a), Str(b)) => a == b,
            (DType(a), DType(b)) => a == b,
            (Shape(a), Shape(b)) => a == b,
            (TensorSpec(a), TensorSpec(b)) => a == b,
            (Spec(a), Spec(b)) => a == b,
            (List(a), List(b)) | (Tuple(a), Tuple(b)) => a == b,
            (Map(a), Map(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for SpecValue {}

impl Hash for SpecValue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            SpecValue::None => {}
            SpecValue::Bool(b) => b.hash(state),
            SpecValue::Int(i) => i.hash(state),
            SpecValue::Float(f) => f.to_bits().hash(state),
            SpecValue::Str(s) => s.hash(state),
            SpecValue::DType(d) => d.hash(state),
            SpecValue::Shape(s) => s.hash(state),
            SpecValue::TensorSpec(t) => t.hash(state),
            SpecValue::Spec(n) => n.hash(state),
            SpecValue::List(l) | SpecValue::Tuple(l) => l.hash(state),
            SpecValue::Map(m) => m.hash(state),
        }
    }
}

impl From<bool> for SpecValue {
    fn from(b: bool) -> Self {
        SpecValue::Bool(b)
    }
}

impl From<&str> for SpecValue {
    fn from(s: &str) -> Self {
        SpecValue::Str(s.to_string())
    }
}

impl From<String> for SpecValue {
    fn from(s: String) -> Self {
        SpecValue::Str(s)
    }
}

impl From<DType> for SpecValue {
    fn from(d: DType) -> Self {
        SpecValue::DType(d)
    }
}

impl From<Shape> for SpecValue {
    fn from(s: Shape) -> Self {
        SpecValue::Shape(s)
    }
}

impl From<TensorSpec> for SpecValue {
    fn from(t: TensorSpec) -> Self {
        SpecValue::TensorSpec(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_compare_by_bits() {
        assert_eq!(SpecValue::Float(f64::NAN), SpecValue::Float(f64::NAN));
        assert_ne!(SpecValue::Float(0.0), SpecValue::Float(-0.0));
        assert_ne!(SpecValue::List(vec![]), SpecValue::Tuple(vec![]));
        assert_eq!(
            SpecValue::spec("a.B", SpecValue::None).describe(),
            "spec \"a.B\""
        );
    }
}

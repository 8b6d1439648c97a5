//! The serialized spec tree: [`SpecTree`] (with [`NamedSpec`]), its compact text form
//! (`Display`) and its stable JSON form ([`json`]).
//!
//! This layer knows the tree only: no `TypeSpec`, no registry. Turning a tree into a typed spec
//! (`TypeSpec::deserialize`) or into a spec of a type found by name is done above it, by the
//! spec types themselves and by [`crate::serial`] through the registry.

mod display;
mod fields;
pub mod json;

pub use display::write_struct;
pub use fields::Fields;

use std::hash::{Hash, Hasher};

use crate::dtype::DType;
use crate::tensor::TensorSpec;
use extype_shape::Shape;

/// The serialized form of a spec: a nested structure of a few kinds of values (TF's
/// `TypeSpec.serialize` output). Every registered spec serializes to [`SpecTree::Spec`], which
/// carries its registered name, so a document names every nested registered type.
///
/// Equality and hashing are strict and structural; floats compare by bits (so the relation is an
/// equivalence and `NaN == NaN`, `0.0 != -0.0`).
///
/// Depth: the API builds trees of any depth, and dropping and printing (`Display`) work at any
/// depth (iteratively, no recursion); writing JSON refuses a tree nested deeper than the
/// documents it reads ([`json::MAX_NESTING`]) with an error. Because dropping is a `Drop` impl,
/// a tree's parts are taken out through a reference (`&mut`, then [`std::mem::take`]: the
/// default tree is [`SpecTree::None`]), not moved out by a `match` on the tree itself.
#[derive(Debug, Clone, Default)]
pub enum SpecTree {
    /// No value (`Option::None`).
    #[default]
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
    List(Vec<SpecTree>),
    /// A fixed-length heterogeneous sequence (tuples, arrays).
    Tuple(Vec<SpecTree>),
    /// String-keyed entries in the order they were made: a struct's fields in declaration
    /// order, a `BTreeMap<String, _>` field's entries in key order (equality ignores the order).
    Map(Fields),
}

/// A registered spec's name and data, inside [`SpecTree::Spec`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NamedSpec {
    /// The registered name of the extension type (`"pkg.MaskedTensor"`).
    pub name: String,
    /// The version of the type that wrote it (`#[extype(version = N)]`; 1 for an unversioned
    /// type, and for documents written before versions existed). JSON writes it only when it
    /// is not 1, so version-1 documents are what they always were.
    pub version: u32,
    /// The spec's data (for derived types, a [`SpecTree::Map`] of the fields).
    pub value: SpecTree,
}

impl SpecTree {
    /// A short name of this value's kind, used in error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            SpecTree::None => "none",
            SpecTree::Bool(_) => "bool",
            SpecTree::Int(_) => "int",
            SpecTree::Float(_) => "float",
            SpecTree::Str(_) => "string",
            SpecTree::DType(_) => "dtype",
            SpecTree::Shape(_) => "shape",
            SpecTree::TensorSpec(_) => "tensor spec",
            SpecTree::Spec(_) => "spec",
            SpecTree::List(_) => "list",
            SpecTree::Tuple(_) => "tuple",
            SpecTree::Map(_) => "map",
        }
    }

    /// A description for error messages: the kind, plus the name of a nested spec.
    pub fn describe(&self) -> String {
        match self {
            SpecTree::Spec(named) => format!("spec {:?}", short(&named.name)),
            SpecTree::Str(s) if s.len() <= 40 => format!("string {s:?}"),
            SpecTree::Int(i) => format!("int {i}"),
            SpecTree::Bool(b) => format!("bool {b}"),
            SpecTree::List(l) => format!("list of {}", l.len()),
            SpecTree::Tuple(l) => format!("tuple of {}", l.len()),
            other => other.kind().to_string(),
        }
    }

    /// Wraps a registered spec's data with its name.
    pub fn spec(name: impl Into<String>, value: SpecTree) -> SpecTree {
        SpecTree::versioned_spec(name, 1, value)
    }

    /// A registered spec named `name`, written by version `version` of its type (see
    /// [`NamedSpec::version`]).
    ///
    /// ```
    /// use extype_core::SpecTree;
    /// let tree = SpecTree::versioned_spec("pkg.Foo", 2, SpecTree::None);
    /// let json = tree.to_json().unwrap();
    /// assert!(json.contains(r#""version":2"#), "{json}");
    /// assert_eq!(SpecTree::from_json(&json).unwrap(), tree);
    /// ```
    pub fn versioned_spec(name: impl Into<String>, version: u32, value: SpecTree) -> SpecTree {
        SpecTree::Spec(Box::new(NamedSpec {
            name: name.into(),
            version,
            value,
        }))
    }
}

/// Dropping is iterative: a tree nested to any depth (built in code; parsed documents are
/// depth-limited) is freed without recursing, children moved to a heap stack first.
impl Drop for SpecTree {
    fn drop(&mut self) {
        if !has_children(self) {
            return;
        }
        let mut pending: Vec<SpecTree> = Vec::new();
        take_children(self, &mut pending);
        while let Some(mut node) = pending.pop() {
            take_children(&mut node, &mut pending);
            // `node` drops here, childless: no recursion.
        }
    }
}

/// Whether dropping `tree` could recurse (it holds a nested tree).
#[inline]
fn has_children(tree: &SpecTree) -> bool {
    match tree {
        SpecTree::List(items) | SpecTree::Tuple(items) => !items.is_empty(),
        SpecTree::Map(entries) => !entries.is_empty(),
        SpecTree::Spec(_) => true,
        _ => false,
    }
}

/// Moves the nested trees of `tree` that have children of their own onto `pending`; childless
/// ones are dropped in place.
fn take_children(tree: &mut SpecTree, pending: &mut Vec<SpecTree>) {
    let mut keep = |child: SpecTree| {
        if has_children(&child) {
            pending.push(child);
        }
    };
    match tree {
        SpecTree::List(items) | SpecTree::Tuple(items) => items.drain(..).for_each(keep),
        SpecTree::Map(entries) => std::mem::take(entries).into_values().for_each(keep),
        SpecTree::Spec(named) => keep(std::mem::replace(&mut named.value, SpecTree::None)),
        _ => {}
    }
}

/// `text`, cut to at most 40 characters (`…` marks the cut): what errors quote of an input.
pub(crate) fn short(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]).into(),
        None => text.into(),
    }
}

impl PartialEq for SpecTree {
    fn eq(&self, other: &Self) -> bool {
        use SpecTree::*;
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

impl Eq for SpecTree {}

impl Hash for SpecTree {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            SpecTree::None => {}
            SpecTree::Bool(b) => b.hash(state),
            SpecTree::Int(i) => i.hash(state),
            SpecTree::Float(f) => f.to_bits().hash(state),
            SpecTree::Str(s) => s.hash(state),
            SpecTree::DType(d) => d.hash(state),
            SpecTree::Shape(s) => s.hash(state),
            SpecTree::TensorSpec(t) => t.hash(state),
            SpecTree::Spec(n) => n.hash(state),
            SpecTree::List(l) | SpecTree::Tuple(l) => l.hash(state),
            SpecTree::Map(m) => m.hash(state),
        }
    }
}

impl From<bool> for SpecTree {
    fn from(b: bool) -> Self {
        SpecTree::Bool(b)
    }
}

impl From<&str> for SpecTree {
    fn from(s: &str) -> Self {
        SpecTree::Str(s.to_string())
    }
}

impl From<String> for SpecTree {
    fn from(s: String) -> Self {
        SpecTree::Str(s)
    }
}

impl From<DType> for SpecTree {
    fn from(d: DType) -> Self {
        SpecTree::DType(d)
    }
}

impl From<Shape> for SpecTree {
    fn from(s: Shape) -> Self {
        SpecTree::Shape(s)
    }
}

impl From<TensorSpec> for SpecTree {
    fn from(t: TensorSpec) -> Self {
        SpecTree::TensorSpec(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_compare_by_bits() {
        assert_eq!(SpecTree::Float(f64::NAN), SpecTree::Float(f64::NAN));
        assert_ne!(SpecTree::Float(0.0), SpecTree::Float(-0.0));
        assert_ne!(SpecTree::List(vec![]), SpecTree::Tuple(vec![]));
        assert_eq!(
            SpecTree::spec("a.B", SpecTree::None).describe(),
            "spec \"a.B\""
        );
    }
}

//! [`FieldPath`]: where a field is inside a value, printed as `children[1].mask`.

use std::fmt;

/// Where a field is inside a value: `values`, `children[1].mask`, `attrs.height`, `pair.0`.
///
/// A linked list on the stack: building a path costs nothing until an error formats it.
#[derive(Clone, Copy, Debug)]
pub enum FieldPath<'a> {
    /// The value itself.
    Root,
    /// A named struct field.
    Field(&'a FieldPath<'a>, &'static str),
    /// An element of a `Vec` or array: `[i]`.
    Index(&'a FieldPath<'a>, usize),
    /// An element of a tuple: `.i`.
    Tuple(&'a FieldPath<'a>, usize),
    /// An entry of a `BTreeMap<String, _>`: `.key`.
    Key(&'a FieldPath<'a>, &'a str),
}

impl<'a> FieldPath<'a> {
    /// The path of a named field below this one.
    #[inline]
    pub fn field(&'a self, name: &'static str) -> FieldPath<'a> {
        FieldPath::Field(self, name)
    }

    /// The path of element `i` of a sequence below this one.
    #[inline]
    pub fn index(&'a self, i: usize) -> FieldPath<'a> {
        FieldPath::Index(self, i)
    }

    /// The path of tuple element `i` below this one.
    #[inline]
    pub fn tuple(&'a self, i: usize) -> FieldPath<'a> {
        FieldPath::Tuple(self, i)
    }

    /// The path of map entry `key` below this one.
    #[inline]
    pub fn key(&'a self, key: &'a str) -> FieldPath<'a> {
        FieldPath::Key(self, key)
    }

    fn is_root(&self) -> bool {
        matches!(self, FieldPath::Root)
    }
}

impl fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldPath::Root => Ok(()),
            FieldPath::Field(parent, name) if parent.is_root() => f.write_str(name),
            FieldPath::Field(parent, name) => write!(f, "{parent}.{name}"),
            FieldPath::Key(parent, key) if parent.is_root() => f.write_str(key),
            FieldPath::Key(parent, key) => write!(f, "{parent}.{key}"),
            FieldPath::Index(parent, i) => write!(f, "{parent}[{i}]"),
            FieldPath::Tuple(parent, i) if parent.is_root() => write!(f, "{i}"),
            FieldPath::Tuple(parent, i) => write!(f, "{parent}.{i}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_format_like_the_design() {
        let root = FieldPath::Root;
        let children = root.field("children");
        let one = children.index(1);
        let mask = one.field("mask");
        assert_eq!(mask.to_string(), "children[1].mask");
        let attrs = root.field("attrs");
        assert_eq!(attrs.key("height").to_string(), "attrs.height");
        assert_eq!(root.field("pair").tuple(0).to_string(), "pair.0");
    }
}

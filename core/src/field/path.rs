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

/// A printed component path ([`FieldPath`]'s text) taken apart into the names of its levels:
/// `children[1].mask` → `children`, `[1]`, `mask` (each index its own segment, bracketed).
/// What readers that nest components by field use (an Arrow struct column's children);
/// [`join_segments`] puts the segments back together. The one parser of the printed form,
/// beside its printer.
///
/// ```
/// use extype_core::field::path::{join_segments, segments};
/// assert_eq!(segments("children[1][2].mask"), ["children", "[1]", "[2]", "mask"]);
/// assert_eq!(segments("[0].x"), ["[0]", "x"]);
/// assert_eq!(segments("pair.0"), ["pair", "0"]);
/// let joined = join_segments(&["children", "[1]", "mask"]);
/// assert_eq!(joined, "children[1].mask");
/// ```
pub fn segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let mut rest = part;
        // `name[1][2]`: the name, then each index.
        let head_end = index_start(rest).unwrap_or(rest.len());
        out.push(rest[..head_end].to_string());
        rest = &rest[head_end..];
        while let Some(close) = rest.find(']') {
            out.push(rest[..=close].to_string());
            rest = &rest[close + 1..];
        }
    }
    // A leading index (`[0].x` of a sequence at the root) leaves an empty head.
    if out.first().is_some_and(String::is_empty) && out.len() > 1 {
        out.remove(0);
    }
    out
}

/// Where the trailing `[i][j]…` indices of a path segment start, if it has them.
fn index_start(part: &str) -> Option<usize> {
    let mut end = part.len();
    let mut start = None;
    while part[..end].ends_with(']') {
        let open = part[..end].rfind('[')?;
        if !part[open + 1..end - 1].bytes().all(|b| b.is_ascii_digit()) || open + 2 > end - 1 {
            break;
        }
        start = Some(open);
        end = open;
    }
    start
}

/// The printed path of these segments (the inverse of [`segments`]): a name after another
/// segment is joined with `.`, an index (`[i]`) is appended as it is.
pub fn join_segments(segments: &[&str]) -> String {
    let mut out = String::new();
    for s in segments {
        if !out.is_empty() && !s.starts_with('[') {
            out.push('.');
        }
        out.push_str(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_paths_split_into_segments_and_back() {
        for (path, segs) in [
            ("values", vec!["values"]),
            ("items[1].mask", vec!["items", "[1]", "mask"]),
            ("grid[0][2]", vec!["grid", "[0]", "[2]"]),
            ("pair.0", vec!["pair", "0"]),
            ("attrs.height", vec!["attrs", "height"]),
            ("odd[x]", vec!["odd[x]"]),
        ] {
            let got = segments(path);
            assert_eq!(got, segs, "{path}");
            assert_eq!(
                join_segments(&got.iter().map(String::as_str).collect::<Vec<_>>()),
                path
            );
        }
        let root = FieldPath::Root;
        let items = root.field("items");
        let one = items.index(1);
        let printed = one.tuple(0).to_string();
        let segs = segments(&printed);
        assert_eq!(
            join_segments(&segs.iter().map(String::as_str).collect::<Vec<_>>()),
            printed
        );
    }

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

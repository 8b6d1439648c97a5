//! The one error type of extype, with one variant per area.
//!
//! Messages name where the problem is (field path, op, argument, axis), what was expected and what
//! was found. Library code returns these instead of panicking on bad input.

use crate::shape::{Dim, Shape};

/// Result alias used throughout extype.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Any error extype reports.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A shape was malformed, incompatible, or failed a runtime check.
    #[error(transparent)]
    Shape(#[from] ShapeError),
}

/// An error about shapes: parsing, merging, broadcasting or checking against a pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShapeError {
    /// Text that should describe a shape, dim or pattern could not be parsed.
    #[error(
        "cannot parse {what} {input:?}: at position {position}, expected {expected}, found {found}"
    )]
    Parse {
        /// What was being parsed (`"shape"`, `"dim"`, `"shape pattern"`).
        what: &'static str,
        /// The whole input text.
        input: String,
        /// Byte offset of the problem in `input`.
        position: usize,
        /// What the parser expected there.
        expected: String,
        /// What it found there.
        found: String,
    },
    /// Two shapes that had to agree do not (e.g. in [`Shape::merge_with`]).
    #[error("{op}: shapes {left} and {right} are incompatible{}", axis_suffix(*axis, left_dim, right_dim))]
    Incompatible {
        /// The operation that needed them to agree.
        op: &'static str,
        /// The first shape.
        left: Box<Shape>,
        /// The second shape.
        right: Box<Shape>,
        /// The first axis where they conflict, if the conflict is in one axis (not the rank).
        axis: Option<usize>,
        /// The first shape's dim at `axis`.
        left_dim: Option<Dim>,
        /// The second shape's dim at `axis`.
        right_dim: Option<Dim>,
    },
    /// A shape has the wrong rank.
    #[error("{op}: expected rank {expected}, found shape {found}")]
    Rank {
        /// The operation that needed the rank.
        op: &'static str,
        /// The rank (or range) expected, as text (`"3"`, `"at least 2"`).
        expected: String,
        /// The shape found.
        found: Box<Shape>,
    },
}

fn axis_suffix(axis: Option<usize>, left: &Option<Dim>, right: &Option<Dim>) -> String {
    match (axis, left, right) {
        (Some(axis), Some(l), Some(r)) => format!(" at axis {axis} ({l} vs {r})"),
        (Some(axis), _, _) => format!(" at axis {axis}"),
        _ => " (ranks differ)".to_string(),
    }
}

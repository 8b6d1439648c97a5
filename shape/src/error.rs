//! The errors of shape code: [`ShapeError`] and [`ArgRef`] (which argument an error is about).
//!
//! Messages name where the problem is (op, argument, axis), what was expected and what was found.
//! `extype-core` wraps [`ShapeError`] in its one `Error` type (`Error::Shape`), with the same
//! messages.

use std::fmt;
use std::sync::Arc;

use crate::dim::Dim;
use crate::partial::Shape;

/// Result alias of shape code (the error is a [`ShapeError`]).
pub type Result<T, E = ShapeError> = std::result::Result<T, E>;

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
        /// The input text: whole when short, else an excerpt around `position` (at most
        /// [`EXCERPT_CHARS`] characters on each side, `…` where
        /// cut).
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
    /// A concrete (or statically known) size of one argument does not satisfy a requirement:
    /// a runtime broadcast check, a shape pattern, or a joint unification.
    #[error("{op}: {arg} axis {axis}: expected {expected}, found {found}")]
    Mismatch {
        /// The operation that checked it (`"broadcast"`, `"enforce_shape"`, `"unify"`).
        op: &'static str,
        /// The argument whose size is wrong.
        arg: ArgRef,
        /// The axis of that argument (counted from its first axis).
        axis: usize,
        /// What the size had to be, as text (`"1 or 3"`, `"n = 5 (bound by argument 0 axis 1)"`).
        expected: String,
        /// The size found; a [`Dim`] so that static (partial) conflicts can be reported too.
        found: Dim,
    },
    /// One argument has a rank the operation cannot accept.
    #[error("{op}: {arg} has shape {found}, expected rank {expected}")]
    ArgRank {
        /// The operation that needed the rank.
        op: &'static str,
        /// The argument with the wrong rank.
        arg: ArgRef,
        /// The rank (or range) expected, as text (`"3"`, `"at least 2"`).
        expected: String,
        /// The argument's shape.
        found: Box<Shape>,
    },
    /// An operation was given the wrong number of arguments (e.g. broadcast checks built for three
    /// shapes run against two).
    #[error(
        "{op}: expected {}, found {found}",
        crate::signature::arguments(*expected)
    )]
    ArgCount {
        /// The operation.
        op: &'static str,
        /// How many arguments it was built for.
        expected: usize,
        /// How many it was given.
        found: usize,
    },
    /// Two arguments cannot broadcast together: at one output axis their sizes differ and neither
    /// is 1. Sizes are [`Dim`]s because the conflict may be found statically (e.g. `[3]` vs `[4]`).
    #[error(
        "broadcast: argument {first} axis {first_axis} has size {first_size} and argument \
         {second} axis {second_axis} has size {second_size}; they must be equal or one must be 1"
    )]
    Broadcast {
        /// The earlier argument.
        first: usize,
        /// Its axis (counted from its first axis).
        first_axis: usize,
        /// Its size there.
        first_size: Dim,
        /// The later argument.
        second: usize,
        /// Its axis.
        second_axis: usize,
        /// Its size there.
        second_size: Dim,
    },
    /// A name is already bound to something else than what it was being bound to.
    #[error("the name `{name}` is already bound to {bound}; cannot bind it to {new}")]
    Rebind {
        /// The name.
        name: Arc<str>,
        /// What it is bound to (a size, or a segment's sizes), and by what.
        bound: String,
        /// What it was being bound to.
        new: String,
    },
    /// A name was looked up that no pattern bound (e.g. in a dimension calculator).
    #[error("no size is bound to the name `{name}`")]
    Unbound {
        /// The name.
        name: Arc<str>,
    },
    /// A pattern (or set of patterns) is well formed text but cannot be used as asked, e.g. a
    /// declared batch dim that is not leading.
    #[error("invalid shape pattern for {arg}: {message}")]
    InvalidPattern {
        /// The argument the pattern belongs to.
        arg: ArgRef,
        /// What is wrong.
        message: String,
    },
    /// An output's declared shape breaks a declaration rule (an any-dim, a name no input binds,
    /// a missing batch dim).
    #[error("invalid shape of output `{output}` ({shape}): {message}")]
    InvalidOutput {
        /// The output.
        output: Arc<str>,
        /// Its declared shape, as text.
        shape: String,
        /// The rule broken.
        message: String,
    },
    /// A dimension calculator could not compute an output shape.
    #[error("cannot compute the shape of output `{output}`: {message}")]
    Calculation {
        /// The output whose shape was asked for.
        output: Arc<str>,
        /// Why not.
        message: String,
    },
    /// A number of elements does not fit in `usize`.
    #[error("{op}: the number of elements of {arg} overflows usize")]
    Overflow {
        /// The operation.
        op: &'static str,
        /// The argument.
        arg: ArgRef,
    },
}

/// The most characters of a bad input a parse error quotes on each side of the problem (the
/// input, and what was found there, are cut to an excerpt marked with `…`).
pub const EXCERPT_CHARS: usize = 32;

/// Which argument (input) an error is about: by position, by the name the user gave it, or a
/// field of a struct (the shape contracts of derived types).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArgRef {
    /// The argument at this position (0-based).
    Index(usize),
    /// The argument with this name.
    Name(Arc<str>),
    /// The field at this path (`values`, `inner.mask`).
    Field(Arc<str>),
}

impl fmt::Display for ArgRef {
    /// `argument 1`, ``input `kernel` `` or ``field `values` ``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgRef::Index(i) => write!(f, "argument {i}"),
            ArgRef::Name(name) => write!(f, "input `{name}`"),
            ArgRef::Field(path) => write!(f, "field `{path}`"),
        }
    }
}

impl From<usize> for ArgRef {
    fn from(index: usize) -> Self {
        ArgRef::Index(index)
    }
}

impl From<&str> for ArgRef {
    fn from(name: &str) -> Self {
        ArgRef::Name(name.into())
    }
}

fn axis_suffix(axis: Option<usize>, left: &Option<Dim>, right: &Option<Dim>) -> String {
    match (axis, left, right) {
        (Some(axis), Some(l), Some(r)) => format!(" at axis {axis} ({l} vs {r})"),
        (Some(axis), _, _) => format!(" at axis {axis}"),
        _ => " (ranks differ)".to_string(),
    }
}

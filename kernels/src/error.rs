//! The error type of every fallible kernel.

/// Result alias for kernels.
pub type Result<T, E = KernelError> = std::result::Result<T, E>;

/// What went wrong in a kernel. Every variant names the op and the offending argument or axis,
/// with what was expected and what was found.
///
/// Arguments are named one way, as the runtime's ops name them: an array argument by its
/// position counted from 0 (`argument 1`; the arrays of `concat` and `stack` are arguments 0, 1,
/// …), any other parameter by its name (`axis`, `indices`, `row_splits`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KernelError {
    /// Shapes that must broadcast (NumPy rules) or match do not.
    #[error(
        "{op}: {arg} has shape {found:?}, which does not broadcast with (or match) {expected:?}"
    )]
    Shape {
        /// The op.
        op: &'static str,
        /// Which argument (`argument 1`).
        arg: String,
        /// The shape it had to agree with.
        expected: Vec<usize>,
        /// Its shape.
        found: Vec<usize>,
    },
    /// An axis is out of range for the array's rank.
    #[error("{op}: axis {axis} is out of range for an array of rank {ndim}")]
    AxisOutOfRange {
        /// The op.
        op: &'static str,
        /// The axis as given (may be negative).
        axis: isize,
        /// The rank of the array.
        ndim: usize,
    },
    /// The same axis was named twice.
    #[error("{op}: axis {axis} appears more than once")]
    DuplicateAxis {
        /// The op.
        op: &'static str,
        /// The repeated axis (normalised to be non-negative).
        axis: usize,
    },
    /// A reduction that has no identity (max, min, argmax, argmin) saw no elements.
    #[error("{op}: zero-size input{where_} has no {op} (it has no identity)")]
    EmptyReduction {
        /// The op.
        op: &'static str,
        /// Where, e.g. " in segment 3", or empty.
        where_: String,
    },
    /// Ragged row splits are malformed.
    #[error("{op}: row_splits: expected {expected}, found {found}")]
    RowSplits {
        /// The op.
        op: &'static str,
        /// What was required.
        expected: String,
        /// What was found.
        found: String,
    },
    /// An index is out of bounds.
    #[error(
        "{op}: index {index} at position {position} is out of bounds for axis {axis} of size {size}"
    )]
    IndexOutOfBounds {
        /// The op.
        op: &'static str,
        /// The offending index.
        index: i64,
        /// Its position in the index array.
        position: usize,
        /// The axis indexed.
        axis: usize,
        /// That axis's size.
        size: usize,
    },
    /// The output cannot be allocated: its element count or byte size overflows or exceeds
    /// `isize::MAX` (the largest allocation Rust permits; checked before allocating), or the
    /// allocator refused the block (the kernels that return a `Result` allocate their outputs
    /// fallibly, so a size the machine cannot provide is this error, not an abort).
    #[error(
        "{op}: output of shape {shape} ({elem_bytes}-byte elements): expected {expected}, found {found}"
    )]
    TooLarge {
        /// The op.
        op: &'static str,
        /// The output shape, as text (`[2147483648, 2147483648]`).
        shape: String,
        /// The size of one output element in bytes.
        elem_bytes: usize,
        /// The bound the output had to meet (`at most 9223372036854775807 bytes (isize::MAX)`,
        /// `a size the allocator grants`).
        expected: String,
        /// The output's size (`18446744073709551616 bytes`, `8796093022208 bytes, refused`).
        found: String,
    },
    /// Any other bad argument (e.g. an empty list of arrays to stack).
    #[error("{op}: {arg}: expected {expected}, found {found}")]
    Argument {
        /// The op.
        op: &'static str,
        /// The argument (`argument 0`, or a parameter's name), or `arguments` for the list.
        arg: &'static str,
        /// What was required.
        expected: String,
        /// What was found.
        found: String,
    },
}

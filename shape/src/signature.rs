//! The op signature table: every op of extype's catalog as a [`Signature`] (name, [`OpKind`],
//! [`Arity`]), with no runtime attached.
//!
//! The macro crate reads it at compile time (`#[dispatch(Add)]` checks the op exists and the
//! handler's arity, and suggests names for a misspelt op); `extype-core`'s catalog builds its
//! runtime ops from these constants (`catalog::ADD` holds [`ADD`]), and a test there checks that
//! both list the same signatures in the same order.
//!
//! ```
//! use extype_shape::signature::{self, Arity, OpKind};
//! let add = signature::lookup("Add").unwrap();
//! assert_eq!((add.name, add.kind, add.arity), ("add", OpKind::BinaryElementwise, Arity::Exactly(2)));
//! assert_eq!(signature::lookup("reduce_sum"), Some(&signature::REDUCE_SUM));
//! assert_eq!(signature::suggest("addd"), vec!["add"]);
//! ```

use std::fmt;

use crate::edit_distance::edit_distance;

/// The largest number of dispatched (tensor-like) arguments a dispatch handler may take: the width
/// of the dispatch table's keys.
pub const MAX_DISPATCH_ARGS: usize = 6;

/// What an op does, for group handlers (TensorFlow's `is_unary_elementwise_op` & co.).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// Maps each element of its one tensor argument independently (`neg`, `exp`, `logical_not`).
    UnaryElementwise,
    /// Combines corresponding elements of its two tensor arguments, with broadcasting (`add`,
    /// `eq`, `logical_and`).
    BinaryElementwise,
    /// Combines the elements of its one tensor argument along axes (`reduce_sum`); extra
    /// arguments: axes and keepdims.
    Reduction,
    /// Anything else (`reshape`, `concat`, `where`, …).
    Other,
}

impl OpKind {
    /// The group name used by `#[dispatch(...)]`: `unary_elementwise`, `binary_elementwise`,
    /// `reduction`, `other`.
    pub const fn group_name(self) -> &'static str {
        match self {
            OpKind::UnaryElementwise => "unary_elementwise",
            OpKind::BinaryElementwise => "binary_elementwise",
            OpKind::Reduction => "reduction",
            OpKind::Other => "other",
        }
    }

    /// The kind named by a group name (see [`group_name`](Self::group_name)); `other` is not a
    /// group (it has no common callable).
    pub fn from_group_name(name: &str) -> Option<OpKind> {
        match name {
            "unary_elementwise" => Some(OpKind::UnaryElementwise),
            "binary_elementwise" => Some(OpKind::BinaryElementwise),
            "reduction" => Some(OpKind::Reduction),
            _ => None,
        }
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.group_name())
    }
}

/// How many dispatchable (tensor-like) arguments an op takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arity {
    /// Exactly this many.
    Exactly(usize),
    /// At least this many (`concat`, `stack`).
    AtLeast(usize),
}

impl Arity {
    /// Whether `n` arguments fit.
    pub const fn admits(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::AtLeast(k) => n >= k,
        }
    }

    /// The arity with its noun, as errors say it: `1 argument`, `2 arguments`,
    /// `at least 1 argument`.
    ///
    /// ```
    /// use extype_shape::signature::Arity;
    /// assert_eq!(Arity::Exactly(1).arguments(), "1 argument");
    /// assert_eq!(Arity::AtLeast(2).arguments(), "at least 2 arguments");
    /// ```
    pub fn arguments(self) -> String {
        match self {
            Arity::Exactly(n) => arguments(n),
            Arity::AtLeast(n) => format!("at least {}", arguments(n)),
        }
    }
}

/// `n` arguments, singular or plural: `0 arguments`, `1 argument`, `2 arguments`.
///
/// ```
/// assert_eq!(extype_shape::signature::arguments(1), "1 argument");
/// assert_eq!(extype_shape::signature::arguments(3), "3 arguments");
/// ```
pub fn arguments(n: usize) -> String {
    if n == 1 {
        "1 argument".to_string()
    } else {
        format!("{n} arguments")
    }
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arity::Exactly(n) => write!(f, "{n}"),
            Arity::AtLeast(n) => write!(f, "at least {n}"),
        }
    }
}

/// The static description of an op: its name (its identity), kind and arity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Signature {
    /// The op's snake-case name (`"add"`, `"reduce_sum"`).
    pub name: &'static str,
    /// What the op does (for group handlers).
    pub kind: OpKind,
    /// How many tensor-like arguments it takes.
    pub arity: Arity,
}

impl Signature {
    /// A signature (a `const fn`, for the catalog's constants and user-declared ops).
    pub const fn new(name: &'static str, kind: OpKind, arity: Arity) -> Signature {
        Signature { name, kind, arity }
    }
}

impl fmt::Display for Signature {
    /// `add` (the name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! signatures {
    ($($(#[$doc:meta])* $konst:ident = $name:literal, $kind:ident, $arity:expr;)*) => {
        $(
            $(#[$doc])*
            pub const $konst: Signature = Signature::new($name, OpKind::$kind, $arity);
        )*

        /// Every op of the catalog, in catalog order.
        pub const ALL: &[Signature] = &[$($konst),*];
    };
}

use Arity::{AtLeast, Exactly};

signatures! {
    /// `-x`.
    NEG = "neg", UnaryElementwise, Exactly(1);
    /// `|x|`.
    ABS = "abs", UnaryElementwise, Exactly(1);
    /// `e^x` (floats).
    EXP = "exp", UnaryElementwise, Exactly(1);
    /// Natural logarithm (floats).
    LOG = "log", UnaryElementwise, Exactly(1);
    /// Square root (floats).
    SQRT = "sqrt", UnaryElementwise, Exactly(1);
    /// Sine (floats).
    SIN = "sin", UnaryElementwise, Exactly(1);
    /// Cosine (floats).
    COS = "cos", UnaryElementwise, Exactly(1);
    /// Hyperbolic tangent (floats).
    TANH = "tanh", UnaryElementwise, Exactly(1);
    /// Logistic sigmoid (floats).
    SIGMOID = "sigmoid", UnaryElementwise, Exactly(1);
    /// Floor (floats).
    FLOOR = "floor", UnaryElementwise, Exactly(1);
    /// Ceiling (floats).
    CEIL = "ceil", UnaryElementwise, Exactly(1);
    /// Round half to even (floats).
    ROUND = "round", UnaryElementwise, Exactly(1);
    /// Logical not (any dtype → bool).
    LOGICAL_NOT = "logical_not", UnaryElementwise, Exactly(1);
    /// Whether each element is NaN (→ bool).
    IS_NAN = "is_nan", UnaryElementwise, Exactly(1);
    /// Whether each element is finite (→ bool).
    IS_FINITE = "is_finite", UnaryElementwise, Exactly(1);

    /// `x + y`.
    ADD = "add", BinaryElementwise, Exactly(2);
    /// `x - y`.
    SUB = "sub", BinaryElementwise, Exactly(2);
    /// `x * y`.
    MUL = "mul", BinaryElementwise, Exactly(2);
    /// `x / y` (floats).
    DIV = "div", BinaryElementwise, Exactly(2);
    /// Elementwise maximum (NaN propagates).
    MAXIMUM = "maximum", BinaryElementwise, Exactly(2);
    /// Elementwise minimum (NaN propagates).
    MINIMUM = "minimum", BinaryElementwise, Exactly(2);
    /// `x ^ y` (floats).
    POW = "pow", BinaryElementwise, Exactly(2);
    /// `x == y` (→ bool).
    EQUAL = "equal", BinaryElementwise, Exactly(2);
    /// `x != y` (→ bool).
    NOT_EQUAL = "not_equal", BinaryElementwise, Exactly(2);
    /// `x < y` (→ bool).
    LESS = "less", BinaryElementwise, Exactly(2);
    /// `x <= y` (→ bool).
    LESS_EQUAL = "less_equal", BinaryElementwise, Exactly(2);
    /// `x > y` (→ bool).
    GREATER = "greater", BinaryElementwise, Exactly(2);
    /// `x >= y` (→ bool).
    GREATER_EQUAL = "greater_equal", BinaryElementwise, Exactly(2);
    /// Logical and (→ bool).
    LOGICAL_AND = "logical_and", BinaryElementwise, Exactly(2);
    /// Logical or (→ bool).
    LOGICAL_OR = "logical_or", BinaryElementwise, Exactly(2);
    /// Logical xor (→ bool).
    LOGICAL_XOR = "logical_xor", BinaryElementwise, Exactly(2);

    /// Sum over axes (integers widen to 64 bits).
    REDUCE_SUM = "reduce_sum", Reduction, Exactly(1);
    /// Mean over axes (`f64` for integers).
    REDUCE_MEAN = "reduce_mean", Reduction, Exactly(1);
    /// Product over axes (integers widen to 64 bits).
    REDUCE_PROD = "reduce_prod", Reduction, Exactly(1);
    /// Maximum over axes (an error over an empty extent).
    REDUCE_MAX = "reduce_max", Reduction, Exactly(1);
    /// Minimum over axes (an error over an empty extent).
    REDUCE_MIN = "reduce_min", Reduction, Exactly(1);
    /// Whether any element is non-zero (→ bool).
    REDUCE_ANY = "reduce_any", Reduction, Exactly(1);
    /// Whether every element is non-zero (→ bool).
    REDUCE_ALL = "reduce_all", Reduction, Exactly(1);
    /// Number of non-zero elements (→ i64).
    COUNT_NONZERO = "count_nonzero", Reduction, Exactly(1);
    /// Index of the first maximum over the reduced axes (→ i64, flat over those axes).
    ARGMAX = "argmax", Reduction, Exactly(1);
    /// Index of the first minimum over the reduced axes (→ i64, flat over those axes).
    ARGMIN = "argmin", Reduction, Exactly(1);

    /// The shape as an `i64` vector.
    SHAPE = "shape", Other, Exactly(1);
    /// Same elements (C order), another shape.
    RESHAPE = "reshape", Other, Exactly(1);
    /// Permutes the axes (reverses them by default).
    TRANSPOSE = "transpose", Other, Exactly(1);
    /// Joins tensors along an existing axis.
    CONCAT = "concat", Other, AtLeast(1);
    /// Joins tensors along a new axis.
    STACK = "stack", Other, AtLeast(1);
    /// Repeats a tensor along each axis.
    TILE = "tile", Other, Exactly(1);
    /// Picks slices along an axis by index.
    GATHER = "gather", Other, Exactly(1);
    /// `cond ? x : y` elementwise, with broadcasting (TensorFlow's `where`).
    WHERE = "where", Other, Exactly(3);
    /// Converts the dtype.
    CAST = "cast", Other, Exactly(1);
    /// Zeros of the same shape and dtype (unary elementwise, as TensorFlow registers
    /// `tf.zeros_like` for `dispatch_for_unary_elementwise_apis`).
    ZEROS_LIKE = "zeros_like", UnaryElementwise, Exactly(1);
    /// Ones of the same shape and dtype (unary elementwise, as TensorFlow's `tf.ones_like`).
    ONES_LIKE = "ones_like", UnaryElementwise, Exactly(1);
    /// The rows (leading axes) where a boolean mask is true (`boolean_mask`).
    BOOLEAN_MASK = "boolean_mask", Other, Exactly(2);
    /// Sum of each ragged row (segments of axis 0 given by `row_splits`).
    SEGMENT_SUM = "segment_sum", Other, Exactly(1);
    /// Mean of each ragged row.
    SEGMENT_MEAN = "segment_mean", Other, Exactly(1);
    /// Maximum of each ragged row (an error for an empty row).
    SEGMENT_MAX = "segment_max", Other, Exactly(1);
    /// Minimum of each ragged row (an error for an empty row).
    SEGMENT_MIN = "segment_min", Other, Exactly(1);
    /// Matrix product of the last two axes, leading axes broadcast.
    MATMUL = "matmul", Other, Exactly(2);
}

/// The catalog signature with this name. Accepts the snake-case name (`reduce_sum`) and its
/// CamelCase form (`ReduceSum`), as `#[dispatch(...)]` does.
///
/// ```
/// use extype_shape::signature::{self, OpKind};
/// assert_eq!(signature::lookup("Add").unwrap().kind, OpKind::BinaryElementwise);
/// assert_eq!(signature::lookup("reduce_sum"), Some(&signature::REDUCE_SUM));
/// assert!(signature::lookup("addd").is_none());
/// ```
pub fn lookup(name: &str) -> Option<&'static Signature> {
    let snake = to_snake(name);
    ALL.iter().find(|sig| sig.name == snake)
}

/// The position in [`ALL`] of the op with exactly this snake-case name, computed at compile time
/// when called in a constant (core's catalog uses it as the op's slot in dispatch tables).
///
/// ```
/// use extype_shape::signature::{self, ALL};
/// const ADD: Option<usize> = signature::position("add");
/// assert_eq!(ALL[ADD.unwrap()], signature::ADD);
/// assert_eq!(signature::position("Add"), None);
/// ```
pub const fn position(name: &str) -> Option<usize> {
    let mut i = 0;
    while i < ALL.len() {
        if const_str_eq(ALL[i].name, name) {
            return Some(i);
        }
        i += 1;
    }
    None
}

const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `ReduceSum` → `reduce_sum`; snake-case input is returned unchanged.
///
/// ```
/// assert_eq!(extype_shape::signature::to_snake("LogicalNot"), "logical_not");
/// assert_eq!(extype_shape::signature::to_snake("reduce_sum"), "reduce_sum");
/// ```
pub fn to_snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The catalog names closest to `name` (for "did you mean" messages), best first, at most three.
pub fn suggest(name: &str) -> Vec<&'static str> {
    let snake = to_snake(name);
    let mut scored: Vec<(usize, &'static str)> = ALL
        .iter()
        .map(|sig| (edit_distance(&snake, sig.name), sig.name))
        .filter(|&(d, n)| d <= 2.max(n.len() / 3))
        .collect();
    scored.sort();
    scored.into_iter().map(|(_, n)| n).take(3).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        assert_eq!(ALL.len(), 58);
        let mut names: Vec<_> = ALL.iter().map(|sig| sig.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate catalog names");
        for sig in ALL {
            assert_eq!(lookup(sig.name), Some(sig));
        }
        assert_eq!(lookup("LogicalNot").unwrap().name, "logical_not");
        assert_eq!(lookup("Where").unwrap().arity, Arity::Exactly(3));
        assert_eq!(lookup("ReduceSum"), Some(&REDUCE_SUM));
    }

    #[test]
    fn kinds_and_suggestions() {
        assert_eq!(REDUCE_MEAN.kind, OpKind::Reduction);
        assert_eq!(
            OpKind::from_group_name("reduction"),
            Some(OpKind::Reduction)
        );
        assert_eq!(OpKind::from_group_name("other"), None);
        assert_eq!(OpKind::Reduction.to_string(), "reduction");
        assert_eq!(suggest("addd"), vec!["add"]);
        assert!(suggest("Reduce_Summ").contains(&"reduce_sum"));
        assert!(suggest("completely_unrelated").is_empty());
        assert!(Arity::AtLeast(1).admits(3) && !Arity::Exactly(2).admits(3));
        assert_eq!(Arity::AtLeast(1).to_string(), "at least 1");
        assert_eq!(ADD.to_string(), "add");
    }
}

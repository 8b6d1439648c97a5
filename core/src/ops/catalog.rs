//! The op catalog: every dispatchable op of extype, as a value with a name, a [`OpKind`] and an
//! [`Arity`].
//!
//! Ops are `static` [`Op`]s (`catalog::ADD`); their identity is their name. Each catalog op holds
//! its [`Signature`] from the leaf crate's table ([`extype_shape::signature`]), which the macro
//! crate reads at compile time, so `#[dispatch(Add)]` and `#[dispatch(add)]` both name [`ADD`],
//! and a misspelt op is a compile error. Users declare more ops with
//! [`declare_op!`](crate::declare_op).

use std::fmt;

use extype_shape::signature;

use crate::error::Result;
use crate::tensor::Tensor;

pub use extype_shape::signature::{Arity, OpKind, Signature, to_snake};

/// The dense default of a user-declared op: runs on dense tensors only (the arguments, in order).
pub type DenseFn = fn(&[Tensor], &crate::ops::OpArgs) -> Result<Tensor>;

/// A dispatchable op: a name (its identity), a kind and an arity, plus, for user-declared ops, an
/// optional dense default. The catalog ops' dense defaults are built in (the kernels).
#[derive(Debug)]
pub struct Op {
    sig: Signature,
    dense: Option<DenseFn>,
    builtin: bool,
}

impl Op {
    /// An op. `dense` is the dense default for a user-declared op (`None`: no default, so every
    /// call needs a handler; catalog ops ignore it and run the kernels).
    pub const fn new(name: &'static str, kind: OpKind, arity: Arity, dense: Option<DenseFn>) -> Op {
        Op {
            sig: Signature::new(name, kind, arity),
            dense,
            builtin: false,
        }
    }

    /// A catalog op (its dense default is built in), from its signature in the leaf crate.
    const fn builtin(sig: Signature) -> Op {
        Op {
            sig,
            dense: None,
            builtin: true,
        }
    }

    /// The op's signature: name, kind and arity.
    #[inline]
    pub const fn signature(&self) -> &Signature {
        &self.sig
    }

    /// The op's name (`"add"`, `"my.softplus"`).
    #[inline]
    pub const fn name(&self) -> &'static str {
        self.sig.name
    }

    /// The op's kind.
    #[inline]
    pub const fn kind(&self) -> OpKind {
        self.sig.kind
    }

    /// How many tensor-like arguments it takes.
    #[inline]
    pub const fn arity(&self) -> Arity {
        self.sig.arity
    }

    /// The dense default of a user-declared op.
    #[inline]
    pub fn dense_fn(&self) -> Option<DenseFn> {
        self.dense
    }

    /// Whether this op is one of the catalog's.
    #[inline]
    pub fn is_builtin(&self) -> bool {
        self.builtin
    }
}

impl PartialEq for Op {
    fn eq(&self, other: &Op) -> bool {
        self.sig.name == other.sig.name
    }
}

impl Eq for Op {}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.sig.name)
    }
}

macro_rules! catalog {
    ($($(#[$doc:meta])* $konst:ident;)*) => {
        $(
            $(#[$doc])*
            pub static $konst: Op = Op::builtin(signature::$konst);
        )*

        /// Every op of the catalog, in catalog order.
        pub static ALL: &[&Op] = &[$(&$konst),*];
    };
}

catalog! {
    /// `-x`.
    NEG;
    /// `|x|`.
    ABS;
    /// `e^x` (floats).
    EXP;
    /// Natural logarithm (floats).
    LOG;
    /// Square root (floats).
    SQRT;
    /// Sine (floats).
    SIN;
    /// Cosine (floats).
    COS;
    /// Hyperbolic tangent (floats).
    TANH;
    /// Logistic sigmoid (floats).
    SIGMOID;
    /// Floor (floats).
    FLOOR;
    /// Ceiling (floats).
    CEIL;
    /// Round half to even (floats).
    ROUND;
    /// Logical not (any dtype → bool).
    LOGICAL_NOT;
    /// Whether each element is NaN (→ bool).
    IS_NAN;
    /// Whether each element is finite (→ bool).
    IS_FINITE;

    /// `x + y`.
    ADD;
    /// `x - y`.
    SUB;
    /// `x * y`.
    MUL;
    /// `x / y` (floats).
    DIV;
    /// Elementwise maximum (NaN propagates).
    MAXIMUM;
    /// Elementwise minimum (NaN propagates).
    MINIMUM;
    /// `x ^ y` (floats).
    POW;
    /// `x == y` (→ bool).
    EQUAL;
    /// `x != y` (→ bool).
    NOT_EQUAL;
    /// `x < y` (→ bool).
    LESS;
    /// `x <= y` (→ bool).
    LESS_EQUAL;
    /// `x > y` (→ bool).
    GREATER;
    /// `x >= y` (→ bool).
    GREATER_EQUAL;
    /// Logical and (→ bool).
    LOGICAL_AND;
    /// Logical or (→ bool).
    LOGICAL_OR;
    /// Logical xor (→ bool).
    LOGICAL_XOR;

    /// Sum over axes (integers widen to 64 bits).
    REDUCE_SUM;
    /// Mean over axes (`f64` for integers).
    REDUCE_MEAN;
    /// Product over axes (integers widen to 64 bits).
    REDUCE_PROD;
    /// Maximum over axes (an error over an empty extent).
    REDUCE_MAX;
    /// Minimum over axes (an error over an empty extent).
    REDUCE_MIN;
    /// Whether any element is non-zero (→ bool).
    REDUCE_ANY;
    /// Whether every element is non-zero (→ bool).
    REDUCE_ALL;
    /// Number of non-zero elements (→ i64).
    COUNT_NONZERO;
    /// Index of the first maximum over the reduced axes (→ i64, flat over those axes).
    ARGMAX;
    /// Index of the first minimum over the reduced axes (→ i64, flat over those axes).
    ARGMIN;

    /// The shape as an `i64` vector.
    SHAPE;
    /// Same elements (C order), another shape.
    RESHAPE;
    /// Permutes the axes (reverses them by default).
    TRANSPOSE;
    /// Joins tensors along an existing axis.
    CONCAT;
    /// Joins tensors along a new axis.
    STACK;
    /// Repeats a tensor along each axis.
    TILE;
    /// Picks slices along an axis by index.
    GATHER;
    /// `cond ? x : y` elementwise, with broadcasting (TensorFlow's `where`).
    WHERE;
    /// Converts the dtype.
    CAST;
    /// Zeros of the same shape and dtype.
    ZEROS_LIKE;
    /// Ones of the same shape and dtype.
    ONES_LIKE;
    /// The rows (leading axes) where a boolean mask is true (`boolean_mask`).
    BOOLEAN_MASK;
    /// Sum of each ragged row (segments of axis 0 given by `row_splits`).
    SEGMENT_SUM;
    /// Mean of each ragged row.
    SEGMENT_MEAN;
    /// Maximum of each ragged row (an error for an empty row).
    SEGMENT_MAX;
    /// Minimum of each ragged row (an error for an empty row).
    SEGMENT_MIN;
}

/// The catalog op with this name. Accepts the snake-case name (`reduce_sum`) and its CamelCase
/// form (`ReduceSum`), as `#[dispatch(...)]` does.
///
/// ```
/// use extype_core::ops::catalog::{self, OpKind};
/// assert_eq!(catalog::lookup("Add").unwrap().kind(), OpKind::BinaryElementwise);
/// assert!(std::ptr::eq(catalog::lookup("reduce_sum").unwrap(), &catalog::REDUCE_SUM));
/// assert!(catalog::lookup("addd").is_none());
/// ```
pub fn lookup(name: &str) -> Option<&'static Op> {
    let sig = signature::lookup(name)?;
    ALL.iter().copied().find(|op| op.sig.name == sig.name)
}

/// The catalog names closest to `name` (for "did you mean" messages), best first.
pub fn suggest(name: &str) -> Vec<&'static str> {
    signature::suggest(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        let mut names: Vec<_> = ALL.iter().map(|op| op.name()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate catalog names");
        for op in ALL {
            assert!(std::ptr::eq(lookup(op.name()).unwrap(), *op));
            assert!(op.is_builtin());
        }
        assert_eq!(lookup("LogicalNot").unwrap().name(), "logical_not");
        assert_eq!(lookup("Where").unwrap().arity(), Arity::Exactly(3));
    }

    #[test]
    fn kinds_and_suggestions() {
        assert_eq!(REDUCE_MEAN.kind(), OpKind::Reduction);
        assert_eq!(
            OpKind::from_group_name("reduction"),
            Some(OpKind::Reduction)
        );
        assert_eq!(OpKind::from_group_name("other"), None);
        assert_eq!(suggest("addd"), vec!["add"]);
        assert!(suggest("Reduce_Summ").contains(&"reduce_sum"));
        assert!(Arity::AtLeast(1).admits(3) && !Arity::Exactly(2).admits(3));
    }

    #[test]
    fn catalog_matches_the_signature_table() {
        let ours: Vec<Signature> = ALL.iter().map(|op| *op.signature()).collect();
        assert_eq!(
            ours,
            signature::ALL,
            "core's catalog and extype_shape::signature::ALL differ"
        );
    }
}

//! The op catalog: every dispatchable op of extype, as a value carrying its data.
//!
//! Ops are `static` [`Op`]s (`catalog::ADD`); their identity is their name. Each entry holds its
//! [`Signature`] (name, [`OpKind`], [`Arity`]) and, as data, what running it needs: its dense
//! kernel entry point (and masked kernel, for reductions that have one), the dtypes it takes
//! ([`DTypeSet`]), how its arguments' dtypes relate ([`Operands`]), the dtype it returns
//! ([`ResultDType`]), how its output shape is inferred ([`InferRule`]) and, for `stack` and
//! `concat`, its fallback for extension values no handler takes. Nothing dispatches on an op's
//! name or matches an error to decide what runs: the entry's data decide.
//!
//! The macro crate reads [`lookup`] at compile time, so `#[dispatch(Add)]` and
//! `#[dispatch(add)]` both name [`ADD`], and a misspelt op is a compile error. Users declare more
//! ops with [`declare_op!`](crate::declare_op) (no catalog change: a user op carries its own
//! data, [`Op::new`]).
//!
//! ## Adding an op to the catalog
//!
//! Every place an op touches, in order (paths from the repository root):
//!
//! 1. **Its signature**, in the leaf crate: one line `NAME = "name", Kind, arity;` in
//!    `signatures!` of `shape/src/signature.rs` (`extype_shape::signature`, which the macro crate
//!    checks `#[dispatch(...)]` names against; `catalog_and_leaf_signatures_agree` below checks
//!    that its `ALL` and this catalog's agree, in order).
//! 2. **Its kernel**, if it computes something new: a function in `kernels/src/` taking ndarray
//!    views of any strides (a broadcast view is read in place, never copied) that checks its
//!    output size or allocates it fallibly.
//! 3. **Its entry**, here (`core/src/op_model/catalog.rs`): one line `NAME => data;` in
//!    `catalog!` below, in the order of the leaf's `ALL`. `data` is an entry macro of
//!    `core/src/op_model/glue.rs` — `unary!(SET, kernel)`, `binary!(SET, kernel)`,
//!    `reduce!(SET, kernel)`, `segment!(SET, kernel)`, or `custom!(SET, body)` for a body that is
//!    more than one kernel call — with the `const` setters of `Builtin`
//!    (`core/src/op_model/op.rs`) for what differs from the defaults: `.result(ResultDType)`,
//!    `.operands(Operands)`, `.infer(InferRule)`, `.masked(masked!(kernel))`,
//!    `.fallback(f, applies)` (what runs for extension values no handler takes, and which
//!    types it applies to, for `ops::supported`).
//! 4. **Its dense body**, for `custom!`: a function in `core/src/op_model/bodies.rs` that checks
//!    its output size (`check_output`) before allocating anything proportional to it.
//! 5. **Its shape rule**, when its kind's default does not fit: a [`ShapeFn`] in
//!    [`infer`] (`core/src/op_model/infer.rs`), named by
//!    `.infer(InferRule::Custom(infer::f))`.
//! 6. **Its front function**, in [`crate::ops`] (`core/src/ops/mod.rs`): one line in
//!    `unary_ops!`, `binary_ops!` or `reduction_ops!`, or a function taking its extra arguments
//!    (as `ops::tile`).
//!
//! Nothing else changes: dispatch finds the op's handlers at its catalog slot. The catalog tests
//! (`core/src/op_model/tests.rs`) run every dtype through every entry, against its inference and
//! its dtype set, and the op fuzz test (`core/tests/ops/fuzz_ops.rs`) calls every catalog op on
//! random and huge inputs.

use extype_kernels::elementwise::{binary as kb, unary as ku};
use extype_kernels::reduce::{axes as ka, masked as km, segment as ks};
use extype_shape::signature;

use super::bodies;
use super::fallback;
use super::glue::{binary, custom, masked, reduce, segment, unary};
use super::infer;
use super::op::InferRule;
use super::rules::{Fold, Operands, ResultDType};

pub use super::op::{DenseFn, Op};
pub use extype_shape::signature::{Arity, OpKind, Signature, to_snake};

#[cfg(doc)]
use super::op::ShapeFn;
#[cfg(doc)]
use super::rules::DTypeSet;

/// One line per op: `CONST => data;`, where `CONST` names the op's signature in the leaf crate's
/// table ([`extype_shape::signature`], which the macro crate checks `#[dispatch(...)]` against)
/// and data is its kernels and rules (`Builtin`, built by the entry macros of
/// [`glue`](super::glue)). Generates the entries and [`ALL`].
macro_rules! catalog {
    ($($(#[$doc:meta])* $konst:ident => $data:expr;)*) => {
        $(
            $(#[$doc])*
            pub static $konst: Op = Op::builtin(signature::$konst, $data);
        )*

        /// Every op of the catalog, in catalog order (the order of `extype_shape::signature::ALL`).
        pub static ALL: &[&Op] = &[$(&$konst),*];
    };
}

use Fold::{All, Any, ArgMax, ArgMin, CountNonzero, Max, Mean, Min, Prod, Sum};
use InferRule::Custom;
use Operands::BoolAt;
use ResultDType::{Bool, FloatOfInts, FromArgs, FromArgsOrSame, I64, Widen};

catalog! {
    /// `-x`.
    NEG => unary!(NUMERIC, ku::neg);
    /// `|x|`.
    ABS => unary!(NUMERIC, ku::abs);
    /// `e^x` (floats).
    EXP => unary!(FLOAT, ku::exp);
    /// Natural logarithm (floats).
    LOG => unary!(FLOAT, ku::log);
    /// Square root (floats).
    SQRT => unary!(FLOAT, ku::sqrt);
    /// Sine (floats).
    SIN => unary!(FLOAT, ku::sin);
    /// Cosine (floats).
    COS => unary!(FLOAT, ku::cos);
    /// Hyperbolic tangent (floats).
    TANH => unary!(FLOAT, ku::tanh);
    /// Logistic sigmoid (floats).
    SIGMOID => unary!(FLOAT, ku::sigmoid);
    /// Floor (floats).
    FLOOR => unary!(FLOAT, ku::floor);
    /// Ceiling (floats).
    CEIL => unary!(FLOAT, ku::ceil);
    /// Round half to even (floats).
    ROUND => unary!(FLOAT, ku::round);
    /// Logical not (any dtype → bool).
    LOGICAL_NOT => unary!(KERNEL, ku::logical_not).result(Bool);
    /// Whether each element is NaN (→ bool).
    IS_NAN => unary!(KERNEL, ku::is_nan).result(Bool);
    /// Whether each element is finite (→ bool).
    IS_FINITE => unary!(KERNEL, ku::is_finite).result(Bool);

    /// `x + y`.
    ADD => binary!(NUMERIC, kb::add);
    /// `x - y`.
    SUB => binary!(NUMERIC, kb::sub);
    /// `x * y`.
    MUL => binary!(NUMERIC, kb::mul);
    /// `x / y` (floats).
    DIV => binary!(FLOAT, kb::div);
    /// Elementwise maximum (NaN propagates).
    MAXIMUM => binary!(NUMERIC, kb::maximum);
    /// Elementwise minimum (NaN propagates).
    MINIMUM => binary!(NUMERIC, kb::minimum);
    /// `x ^ y` (floats).
    POW => binary!(FLOAT, kb::pow);
    /// `x == y` (→ bool).
    EQUAL => binary!(KERNEL, kb::eq).result(Bool);
    /// `x != y` (→ bool).
    NOT_EQUAL => binary!(KERNEL, kb::ne).result(Bool);
    /// `x < y` (→ bool).
    LESS => binary!(NUMERIC, kb::lt).result(Bool);
    /// `x <= y` (→ bool).
    LESS_EQUAL => binary!(NUMERIC, kb::le).result(Bool);
    /// `x > y` (→ bool).
    GREATER => binary!(NUMERIC, kb::gt).result(Bool);
    /// `x >= y` (→ bool).
    GREATER_EQUAL => binary!(NUMERIC, kb::ge).result(Bool);
    /// Logical and (→ bool).
    LOGICAL_AND => binary!(KERNEL, kb::logical_and).result(Bool);
    /// Logical or (→ bool).
    LOGICAL_OR => binary!(KERNEL, kb::logical_or).result(Bool);
    /// Logical xor (→ bool).
    LOGICAL_XOR => binary!(KERNEL, kb::logical_xor).result(Bool);

    /// Sum over axes (integers widen to 64 bits).
    REDUCE_SUM => reduce!(NUMERIC, ka::sum_axes).fold(Sum).result(Widen).masked(masked!(km::masked_sum_axes));
    /// Mean over axes (`f64` for integers).
    REDUCE_MEAN => reduce!(NUMERIC, ka::mean_axes)
            .fold(Mean)
            .result(FloatOfInts)
            .masked(masked!(km::masked_mean_axes));
    /// Product over axes (integers widen to 64 bits).
    REDUCE_PROD => reduce!(NUMERIC, ka::prod_axes).fold(Prod).result(Widen);
    /// Maximum over axes (an error over an empty extent).
    REDUCE_MAX => reduce!(NUMERIC, ka::max_axes).fold(Max).masked(masked!(km::masked_max_axes));
    /// Minimum over axes (an error over an empty extent).
    REDUCE_MIN => reduce!(NUMERIC, ka::min_axes).fold(Min).masked(masked!(km::masked_min_axes));
    /// Whether any element is non-zero (→ bool).
    REDUCE_ANY => reduce!(KERNEL, ka::any_axes).fold(Any).result(Bool);
    /// Whether every element is non-zero (→ bool).
    REDUCE_ALL => reduce!(KERNEL, ka::all_axes).fold(All).result(Bool);
    /// Number of non-zero elements (→ i64).
    COUNT_NONZERO => reduce!(KERNEL, ka::count_nonzero_axes).fold(CountNonzero).result(I64);
    /// Index of the first maximum over the reduced axes (→ i64, flat over those axes).
    ARGMAX => reduce!(NUMERIC, ka::argmax_axes).fold(ArgMax).result(I64);
    /// Index of the first minimum over the reduced axes (→ i64, flat over those axes).
    ARGMIN => reduce!(NUMERIC, ka::argmin_axes).fold(ArgMin).result(I64);

    /// The shape as an `i64` vector.
    SHAPE => custom!(ALL, bodies::shape_of)
            .result(I64)
            .infer(Custom(infer::shape_of))
            .fallback(fallback::tensor_like_shape, fallback::is_tensor_like)
            .fallback_infer(fallback::infer_tensor_like);
    /// Same elements (C order), another shape.
    RESHAPE => custom!(ALL, bodies::reshape).infer(Custom(infer::reshape));
    /// Permutes the axes (reverses them by default).
    TRANSPOSE => custom!(ALL, bodies::transpose).infer(Custom(infer::transpose));
    /// Joins tensors along an existing axis.
    CONCAT => custom!(KERNEL, bodies::join::<false>)
            .infer(Custom(infer::join::<false>))
            .fallback(fallback::join::<false>, fallback::joins);
    /// Joins tensors along a new axis.
    STACK => custom!(KERNEL, bodies::join::<true>)
            .infer(Custom(infer::join::<true>))
            .fallback(fallback::join::<true>, fallback::joins);
    /// Repeats a tensor along each axis.
    TILE => custom!(KERNEL, bodies::tile).infer(Custom(infer::tile));
    /// Picks slices along an axis by index.
    GATHER => custom!(KERNEL, bodies::gather).infer(Custom(infer::gather));
    /// `cond ? x : y` elementwise, with broadcasting (TensorFlow's `where`).
    WHERE => custom!(KERNEL, bodies::where_)
            .operands(BoolAt(0, "the condition"))
            .infer(InferRule::Broadcast);
    /// Converts the dtype (between any two dtypes; see `extype_kernels::cast` for the rules).
    CAST => custom!(ALL, bodies::cast).result(FromArgs).infer(InferRule::Same);
    /// Zeros of the same shape, and dtype unless the call's `OpArgs::dtype` names another.
    ZEROS_LIKE => custom!(ALL, bodies::filled::<false>)
            .result(FromArgsOrSame)
            .infer(InferRule::Same);
    /// Ones of the same shape, and dtype unless the call's `OpArgs::dtype` names another.
    ONES_LIKE => custom!(ALL, bodies::filled::<true>)
            .result(FromArgsOrSame)
            .infer(InferRule::Same);
    /// The rows (leading axes) where a boolean mask is true (`boolean_mask`).
    BOOLEAN_MASK => custom!(KERNEL, bodies::boolean_mask)
            .operands(BoolAt(1, "the mask"))
            .infer(Custom(infer::boolean_mask));
    /// Sum of each ragged row (segments of axis 0 given by `row_splits`).
    SEGMENT_SUM => segment!(NUMERIC, ks::segment_sum).fold(Sum).result(Widen);
    /// Mean of each ragged row.
    SEGMENT_MEAN => segment!(NUMERIC, ks::segment_mean).fold(Mean).result(FloatOfInts);
    /// Maximum of each ragged row (an error for an empty row).
    SEGMENT_MAX => segment!(NUMERIC, ks::segment_max).fold(Max);
    /// Minimum of each ragged row (an error for an empty row).
    SEGMENT_MIN => segment!(NUMERIC, ks::segment_min).fold(Min);
    /// Matrix product of the last two axes (`[.., n, k] @ [.., k, m] → [.., n, m]`), leading
    /// axes broadcast; f32, f64 (ndarray's `general_mat_mul`), i32, i64 (wrapping).
    MATMUL => custom!(LINALG, bodies::matmul).infer(Custom(infer::matmul));
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
    ALL.iter().copied().find(|op| op.name() == sig.name)
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
    fn catalog_and_leaf_signatures_agree() {
        let ours: Vec<Signature> = ALL.iter().map(|op| *op.signature()).collect();
        assert_eq!(
            ours,
            signature::ALL,
            "core's catalog and extype_shape::signature::ALL differ"
        );
    }

    #[test]
    fn slots_are_catalog_positions() {
        for (i, op) in ALL.iter().enumerate() {
            assert_eq!(op.catalog_slot(), Some(i), "{op}");
        }
        let user = Op::new("my.op", OpKind::Other, Arity::Exactly(1), None);
        assert_eq!(user.catalog_slot(), None);
        // A user op of a catalog name is that op for dispatch (as before: ops are their names).
        let add = Op::new("add", OpKind::BinaryElementwise, Arity::Exactly(2), None);
        assert_eq!(add.catalog_slot(), ADD.catalog_slot());
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
}

//! The op catalog: every dispatchable op of extype, as a value carrying its data.
//!
//! Ops are `static` [`Op`]s (`catalog::ADD`); their identity is their name. Each entry holds its
//! [`Signature`] (name, [`OpKind`], [`Arity`]) and, as data, what running it needs: its dense
//! kernel entry point (and masked kernel, for reductions that have one), the dtypes it takes
//! ([`DTypeSet`]), how its arguments' dtypes relate ([`Operands`]), the dtype it returns
//! ([`ResultDType`]) and how its output shape is inferred ([`InferRule`]). Nothing dispatches on
//! an op's name: adding an op is one entry below.
//!
//! The macro crate reads [`lookup`] at compile time, so `#[dispatch(Add)]` and
//! `#[dispatch(add)]` both name [`ADD`], and a misspelt op is a compile error. Users declare more
//! ops with [`declare_op!`](crate::declare_op).

use std::fmt;

use extype_kernels::elementwise::{binary as kb, unary as ku};
use extype_kernels::reduce::{axes as ka, masked as km, segment as ks};
use extype_shape::signature;

use super::args::OpArgs;
use super::dense::{
    self, Builtin, KernelFn, MaskedFn, binary, custom, masked, reduce, segment, unary,
};
use super::infer;
use super::rules::{DTypeSet, InferRule, Operands, ResultDType};
use crate::error::Result;
use crate::tensor::Tensor;

pub use extype_shape::signature::{Arity, OpKind, Signature, to_snake};

/// The dense default of a user-declared op: runs on dense tensors only (the arguments, in order).
pub type DenseFn = fn(&[Tensor], &OpArgs) -> Result<Tensor>;

/// What runs when every argument is dense and no handler takes the call.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Dense {
    /// A catalog op's kernel entry point.
    Kernel(KernelFn),
    /// A user-declared op's `dense = f`.
    User(DenseFn),
    /// No dense default (every call needs a handler).
    None,
}

/// A dispatchable op: its [`Signature`] and the data that runs it (see the [module docs](self)).
///
/// Catalog ops carry their kernels; a user-declared op ([`Op::new`]) carries an optional dense
/// default, takes every dtype and infers specs by its kind.
#[derive(Debug)]
pub struct Op {
    sig: Signature,
    key: u64,
    /// The position of the op's name in the catalog (`NOT_IN_CATALOG` otherwise): dispatch
    /// tables index their per-op handlers by it instead of hashing.
    slot: u16,
    dense: Dense,
    masked: Option<MaskedFn>,
    dtypes: DTypeSet,
    operands: Operands,
    result: ResultDType,
    infer: InferRule,
}

/// FNV-1a of the name: the op's key in dispatch tables, computed at compile time.
const fn name_key(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// [`Op::slot`] of a name that is not in the catalog.
const NOT_IN_CATALOG: u16 = u16::MAX;

// Every catalog position fits a slot, below the "not in the catalog" mark.
const _: () = assert!(signature::ALL.len() < NOT_IN_CATALOG as usize);

/// The position of `name` in the catalog ([`signature::position`], at compile time).
const fn catalog_slot(name: &str) -> u16 {
    match signature::position(name) {
        Some(i) => i as u16,
        None => NOT_IN_CATALOG,
    }
}

impl InferRule {
    /// The inference of a user op of this kind: elementwise ops keep the shape (binary ones
    /// broadcast), reductions reduce it, `other` ops have none.
    const fn of_kind(kind: OpKind) -> InferRule {
        match kind {
            OpKind::UnaryElementwise => InferRule::Same,
            OpKind::BinaryElementwise => InferRule::Broadcast,
            OpKind::Reduction => InferRule::Reduce,
            OpKind::Other => InferRule::None,
        }
    }
}

impl Op {
    /// An op. `dense` is the dense default for a user-declared op (`None`: no default, so every
    /// call needs a handler). It takes every dtype (binary and reduction ops: one dtype for all
    /// arguments) and returns its input dtype; its spec inference follows its kind.
    pub const fn new(name: &'static str, kind: OpKind, arity: Arity, dense: Option<DenseFn>) -> Op {
        Op {
            sig: Signature { name, kind, arity },
            key: name_key(name),
            slot: catalog_slot(name),
            dense: match dense {
                Some(f) => Dense::User(f),
                None => Dense::None,
            },
            masked: None,
            dtypes: DTypeSet::ALL,
            operands: Operands::Same,
            result: ResultDType::Same,
            infer: InferRule::of_kind(kind),
        }
    }

    /// This op with `rule` as its spec inference (how [`declare_op!`](crate::declare_op) gives an
    /// op with a shape contract its inference).
    pub const fn with_infer(mut self, rule: InferRule) -> Op {
        self.infer = rule;
        self
    }

    /// A catalog op: its signature joined with its kernels and rules.
    const fn builtin(sig: Signature, data: Builtin) -> Op {
        Op {
            key: name_key(sig.name),
            slot: catalog_slot(sig.name),
            dense: Dense::Kernel(data.kernel),
            masked: data.masked,
            dtypes: data.dtypes,
            operands: data.operands,
            result: data.result,
            infer: match data.infer {
                Some(rule) => rule,
                None => InferRule::of_kind(sig.kind),
            },
            sig,
        }
    }

    /// The position of the op's name in [`ALL`] (`None` for a name the catalog does not have):
    /// a user-declared op of a catalog name shares that op's handlers, as it shares its name.
    #[inline]
    pub(crate) const fn catalog_slot(&self) -> Option<usize> {
        if self.slot == NOT_IN_CATALOG {
            None
        } else {
            Some(self.slot as usize)
        }
    }

    /// The op's signature.
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
        match self.dense {
            Dense::User(f) => Some(f),
            _ => None,
        }
    }

    /// Whether this op is one of the catalog's (it runs on the kernels).
    #[inline]
    pub fn is_builtin(&self) -> bool {
        matches!(self.dense, Dense::Kernel(_))
    }

    /// Whether the op has a dense default (a kernel, or a user op's `dense = f`).
    #[inline]
    pub fn has_dense(&self) -> bool {
        !matches!(self.dense, Dense::None)
    }

    /// Whether the op has a masked kernel ([`masked_reduce`](crate::ops::masked_reduce),
    /// [`ReductionOp::apply_masked`](crate::ReductionOp::apply_masked)).
    #[inline]
    pub fn has_masked(&self) -> bool {
        self.masked.is_some()
    }

    /// The dtypes the op takes (for its data arguments; see [`Operands`]).
    #[inline]
    pub const fn dtypes(&self) -> DTypeSet {
        self.dtypes
    }

    /// How the op's argument dtypes relate.
    #[inline]
    pub const fn operands(&self) -> Operands {
        self.operands
    }

    /// The rule giving the dtype the op returns (see [`Op::result_dtype`]).
    #[inline]
    pub const fn result_rule(&self) -> ResultDType {
        self.result
    }

    /// How the op's output shape is inferred from its input specs.
    #[inline]
    pub const fn infer_rule(&self) -> InferRule {
        self.infer
    }

    /// The op's key in dispatch tables: a hash of its name, computed at compile time.
    #[inline]
    pub(crate) const fn key(&self) -> u64 {
        self.key
    }

    #[inline]
    pub(crate) fn dense(&self) -> Dense {
        self.dense
    }

    #[inline]
    pub(crate) fn masked_kernel(&self) -> Option<MaskedFn> {
        self.masked
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

/// One line per op: `CONST => data;`, where `CONST` names the op's signature in the leaf crate's
/// table ([`extype_shape::signature`], which the macro crate checks `#[dispatch(...)]` against)
/// and data is its kernels and rules ([`Builtin`]). Generates the entries and [`ALL`].
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

use InferRule::Custom;
use Operands::BoolAt;
use ResultDType::{Bool, FloatOfInts, FromArgs, I64, Widen};

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
    REDUCE_SUM => reduce!(NUMERIC, ka::sum_axes).result(Widen).masked(masked!(km::masked_sum_axes));
    /// Mean over axes (`f64` for integers).
    REDUCE_MEAN => reduce!(NUMERIC, ka::mean_axes)
            .result(FloatOfInts)
            .masked(masked!(km::masked_mean_axes));
    /// Product over axes (integers widen to 64 bits).
    REDUCE_PROD => reduce!(NUMERIC, ka::prod_axes).result(Widen);
    /// Maximum over axes (an error over an empty extent).
    REDUCE_MAX => reduce!(NUMERIC, ka::max_axes).masked(masked!(km::masked_max_axes));
    /// Minimum over axes (an error over an empty extent).
    REDUCE_MIN => reduce!(NUMERIC, ka::min_axes).masked(masked!(km::masked_min_axes));
    /// Whether any element is non-zero (→ bool).
    REDUCE_ANY => reduce!(KERNEL, ka::any_axes).result(Bool);
    /// Whether every element is non-zero (→ bool).
    REDUCE_ALL => reduce!(KERNEL, ka::all_axes).result(Bool);
    /// Number of non-zero elements (→ i64).
    COUNT_NONZERO => reduce!(KERNEL, ka::count_nonzero_axes).result(I64);
    /// Index of the first maximum over the reduced axes (→ i64, flat over those axes).
    ARGMAX => reduce!(NUMERIC, ka::argmax_axes).result(I64);
    /// Index of the first minimum over the reduced axes (→ i64, flat over those axes).
    ARGMIN => reduce!(NUMERIC, ka::argmin_axes).result(I64);

    /// The shape as an `i64` vector.
    SHAPE => custom!(ALL, dense::shape_of)
            .result(I64)
            .infer(Custom(infer::shape_of));
    /// Same elements (C order), another shape.
    RESHAPE => custom!(ALL, dense::reshape).infer(Custom(infer::reshape));
    /// Permutes the axes (reverses them by default).
    TRANSPOSE => custom!(ALL, dense::transpose).infer(Custom(infer::transpose));
    /// Joins tensors along an existing axis.
    CONCAT => custom!(KERNEL, dense::join::<false>)
            .infer(Custom(infer::join::<false>));
    /// Joins tensors along a new axis.
    STACK => custom!(KERNEL, dense::join::<true>).infer(Custom(infer::join::<true>));
    /// Repeats a tensor along each axis.
    TILE => custom!(KERNEL, dense::tile).infer(Custom(infer::tile));
    /// Picks slices along an axis by index.
    GATHER => custom!(KERNEL, dense::gather).infer(Custom(infer::gather));
    /// `cond ? x : y` elementwise, with broadcasting (TensorFlow's `where`).
    WHERE => custom!(KERNEL, dense::where_)
            .operands(BoolAt(0, "the condition"))
            .infer(InferRule::Broadcast);
    /// Converts the dtype.
    CAST => custom!(KERNEL, dense::cast).result(FromArgs).infer(InferRule::Same);
    /// Zeros of the same shape and dtype.
    ZEROS_LIKE => custom!(ALL, dense::filled::<false>).infer(InferRule::Same);
    /// Ones of the same shape and dtype.
    ONES_LIKE => custom!(ALL, dense::filled::<true>).infer(InferRule::Same);
    /// The rows (leading axes) where a boolean mask is true (`boolean_mask`).
    BOOLEAN_MASK => custom!(KERNEL, dense::boolean_mask)
            .operands(BoolAt(1, "the mask"))
            .infer(Custom(infer::boolean_mask));
    /// Sum of each ragged row (segments of axis 0 given by `row_splits`).
    SEGMENT_SUM => segment!(NUMERIC, ks::segment_sum).result(Widen);
    /// Mean of each ragged row.
    SEGMENT_MEAN => segment!(NUMERIC, ks::segment_mean).result(FloatOfInts);
    /// Maximum of each ragged row (an error for an empty row).
    SEGMENT_MAX => segment!(NUMERIC, ks::segment_max);
    /// Minimum of each ragged row (an error for an empty row).
    SEGMENT_MIN => segment!(NUMERIC, ks::segment_min);
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

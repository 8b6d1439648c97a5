//! [`Op`]: what an op is, as data — its [`Signature`], its dense default ([`Dense`]: a catalog
//! kernel entry point, a user op's `dense = f`, or none), its masked kernel, the dtypes it takes
//! ([`DTypeSet`]), how its arguments' dtypes relate ([`Operands`]), the dtype it returns
//! ([`ResultDType`]), how its output shape is inferred ([`InferRule`]) and its fallback for
//! extension values no handler takes ([`FallbackFn`]) — and the one `impl Op`: construction,
//! accessors, and the checks those data drive (arity, dtypes, result dtype), shared by calls and
//! spec inference so that both refuse the same inputs with the same words.
//!
//! This file is the bottom of the op model: it imports only the argument types ([`OpArgs`],
//! [`DenseArgs`], [`Operand`]) and the rule data of [`rules`](super::rules); the catalog, the
//! kernel glue, the dense bodies, inference and the dense default are built on it.
//! (`Op::call`, `apply1` and `apply2`, the conveniences that go through the dispatch table, are
//! the one exception: they live with the front, [`crate::ops`], because the table is above
//! this module.)

use std::any::TypeId;
use std::fmt;

use ndarray::ArrayViewD;

use extype_kernels::axis::{self, AxisError, Repeats};
use extype_shape::signature::{self, Arity, OpKind, Signature};

use super::args::OpArgs;
use super::dense_args::DenseArgs;
use super::operand::{Operand, bad_argument};
use super::rules::{DTypeSet, Fold, Operands, ResultDType};
use crate::dtype::DType;
use crate::error::{DispatchError, Result};
use crate::spec::TensorSpec;
use crate::spec::value::{Value, ValueSpec};
use crate::tensor::{Tensor, TensorView};
use extype_shape::Shape;

/// A catalog op's dense kernel entry point: runs the op on dense arguments (arity checked).
///
/// It returns the [`Value`] a call returns (a [`Value::Tensor`] has the layout of the tensor), so
/// that dispatch hands the kernel's result on without copying it between frames.
pub type KernelFn = fn(&Op, DenseArgs<'_, '_>, &OpArgs) -> Result<Value>;

/// A reduction's masked kernel: reduces the values (argument 0) where the mask is true.
pub type MaskedFn = fn(&Op, &TensorView<'_>, &ArrayViewD<'_, bool>, &OpArgs) -> Result<Tensor>;

/// A catalog op's fallback for a call whose arguments are not all dense, when no handler takes
/// it: it runs where the dense default runs (last, after every handler declined), and returns
/// `None` when it does not apply (the call's "no handler" error stands). `stack` and `concat`
/// join extension values of one batchable type on axis 0 with their batch encoders.
pub type FallbackFn = fn(&Op, &[Operand<'_>], &OpArgs) -> Option<Result<Value>>;

/// The spec inference of a catalog op's fallback ([`FallbackFn`]): the output spec for input
/// specs that are not all dense, when no handler's inference takes them; `None` when it does
/// not apply. `shape` infers from the specs' tensor-like view ([`TensorLike`](crate::tensor::TensorLike)).
pub type FallbackInferFn = fn(&Op, &[&ValueSpec], &OpArgs) -> Option<Result<ValueSpec>>;

/// Whether a catalog op's fallback ([`FallbackFn`]) applies to extension values of one type, known
/// without a value (what [`ops::supported`](crate::ops::supported) asks): the type's `TypeId`, and
/// whether it is tensor-like ([`TensorLike`](crate::tensor::TensorLike)). `stack` and `concat`:
/// the type is batchable; `shape`: it is tensor-like.
pub type FallbackAppliesFn = fn(TypeId, bool) -> bool;

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

/// An op-specific shape rule: the output shape from the input specs (dtypes already checked).
pub type ShapeFn = fn(&Op, &[&TensorSpec], &OpArgs) -> Result<Shape>;

/// How an op's output shape is inferred from its input specs.
#[derive(Debug, Clone, Copy)]
pub enum InferRule {
    /// The shape of argument 0 (unary elementwise ops, `cast`, `zeros_like`).
    Same,
    /// Every argument broadcast together (binary elementwise ops, `where`), with the runtime
    /// checks that make the result true.
    Broadcast,
    /// Argument 0 reduced over [`OpArgs::axes`] (with [`OpArgs::keepdims`]).
    Reduce,
    /// An op-specific rule (`reshape`, `concat`, `gather`, …).
    Custom(ShapeFn),
    /// None: a handler must supply inference (user ops of kind `other`).
    None,
}

/// A catalog entry's runtime data before it is joined with its signature: its kernels and
/// rules. Built by the entry macros of [`glue`](super::glue) (`unary!`, `binary!`, `reduce!`,
/// `segment!`, `custom!`) or [`Builtin::new`], with defaults (one dtype for all arguments, the
/// input dtype returned, inference by kind, no fallback) that the `const` methods override.
#[derive(Clone, Copy)]
pub(crate) struct Builtin {
    pub(crate) kernel: KernelFn,
    pub(crate) dtypes: DTypeSet,
    pub(crate) masked: Option<MaskedFn>,
    pub(crate) operands: Operands,
    pub(crate) result: ResultDType,
    pub(crate) fold: Option<Fold>,
    pub(crate) infer: Option<InferRule>,
    pub(crate) fallback: Option<(FallbackFn, FallbackAppliesFn)>,
    pub(crate) fallback_infer: Option<FallbackInferFn>,
}

impl Builtin {
    /// A kernel taking these dtypes.
    pub(crate) const fn new(dtypes: DTypeSet, kernel: KernelFn) -> Builtin {
        Builtin {
            kernel,
            dtypes,
            masked: None,
            operands: Operands::Same,
            result: ResultDType::Same,
            fold: None,
            infer: None,
            fallback: None,
            fallback_infer: None,
        }
    }

    /// Sets the result-dtype rule.
    pub(crate) const fn result(mut self, result: ResultDType) -> Builtin {
        self.result = result;
        self
    }

    /// Sets what the reduction folds an extent into.
    pub(crate) const fn fold(mut self, fold: Fold) -> Builtin {
        self.fold = Some(fold);
        self
    }

    /// Sets the masked kernel.
    pub(crate) const fn masked(mut self, masked: MaskedFn) -> Builtin {
        self.masked = Some(masked);
        self
    }

    /// Sets how the arguments' dtypes relate.
    pub(crate) const fn operands(mut self, operands: Operands) -> Builtin {
        self.operands = operands;
        self
    }

    /// Sets the inference rule (default: by kind).
    pub(crate) const fn infer(mut self, infer: InferRule) -> Builtin {
        self.infer = Some(infer);
        self
    }

    /// Sets the fallback for extension values no handler takes, and the types it applies to.
    pub(crate) const fn fallback(
        mut self,
        fallback: FallbackFn,
        applies: FallbackAppliesFn,
    ) -> Builtin {
        self.fallback = Some((fallback, applies));
        self
    }

    /// Sets the spec inference of the fallback.
    pub(crate) const fn fallback_infer(mut self, infer: FallbackInferFn) -> Builtin {
        self.fallback_infer = Some(infer);
        self
    }
}

/// A dispatchable op: its [`Signature`] and the data that runs it (see
/// [`catalog`](crate::ops::catalog)).
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
    fold: Option<Fold>,
    infer: InferRule,
    fallback: Option<(FallbackFn, FallbackAppliesFn)>,
    fallback_infer: Option<FallbackInferFn>,
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
            fold: None,
            infer: InferRule::of_kind(kind),
            fallback: None,
            fallback_infer: None,
        }
    }

    /// This op with `rule` as its spec inference (how [`declare_op!`](crate::declare_op) gives an
    /// op with a shape contract its inference).
    pub const fn with_infer(mut self, rule: InferRule) -> Op {
        self.infer = rule;
        self
    }

    /// A catalog op: its signature joined with its kernels and rules (the `catalog!` macro of
    /// [`catalog`](super::catalog)).
    pub(crate) const fn builtin(sig: Signature, data: Builtin) -> Op {
        Op {
            key: name_key(sig.name),
            slot: catalog_slot(sig.name),
            dense: Dense::Kernel(data.kernel),
            masked: data.masked,
            dtypes: data.dtypes,
            operands: data.operands,
            result: data.result,
            fold: data.fold,
            infer: match data.infer {
                Some(rule) => rule,
                None => InferRule::of_kind(sig.kind),
            },
            fallback: data.fallback,
            fallback_infer: data.fallback_infer,
            sig,
        }
    }

    /// The position of the op's name in the catalog's `ALL` (`None` for a name the catalog does not have):
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

    /// What the op folds an extent into, for the catalog's reductions and segment reductions
    /// (`None` for other ops and for user-declared reductions, whose identity is unknown).
    #[inline]
    pub const fn fold(&self) -> Option<Fold> {
        self.fold
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

    /// What the op runs for arguments that are not all dense when no handler takes the call
    /// ([`FallbackFn`]; `stack` and `concat` batch extension values).
    #[inline]
    pub(crate) fn fallback(&self) -> Option<FallbackFn> {
        self.fallback.map(|(f, _)| f)
    }

    /// Whether the op's fallback applies to extension values of the type `type_id`
    /// (tensor-like or not), known without a value ([`FallbackAppliesFn`]); `false` for an op
    /// without a fallback.
    #[inline]
    pub(crate) fn fallback_applies(&self, type_id: TypeId, tensor_like: bool) -> bool {
        self.fallback
            .is_some_and(|(_, applies)| applies(type_id, tensor_like))
    }

    /// The spec inference of the op's fallback ([`FallbackInferFn`]).
    #[inline]
    pub(crate) fn fallback_infer(&self) -> Option<FallbackInferFn> {
        self.fallback_infer
    }

    /// Whether the op has a fallback for extension values no handler takes (`stack` and
    /// `concat`: the values' batch encoders, on axis 0).
    #[inline]
    pub fn has_fallback(&self) -> bool {
        self.fallback.is_some()
    }

    /// Checks that `n` arguments fit the op's arity: the one arity check, run where a call or an
    /// inference enters (dispatch, the dense default, dense spec inference).
    #[inline]
    pub fn check_arity(&self, n: usize) -> Result<()> {
        if self.arity().admits(n) {
            Ok(())
        } else {
            Err(arity_error(self, n))
        }
    }

    /// Checks the dtypes of `n` arguments (`dtype_of(i)` is argument `i`'s) against the op's
    /// [`Operands`] and [`DTypeSet`], and returns the dtype of its data arguments. The arity is
    /// checked already.
    ///
    /// Errors, in this order: a role argument that is not `bool`; a data argument whose dtype
    /// differs from the first one's; a dtype outside the set.
    pub fn check_dtypes(&self, n: usize, dtype_of: impl Fn(usize) -> DType) -> Result<DType> {
        let (first, role) = match self.operands() {
            Operands::Same => (0, None),
            Operands::BoolAt(at, what) => {
                let d = dtype_of(at);
                if d != DType::Bool {
                    return Err(bad_argument(
                        self.name(),
                        format!("argument {at}"),
                        format!("dtype bool ({what})"),
                        format!("dtype {d}"),
                    ));
                }
                (usize::from(at == 0), Some(at))
            }
        };
        let d = dtype_of(first);
        for i in (first + 1..n).filter(|&i| Some(i) != role) {
            let e = dtype_of(i);
            if e != d {
                return Err(bad_argument(
                    self.name(),
                    format!("argument {i}"),
                    format!("dtype {d} (the dtype of argument {first}; cast first)"),
                    format!("dtype {e}"),
                ));
            }
        }
        if !self.dtypes().contains(d) {
            return Err(bad_argument(
                self.name(),
                format!("argument {first}"),
                self.dtypes().to_string(),
                format!("dtype {d}"),
            ));
        }
        Ok(d)
    }

    /// The dtype the op returns for data arguments of dtype `d` (see [`ResultDType`]).
    pub fn result_dtype(&self, d: DType, args: &OpArgs) -> Result<DType> {
        Ok(match self.result_rule() {
            ResultDType::Same => d,
            ResultDType::Bool => DType::Bool,
            ResultDType::Widen => match d {
                DType::I8 | DType::I16 | DType::I32 => DType::I64,
                DType::U8 | DType::U16 | DType::U32 => DType::U64,
                other => other,
            },
            ResultDType::FloatOfInts if d.is_float() => d,
            ResultDType::FloatOfInts => DType::F64,
            ResultDType::I64 => DType::I64,
            ResultDType::FromArgsOrSame if args.dtype.is_none() => d,
            ResultDType::FromArgs | ResultDType::FromArgsOrSame => {
                let to = args.dtype.ok_or_else(|| missing(self, "dtype"))?;
                if !DTypeSet::ALL.contains(to) {
                    return Err(bad_argument(
                        self.name(),
                        "dtype",
                        DTypeSet::ALL.to_string(),
                        format!("dtype {to}"),
                    ));
                }
                to
            }
        })
    }
}

impl Op {
    /// `axis` (negative counts from the end) of an argument of rank `rank`, as an index: the one
    /// axis rule of every op and type ([`extype_kernels::axis`]); out of range is an error
    /// naming this op.
    ///
    /// ```
    /// use extype_core::ops::catalog;
    /// assert_eq!(catalog::CONCAT.axis(-1, 3).unwrap(), 2);
    /// assert_eq!(
    ///     catalog::CONCAT.axis(3, 3).unwrap_err().to_string(),
    ///     "concat: axis: expected an axis in -3..3 (rank 3), found 3"
    /// );
    /// ```
    pub fn axis(&self, axis: isize, rank: usize) -> Result<usize> {
        axis::checked(axis, rank).map_err(|e| self.axis_error("axis", e))
    }

    /// Which of the `rank` axes a reduction over `axes` (`None`: all) reduces, one flag per
    /// axis; an axis out of range, or (with [`Repeats::Refused`]) named twice, is an error
    /// naming this op.
    ///
    /// ```
    /// use extype_core::ops::catalog;
    /// use extype_core::ops::rules::Repeats;
    /// let sum = &catalog::REDUCE_SUM;
    /// assert_eq!(sum.reduced_axes(Some(&[-1]), 2, Repeats::Refused).unwrap(), [false, true]);
    /// assert_eq!(
    ///     sum.reduced_axes(Some(&[2]), 2, Repeats::Refused).unwrap_err().to_string(),
    ///     "reduce_sum: axes: expected an axis in -2..2 (rank 2), found 2"
    /// );
    /// ```
    pub fn reduced_axes(
        &self,
        axes: Option<&[isize]>,
        rank: usize,
        repeats: Repeats,
    ) -> Result<Vec<bool>> {
        axis::selected(axes, rank, repeats).map_err(|e| self.axis_error("axes", e))
    }

    /// The output shape of this reduction of `shape` over `axes` (`None`: all), with
    /// `keepdims`: [`Op::reduced_axes`] (repeats refused), then the reduced dims dropped or
    /// kept with size 1.
    pub fn reduced_shape(
        &self,
        shape: &[usize],
        axes: Option<&[isize]>,
        keepdims: bool,
    ) -> Result<Vec<usize>> {
        let reduced = self.reduced_axes(axes, shape.len(), Repeats::Refused)?;
        Ok(axis::reduced_shape(shape, &reduced, keepdims))
    }

    #[cold]
    fn axis_error(&self, what: &str, e: AxisError) -> crate::error::Error {
        match e {
            AxisError::OutOfRange { axis, rank } => bad_argument(
                self.name(),
                what,
                format!("an axis in -{rank}..{rank} (rank {rank})"),
                axis.to_string(),
            ),
            AxisError::Repeated { axis, .. } => bad_argument(
                self.name(),
                what,
                "distinct axes",
                format!("axis {axis} twice"),
            ),
        }
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

#[cold]
fn arity_error(op: &Op, n: usize) -> crate::error::Error {
    DispatchError::Arity {
        op: op.name().to_string(),
        expected: op.arity().arguments(),
        found: n,
    }
    .into()
}

/// The error for an extra argument the op needs and `OpArgs` lacks.
pub(crate) fn missing(op: &Op, what: &str) -> crate::error::Error {
    bad_argument(op.name(), what, format!("`{what}` in OpArgs"), "nothing")
}

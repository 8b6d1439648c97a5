//! The dense default: the kernel glue of the catalog (`extype-kernels` takes
//! `f32 f64 i32 i64 u8 u64 bool`), and [`run`], which runs an op's dense default.
//!
//! Each catalog entry names its kernel entry point ([`KernelFn`]); the macros here generate it
//! from a kernels-crate function and a dtype set, one match arm per dtype of the set, so an
//! entry's [`DTypeSet`] and its kernel's arms are one token. Arguments outside the set are
//! refused by [`Op::check_dtypes`] (the check spec inference runs too), with the entry's wording:
//! the op, the argument and the dtypes the op takes. Binary ops need both arguments of one dtype
//! (no implicit promotion): `cast` first.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use smallvec::SmallVec;

use extype_kernels::{KernelError, cast as kc, compact, gather as kg, select, stack_concat};

use super::args::OpArgs;
use super::catalog::{ALL, Dense, Op};
use super::operand::{Operand, bad_argument};
use super::rules::{DTypeSet, InferRule, Operands, ResultDType, missing};
use super::size::{self, check_output, shape_text, too_large};
use crate::dtype::DType;
use crate::error::{DispatchError, Error, Result};
use crate::spec::TensorSpec;
use crate::spec::value::Value;
use crate::tensor::{Tensor, TensorView, each_variant};

/// A catalog op's dense kernel entry point: runs the op on dense arguments (arity checked).
///
/// It returns the [`Value`] a call returns (a [`Value::Tensor`] has the layout of the tensor), so
/// that dispatch hands the kernel's result on without copying it between frames.
pub type KernelFn = fn(&Op, DenseArgs<'_, '_>, &OpArgs) -> Result<Value>;

/// The dense arguments of a kernel call: tensors (the kernels run on their shared arrays, no view
/// is built), or array views.
#[derive(Clone, Copy, Debug)]
pub enum DenseArgs<'a, 'b> {
    /// Every argument is a [`Tensor`].
    Tensors(&'b [&'a Tensor]),
    /// Views (arrays passed by reference, or a mix).
    Views(&'b [TensorView<'a>]),
}

impl<'a> DenseArgs<'a, '_> {
    /// The number of arguments.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            DenseArgs::Tensors(ts) => ts.len(),
            DenseArgs::Views(vs) => vs.len(),
        }
    }

    /// The dtype of argument `i`.
    #[inline]
    pub fn dtype(&self, i: usize) -> DType {
        match self {
            DenseArgs::Tensors(ts) => ts[i].dtype(),
            DenseArgs::Views(vs) => vs[i].dtype(),
        }
    }

    /// The shape of argument `i`.
    #[inline]
    pub fn shape(&self, i: usize) -> &[usize] {
        match self {
            DenseArgs::Tensors(ts) => ts[i].shape(),
            DenseArgs::Views(vs) => vs[i].shape(),
        }
    }

    /// The arguments as views (borrowed when they are views already).
    pub fn views(&self) -> Views<'a, '_> {
        match self {
            DenseArgs::Tensors(ts) => Views::Owned(ts.iter().map(|t| t.view()).collect()),
            DenseArgs::Views(vs) => Views::Borrowed(vs),
        }
    }

    /// The arguments as tensors (O(1) for tensors; views are copied).
    pub fn to_tensors(self) -> Vec<Tensor> {
        match self {
            DenseArgs::Tensors(ts) => ts.iter().map(|&t| t.clone()).collect(),
            DenseArgs::Views(vs) => vs.iter().map(TensorView::to_tensor).collect(),
        }
    }
}

/// Views of dense arguments, borrowed or built ([`DenseArgs::views`]).
// A short-lived stack value: the inline views are the point (no allocation per call).
#[allow(clippy::large_enum_variant)]
pub enum Views<'a, 'b> {
    /// The arguments were views.
    Borrowed(&'b [TensorView<'a>]),
    /// Views of tensors.
    Owned(SmallVec<[TensorView<'a>; 3]>),
}

impl<'a> std::ops::Deref for Views<'a, '_> {
    type Target = [TensorView<'a>];

    #[inline]
    fn deref(&self) -> &[TensorView<'a>] {
        match self {
            Views::Borrowed(vs) => vs,
            Views::Owned(vs) => vs,
        }
    }
}

/// A reduction's masked kernel: reduces the values (argument 0) where the mask is true.
pub type MaskedFn = fn(&Op, &TensorView<'_>, &ArrayViewD<'_, bool>, &OpArgs) -> Result<Tensor>;

/// A catalog entry's runtime data before it is joined with its signature: its kernels and
/// rules. Built by [`unary!`], [`binary!`], [`reduce!`], [`segment!`] or [`Builtin::new`], with
/// defaults (one dtype for all arguments, the input dtype returned, inference by kind) that the
/// `const` methods override.
#[derive(Clone, Copy)]
pub(crate) struct Builtin {
    pub(crate) kernel: KernelFn,
    pub(crate) dtypes: DTypeSet,
    pub(crate) masked: Option<MaskedFn>,
    pub(crate) operands: Operands,
    pub(crate) result: ResultDType,
    pub(crate) infer: Option<InferRule>,
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
            infer: None,
        }
    }

    /// Sets the result-dtype rule.
    pub(crate) const fn result(mut self, result: ResultDType) -> Builtin {
        self.result = result;
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
}

/// What a kernel returns, as a [`Tensor`] (indices and counts as `i64`).
pub(crate) trait KernelOut {
    /// Wraps the result.
    fn into_tensor(self) -> Tensor;
}

macro_rules! kernel_out {
    ($($t:ty => $var:ident),*) => {$(
        impl KernelOut for ArrayD<$t> {
            #[inline(always)]
            fn into_tensor(self) -> Tensor {
                // Straight into the variant: `Tensor::from` would also go through `into_dyn`.
                Tensor::$var(self.into_shared())
            }
        }
    )*};
}
kernel_out!(
    bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16,
    u32 => U32, u64 => U64, f32 => F32, f64 => F64
);

impl KernelOut for ArrayD<usize> {
    fn into_tensor(self) -> Tensor {
        Tensor::from(self.mapv(|n| n as i64))
    }
}

impl KernelOut for Tensor {
    #[inline]
    fn into_tensor(self) -> Tensor {
        self
    }
}

/// One arm per dtype of a set: `typed!(SET, Enum, value, |a| body, refusal)` applies `body` to
/// the typed array `a` inside `value` (a `&Tensor` or `&TensorView`, `Enum` its type) and wraps
/// the result; other dtypes return `Err(refusal)`.
macro_rules! typed {
    (NUMERIC, $($rest:tt)*) => { $crate::op_model::dense::typed!(@ [F32, F64, I32, I64, U8, U64] $($rest)*) };
    (FLOAT, $($rest:tt)*) => { $crate::op_model::dense::typed!(@ [F32, F64] $($rest)*) };
    (KERNEL, $($rest:tt)*) => { $crate::op_model::dense::typed!(@ [Bool, F32, F64, I32, I64, U8, U64] $($rest)*) };
    (ALL, $($rest:tt)*) => {
        $crate::op_model::dense::typed!(@ [Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64] $($rest)*)
    };
    (@ [$($var:ident),*] $enum:ident, $v:expr, |$a:ident| $body:expr, $refusal:expr) => {
        match $v {
            $($crate::tensor::$enum::$var($a) => {
                $crate::op_model::dense::KernelOut::into_tensor($body)
            })*
            #[allow(unreachable_patterns)]
            _ => return Err($refusal),
        }
    };
}

/// Like [`typed!`] for two arguments of one dtype of the set, as a `Result<Tensor>`: `body`
/// returns a kernel `Result`, matched once (no intermediate moves of the array); its error is
/// mapped by [`sized_error`] (`(op, xs, args)`: the call).
macro_rules! pair {
    (NUMERIC, $($rest:tt)*) => { $crate::op_model::dense::pair!(@ [F32, F64, I32, I64, U8, U64] $($rest)*) };
    (FLOAT, $($rest:tt)*) => { $crate::op_model::dense::pair!(@ [F32, F64] $($rest)*) };
    (KERNEL, $($rest:tt)*) => { $crate::op_model::dense::pair!(@ [Bool, F32, F64, I32, I64, U8, U64] $($rest)*) };
    (@ [$($var:ident),*] $enum:ident, ($op:expr, $xs:expr, $args:expr), $x:expr, $y:expr, |$a:ident, $b:ident| $body:expr, $refusal:expr) => {
        match ($x, $y) {
            $((
                $crate::tensor::$enum::$var($a),
                $crate::tensor::$enum::$var($b),
            ) => match $body {
                Ok(out) => Ok($crate::op_model::dense::KernelOut::into_tensor(out)),
                Err(e) => Err($crate::op_model::dense::sized_error($op, $xs, $args, e)),
            },)*
            _ => Err($refusal),
        }
    };
}

/// A unary elementwise entry: `unary!(SET, kernel)` with `kernel(&Array) -> ArrayD`.
macro_rules! unary {
    ($set:ident, $kernel:path) => {
        $crate::op_model::dense::Builtin::new($crate::op_model::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::Op,
                xs: $crate::op_model::dense::DenseArgs<'_, '_>,
                args: &$crate::op_model::OpArgs,
            ) -> $crate::error::Result<$crate::spec::value::Value> {
                use $crate::op_model::dense::{DenseArgs, check_same, refused, typed};
                check_same(op, xs, args)?;
                Ok($crate::spec::value::Value::Tensor(match xs {
                    DenseArgs::Tensors(ts) => {
                        typed!($set, Tensor, ts[0], |a| $kernel(a), refused(op, xs))
                    }
                    DenseArgs::Views(vs) => {
                        typed!($set, TensorView, &vs[0], |a| $kernel(a), refused(op, xs))
                    }
                }))
            }
            run
        })
    };
}

/// A binary elementwise entry: `binary!(SET, kernel)` with
/// `kernel(&Array, &Array) -> kernels::Result<ArrayD>` (broadcasting). The kernel checks and
/// allocates its output fallibly, so no size check precedes it: an output it cannot allocate
/// comes back as the op's [`DispatchError::OutputTooLarge`] ([`sized_error`]).
macro_rules! binary {
    ($set:ident, $kernel:path) => {
        $crate::op_model::dense::Builtin::new($crate::op_model::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::Op,
                xs: $crate::op_model::dense::DenseArgs<'_, '_>,
                args: &$crate::op_model::OpArgs,
            ) -> $crate::error::Result<$crate::spec::value::Value> {
                use $crate::op_model::dense::{DenseArgs, pair, refused};
                let out = match xs {
                    DenseArgs::Tensors(ts) => pair!(
                        $set,
                        Tensor,
                        (op, xs, args),
                        ts[0],
                        ts[1],
                        |a, b| $kernel(a, b),
                        refused(op, xs)
                    ),
                    DenseArgs::Views(vs) => pair!(
                        $set,
                        TensorView,
                        (op, xs, args),
                        &vs[0],
                        &vs[1],
                        |a, b| $kernel(a, b),
                        refused(op, xs)
                    ),
                };
                out.map($crate::spec::value::Value::Tensor)
            }
            run
        })
    };
}

/// A reduction entry: `reduce!(SET, kernel)` with
/// `kernel(&Array, axes, keepdims) -> kernels::Result<ArrayD>`.
macro_rules! reduce {
    ($set:ident, $kernel:path) => {
        $crate::op_model::dense::Builtin::new($crate::op_model::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::Op,
                xs: $crate::op_model::dense::DenseArgs<'_, '_>,
                args: &$crate::op_model::OpArgs,
            ) -> $crate::error::Result<$crate::spec::value::Value> {
                use $crate::op_model::dense::{
                    DenseArgs, check_reduced, kernel_error, reduce_axes, refused, typed,
                };
                check_reduced(op, xs.shape(0), xs.dtype(0), args)?;
                Ok($crate::spec::value::Value::Tensor(match xs {
                    DenseArgs::Tensors(ts) => {
                        let axes = reduce_axes(args, ts[0].shape().len());
                        typed!(
                            $set,
                            Tensor,
                            ts[0],
                            |a| $kernel(a, &axes, args.keepdims).map_err(kernel_error(op))?,
                            refused(op, xs)
                        )
                    }
                    DenseArgs::Views(vs) => {
                        let axes = reduce_axes(args, vs[0].shape().len());
                        typed!(
                            $set,
                            TensorView,
                            &vs[0],
                            |a| $kernel(a, &axes, args.keepdims).map_err(kernel_error(op))?,
                            refused(op, xs)
                        )
                    }
                }))
            }
            run
        })
    };
}

/// A reduction's masked kernel: `masked!(kernel)` with
/// `kernel(&ArrayView, &mask, axes, keepdims) -> kernels::Result<ArrayD>` (numeric values).
macro_rules! masked {
    ($kernel:path) => {{
        fn run(
            op: &$crate::op_model::Op,
            x: &$crate::tensor::TensorView<'_>,
            mask: &::ndarray::ArrayViewD<'_, bool>,
            args: &$crate::op_model::OpArgs,
        ) -> $crate::error::Result<$crate::tensor::Tensor> {
            use $crate::op_model::dense::{
                DenseArgs, check_reduced, kernel_error, reduce_axes, refused, typed,
            };
            check_reduced(op, x.shape(), x.dtype(), args)?;
            let axes = reduce_axes(args, x.shape().len());
            Ok(typed!(
                NUMERIC,
                TensorView,
                x,
                |a| $kernel(a, mask, &axes, args.keepdims).map_err(kernel_error(op))?,
                refused(op, DenseArgs::Views(std::slice::from_ref(x)))
            ))
        }
        run as $crate::op_model::dense::MaskedFn
    }};
}

/// A segment reduction entry (ragged rows of axis 0, `row_splits` in [`OpArgs::indices`]):
/// `segment!(SET, kernel)` with `kernel(&ArrayView, row_splits) -> kernels::Result<ArrayD>`;
/// its inference is [`infer::segment`](super::infer::segment).
macro_rules! segment {
    ($set:ident, $kernel:path) => {
        $crate::op_model::dense::Builtin::new($crate::op_model::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::Op,
                xs: $crate::op_model::dense::DenseArgs<'_, '_>,
                args: &$crate::op_model::OpArgs,
            ) -> $crate::error::Result<$crate::spec::value::Value> {
                use $crate::op_model::dense::{
                    check_segment, kernel_error, refused, row_splits, typed,
                };
                let splits = row_splits(op, args)?;
                check_segment(op, xs.shape(0), xs.dtype(0), splits, args)?;
                let views = xs.views();
                Ok($crate::spec::value::Value::Tensor(typed!(
                    $set,
                    TensorView,
                    &views[0],
                    |a| $kernel(a, splits).map_err(kernel_error(op))?,
                    refused(op, xs)
                )))
            }
            run
        })
        .infer($crate::op_model::InferRule::Custom(
            $crate::op_model::infer::segment,
        ))
    };
}

/// An entry whose kernel is a function of this module: `custom!(SET, f)` with
/// `f(&Op, DenseArgs, &OpArgs) -> Result<Tensor>` (its arms must cover `SET`: the catalog tests
/// run every dtype through every entry).
macro_rules! custom {
    ($set:ident, $kernel:path) => {
        $crate::op_model::dense::Builtin::new($crate::op_model::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::Op,
                xs: $crate::op_model::dense::DenseArgs<'_, '_>,
                args: &$crate::op_model::OpArgs,
            ) -> $crate::error::Result<$crate::spec::value::Value> {
                $kernel(op, xs, args).map($crate::spec::value::Value::Tensor)
            }
            run
        })
    };
}

pub(crate) use {binary, custom, masked, pair, reduce, segment, typed, unary};

/// The output dtype of `op` on an input of dtype `d` (the input's when the rule does not apply:
/// the kernel reports that).
fn out_dtype(op: &Op, d: DType, args: &OpArgs) -> DType {
    op.result_dtype(d, args).unwrap_or(d)
}

/// Checks an output of argument 0's shape (elementwise maps).
#[inline]
pub(crate) fn check_same(op: &Op, xs: DenseArgs<'_, '_>, args: &OpArgs) -> Result<()> {
    check_output(op, xs.shape(0), out_dtype(op, xs.dtype(0), args))
}

/// Maps the error of a kernel that checks and allocates its output itself (the broadcasting
/// kernels: binary elementwise ops and `where`): an output it could not allocate
/// ([`KernelError::TooLarge`]) is the op's [`DispatchError::OutputTooLarge`], naming the op, the
/// output shape, the result dtype (the op's rule on the last argument's dtype) and the size;
/// any other error as [`kernel_error`].
#[cold]
#[inline(never)]
pub(crate) fn sized_error(op: &Op, xs: DenseArgs<'_, '_>, args: &OpArgs, e: KernelError) -> Error {
    match e {
        KernelError::TooLarge {
            shape,
            expected,
            found,
            ..
        } => too_large(
            op.name(),
            shape,
            out_dtype(op, xs.dtype(xs.len() - 1), args),
            expected,
            found,
        ),
        other => kernel_error(op)(other),
    }
}

/// Checks a reduction's output (its widened dtype: `i32` sums are `i64`).
#[inline]
pub(crate) fn check_reduced(op: &Op, shape: &[usize], d: DType, args: &OpArgs) -> Result<()> {
    match size::reduced(shape, args.axes.as_deref(), args.keepdims) {
        Some(out) => check_output(op, &out, out_dtype(op, d, args)),
        None => Ok(()),
    }
}

/// Checks a segment reduction's output: one row per segment.
pub(crate) fn check_segment(
    op: &Op,
    shape: &[usize],
    d: DType,
    splits: &[i64],
    args: &OpArgs,
) -> Result<()> {
    let mut out: SmallVec<[usize; 4]> = shape.iter().copied().collect();
    if let Some(rows) = out.first_mut() {
        *rows = splits.len().saturating_sub(1);
    }
    check_output(op, &out, out_dtype(op, d, args))
}

/// Runs `op`'s dense default on dense arguments: a catalog op's kernel, or a user op's
/// `dense = f` (which receives the arguments as tensors). Checks the arity first.
pub fn run(op: &Op, xs: &[TensorView<'_>], args: &OpArgs) -> Result<Tensor> {
    op.check_arity(xs.len())?;
    run_unchecked(op, DenseArgs::Views(xs), args)?.into_tensor()
}

/// [`run`] for a caller that has checked the arity ([`Op::check_arity`]), returning the result
/// as the [`Value`] a call returns.
#[inline(always)]
pub(crate) fn run_unchecked(op: &Op, xs: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Value> {
    match op.dense() {
        Dense::Kernel(kernel) => kernel(op, xs, args),
        Dense::User(f) => {
            // A user op receives tensors: views are copied, so each copy is checked first.
            if let DenseArgs::Views(vs) = xs {
                for v in vs {
                    check_output(op, v.shape(), v.dtype())?;
                }
            }
            f(&xs.to_tensors(), args).map(Value::Tensor)
        }
        Dense::None => Err(no_dense_default(op, xs)),
    }
}

#[cold]
fn no_dense_default(op: &Op, xs: DenseArgs<'_, '_>) -> Error {
    DispatchError::NoMatch {
        op: op.name().to_string(),
        args: xs
            .views()
            .iter()
            .map(|v| format!("Tensor({})", TensorSpec::from_view(v)))
            .collect(),
        tried: vec![format!(
            "dense default (none: {} has no dense default)",
            op.name()
        )],
    }
    .into()
}

/// The operand as a tensor whose arms the kernels match on (an ndarray array inside); `None`
/// for a [`Tensor::External`], which the kernels read through its view.
#[inline(always)]
fn array_tensor<'a>(operand: &Operand<'a>) -> Option<&'a Tensor> {
    operand
        .as_tensor()
        .filter(|t| !matches!(t, Tensor::External(_)))
}

/// Runs `op`'s dense default ([`run_unchecked`]) on the operands: on the tensors themselves
/// when every operand is a [`Tensor`] holding an array, else on views. When some operand is an
/// extension value, returns `otherwise()`.
#[inline(always)]
pub(crate) fn run_operands(
    op: &Op,
    operands: &[Operand<'_>],
    args: &OpArgs,
    otherwise: impl FnOnce() -> Error,
) -> Result<Value> {
    match operands {
        [a] => match (array_tensor(a), a.as_view()) {
            (Some(a), _) => run_unchecked(op, DenseArgs::Tensors(&[a]), args),
            (None, Some(a)) => run_unchecked(op, DenseArgs::Views(&[a]), args),
            (None, None) => Err(otherwise()),
        },
        [a, b] => match (array_tensor(a), array_tensor(b)) {
            (Some(a), Some(b)) => run_unchecked(op, DenseArgs::Tensors(&[a, b]), args),
            _ => match (a.as_view(), b.as_view()) {
                (Some(a), Some(b)) => run_unchecked(op, DenseArgs::Views(&[a, b]), args),
                _ => Err(otherwise()),
            },
        },
        _ => run_many(op, operands, args).unwrap_or_else(|| Err(otherwise())),
    }
}

/// [`run_operands`] for three or more operands (`None`: some operand is an extension value).
fn run_many(op: &Op, operands: &[Operand<'_>], args: &OpArgs) -> Option<Result<Value>> {
    let tensors: Option<SmallVec<[&Tensor; 4]>> = operands.iter().map(array_tensor).collect();
    if let Some(ts) = tensors {
        return Some(run_unchecked(op, DenseArgs::Tensors(&ts), args));
    }
    let views: Option<SmallVec<[TensorView<'_>; 3]>> =
        operands.iter().map(Operand::as_view).collect();
    views.map(|vs| run_unchecked(op, DenseArgs::Views(&vs), args))
}

/// A masked reduction of `x` where `mask` (bool, broadcastable to `x`) is true, on the op's
/// masked kernel (the reductions that have one: see [`Op::has_masked`]).
pub(crate) fn run_masked(
    op: &Op,
    x: &TensorView<'_>,
    mask: &TensorView<'_>,
    args: &OpArgs,
) -> Result<Tensor> {
    let TensorView::Bool(m) = mask else {
        return Err(bad_argument(
            op.name(),
            "argument 1",
            "dtype bool (the mask)",
            format!("dtype {}", mask.dtype()),
        ));
    };
    let Some(kernel) = op.masked_kernel() else {
        let with: Vec<&str> = ALL
            .iter()
            .filter(|o| o.has_masked())
            .map(|o| o.name())
            .collect();
        return Err(bad_argument(
            op.name(),
            "mask",
            format!("a reduction with a masked kernel ({})", with.join(", ")),
            format!("{} (no masked form)", op.name()),
        ));
    };
    kernel(op, x, m, args)
}

/// The refusal of arguments a kernel has no arm for: the entry's own dtype check says why.
#[cold]
pub(crate) fn refused(op: &Op, xs: DenseArgs<'_, '_>) -> Error {
    match op.check_dtypes(xs.len(), |i| xs.dtype(i)) {
        Err(e) => e,
        // The entry's set admits a dtype its kernel has no arm for (the catalog tests run every
        // dtype through every entry, so this is not reached).
        Ok(d) => bad_argument(
            op.name(),
            "argument 0",
            "a dtype its kernel takes",
            format!("dtype {d}"),
        ),
    }
}

/// Maps a kernel's error to one naming the op.
pub(crate) fn kernel_error(op: &Op) -> impl Fn(KernelError) -> Error + '_ {
    move |source| {
        DispatchError::Kernel {
            op: op.name().to_string(),
            source,
        }
        .into()
    }
}

/// The axes a reduction runs over: the given ones, or every axis.
pub(crate) fn reduce_axes(args: &OpArgs, ndim: usize) -> SmallVec<[isize; 4]> {
    match &args.axes {
        Some(axes) => axes.clone(),
        None => (0..ndim as isize).collect(),
    }
}

/// A segment reduction's row splits.
pub(crate) fn row_splits<'a>(op: &Op, args: &'a OpArgs) -> Result<&'a [i64]> {
    args.indices
        .as_deref()
        .ok_or_else(|| missing(op, "row_splits (OpArgs::indices)"))
}

/// `shape`: the shape as an `i64` vector.
pub(crate) fn shape_of(_: &Op, xs: DenseArgs<'_, '_>, _: &OpArgs) -> Result<Tensor> {
    let xs = xs.views();
    let dims: Vec<i64> = xs[0].shape().iter().map(|&n| n as i64).collect();
    Ok(Tensor::from(ndarray::Array1::from(dims)))
}

pub(crate) fn reshape(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let x = &xs[0];
    let shape = args.shape.as_deref().ok_or_else(|| missing(op, "shape"))?;
    let n: Option<usize> = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    // A view's element count fits `isize` (ndarray checks it), so this product does not overflow.
    let len: usize = x.shape().iter().product();
    if n != Some(len) {
        return Err(bad_argument(
            op.name(),
            "shape",
            format!(
                "a shape of {len} elements (the input has shape {:?})",
                x.shape()
            ),
            format!("{shape:?}"),
        ));
    }
    check_output(op, shape, x.dtype())?;
    let shape = IxDyn(shape);
    each_variant!(TensorView, x, a => {
        let out = a
            .to_shape((shape.clone(), ndarray::Order::RowMajor))
            .map_err(|e| bad_argument(op.name(), "shape", "a valid shape", e.to_string()))?
            .into_owned();
        Ok(Tensor::from(out))
    })
}

pub(crate) fn transpose(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let x = &xs[0];
    let ndim = x.shape().len();
    let perm: Vec<usize> = match &args.perm {
        Some(p) => p.clone(),
        None => (0..ndim).rev().collect(),
    };
    let mut seen = vec![false; ndim];
    let valid = perm.len() == ndim
        && perm
            .iter()
            .all(|&p| p < ndim && !std::mem::replace(&mut seen[p], true));
    if !valid {
        return Err(bad_argument(
            op.name(),
            "perm",
            format!("a permutation of 0..{ndim}"),
            format!("{perm:?}"),
        ));
    }
    check_output(op, x.shape(), x.dtype())?;
    each_variant!(TensorView, x, a => Ok(Tensor::from(
        a.view().permuted_axes(IxDyn(&perm)).as_standard_layout().into_owned()
    )))
}

/// `concat` (`STACK = false`) and `stack` (`STACK = true`).
pub(crate) fn join<const STACK: bool>(
    op: &Op,
    dense: DenseArgs<'_, '_>,
    args: &OpArgs,
) -> Result<Tensor> {
    let xs = &*dense.views();
    check_join::<STACK>(op, xs, args.axis)?;
    macro_rules! typed_join {
        ($($var:ident),*) => {
            match &xs[0] {
                $(TensorView::$var(_) => {
                    let mut views = Vec::with_capacity(xs.len());
                    for v in xs {
                        match v {
                            TensorView::$var(a) => views.push(a.view()),
                            _ => return Err(refused(op, dense)),
                        }
                    }
                    let out = if STACK {
                        stack_concat::stack(args.axis, &views)
                    } else {
                        stack_concat::concat(args.axis, &views)
                    };
                    Tensor::from(out.map_err(kernel_error(op))?)
                })*
                _ => return Err(refused(op, dense)),
            }
        };
    }
    Ok(typed_join!(Bool, F32, F64, I32, I64, U8, U64))
}

/// Checks the output of `concat` / `stack` (unchecked when the arguments do not join: the
/// kernel says why).
fn check_join<const STACK: bool>(op: &Op, xs: &[TensorView<'_>], axis: isize) -> Result<()> {
    let Some(first) = xs.first() else {
        return Ok(());
    };
    let mut out = first.shape().to_vec();
    let rank = out.len() + usize::from(STACK);
    let Some(axis) = size::normalize_axis(axis, rank) else {
        return Ok(());
    };
    let joined = if STACK {
        Some(xs.len())
    } else {
        xs.iter()
            .try_fold(0usize, |acc, v| acc.checked_add(*v.shape().get(axis)?))
    };
    let Some(joined) = joined else {
        // An overflowing sum: the output cannot exist (the ranks agree, or the kernel errs).
        let total: u128 = xs
            .iter()
            .map(|v| v.shape().get(axis).map_or(0, |&d| d as u128))
            .sum();
        let dims = out
            .iter()
            .enumerate()
            .map(|(i, &d)| if i == axis { total } else { d as u128 });
        return Err(too_large(
            op.name(),
            shape_text(dims),
            first.dtype(),
            format!("at most {} bytes (isize::MAX)", size::MAX_BYTES),
            "a size overflowing usize",
        ));
    };
    if STACK {
        out.insert(axis, joined);
    } else {
        out[axis] = joined;
    }
    check_output(op, &out, first.dtype())
}

pub(crate) fn tile(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let x = &xs[0];
    let reps = args
        .shape
        .as_deref()
        .ok_or_else(|| missing(op, "multiples (OpArgs::shape)"))?;
    if reps.len() != x.shape().len() {
        return Err(bad_argument(
            op.name(),
            "multiples",
            format!(
                "{} multiples (one per axis of {:?})",
                x.shape().len(),
                x.shape()
            ),
            format!("{reps:?}"),
        ));
    }
    // The output shape, checked before anything is allocated (no list of views proportional
    // to the multiples: each axis is filled by copying the previous result into place).
    let wide: SmallVec<[u128; 4]> = x
        .shape()
        .iter()
        .zip(reps)
        .map(|(&d, &m)| d as u128 * m as u128)
        .collect();
    let out: Option<SmallVec<[usize; 4]>> = wide.iter().map(|&d| usize::try_from(d).ok()).collect();
    let Some(out) = out else {
        return Err(too_large(
            op.name(),
            shape_text(wide.iter()),
            x.dtype(),
            format!("dims of at most {} (isize::MAX)", size::MAX_BYTES),
            "a dim overflowing usize",
        ));
    };
    check_output(op, &out, x.dtype())?;
    fn tile_typed<T: Clone>(a: &ArrayViewD<'_, T>, reps: &[usize], out: &[usize]) -> ArrayD<T> {
        let Some(first) = a.iter().next().filter(|_| !out.contains(&0)) else {
            // Empty output: nothing proportional to the request is allocated.
            return ArrayD::from_shape_vec(IxDyn(out), Vec::new())
                .expect("an empty shape holds no elements");
        };
        let mut cur = a.to_owned();
        for (axis, &m) in reps.iter().enumerate() {
            if m == 1 {
                continue;
            }
            let n = cur.shape()[axis];
            let mut shape = cur.shape().to_vec();
            shape[axis] = n * m; // Fits: at most the checked output's dim.
            let mut next = ArrayD::from_elem(IxDyn(&shape), first.clone());
            for k in 0..m {
                next.slice_axis_mut(Axis(axis), Slice::from(k * n..(k + 1) * n))
                    .assign(&cur);
            }
            cur = next;
        }
        cur
    }
    Ok(typed!(
        KERNEL,
        TensorView,
        x,
        |a| tile_typed(a, reps, &out),
        refused(op, dense)
    ))
}

pub(crate) fn gather(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let indices = args
        .indices
        .as_deref()
        .ok_or_else(|| missing(op, "indices"))?;
    let x = &xs[0];
    if let Some(axis) = size::normalize_axis(args.axis, x.shape().len()) {
        let mut out = x.shape().to_vec();
        out[axis] = indices.len();
        check_output(op, &out, x.dtype())?;
    }
    Ok(typed!(
        KERNEL,
        TensorView,
        &xs[0],
        |a| kg::gather(a, indices, args.axis).map_err(kernel_error(op))?,
        refused(op, dense)
    ))
}

/// `where`: `cond ? x : y` (the kernel checks and allocates the output: see [`sized_error`]).
pub(crate) fn where_(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let TensorView::Bool(cond) = &xs[0] else {
        return Err(refused(op, dense));
    };
    pair!(
        KERNEL,
        TensorView,
        (op, dense, args),
        &xs[1],
        &xs[2],
        |a, b| select::select(cond, a, b),
        refused(op, dense)
    )
}

pub(crate) fn boolean_mask(op: &Op, dense: DenseArgs<'_, '_>, _: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let TensorView::Bool(mask) = &xs[1] else {
        return Err(refused(op, dense));
    };
    Ok(typed!(
        KERNEL,
        TensorView,
        &xs[0],
        |a| compact::boolean_mask(a, mask).map_err(kernel_error(op))?,
        refused(op, dense)
    ))
}

pub(crate) fn cast(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let x = &xs[0];
    let to = op.result_dtype(op.check_dtypes(1, |_| x.dtype())?, args)?;
    check_output(op, x.shape(), to)?;
    macro_rules! to {
        ($a:expr) => {
            match to {
                DType::Bool => Tensor::from(kc::cast::<_, bool, _, _>($a)),
                DType::F32 => Tensor::from(kc::cast::<_, f32, _, _>($a)),
                DType::F64 => Tensor::from(kc::cast::<_, f64, _, _>($a)),
                DType::I32 => Tensor::from(kc::cast::<_, i32, _, _>($a)),
                DType::I64 => Tensor::from(kc::cast::<_, i64, _, _>($a)),
                DType::U8 => Tensor::from(kc::cast::<_, u8, _, _>($a)),
                DType::U64 => Tensor::from(kc::cast::<_, u64, _, _>($a)),
                // `result_dtype` admitted only the kernels' dtypes.
                _ => return Err(refused(op, dense)),
            }
        };
    }
    Ok(typed!(
        KERNEL,
        TensorView,
        x,
        |a| to!(a),
        refused(op, dense)
    ))
}

/// `zeros_like` (`ONE = false`) and `ones_like` (`ONE = true`).
pub(crate) fn filled<const ONE: bool>(
    op: &Op,
    xs: DenseArgs<'_, '_>,
    _: &OpArgs,
) -> Result<Tensor> {
    let xs = xs.views();
    let x = &xs[0];
    check_output(op, x.shape(), x.dtype())?;
    let shape = IxDyn(x.shape());
    macro_rules! fill {
        ($($var:ident => $zero:expr, $one:expr;)*) => {
            match x {
                $(TensorView::$var(_) => {
                    Tensor::from(ArrayD::from_elem(shape, if ONE { $one } else { $zero }))
                })*
            }
        };
    }
    Ok(fill! {
        Bool => false, true;
        I8 => 0i8, 1;
        I16 => 0i16, 1;
        I32 => 0i32, 1;
        I64 => 0i64, 1;
        U8 => 0u8, 1;
        U16 => 0u16, 1;
        U32 => 0u32, 1;
        U64 => 0u64, 1;
        F32 => 0f32, 1.0;
        F64 => 0f64, 1.0;
    })
}

#[cfg(test)]
mod tests {
    use ndarray::{ArrayD, array};

    use super::*;
    use crate::op_model::catalog::*;
    use crate::op_model::infer;
    use crate::op_model::rules::{DTypeSet, Operands};

    fn t(x: impl Into<Tensor>) -> Tensor {
        x.into()
    }

    fn run1(op: &Op, x: &Tensor, args: &OpArgs) -> Result<Tensor> {
        run(op, &[x.view()], args)
    }

    #[test]
    fn elementwise_and_binary() {
        let x = t(array![1.0f32, -2.0, 4.0]);
        assert_eq!(
            run1(&NEG, &x, &OpArgs::none()).unwrap(),
            t(array![-1.0f32, 2.0, -4.0].into_dyn())
        );
        let y = t(array![[1.0f32], [2.0]]);
        let s = run(&ADD, &[x.view(), y.view()], &OpArgs::none()).unwrap();
        assert_eq!(s.shape(), &[2, 3]);
        let c = run(&LESS, &[x.view(), y.view()], &OpArgs::none()).unwrap();
        assert_eq!(c.dtype(), DType::Bool);
        let i = t(array![1i32, 2, 3]);
        let err = run(&ADD, &[x.view(), i.view()], &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "add: argument 1: expected dtype f32 (the dtype of argument 0; cast first), found dtype i32"
        );
        let err = run1(&EXP, &i, &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "exp: argument 0: expected a float dtype (f32, f64), found dtype i32"
        );
        let small = t(array![1i8]);
        assert!(
            run1(&NEG, &small, &OpArgs::none())
                .unwrap_err()
                .to_string()
                .contains("found dtype i8")
        );
        let bad = t(array![1.0f32, 2.0]);
        let err = run(&ADD, &[x.view(), bad.view()], &OpArgs::none()).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("add:") && msg.contains("broadcast") && msg.contains("[2]"),
            "names the op, the problem and the shape: {msg}"
        );
    }

    #[test]
    fn reductions() {
        let x = t(array![[1i32, 2, 3], [4, 5, 6]]);
        let s = run1(&REDUCE_SUM, &x, &OpArgs::none()).unwrap();
        assert_eq!(s, t(ArrayD::from_elem(IxDyn(&[]), 21i64)));
        let s = run1(&REDUCE_SUM, &x, &OpArgs::axes(&[1]).keepdims(true)).unwrap();
        assert_eq!(s, t(array![[6i64], [15]].into_dyn()));
        let m = run1(&REDUCE_MEAN, &x, &OpArgs::axes(&[0])).unwrap();
        assert_eq!(m, t(array![2.5f64, 3.5, 4.5].into_dyn()));
        let a = run1(&ARGMAX, &x, &OpArgs::axes(&[1])).unwrap();
        assert_eq!(a, t(array![2i64, 2].into_dyn()));
        let err = run1(&REDUCE_SUM, &x, &OpArgs::axes(&[2])).unwrap_err();
        assert!(err.to_string().contains("axis 2 is out of range"), "{err}");
        let mask = t(array![[true, false, true], [false, false, true]]);
        let ms = run_masked(&REDUCE_SUM, &x.view(), &mask.view(), &OpArgs::axes(&[1])).unwrap();
        assert_eq!(ms, t(array![4i64, 6].into_dyn()));
    }

    #[test]
    fn other_ops() {
        let x = t(array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        let shape = run1(&SHAPE, &x, &OpArgs::none()).unwrap();
        assert_eq!(shape, t(array![2i64, 3].into_dyn()));
        let r = run1(&RESHAPE, &x, &OpArgs::none().with_shape(&[3, 2])).unwrap();
        assert_eq!(
            r,
            t(array![[1.0f64, 2.0], [3.0, 4.0], [5.0, 6.0]].into_dyn())
        );
        assert!(run1(&RESHAPE, &x, &OpArgs::none().with_shape(&[4])).is_err());
        let tr = run1(&TRANSPOSE, &x, &OpArgs::none()).unwrap();
        assert_eq!(
            tr,
            t(array![[1.0f64, 4.0], [2.0, 5.0], [3.0, 6.0]].into_dyn())
        );
        let tl = run1(&TILE, &t(array![1u8, 2]), &OpArgs::none().with_shape(&[2])).unwrap();
        assert_eq!(tl, t(array![1u8, 2, 1, 2].into_dyn()));
        let g = run1(&GATHER, &x, &OpArgs::none().with_indices(&[1, 0, -1])).unwrap();
        assert_eq!(g.shape(), &[3, 3]);
        let c = run(&CONCAT, &[x.view(), x.view()], &OpArgs::none()).unwrap();
        assert_eq!(c.shape(), &[4, 3]);
        let s = run(&STACK, &[x.view(), x.view()], &OpArgs::none().with_axis(-1)).unwrap();
        assert_eq!(s.shape(), &[2, 3, 2]);
        let cond = t(array![true, false, true]);
        let w = run(
            &WHERE,
            &[cond.view(), x.view(), t(array![0.0f64]).view()],
            &OpArgs::none(),
        )
        .unwrap();
        assert_eq!(w, t(array![[1.0f64, 0.0, 3.0], [4.0, 0.0, 6.0]].into_dyn()));
        let ci = run1(&CAST, &x, &OpArgs::none().with_dtype(DType::I32)).unwrap();
        assert_eq!(ci.dtype(), DType::I32);
        let z = run1(&ONES_LIKE, &t(array![1u16, 2]), &OpArgs::none()).unwrap();
        assert_eq!(z, t(array![1u16, 1].into_dyn()));
        let seg = run1(
            &SEGMENT_SUM,
            &t(array![1.0f32, 2.0, 3.0]),
            &OpArgs::none().with_indices(&[0, 2, 2, 3]),
        )
        .unwrap();
        assert_eq!(seg, t(array![3.0f32, 0.0, 3.0].into_dyn()));
        let err = run(&CONCAT, &[], &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "concat: expected at least 1 argument, found 0"
        );
    }

    /// A tensor of dtype `d` and shape `[2, 3]`, all ones (a valid input of every op).
    fn ones(d: DType) -> Tensor {
        let shape = IxDyn(&[2, 3]);
        macro_rules! of {
            ($($var:ident => $t:ty = $one:expr;)*) => {
                match d { $(DType::$var => t(ArrayD::<$t>::from_elem(shape, $one)),)* }
            };
        }
        of! {
            Bool => bool = true; I8 => i8 = 1; I16 => i16 = 1; I32 => i32 = 1; I64 => i64 = 1;
            U8 => u8 = 1; U16 => u16 = 1; U32 => u32 = 1; U64 => u64 = 1;
            F32 => f32 = 1.0; F64 => f64 = 1.0;
        }
    }

    /// Extra arguments every catalog op accepts on `[2, 3]` inputs: reduce axis 1; reshape to
    /// (or tile by) `[3, 2]`; gather indices / row splits `[0, 1, 2]`; axis 1; cast to `i64`.
    fn universal_args() -> OpArgs {
        OpArgs::axes(&[1])
            .with_axis(1)
            .with_shape(&[3, 2])
            .with_indices(&[0, 1, 2])
            .with_dtype(DType::I64)
    }

    /// The inputs of `op` whose data arguments are `x`: as many as its arity asks (two more for
    /// variadic ops), a `bool` tensor in the role position its entry names.
    fn inputs(op: &Op, x: &Tensor) -> Vec<Tensor> {
        let n = match op.arity() {
            crate::op_model::Arity::Exactly(n) => n,
            crate::op_model::Arity::AtLeast(n) => n + 2,
        };
        (0..n)
            .map(|i| match op.operands() {
                Operands::BoolAt(at, _) if at == i => ones(DType::Bool),
                _ => x.clone(),
            })
            .collect()
    }

    fn spec_of(xs: &[Tensor]) -> Vec<TensorSpec> {
        xs.iter().map(TensorSpec::from_tensor).collect()
    }

    /// Every catalog op has a dense kernel; for every dtype of its set the kernel runs and its
    /// spec inference admits what it computes; every dtype outside the set is refused, by the call
    /// and by inference, with the same words: the entry's set.
    #[test]
    fn every_catalog_op_runs_and_agrees_with_inference() {
        let args = universal_args();
        for op in ALL.iter().copied() {
            assert!(op.is_builtin() && op.has_dense(), "{op}");
            let data = match op.operands() {
                Operands::Same => 0,
                Operands::BoolAt(at, _) => usize::from(at == 0),
            };
            for d in DType::ALL {
                let xs = inputs(op, &ones(d));
                let views: Vec<TensorView<'_>> = xs.iter().map(Tensor::view).collect();
                let specs = spec_of(&xs);
                let refs: Vec<&TensorSpec> = specs.iter().collect();
                let computed = run(op, &views, &args);
                let tensors: Vec<&Tensor> = xs.iter().collect();
                let on_tensors = run_unchecked(op, DenseArgs::Tensors(&tensors), &args)
                    .and_then(Value::into_tensor);
                assert_eq!(
                    computed.as_ref().map_err(ToString::to_string),
                    on_tensors.as_ref().map_err(ToString::to_string),
                    "{op} on {d}: the kernel on tensors and on views"
                );
                let inferred = infer::dense(op, &refs, &args);
                if op.dtypes().contains(d) {
                    let out = computed.unwrap_or_else(|e| panic!("{op} on {d}: {e}"));
                    let inferred = inferred.unwrap_or_else(|e| panic!("{op} on {d}: {e}"));
                    let spec = inferred.tensor_spec().unwrap();
                    assert!(
                        spec.admits(&out),
                        "{op} on {d}: inferred {spec}, computed {}",
                        TensorSpec::from_tensor(&out)
                    );
                    let want = op.result_dtype(d, &args).unwrap();
                    assert_eq!(out.dtype(), want, "{op} on {d}: the result-dtype rule");
                } else {
                    let want = format!(
                        "{op}: argument {data}: expected {}, found dtype {d}",
                        op.dtypes()
                    );
                    assert_eq!(computed.unwrap_err().to_string(), want);
                    assert_eq!(inferred.unwrap_err().to_string(), want);
                }
            }
        }
    }

    /// Mixed dtypes: the first argument that differs is named, by calls and inference alike.
    #[test]
    fn mixed_dtypes_are_refused_alike() {
        let args = universal_args();
        let (f, i) = (ones(DType::F32), ones(DType::I32));
        for op in ALL.iter().copied() {
            let mut xs = inputs(op, &f);
            let Some(last) = (0..xs.len())
                .rev()
                .find(|&j| !matches!(op.operands(), Operands::BoolAt(at, _) if at == j))
            else {
                continue;
            };
            let first = match op.operands() {
                Operands::BoolAt(0, _) => 1,
                _ => 0,
            };
            if last == first {
                continue;
            }
            xs[last] = i.clone();
            let views: Vec<TensorView<'_>> = xs.iter().map(Tensor::view).collect();
            let specs = spec_of(&xs);
            let refs: Vec<&TensorSpec> = specs.iter().collect();
            let want = format!(
                "{op}: argument {last}: expected dtype f32 (the dtype of argument {first}; cast \
                 first), found dtype i32"
            );
            assert_eq!(run(op, &views, &args).unwrap_err().to_string(), want);
            let tensors: Vec<&Tensor> = xs.iter().collect();
            let on_tensors = run_unchecked(op, DenseArgs::Tensors(&tensors), &args);
            assert_eq!(on_tensors.unwrap_err().to_string(), want);
            assert_eq!(
                infer::dense(op, &refs, &args).unwrap_err().to_string(),
                want
            );
        }
        // A role argument that is not bool.
        let err = run(&WHERE, &[f.view(), f.view(), f.view()], &args).unwrap_err();
        assert_eq!(
            err.to_string(),
            "where: argument 0: expected dtype bool (the condition), found dtype f32"
        );
    }

    /// The arity is checked once, with the same words for calls and inference.
    #[test]
    fn arity_errors_agree() {
        let x = ones(DType::F32);
        let spec = TensorSpec::from_tensor(&x);
        for op in ALL.iter().copied() {
            let n = match op.arity() {
                crate::op_model::Arity::Exactly(n) => n + 1,
                crate::op_model::Arity::AtLeast(n) => n - 1,
            };
            let views = vec![x.view(); n];
            let specs = vec![&spec; n];
            let call = run(op, &views, &OpArgs::none()).unwrap_err().to_string();
            let inferred = infer::dense(op, &specs, &OpArgs::none())
                .unwrap_err()
                .to_string();
            assert_eq!(call, inferred);
            assert_eq!(
                call,
                format!("{op}: expected {}, found {n}", op.arity().arguments())
            );
        }
    }

    /// Masked kernels are data: the ops that have one run it, the others say which do.
    #[test]
    fn masked_kernels() {
        let x = ones(DType::F64);
        let mask = ones(DType::Bool);
        let with: Vec<&str> = ALL
            .iter()
            .filter(|o| o.has_masked())
            .map(|o| o.name())
            .collect();
        assert_eq!(
            with,
            ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min"]
        );
        for op in ALL.iter().copied() {
            let out = run_masked(op, &x.view(), &mask.view(), &OpArgs::axes(&[1]));
            if op.has_masked() {
                assert_eq!(out.unwrap().shape(), &[2]);
            } else {
                assert_eq!(
                    out.unwrap_err().to_string(),
                    format!(
                        "{op}: mask: expected a reduction with a masked kernel (reduce_sum, \
                         reduce_mean, reduce_max, reduce_min), found {op} (no masked form)"
                    )
                );
            }
        }
        let err = run_masked(&REDUCE_SUM, &x.view(), &x.view(), &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "reduce_sum: argument 1: expected dtype bool (the mask), found dtype f64"
        );
        let i8s = ones(DType::I8);
        let err = run_masked(&REDUCE_MAX, &i8s.view(), &mask.view(), &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "reduce_max: argument 0: expected {}, found dtype i8",
                DTypeSet::NUMERIC
            )
        );
    }
}

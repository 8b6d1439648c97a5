//! The kernel glue: how a catalog entry's kernel entry point ([`KernelFn`]) is made from an
//! `extype-kernels` function (`extype-kernels` computes on `f32 f64 i32 i64 u8 u64 bool`, and
//! moves and tests `f16 bf16`, which the entries of numeric ops compute on in `f32`: see
//! [`typed!`], [`widen_half`], [`HalfOut`]), and the
//! helpers the entry points and the dense bodies ([`bodies`](super::bodies)) share: output-size
//! checks before anything is allocated, refusals in the entry's words, kernel errors naming the
//! op.
//!
//! The entry macros (`unary!`, `binary!`, `reduce!`, `masked!`, `segment!`, `custom!`) generate
//! an entry point from a kernels-crate function and a dtype set, one match arm per dtype of the
//! set, so an entry's [`DTypeSet`] and its kernel's arms are one token. Arguments outside the set
//! are refused by [`Op::check_dtypes`] (the check spec inference runs too), with the entry's
//! wording: the op, the argument and the dtypes the op takes. Binary ops need both arguments of
//! one dtype (no implicit promotion): `cast` first.
//!
//! The kernels read their inputs through strided views: a zero-stride broadcast view is read in
//! place, never copied to contiguous memory, and every output is checked ([`check_output`], or
//! the broadcasting kernels' own fallible allocation) before anything proportional to it is
//! allocated.

use ndarray::{ArrayBase, ArrayD, Data, Dimension};
use smallvec::SmallVec;

use extype_kernels::KernelError;
use extype_kernels::cast::{self as kc, CastTo};

use super::args::OpArgs;
use super::dense_args::DenseArgs;
use super::op::{Op, missing};
use super::operand::bad_argument;
use super::size::{check_named, too_large};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Element, Tensor};

#[cfg(doc)]
use super::op::KernelFn;
#[cfg(doc)]
use super::rules::DTypeSet;

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
    u32 => U32, u64 => U64, f32 => F32, f64 => F64, half::f16 => F16, half::bf16 => BF16
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

/// One arm per dtype of a set: `typed!(SET, op, Enum, value, |a| body, refusal)` applies `body`
/// to the typed array `a` inside `value` (a `&Tensor` or `&TensorView`, `Enum` its type) and
/// wraps the result; other dtypes return `Err(refusal)`. In `NUMERIC` and `FLOAT`, the
/// half-precision floats (which the kernels take for moving and testing, not for arithmetic)
/// are computed in `f32`: `a` is the input converted to `f32` ([`widen_half`], whose size `op`'s
/// error names), and a float result is rounded back to the input's dtype ([`HalfOut`]).
macro_rules! typed {
    (NUMERIC, $($rest:tt)*) => {
        $crate::op_model::glue::typed!(@ [F32, F64, I32, I64, U8, U64] [F16 => half::f16, BF16 => half::bf16] $($rest)*)
    };
    (FLOAT, $($rest:tt)*) => {
        $crate::op_model::glue::typed!(@ [F32, F64] [F16 => half::f16, BF16 => half::bf16] $($rest)*)
    };
    (KERNEL, $($rest:tt)*) => {
        $crate::op_model::glue::typed!(@ [Bool, F32, F64, I32, I64, U8, U64, F16, BF16] [] $($rest)*)
    };
    (ALL, $($rest:tt)*) => {
        $crate::op_model::glue::typed!(
            @ [Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, F16, BF16] [] $($rest)*
        )
    };
    (@ [$($var:ident),*] [$($half:ident => $ht:ty),*] $op:expr, $enum:ident, $v:expr, |$a:ident| $body:expr, $refusal:expr) => {
        match $v {
            $($crate::tensor::$enum::$var($a) => {
                $crate::op_model::glue::KernelOut::into_tensor($body)
            })*
            $($crate::tensor::$enum::$half(h) => {
                let $a = &$crate::op_model::glue::widen_half($op, h)?;
                $crate::op_model::glue::HalfOut::<$ht>::narrow($body)
            })*
            #[allow(unreachable_patterns)]
            _ => return Err($refusal),
        }
    };
}

/// Like [`typed!`] for two arguments of one dtype of the set, as a `Result<Tensor>`: `body`
/// returns a kernel `Result`, matched once (no intermediate moves of the array); its error is
/// mapped by [`sized_error`] (`(op, xs, args)`: the call). Half-precision floats as in
/// [`typed!`]: both converted to `f32`, the result rounded back.
macro_rules! pair {
    (NUMERIC, $($rest:tt)*) => {
        $crate::op_model::glue::pair!(@ [F32, F64, I32, I64, U8, U64] [F16 => half::f16, BF16 => half::bf16] $($rest)*)
    };
    (FLOAT, $($rest:tt)*) => {
        $crate::op_model::glue::pair!(@ [F32, F64] [F16 => half::f16, BF16 => half::bf16] $($rest)*)
    };
    (KERNEL, $($rest:tt)*) => {
        $crate::op_model::glue::pair!(@ [Bool, F32, F64, I32, I64, U8, U64, F16, BF16] [] $($rest)*)
    };
    (LINALG, $($rest:tt)*) => { $crate::op_model::glue::pair!(@ [F32, F64, I32, I64] [] $($rest)*) };
    (@ [$($var:ident),*] [$($half:ident => $ht:ty),*] $enum:ident, ($op:expr, $xs:expr, $args:expr), $x:expr, $y:expr, |$a:ident, $b:ident| $body:expr, $refusal:expr) => {
        match ($x, $y) {
            $((
                $crate::tensor::$enum::$var($a),
                $crate::tensor::$enum::$var($b),
            ) => match $body {
                Ok(out) => Ok($crate::op_model::glue::KernelOut::into_tensor(out)),
                Err(e) => Err($crate::op_model::glue::sized_error($op, $xs, $args, e)),
            },)*
            $((
                $crate::tensor::$enum::$half(x),
                $crate::tensor::$enum::$half(y),
            ) => {
                let $a = &$crate::op_model::glue::widen_half($op, x)?;
                let $b = &$crate::op_model::glue::widen_half($op, y)?;
                match $body {
                    Ok(out) => Ok($crate::op_model::glue::HalfOut::<$ht>::narrow(out)),
                    Err(e) => Err($crate::op_model::glue::sized_error($op, $xs, $args, e)),
                }
            },)*
            _ => Err($refusal),
        }
    };
}

/// A half-precision input of an op as `f32` (exact), for the kernels to compute on. The copy is
/// checked like an output first (a broadcast view may stand for more elements than it holds).
pub(crate) fn widen_half<H, S, D>(op: &Op, a: &ArrayBase<S, D>) -> Result<ArrayD<f32>>
where
    H: CastTo<f32>,
    S: Data<Elem = H>,
    D: Dimension,
{
    check_output(op, a.shape(), DType::F32)?;
    Ok(kc::cast::<H, f32, _, _>(a).into_dyn())
}

/// A kernel's result on a half-precision input computed in `f32` ([`widen_half`]), as the op's
/// result: a float array is rounded back to the input's type `H` (nearest, ties to even: one
/// rounding of the `f32` result); `bool` and index results stay as they are.
pub(crate) trait HalfOut<H> {
    /// The result as a tensor.
    fn narrow(self) -> Tensor;
}

impl<H: Element + extype_kernels::Scalar> HalfOut<H> for ArrayD<f32>
where
    f32: CastTo<H>,
{
    #[inline]
    fn narrow(self) -> Tensor {
        Tensor::from(kc::cast::<f32, H, _, _>(&self))
    }
}

macro_rules! half_out_as_is {
    ($($t:ty),*) => {$(
        impl<H> HalfOut<H> for ArrayD<$t> {
            #[inline]
            fn narrow(self) -> Tensor {
                KernelOut::into_tensor(self)
            }
        }
    )*};
}
half_out_as_is!(bool, i64, usize);

/// A unary elementwise entry: `unary!(SET, kernel)` with `kernel(&Array) -> ArrayD`.
macro_rules! unary {
    ($set:ident, $kernel:path) => {
        $crate::op_model::op::Builtin::new($crate::op_model::rules::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::op::Op,
                xs: $crate::op_model::dense_args::DenseArgs<'_, '_>,
                args: &$crate::op_model::args::OpArgs,
            ) -> $crate::error::Result<$crate::spec::value::Value> {
                use $crate::op_model::dense_args::DenseArgs;
                use $crate::op_model::glue::{check_same, refused, typed};
                check_same(op, xs, args)?;
                Ok($crate::spec::value::Value::Tensor(match xs {
                    DenseArgs::Tensors(ts) => {
                        typed!($set, op, Tensor, ts[0], |a| $kernel(a), refused(op, xs))
                    }
                    DenseArgs::Views(vs) => {
                        typed!(
                            $set,
                            op,
                            TensorView,
                            &vs[0],
                            |a| $kernel(a),
                            refused(op, xs)
                        )
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
/// comes back as the op's [`DispatchError::OutputTooLarge`](crate::error::DispatchError::OutputTooLarge) ([`sized_error`]).
macro_rules! binary {
    ($set:ident, $kernel:path) => {
        $crate::op_model::op::Builtin::new($crate::op_model::rules::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::op::Op,
                xs: $crate::op_model::dense_args::DenseArgs<'_, '_>,
                args: &$crate::op_model::args::OpArgs,
            ) -> $crate::error::Result<$crate::spec::value::Value> {
                use $crate::op_model::dense_args::DenseArgs;
                use $crate::op_model::glue::{pair, refused};
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
        $crate::op_model::op::Builtin::new($crate::op_model::rules::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::op::Op,
                xs: $crate::op_model::dense_args::DenseArgs<'_, '_>,
                args: &$crate::op_model::args::OpArgs,
            ) -> $crate::error::Result<$crate::spec::value::Value> {
                use $crate::op_model::dense_args::DenseArgs;
                use $crate::op_model::glue::{
                    check_reduced, kernel_error, reduce_axes, refused, typed,
                };
                check_reduced(op, xs.shape(0), xs.dtype(0), args)?;
                Ok($crate::spec::value::Value::Tensor(match xs {
                    DenseArgs::Tensors(ts) => {
                        let axes = reduce_axes(args, ts[0].shape().len());
                        typed!(
                            $set,
                            op,
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
                            op,
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
            op: &$crate::op_model::op::Op,
            x: &$crate::tensor::TensorView<'_>,
            mask: &::ndarray::ArrayViewD<'_, bool>,
            args: &$crate::op_model::args::OpArgs,
        ) -> $crate::error::Result<$crate::tensor::Tensor> {
            use $crate::op_model::dense_args::DenseArgs;
            use $crate::op_model::glue::{
                check_reduced, kernel_error, reduce_axes, refused, typed,
            };
            check_reduced(op, x.shape(), x.dtype(), args)?;
            let axes = reduce_axes(args, x.shape().len());
            Ok(typed!(
                NUMERIC,
                op,
                TensorView,
                x,
                |a| $kernel(a, mask, &axes, args.keepdims).map_err(kernel_error(op))?,
                refused(op, DenseArgs::Views(std::slice::from_ref(x)))
            ))
        }
        run as $crate::op_model::op::MaskedFn
    }};
}

/// A segment reduction entry (ragged rows of axis 0, `row_splits` in [`OpArgs::indices`]):
/// `segment!(SET, kernel)` with `kernel(&ArrayView, row_splits) -> kernels::Result<ArrayD>`;
/// its inference is [`infer::segment`](super::infer::segment).
macro_rules! segment {
    ($set:ident, $kernel:path) => {
        $crate::op_model::op::Builtin::new($crate::op_model::rules::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::op::Op,
                xs: $crate::op_model::dense_args::DenseArgs<'_, '_>,
                args: &$crate::op_model::args::OpArgs,
            ) -> $crate::error::Result<$crate::spec::value::Value> {
                use $crate::op_model::glue::{
                    check_segment, kernel_error, refused, row_splits, typed,
                };
                let splits = row_splits(op, args)?;
                check_segment(op, xs.shape(0), xs.dtype(0), splits, args)?;
                let views = xs.views();
                Ok($crate::spec::value::Value::Tensor(typed!(
                    $set,
                    op,
                    TensorView,
                    &views[0],
                    |a| $kernel(a, splits).map_err(kernel_error(op))?,
                    refused(op, xs)
                )))
            }
            run
        })
        .infer($crate::op_model::op::InferRule::Custom(
            $crate::op_model::infer::segment,
        ))
    };
}

/// An entry whose kernel is a dense body of [`bodies`](super::bodies): `custom!(SET, f)` with
/// `f(&Op, DenseArgs, &OpArgs) -> Result<Tensor>` (its arms must cover `SET`: the catalog tests
/// run every dtype through every entry).
macro_rules! custom {
    ($set:ident, $kernel:path) => {
        $crate::op_model::op::Builtin::new($crate::op_model::rules::DTypeSet::$set, {
            fn run(
                op: &$crate::op_model::op::Op,
                xs: $crate::op_model::dense_args::DenseArgs<'_, '_>,
                args: &$crate::op_model::args::OpArgs,
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

/// Checks that an output of shape `dims` and dtype `dtype` of `op` can be allocated (see
/// [`size`]); the error names the op, the shape, the dtype and the size.
#[inline]
pub(crate) fn check_output(op: &Op, dims: &[usize], dtype: DType) -> Result<()> {
    check_named(op.name(), dims, dtype)
}

/// Checks an output of argument 0's shape (elementwise maps).
#[inline]
pub(crate) fn check_same(op: &Op, xs: DenseArgs<'_, '_>, args: &OpArgs) -> Result<()> {
    check_output(op, xs.shape(0), out_dtype(op, xs.dtype(0), args))
}

/// Maps the error of a kernel that checks and allocates its output itself (the broadcasting
/// kernels: binary elementwise ops and `where`): an output it could not allocate
/// ([`KernelError::TooLarge`]) is the op's [`DispatchError::OutputTooLarge`](crate::error::DispatchError::OutputTooLarge), naming the op, the
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

/// Checks a reduction's axes ([`Op::reduced_shape`]: the words spec inference gives) and its
/// output (its widened dtype: `i32` sums are `i64`).
#[inline]
pub(crate) fn check_reduced(op: &Op, shape: &[usize], d: DType, args: &OpArgs) -> Result<()> {
    let out = op.reduced_shape(shape, args.axes.as_deref(), args.keepdims)?;
    check_output(op, &out, out_dtype(op, d, args))
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
    move |source| Error::kernel(op.name(), source)
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

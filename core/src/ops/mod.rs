//! Ops on dense tensors and on every extension type that registers handlers.
//!
//! Every function here takes its tensor-like arguments as `&impl AsOperand` — a [`Tensor`], an
//! ndarray array or view, a [`Value`], or any [`ExtensionType`] value — and returns
//! `Result<Value>`; the `*_as::<T>` variants return the concrete type `T` (an extension type,
//! [`Tensor`] or [`Value`]). A call goes through the dispatch table (see [`crate::dispatch`] for
//! the precedence rules); when every argument is dense and no handler takes the call, the dense
//! default runs on the kernels (`extype-kernels`).
//!
//! ```
//! use extype_core::{Tensor, ops};
//! use ndarray::array;
//!
//! let x = array![[1.0f32, 2.0], [3.0, 4.0]];
//! let y = Tensor::from(array![10.0f32, 20.0]);
//! let z: Tensor = ops::add_as(&x, &y).unwrap(); // broadcasting, on the kernels
//! assert_eq!(z, Tensor::from(array![[11.0f32, 22.0], [13.0, 24.0]].into_dyn()));
//! let s: Tensor = ops::reduce_sum_as(&z, Some(&[1]), false).unwrap();
//! assert_eq!(s, Tensor::from(array![33.0f32, 37.0].into_dyn()));
//! let err = ops::add(&x, &array![1i32]).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "add: argument 1: expected dtype f32 (the dtype of argument 0; cast first), found dtype i32"
//! );
//! ```
//!
//! The catalog ([`catalog`]) names every op with its kind; users declare more with
//! [`declare_op!`](crate::declare_op). Every op infers its output spec from input specs
//! ([`infer_spec`], [`infer`]).
//!
//! ## Half precision (`f16`, `bf16`)
//!
//! The kernels have no half-precision arithmetic, so every elementwise op and reduction on an
//! `f16` or `bf16` tensor (the `NUMERIC` and `FLOAT` ops of the catalog, masked and segment
//! reductions too) computes in `f32`: the inputs are converted (exactly), the `f32` kernel
//! runs, and a float result is rounded back to the input's dtype once (to nearest, ties to
//! even); comparisons give `bool`, `argmax`/`argmin` `i64`. So results keep the half dtype, as
//! NumPy's and TensorFlow's do: a sum that overflows the format is `inf`, a mean of large values
//! is not (the `f32` sum does not overflow; NumPy's `float16` mean agrees, TensorFlow's
//! overflows). The conversion costs an `f32` copy of each input (checked like an output).
//! Ops that move or test elements (`where`, `gather`, `concat`, `stack`, `tile`,
//! `boolean_mask`, `reshape`, `equal`, `is_nan`, `logical_*`, `reduce_any`, …) take the half
//! floats as they are, bits included. Mixed precision is refused as every other pair of dtypes
//! is (no implicit promotion; TensorFlow refuses `float16 + float32` too): `cast` first.
//!
//! ```
//! use extype_core::half::f16;
//! use extype_core::{DType, ops};
//! use ndarray::{ArrayD, array};
//!
//! let x = array![f16::MAX, f16::MAX];
//! let sum: ArrayD<f16> = ops::reduce_sum_as(&x, None, false).unwrap();
//! assert_eq!(sum[[]], f16::INFINITY); // 131008 is beyond f16
//! let mean: ArrayD<f16> = ops::reduce_mean_as(&x, None, false).unwrap();
//! assert_eq!(mean[[]], f16::MAX); // computed in f32
//! let err = ops::add(&x, &array![1.0f32, 2.0]).unwrap_err();
//! assert!(err.to_string().contains("cast first"));
//! let wide: ArrayD<f32> = ops::cast_as(&x, DType::F32).unwrap();
//! assert_eq!(wide[[0]], 65504.0);
//! ```
//!
//! ## Scalars, operators, and what a value supports
//!
//! A Rust scalar beside a tensor-like operand takes its dtype, exactly or with an error
//! ([`scalar_like`], [`Scalar`]), as Python scalars do in TensorFlow and JAX; the operators that
//! `#[dispatch(operators)]` gives a type (`&a + &b`, `&a * 2.0`, `1.0 - &a`, `-&a`, returning
//! `Result<T>`) run [`operators`]. [`supported`] and [`supported_for_spec`] list the ops that have
//! a handler (or a dense default, or a fallback) for a value or a spec.
//!
//! ## Sizes
//!
//! An output that cannot be allocated is an error naming the op, the output shape and dtype
//! ([`DispatchError::OutputTooLarge`](crate::error::DispatchError::OutputTooLarge)), never a
//! panic or an abort: every dense op computes its output's element count and byte size with
//! checked arithmetic and refuses sizes over `isize::MAX` bytes, or that the allocator refuses,
//! before allocating anything proportional to them ([`size`]; the broadcasting kernels of the
//! binary ops and `where` do it themselves, allocating large outputs fallibly, in the same
//! words). Empty outputs allocate nothing
//! proportional to the request, so `tile(&empty, &[1 << 40])` is an empty tensor.
//!
//! ```
//! use extype_core::ops;
//! let err = ops::tile(&ndarray::array![1.0f64], &[usize::MAX]).unwrap_err();
//! assert!(err.to_string().starts_with("tile: output of shape [18446744073709551615] and dtype f64"));
//! ```
//!
//! ## Performance
//!
//! Measured with `cargo bench -p extype-core --bench dispatch`: `ops::add` on small dense
//! tensors costs a few tens of nanoseconds more than the kernel called directly (output-size
//! check included), and on large ones runs at the kernel's speed; dispatching it to an exact
//! handler costs a few tens of nanoseconds over calling the handler directly. How a call finds
//! its handler is in [`crate::dispatch`]; for the figures, see BENCHMARKS.md in the repository.
//!
//! ## Layout
//!
//! This module is the user *front*: the functions above the dispatch table, and `Op::call`,
//! `Op::apply1`, `Op::apply2` (which go through the table); its files, bottom to top:
//! `scalar.rs` (scalars), `operators.rs` (the operators' runtime), `supported.rs`, then this
//! one. The op *model* it calls through —
//! [`Op`] and its data, the catalog, [`OpArgs`], operands, spec inference, the dense default —
//! lives below [`crate::dispatch`] and is re-exported here (`ops::catalog`, `ops::OpArgs`,
//! `ops::infer`, `ops::operand`, `ops::rules`, `ops::size`). Adding an op to the catalog is
//! described, with every place it touches, in [`catalog`]'s docs.

pub mod operators;
mod scalar;
mod supported;

pub use crate::op_model::args::{current_policy, scoped_policy};
pub use crate::op_model::{args, catalog, infer, operand, size};
pub use operators::OperatorRhs;
pub use scalar::{Scalar, scalar_like};
pub use supported::{SupportedSpec, supported, supported_for_spec};

/// The rules an op carries as data: its dtype rules ([`DTypeSet`], [`Operands`],
/// [`ResultDType`]), a reduction's [`Fold`], its shape rule ([`InferRule`], [`ShapeFn`]), and
/// whether a set of axes may repeat one
/// ([`Repeats`](extype_kernels::axis::Repeats), for [`Op::reduced_axes`]).
pub mod rules {
    pub use crate::op_model::op::{InferRule, ShapeFn};
    pub use crate::op_model::rules::{DTypeSet, Fold, Operands, ResultDType};
    pub use extype_kernels::axis::Repeats;
}

pub use crate::op_model::{
    Arity, AsOperand, DTypeSet, DenseFn, Fold, FromValue, Indices, InferRule, Inferred, IntoValue,
    Op, OpArgs, OpKind, Operand, Operands, ResultDType, ShapeFn, Signature,
};

use crate::dispatch::table;
use crate::dtype::DType;
use crate::error::Result;
use crate::op_model::{dense, operand::bad_argument};
#[cfg(doc)]
use crate::spec::ExtensionType;
use crate::spec::value::{Value, ValueSpec};
use crate::tensor::{Tensor, TensorView};

/// No extra arguments, as a `static` (the fixed-argument front functions borrow it).
static NO_ARGS: OpArgs = OpArgs {
    axes: None,
    keepdims: false,
    axis: 0,
    dtype: None,
    shape: None,
    perm: None,
    indices: None,
    policy: None,
};

/// Calls any op (catalog or user-declared) on `operands` with `args`, through the dispatch table.
///
/// ```
/// use extype_core::ops::{self, AsOperand, OpArgs, catalog};
/// let x = ndarray::array![1i64, -2];
/// let y = ops::call(&catalog::ABS, &[x.as_operand()], &OpArgs::none()).unwrap();
/// assert_eq!(y.as_tensor().unwrap(), &extype_core::Tensor::from(ndarray::array![1i64, 2].into_dyn()));
/// ```
#[inline]
pub fn call(op: &'static Op, operands: &[Operand<'_>], args: &OpArgs) -> Result<Value> {
    table()?.call(op, operands, args)
}

/// [`call`], returning the concrete type `T`.
pub fn call_as<T: FromValue>(
    op: &'static Op,
    operands: &[Operand<'_>],
    args: &OpArgs,
) -> Result<T> {
    T::from_value(call(op, operands, args)?)
}

/// Infers the output spec of `op` on inputs of these specs, through the dispatch table (a
/// handler's `infer = …` for extension specs; the op's own rule, [`infer::dense`], for tensor
/// specs). A chain of ops can so be checked before any data exists.
pub fn infer_spec(op: &'static Op, specs: &[&ValueSpec], args: &OpArgs) -> Result<Inferred> {
    table()?.infer(op, specs, args)
}

/// [`infer_spec`] in "fully defined" mode (MXNet's `infer_shape`, where [`infer_spec`] is
/// `infer_shape_partial`): the output spec when every dim of it is a known size, otherwise an
/// error naming each unknown dim.
///
/// ```
/// use extype_core::ops::{self, OpArgs, catalog};
/// use extype_core::{DType, TensorSpec, ValueSpec};
/// let x = ValueSpec::Tensor(TensorSpec::new("[?, 3]".parse().unwrap(), DType::F32));
/// let y = ValueSpec::Tensor(TensorSpec::new("[4, ?]".parse().unwrap(), DType::F32));
/// let out = ops::infer_spec_defined(&catalog::ADD, &[&x, &y], &OpArgs::none()).unwrap();
/// assert_eq!(out.tensor_spec().unwrap().to_string(), "f32[4, 3]");
/// // Partial inputs: each dim that is not a known size is named.
/// let x = ValueSpec::Tensor(TensorSpec::new("[$m, 3, ?]".parse().unwrap(), DType::F32));
/// let y = ValueSpec::Tensor(TensorSpec::new("[$m, 1, 2]".parse().unwrap(), DType::F32));
/// let err = ops::infer_spec_defined(&catalog::ADD, &[&x, &y], &OpArgs::none()).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "cannot compute the shape of output `add`: not fully defined: axis 0 is $m"
/// );
/// // The same inference, partial:
/// let out = ops::infer_spec(&catalog::ADD, &[&x, &y], &OpArgs::none()).unwrap();
/// assert_eq!(out.tensor_spec().unwrap().to_string(), "f32[$m, 3, 2]");
/// ```
pub fn infer_spec_defined(
    op: &'static Op,
    specs: &[&ValueSpec],
    args: &OpArgs,
) -> Result<Inferred> {
    infer_spec(op, specs, args)?.fully_defined(op)
}

// The one `impl Op` outside `op_model/op.rs`: these conveniences go through the dispatch table,
// which sits above the op model, so they live with the front that owns `call`.
impl Op {
    /// Calls this op (see [`call`]).
    pub fn call(&'static self, operands: &[Operand<'_>], args: &OpArgs) -> Result<Value> {
        call(self, operands, args)
    }

    /// Calls this op on one argument without extra arguments.
    pub fn apply1(&'static self, x: &impl AsOperand) -> Result<Value> {
        call(self, &[x.as_operand()], &NO_ARGS)
    }

    /// Calls this op on two arguments without extra arguments.
    pub fn apply2(&'static self, x: &impl AsOperand, y: &impl AsOperand) -> Result<Value> {
        call(self, &[x.as_operand(), y.as_operand()], &NO_ARGS)
    }
}

macro_rules! unary_ops {
    ($($name:ident, $name_as:ident, $op:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (unary elementwise; see [`catalog::", stringify!($op), "`]).")]
        #[inline]
        pub fn $name(x: &impl AsOperand) -> Result<Value> {
            call(&catalog::$op, &[x.as_operand()], &NO_ARGS)
        }

        #[doc = concat!("[`", stringify!($name), "`], returning the concrete type `T`.")]
        #[inline]
        pub fn $name_as<T: FromValue>(x: &impl AsOperand) -> Result<T> {
            T::from_value($name(x)?)
        }
    )*};
}

macro_rules! binary_ops {
    ($($name:ident, $name_as:ident, $op:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (binary elementwise, broadcasting; see [`catalog::", stringify!($op), "`]).")]
        #[inline]
        pub fn $name(x: &impl AsOperand, y: &impl AsOperand) -> Result<Value> {
            call(&catalog::$op, &[x.as_operand(), y.as_operand()], &NO_ARGS)
        }

        #[doc = concat!("[`", stringify!($name), "`], returning the concrete type `T`.")]
        #[inline]
        pub fn $name_as<T: FromValue>(x: &impl AsOperand, y: &impl AsOperand) -> Result<T> {
            T::from_value($name(x, y)?)
        }
    )*};
}

macro_rules! reduction_ops {
    ($($name:ident, $name_as:ident, $op:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` over `axes` (`None`: all axes; see [`catalog::", stringify!($op), "`]).")]
        #[inline]
        pub fn $name(x: &impl AsOperand, axes: Option<&[isize]>, keepdims: bool) -> Result<Value> {
            call(&catalog::$op, &[x.as_operand()], &OpArgs::maybe_axes(axes).keepdims(keepdims))
        }

        #[doc = concat!("[`", stringify!($name), "`], returning the concrete type `T`.")]
        #[inline]
        pub fn $name_as<T: FromValue>(
            x: &impl AsOperand,
            axes: Option<&[isize]>,
            keepdims: bool,
        ) -> Result<T> {
            T::from_value($name(x, axes, keepdims)?)
        }
    )*};
}

unary_ops! {
    neg, neg_as, NEG;
    abs, abs_as, ABS;
    exp, exp_as, EXP;
    log, log_as, LOG;
    sqrt, sqrt_as, SQRT;
    sin, sin_as, SIN;
    cos, cos_as, COS;
    tanh, tanh_as, TANH;
    sigmoid, sigmoid_as, SIGMOID;
    floor, floor_as, FLOOR;
    ceil, ceil_as, CEIL;
    round, round_as, ROUND;
    logical_not, logical_not_as, LOGICAL_NOT;
    is_nan, is_nan_as, IS_NAN;
    is_finite, is_finite_as, IS_FINITE;
    shape, shape_as, SHAPE;
    zeros_like, zeros_like_as, ZEROS_LIKE;
    ones_like, ones_like_as, ONES_LIKE;
}

binary_ops! {
    add, add_as, ADD;
    sub, sub_as, SUB;
    mul, mul_as, MUL;
    div, div_as, DIV;
    maximum, maximum_as, MAXIMUM;
    minimum, minimum_as, MINIMUM;
    pow, pow_as, POW;
    equal, equal_as, EQUAL;
    not_equal, not_equal_as, NOT_EQUAL;
    less, less_as, LESS;
    less_equal, less_equal_as, LESS_EQUAL;
    greater, greater_as, GREATER;
    greater_equal, greater_equal_as, GREATER_EQUAL;
    logical_and, logical_and_as, LOGICAL_AND;
    logical_or, logical_or_as, LOGICAL_OR;
    logical_xor, logical_xor_as, LOGICAL_XOR;
    boolean_mask, boolean_mask_as, BOOLEAN_MASK;
}

reduction_ops! {
    reduce_sum, reduce_sum_as, REDUCE_SUM;
    reduce_mean, reduce_mean_as, REDUCE_MEAN;
    reduce_prod, reduce_prod_as, REDUCE_PROD;
    reduce_max, reduce_max_as, REDUCE_MAX;
    reduce_min, reduce_min_as, REDUCE_MIN;
    reduce_any, reduce_any_as, REDUCE_ANY;
    reduce_all, reduce_all_as, REDUCE_ALL;
    count_nonzero, count_nonzero_as, COUNT_NONZERO;
    argmax, argmax_as, ARGMAX;
    argmin, argmin_as, ARGMIN;
}

/// The number of dimensions of `x`: a dense argument's, or a tensor-like extension value's
/// ([`TensorLike`](crate::tensor::TensorLike)); an error naming the argument otherwise.
///
/// ```
/// use extype_core::ops;
/// assert_eq!(ops::rank(&ndarray::array![[1.0f32, 2.0]]).unwrap(), 2);
/// assert_eq!(ops::rank(&ndarray::arr0(1i64)).unwrap(), 0);
/// ```
pub fn rank(x: &impl AsOperand) -> Result<usize> {
    let x = x.as_operand();
    match x.tensor_like().and_then(|like| like.rank()) {
        Some(rank) => Ok(rank),
        None => Err(bad_argument(
            "rank",
            "argument 0",
            "a tensor, an array, or a tensor-like extension value (`#[extype(tensor_like = \
             field)]`)",
            x.describe(),
        )),
    }
}

/// The matrix product of the last two axes of `a` and `b` (`[.., n, k] @ [.., k, m] →
/// [.., n, m]`), the leading axes broadcast (NumPy's and TensorFlow's `matmul`); f32, f64, i32
/// and i64 (integers wrap on overflow, as TensorFlow's). A `k` that differs is an error naming
/// both shapes, in calls and in spec inference.
///
/// ```
/// use extype_core::{ops, Tensor};
/// use ndarray::array;
/// let c: Tensor = ops::matmul_as(&array![[1.0f32, 2.0], [3.0, 4.0]], &array![[1.0f32], [1.0]])?;
/// assert_eq!(c, Tensor::from(array![[3.0f32], [7.0]]));
/// let err = ops::matmul(&array![[1.0f32, 2.0]], &array![[1.0f32, 2.0]]).unwrap_err();
/// assert!(err.to_string().contains("expected axis -2 of size 2"), "{err}");
/// # Ok::<(), extype_core::Error>(())
/// ```
pub fn matmul(a: &impl AsOperand, b: &impl AsOperand) -> Result<Value> {
    call(
        &catalog::MATMUL,
        &[a.as_operand(), b.as_operand()],
        &OpArgs::none(),
    )
}

/// [`matmul`], returning the concrete type `T`.
pub fn matmul_as<T: FromValue>(a: &impl AsOperand, b: &impl AsOperand) -> Result<T> {
    T::from_value(matmul(a, b)?)
}

/// Gives `x` the shape `shape` (same number of elements, C order).
pub fn reshape(x: &impl AsOperand, shape: &[usize]) -> Result<Value> {
    call(
        &catalog::RESHAPE,
        &[x.as_operand()],
        &OpArgs::none().with_shape(shape),
    )
}

/// [`reshape`], returning the concrete type `T`.
pub fn reshape_as<T: FromValue>(x: &impl AsOperand, shape: &[usize]) -> Result<T> {
    T::from_value(reshape(x, shape)?)
}

/// Permutes the axes of `x` (`None` reverses them).
pub fn transpose(x: &impl AsOperand, perm: Option<&[usize]>) -> Result<Value> {
    let mut args = OpArgs::none();
    args.perm = perm.map(<[usize]>::to_vec);
    call(&catalog::TRANSPOSE, &[x.as_operand()], &args)
}

/// [`transpose`], returning the concrete type `T`.
pub fn transpose_as<T: FromValue>(x: &impl AsOperand, perm: Option<&[usize]>) -> Result<T> {
    T::from_value(transpose(x, perm)?)
}

/// Joins `xs` along an existing `axis`. Extension values that no handler takes are joined by
/// the catalog entry's fallback ([`Op::has_fallback`], which [`call`] runs too), for any number
/// of values: along axis 0 by their batch encoder when their type is batchable
/// ([`batch::concat_values`](crate::batch::concat_values)); along any axis component by
/// component when they are of one tensor-like type whose components all have the shape it
/// shows (a masked tensor's values and mask), their static data equal.
pub fn concat(xs: &[Operand<'_>], axis: isize) -> Result<Value> {
    call(&catalog::CONCAT, xs, &OpArgs::none().with_axis(axis))
}

/// [`concat()`], returning the concrete type `T`.
pub fn concat_as<T: FromValue>(xs: &[Operand<'_>], axis: isize) -> Result<T> {
    T::from_value(concat(xs, axis)?)
}

/// Joins `xs` along a new `axis`. Extension values that no handler takes are stacked by the
/// catalog entry's fallback, as [`concat()`] joins them: on axis 0 by their batch encoder
/// ([`batch::stack_values`](crate::batch::stack_values)), on any axis component by component
/// for one tensor-like type whose components all have its shape.
pub fn stack(xs: &[Operand<'_>], axis: isize) -> Result<Value> {
    call(&catalog::STACK, xs, &OpArgs::none().with_axis(axis))
}

/// [`stack`], returning the concrete type `T`.
pub fn stack_as<T: FromValue>(xs: &[Operand<'_>], axis: isize) -> Result<T> {
    T::from_value(stack(xs, axis)?)
}

/// Repeats `x` `multiples[i]` times along axis `i`.
pub fn tile(x: &impl AsOperand, multiples: &[usize]) -> Result<Value> {
    call(
        &catalog::TILE,
        &[x.as_operand()],
        &OpArgs::none().with_shape(multiples),
    )
}

/// [`tile`], returning the concrete type `T`.
pub fn tile_as<T: FromValue>(x: &impl AsOperand, multiples: &[usize]) -> Result<T> {
    T::from_value(tile(x, multiples)?)
}

/// The slices of `x` at `indices` along `axis` (negative indices count from the end).
pub fn gather(x: &impl AsOperand, indices: &[i64], axis: isize) -> Result<Value> {
    call(
        &catalog::GATHER,
        &[x.as_operand()],
        &OpArgs::none().with_indices(indices).with_axis(axis),
    )
}

/// [`gather`], returning the concrete type `T`.
pub fn gather_as<T: FromValue>(x: &impl AsOperand, indices: &[i64], axis: isize) -> Result<T> {
    T::from_value(gather(x, indices, axis)?)
}

/// `cond ? x : y` elementwise, broadcasting the three (TensorFlow's `where`).
pub fn where_(cond: &impl AsOperand, x: &impl AsOperand, y: &impl AsOperand) -> Result<Value> {
    call(
        &catalog::WHERE,
        &[cond.as_operand(), x.as_operand(), y.as_operand()],
        &OpArgs::none(),
    )
}

/// [`where_`], returning the concrete type `T`.
pub fn where_as<T: FromValue>(
    cond: &impl AsOperand,
    x: &impl AsOperand,
    y: &impl AsOperand,
) -> Result<T> {
    T::from_value(where_(cond, x, y)?)
}

/// Converts `x` to `dtype`.
pub fn cast(x: &impl AsOperand, dtype: DType) -> Result<Value> {
    call(
        &catalog::CAST,
        &[x.as_operand()],
        &OpArgs::none().with_dtype(dtype),
    )
}

/// [`cast`], returning the concrete type `T`.
pub fn cast_as<T: FromValue>(x: &impl AsOperand, dtype: DType) -> Result<T> {
    T::from_value(cast(x, dtype)?)
}

/// Zeros of `x`'s shape in `dtype` (TensorFlow's `tf.zeros_like(x, dtype=…)`): the
/// unary-elementwise `zeros_like` with a dtype, so a library or user type's unary handler
/// receives it (a `MaskedTensor` keeps its mask, a `RaggedTensor` its row partitions).
///
/// ```
/// use extype_core::{ops, DType, Tensor};
/// use ndarray::array;
/// let z: Tensor = ops::zeros_like_dtype_as(&Tensor::from(array![1.5f32, 2.5]), DType::I64)?;
/// assert_eq!(z, Tensor::from(array![0i64, 0]));
/// # Ok::<(), extype_core::Error>(())
/// ```
pub fn zeros_like_dtype(x: &impl AsOperand, dtype: DType) -> Result<Value> {
    call(
        &catalog::ZEROS_LIKE,
        &[x.as_operand()],
        &OpArgs::none().with_dtype(dtype),
    )
}

/// [`zeros_like_dtype`], returning the concrete type `T`.
pub fn zeros_like_dtype_as<T: FromValue>(x: &impl AsOperand, dtype: DType) -> Result<T> {
    T::from_value(zeros_like_dtype(x, dtype)?)
}

/// Ones of `x`'s shape in `dtype` (TensorFlow's `tf.ones_like(x, dtype=…)`); see
/// [`zeros_like_dtype`].
///
/// ```
/// use extype_core::{ops, DType, Tensor};
/// use ndarray::array;
/// let ones: Tensor = ops::ones_like_dtype_as(&Tensor::from(array![[1i32], [2]]), DType::F32)?;
/// assert_eq!(ones, Tensor::from(array![[1.0f32], [1.0]]));
/// # Ok::<(), extype_core::Error>(())
/// ```
pub fn ones_like_dtype(x: &impl AsOperand, dtype: DType) -> Result<Value> {
    call(
        &catalog::ONES_LIKE,
        &[x.as_operand()],
        &OpArgs::none().with_dtype(dtype),
    )
}

/// [`ones_like_dtype`], returning the concrete type `T`.
pub fn ones_like_dtype_as<T: FromValue>(x: &impl AsOperand, dtype: DType) -> Result<T> {
    T::from_value(ones_like_dtype(x, dtype)?)
}

/// A segment reduction of `x` along axis 0: `op` is one of the `SEGMENT_*` ops, `row_splits`
/// the ragged row boundaries (`[0, …, x.shape[0]]`).
pub fn segment_reduce(op: &'static Op, x: &impl AsOperand, row_splits: &[i64]) -> Result<Value> {
    call(
        op,
        &[x.as_operand()],
        &OpArgs::none().with_indices(row_splits),
    )
}

/// [`segment_reduce`], returning the concrete type `T`.
pub fn segment_reduce_as<T: FromValue>(
    op: &'static Op,
    x: &impl AsOperand,
    row_splits: &[i64],
) -> Result<T> {
    T::from_value(segment_reduce(op, x, row_splits)?)
}

/// [`segment_reduce`] with row splits that are shared, not copied (e.g. a ragged tensor's own
/// splits as an `ArcArray1<i64>`): the op reads them in place. They are checked as by
/// [`segment_reduce`] (the kernel checks them in its pass over the rows).
///
/// ```
/// use extype_core::ops::{self, Indices, catalog};
/// use extype_core::Tensor;
/// let flat = Tensor::from(ndarray::arr1(&[1.0f32, 2.0, 3.0, 4.0]));
/// let splits = Indices::from(ndarray::ArcArray1::from(vec![0i64, 1, 1, 4]));
/// let sums: Tensor = ops::segment_reduce_shared_as(&catalog::SEGMENT_SUM, &flat, &splits).unwrap();
/// assert_eq!(sums.as_array::<f32, ndarray::Ix1>().unwrap().to_vec(), [1.0, 0.0, 9.0]);
/// ```
pub fn segment_reduce_shared(
    op: &'static Op,
    x: &impl AsOperand,
    row_splits: &Indices,
) -> Result<Value> {
    call(
        op,
        &[x.as_operand()],
        &OpArgs::none().with_shared_indices(row_splits.clone()),
    )
}

/// [`segment_reduce_shared`], returning the concrete type `T`.
pub fn segment_reduce_shared_as<T: FromValue>(
    op: &'static Op,
    x: &impl AsOperand,
    row_splits: &Indices,
) -> Result<T> {
    T::from_value(segment_reduce_shared(op, x, row_splits)?)
}

/// A masked reduction of dense `values` where `mask` (bool, broadcastable to `values`) is true,
/// on the kernels (no dispatch): `op` is a reduction with a masked kernel ([`Op::has_masked`]:
/// `REDUCE_SUM`, `REDUCE_MEAN`, `REDUCE_MAX`, `REDUCE_MIN`); `args` gives the axes and keepdims.
///
/// ```
/// use extype_core::ops::{self, OpArgs, catalog};
/// let v = ndarray::array![[1.0f64, 2.0], [3.0, 4.0]];
/// let m = ndarray::array![[true, false], [true, true]];
/// let mean = ops::masked_reduce(&catalog::REDUCE_MEAN, &v, &m, &OpArgs::axes(&[1])).unwrap();
/// assert_eq!(mean, extype_core::Tensor::from(ndarray::array![1.0f64, 3.5].into_dyn()));
/// ```
pub fn masked_reduce(
    op: &'static Op,
    values: &impl AsOperand,
    mask: &impl AsOperand,
    args: &OpArgs,
) -> Result<Tensor> {
    let (v, m) = (values.as_operand(), mask.as_operand());
    let err =
        |o: &Operand<'_>, what: &str| bad_argument(op.name(), what, "a dense tensor", o.describe());
    let vv = v.as_view().ok_or_else(|| err(&v, "values"))?;
    let mv = m.as_view().ok_or_else(|| err(&m, "mask"))?;
    dense::run_masked(op, &vv, &mv, args)
}

/// Runs `op`'s dense default on dense tensors, without consulting the dispatch table: what a
/// call with these arguments runs when no handler takes it. Handlers use it (and
/// [`Tensor::dense_op`] for one argument) for their dense parts, so that the user's one call is
/// the one consultation ([`dispatch::consultations`](crate::dispatch::consultations)).
///
/// ```
/// use extype_core::ops::{self, OpArgs, catalog};
/// use extype_core::Tensor;
/// let x = Tensor::from(ndarray::array![6.0f32, 8.0].into_dyn());
/// let y = Tensor::from(ndarray::array![2.0f32, 4.0].into_dyn());
/// let q = ops::call_dense(&catalog::DIV, &[&x, &y], &OpArgs::none()).unwrap();
/// assert_eq!(q, Tensor::from(ndarray::array![3.0f32, 2.0].into_dyn()));
/// ```
pub fn call_dense(op: &'static Op, xs: &[&Tensor], args: &OpArgs) -> Result<Tensor> {
    let views: smallvec::SmallVec<[TensorView<'_>; 4]> = xs.iter().map(|t| t.view()).collect();
    dense::run(op, &views, args)
}

/// Tensor conveniences used by handlers.
impl Tensor {
    /// Runs a catalog op's dense default on this tensor alone (no dispatch).
    pub fn dense_op(&self, op: &'static Op, args: &OpArgs) -> Result<Tensor> {
        dense::run(op, &[self.view()], args)
    }
}

/// Declares a dispatchable op in one line: a `static` [`Op`] that `#[dispatch(op = PATH)]`
/// handlers register for and [`call`] (or [`Op::apply1`]) runs.
///
/// Kinds: `unary_elementwise`, `binary_elementwise`, `reduction`, `other(N)` (N arguments).
/// `dense = f` (a `fn(&[Tensor], &OpArgs) -> Result<Tensor>`) is the dense default; without it,
/// every call needs a handler.
///
/// ```
/// use extype_core::ops::{self, OpArgs};
/// use extype_core::{Result, Tensor};
///
/// fn softplus_dense(xs: &[Tensor], _: &OpArgs) -> Result<Tensor> {
///     let x = xs[0].as_array::<f64, ndarray::IxDyn>()?;
///     Ok(Tensor::from(x.mapv(|v| (1.0 + v.exp()).ln())))
/// }
///
/// extype_core::declare_op!(pub SOFTPLUS: unary_elementwise "my.softplus", dense = softplus_dense);
///
/// let y = SOFTPLUS.apply1(&ndarray::array![0.0f64]).unwrap();
/// let y = y.as_tensor().unwrap().as_array::<f64, ndarray::Ix1>().unwrap()[0];
/// assert!((y - 2f64.ln()).abs() < 1e-12);
/// ```
///
/// `shapes = [PATTERN, …] -> OUTPUT` (optionally `, batch = "b"`) gives the op a shape contract:
/// one pattern per input, and the output's dims as expressions over their names. Its spec
/// inference then comes from the contract (see [`infer::contract_shape`]), with no `infer`
/// handler; the declaration rules (no any-dim in the output, every name bound by an input, the
/// batch dim leading) are checked when the contract is first used.
///
/// ```
/// extype_core::declare_op!(pub CONV1D: other(2) "my.conv1d",
///     shapes = ["b c_in n", "c_out c_in k"] -> "b, c_out, n - k + 1", batch = "b");
/// ```
#[macro_export]
macro_rules! declare_op {
    ($(#[$m:meta])* $vis:vis $name:ident : $kind:ident $(($n:literal))? $op:literal,
     shapes = [$($input:literal),* $(,)?] -> $output:literal $(, batch = $batch:literal)?
     $(, dense = $dense:expr)? $(,)?) => {
        $(#[$m])*
        $vis static $name: $crate::ops::Op = $crate::declare_op!(@new $op, $kind $(($n))?; $($dense)?)
        .with_infer($crate::ops::InferRule::Custom({
            fn contract_infer(
                op: &$crate::ops::Op,
                specs: &[&$crate::TensorSpec],
                _: &$crate::ops::OpArgs,
            ) -> $crate::Result<$crate::Shape> {
                static CONTRACT: ::std::sync::OnceLock<
                    ::core::result::Result<$crate::shape::ShapeCalculator, $crate::ShapeError>,
                > = ::std::sync::OnceLock::new();
                $crate::ops::infer::contract_shape(
                    op,
                    specs,
                    &CONTRACT,
                    &[$($input),*],
                    $output,
                    $crate::declare_op!(@batch $($batch)?),
                )
            }
            contract_infer
        }));
    };
    ($(#[$m:meta])* $vis:vis $name:ident : $kind:ident $(($n:literal))? $op:literal $(, dense = $dense:expr)? $(,)?) => {
        $(#[$m])*
        $vis static $name: $crate::ops::Op = $crate::declare_op!(@new $op, $kind $(($n))?; $($dense)?);
    };
    (@new $op:literal, $kind:ident $(($n:literal))?; $($dense:expr)?) => {
        $crate::ops::Op::new(
            $op,
            $crate::declare_op!(@kind $kind),
            $crate::declare_op!(@arity $kind $(($n))?),
            $crate::declare_op!(@dense $($dense)?),
        )
    };
    (@kind unary_elementwise) => { $crate::ops::OpKind::UnaryElementwise };
    (@kind binary_elementwise) => { $crate::ops::OpKind::BinaryElementwise };
    (@kind reduction) => { $crate::ops::OpKind::Reduction };
    (@kind other) => { $crate::ops::OpKind::Other };
    (@arity unary_elementwise) => { $crate::ops::Arity::Exactly(1) };
    (@arity binary_elementwise) => { $crate::ops::Arity::Exactly(2) };
    (@arity reduction) => { $crate::ops::Arity::Exactly(1) };
    (@arity other($n:literal)) => { $crate::ops::Arity::Exactly($n) };
    (@batch) => { ::core::option::Option::None };
    (@batch $batch:literal) => { ::core::option::Option::Some($batch) };
    (@dense) => { ::core::option::Option::None };
    (@dense $dense:expr) => { ::core::option::Option::Some($dense) };
}

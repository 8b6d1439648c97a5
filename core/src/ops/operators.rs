//! The runtime of `#[dispatch(operators)]`: what `&a + &b`, `&a - 1.0`, `2.0 * &a` and `-&a` run
//! on an extension type `T` that has the attribute. The macro only glues these to the `std::ops`
//! traits.
//!
//! Each operator dispatches its catalog op (`ADD`, `SUB`, `MUL`, `DIV`, `NEG`) like
//! [`ops::add`](crate::ops::add) & co., and returns `Result<T>`, so results chain:
//! `(&(&a + &b)? * &c)?`. A call whose handler returns something else than a `T` is an error
//! that says so (`extype::ops::add` & co. return any `Value`). The right-hand side is anything
//! [`OperatorRhs`]: a reference to anything [`AsOperand`], or a [`Scalar`]; on the left an `f64`
//! or an `i64` ([`scalar_left`]; one type per kind of literal, so that `2.0 * &a` and `1 - &a`
//! infer without annotations). Scalars are weakly typed: they take the dtype of the other
//! operand's tensor-like view, exactly or with an error ([`scalar_like`]), and keep their own
//! beside a value that is not tensor-like.
//!
//! ```ignore
//! #[dispatch(operators)]
//! #[derive(Clone, Debug, PartialEq, ExtensionType)]
//! #[extype(name = "my.Masked", tensor_like = values)]
//! pub struct Masked { pub values: Tensor, pub mask: Tensor }
//!
//! let y: Masked = (&(&a + &b)? * 2.0)?;  // f32 values: `2.0` multiplies as an f32
//! let z: Masked = (1.0 - &y)?;
//! let err = (&a_i32 * 1.5).unwrap_err(); // "mul: scalar 1.5 (f64): expected a value exactly
//!                                        //  representable in i32, …"
//! ```
//!
//! (`tests/dispatch_operators.rs` is the tested version.)

use crate::dispatch::table;
use crate::error::{Error, Result};
use crate::op_model::catalog::NEG;
use crate::op_model::operand::{AsOperand, Operand};
use crate::op_model::{Op, OpArgs};
use crate::spec::value::Value;
use crate::spec::{ExtensionType, registered_name};

use super::scalar::{Scalar, scalar_like};

/// `x (op) y` for `x: &T`, as a `T`.
pub fn binary<T: ExtensionType>(
    op: &'static Op,
    symbol: &str,
    x: &T,
    y: &impl AsOperand,
) -> Result<T> {
    let out = table()?.call(op, &[x.as_operand(), y.as_operand()], &OpArgs::none())?;
    result::<T>(op, symbol, out)
}

/// `x (op) scalar` for `x: &T`: the scalar takes `x`'s dtype ([`scalar_like`]).
pub fn scalar_right<T: ExtensionType, S: Scalar>(
    op: &'static Op,
    symbol: &str,
    x: &T,
    scalar: S,
) -> Result<T> {
    let s = scalar_like(op, x, scalar)?;
    binary(op, symbol, x, &s)
}

/// `scalar (op) y` for `y: &T`: the scalar takes `y`'s dtype ([`scalar_like`]).
pub fn scalar_left<T: ExtensionType, S: Scalar>(
    op: &'static Op,
    symbol: &str,
    scalar: S,
    y: &T,
) -> Result<T> {
    let s = scalar_like(op, y, scalar)?;
    let out = table()?.call(op, &[Operand::tensor(&s), y.as_operand()], &OpArgs::none())?;
    result::<T>(op, symbol, out)
}

/// `-x` for `x: &T`, as a `T`.
pub fn neg<T: ExtensionType>(x: &T) -> Result<T> {
    let out = table()?.call(&NEG, &[x.as_operand()], &OpArgs::none())?;
    result::<T>(&NEG, "-", out)
}

/// The operator's result as a `T`, or the error saying what came back instead.
fn result<T: ExtensionType>(op: &Op, symbol: &str, out: Value) -> Result<T> {
    match &out {
        Value::Extension(e) if e.as_any().is::<T>() => out.downcast::<T>(),
        _ => Err(not_t::<T>(op, symbol, &out)),
    }
}

#[cold]
fn not_t<T: ExtensionType>(op: &Op, symbol: &str, out: &Value) -> Error {
    let name = registered_name::<T>();
    Error::unsupported(
        op.name(),
        format!(
            "the operator `{symbol}` on {name} returns {name}, but the handler that took the call \
             returned {}; call `extype::ops::{}`, which returns any Value",
            Operand::value(out).describe(),
            op.name()
        ),
    )
}

/// The right-hand side of the operators `+ - * /` of a `#[dispatch(operators)]` type: a
/// reference to anything [`AsOperand`] (`&T`, `&Tensor`, an ndarray array, `&Value`, another
/// extension value), or a [`Scalar`] by value (`i8` … `u64`, `f32`, `f64`, `half::f16`,
/// `half::bf16`), which takes the
/// dtype of the left-hand side.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the right-hand side of an operator of a `#[dispatch(operators)]` \
               type",
    label = "not a reference to an op argument, nor a scalar of a numeric dtype",
    note = "accepted: `&x` for anything `AsOperand` (`&Tensor`, `&ndarray::Array…`, `&Value`, \
            `&` an extension value), or a scalar: i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, \
            half::f16, half::bf16"
)]
pub trait OperatorRhs {
    /// `x (op) self` as a `T` (`symbol` is the operator, for errors).
    fn apply_right<T: ExtensionType>(self, op: &'static Op, symbol: &str, x: &T) -> Result<T>;
}

impl<R: AsOperand> OperatorRhs for &R {
    #[inline]
    fn apply_right<T: ExtensionType>(self, op: &'static Op, symbol: &str, x: &T) -> Result<T> {
        binary(op, symbol, x, self)
    }
}

macro_rules! scalar_rhs {
    ($($t:ty),*) => {$(
        impl OperatorRhs for $t {
            #[inline]
            fn apply_right<T: ExtensionType>(
                self,
                op: &'static Op,
                symbol: &str,
                x: &T,
            ) -> Result<T> {
                scalar_right(op, symbol, x, self)
            }
        }
    )*};
}

scalar_rhs!(
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    half::f16,
    half::bf16
);

//! Rust scalars as op operands, weakly typed: [`Scalar`] and [`scalar_like`].
//!
//! A scalar beside a tensor takes the tensor's dtype, as a Python scalar does in TensorFlow and
//! JAX: `&x_f32 + 1.0` (an `f64` literal) adds in `f32`. The conversion is exact or an error — a
//! scalar never silently changes value: `1.5` into `i32` values, `300` into `u8`, an integer that
//! `f32` cannot hold exactly (`16_777_217`), a finite `f64` that overflows `f32`, a NaN or an
//! infinity into an integer dtype are errors naming the op, the scalar and the dtype. A float into
//! a float dtype rounds to nearest (`0.1` into `f32` is the `f32` literal `0.1`), and NaN and ±inf
//! stay what they are. Into `bool` (no arithmetic op takes it; comparisons of a bool tensor do)
//! only `0` and `1` convert.

use crate::dtype::DType;
use crate::error::{DispatchError, Error, Result};
use crate::op_model::Op;
use crate::op_model::operand::AsOperand;
use crate::tensor::{Element, Tensor, TensorLike};

mod sealed {
    /// A scalar's value, wide enough for every scalar type exactly.
    #[derive(Debug, Clone, Copy)]
    pub enum Number {
        /// An integer (every `i8` … `u64`).
        Int(i128),
        /// A float (`f32` widens to `f64` exactly).
        Float(f64),
    }

    /// The conversion the sealed [`Scalar`](super::Scalar) trait rests on.
    pub trait Sealed {
        /// The scalar's value.
        fn number(self) -> Number;
    }
}

use sealed::Number;

/// A Rust scalar that can stand for a tensor operand: `i8`, `i16`, `i32`, `i64`, `u8`, `u16`,
/// `u32`, `u64`, `f32`, `f64`, `half::f16`, `half::bf16` (the numeric element types). Sealed.
/// Into `f16`/`bf16` a float rounds to nearest like into `f32`, and one beyond the format's
/// range (`1e5` into `f16`) is an overflow error.
///
/// Beside a tensor a scalar takes the tensor's dtype ([`scalar_like`]), as a Python scalar does
/// in TensorFlow and JAX, and the conversion is exact or an error: `1.5` into `i32` values,
/// `300` into `u8`, an integer that `f32` cannot hold exactly (`16_777_217`), a finite `f64`
/// that overflows `f32`, a NaN or an infinity into an integer dtype are errors naming the op,
/// the scalar and the dtype. A float into a float dtype rounds to nearest (`0.1` into `f32` is
/// the `f32` literal `0.1`), and NaN and ±inf stay what they are. Into `bool` only `0` and `1`
/// convert.
///
/// `bool` is not one: the arithmetic operators it serves (`+ - * /`) take no `bool` (the logical
/// ops do; pass a `bool` tensor to them).
pub trait Scalar: Element + sealed::Sealed {}

macro_rules! scalars {
    ($($int:ty),*; $($float:ty),*) => {
        $(
            impl sealed::Sealed for $int {
                #[inline]
                fn number(self) -> Number {
                    Number::Int(i128::from(self))
                }
            }
            impl Scalar for $int {}
        )*
        $(
            impl sealed::Sealed for $float {
                #[inline]
                fn number(self) -> Number {
                    Number::Float(f64::from(self))
                }
            }
            impl Scalar for $float {}
        )*
    };
}

scalars!(i8, i16, i32, i64, u8, u16, u32, u64; f32, f64, half::f16, half::bf16);

/// `scalar` as a rank-0 tensor of the dtype of `other`'s tensor-like view
/// ([`Operand::tensor_like`](crate::ops::Operand::tensor_like): a dense tensor's dtype, a
/// tensor-like extension value's), converted exactly (the rules: [`Scalar`]); of its own
/// dtype when `other` is not tensor-like. An inexact conversion is an error naming `op`, the
/// scalar and the dtype. What the operators of `#[dispatch(operators)]` run for a scalar operand.
///
/// ```
/// use extype_core::ops::{self, catalog};
/// use extype_core::{DType, Tensor};
///
/// let x = ndarray::array![1.0f32, 2.0];
/// let one = ops::scalar_like(&catalog::ADD, &x, 1.0f64).unwrap();
/// assert_eq!(one, Tensor::from(ndarray::arr0(1.0f32).into_dyn()));
///
/// let n = ndarray::array![1i32, 2];
/// let err = ops::scalar_like(&catalog::MUL, &n, 1.5f64).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "mul: scalar 1.5 (f64): expected a value exactly representable in i32, the dtype of the \
///      other operand (a scalar takes it), found one with a fractional part"
/// );
/// ```
pub fn scalar_like<S: Scalar>(op: &Op, other: &impl AsOperand, scalar: S) -> Result<Tensor> {
    let other = other.as_operand();
    let dtype = other.tensor_like().map_or(S::DTYPE, TensorLike::dtype);
    scalar_as(op, scalar, dtype)
}

/// Why a scalar does not convert.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Inexact {
    Fraction,
    NotFinite,
    OutOfRange,
    /// An integer a float dtype cannot hold; the nearest value it holds.
    Rounded(f64),
    Overflow,
    NotBool,
}

/// `scalar` as a rank-0 tensor of `dtype`, exactly (the error as [`scalar_like`] words it).
fn scalar_as<S: Scalar>(op: &Op, scalar: S, dtype: DType) -> Result<Tensor> {
    convert(scalar.number(), dtype).map_err(|why| inexact(op, scalar, dtype, why))
}

fn convert(n: Number, dtype: DType) -> std::result::Result<Tensor, Inexact> {
    fn t<A: Element>(a: A) -> Tensor {
        Tensor::from(ndarray::arr0(a).into_dyn())
    }
    fn int<A: TryFrom<i128>>(n: Number) -> std::result::Result<A, Inexact> {
        let i = match n {
            Number::Int(i) => i,
            Number::Float(f) if !f.is_finite() => return Err(Inexact::NotFinite),
            Number::Float(f) if f.fract() != 0.0 => return Err(Inexact::Fraction),
            // Whole: exact when in `i128`'s range, saturated (and then out of every dtype's
            // range) when not.
            Number::Float(f) => f as i128,
        };
        A::try_from(i).map_err(|_| Inexact::OutOfRange)
    }
    Ok(match dtype {
        DType::Bool => match n {
            Number::Int(0) => t(false),
            Number::Int(1) => t(true),
            Number::Float(0.0) => t(false),
            Number::Float(1.0) => t(true),
            _ => return Err(Inexact::NotBool),
        },
        DType::I8 => t(int::<i8>(n)?),
        DType::I16 => t(int::<i16>(n)?),
        DType::I32 => t(int::<i32>(n)?),
        DType::I64 => t(int::<i64>(n)?),
        DType::U8 => t(int::<u8>(n)?),
        DType::U16 => t(int::<u16>(n)?),
        DType::U32 => t(int::<u32>(n)?),
        DType::U64 => t(int::<u64>(n)?),
        DType::F32 => t(match n {
            Number::Int(i) => {
                let f = i as f32;
                if f as i128 != i {
                    return Err(Inexact::Rounded(f64::from(f)));
                }
                f
            }
            Number::Float(f) => {
                let g = f as f32;
                if f.is_finite() && !g.is_finite() {
                    return Err(Inexact::Overflow);
                }
                g
            }
        }),
        DType::F64 => t(match n {
            Number::Int(i) => {
                let f = i as f64;
                if f as i128 != i {
                    return Err(Inexact::Rounded(f));
                }
                f
            }
            Number::Float(f) => f,
        }),
        DType::F16 => t(half_of(
            n,
            extype_kernels::cast::f16_from_f64,
            half::f16::to_f64,
        )?),
        DType::BF16 => t(half_of(
            n,
            extype_kernels::cast::bf16_from_f64,
            half::bf16::to_f64,
        )?),
    })
}

/// `n` in a half-precision float: an integer exactly, a float rounded to nearest (as `f32`
/// takes an `f64` scalar), one beyond the format's range an overflow.
fn half_of<H: Copy>(
    n: Number,
    from: fn(f64) -> H,
    to: fn(H) -> f64,
) -> std::result::Result<H, Inexact> {
    match n {
        Number::Int(i) => {
            let h = from(i as f64);
            let back = to(h);
            if !back.is_finite() {
                Err(Inexact::Overflow)
            } else if back as i128 != i {
                Err(Inexact::Rounded(back))
            } else {
                Ok(h)
            }
        }
        Number::Float(f) => {
            let h = from(f);
            if f.is_finite() && !to(h).is_finite() {
                return Err(Inexact::Overflow);
            }
            Ok(h)
        }
    }
}

/// The `min..=max` of an integer dtype, for errors.
fn range(dtype: DType) -> String {
    let (lo, hi): (i128, i128) = match dtype {
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        DType::I64 => (i64::MIN.into(), i64::MAX.into()),
        DType::U8 => (0, u8::MAX.into()),
        DType::U16 => (0, u16::MAX.into()),
        DType::U32 => (0, u32::MAX.into()),
        DType::U64 => (0, u64::MAX.into()),
        _ => return String::new(),
    };
    format!("{lo}..={hi}")
}

#[cold]
fn inexact<S: Scalar>(op: &Op, scalar: S, dtype: DType, why: Inexact) -> Error {
    let what = match why {
        Inexact::Rounded(_) => "an integer exactly representable in",
        Inexact::Overflow => "a value within the finite range of",
        _ => "a value exactly representable in",
    };
    let found = match why {
        Inexact::Fraction => "one with a fractional part".to_string(),
        Inexact::NotFinite => "a value that is not finite".to_string(),
        Inexact::OutOfRange => format!("one outside {dtype}'s range {}", range(dtype)),
        Inexact::Rounded(nearest) => format!("one {dtype} rounds to {nearest}"),
        Inexact::Overflow => format!("one that overflows {dtype}"),
        Inexact::NotBool => "a value other than 0 and 1".to_string(),
    };
    DispatchError::Argument {
        op: op.name().to_string(),
        // Debug: `1.0` and `1e300` as written (Display prints every digit of `1e300`).
        arg: format!("scalar {scalar:?} ({})", S::DTYPE),
        expected: format!("{what} {dtype}, the dtype of the other operand (a scalar takes it)"),
        found,
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op_model::catalog::{ADD, MUL};

    fn ok<S: Scalar>(s: S, dtype: DType) -> Tensor {
        scalar_as(&ADD, s, dtype).unwrap_or_else(|e| panic!("{s:?} into {dtype}: {e}"))
    }

    fn err<S: Scalar>(s: S, dtype: DType) -> String {
        scalar_as(&MUL, s, dtype).unwrap_err().to_string()
    }

    fn t<A: Element>(a: A) -> Tensor {
        Tensor::from(ndarray::arr0(a).into_dyn())
    }

    #[test]
    fn a_scalar_takes_the_dtype_given_when_exact() {
        assert_eq!(ok(1.0f64, DType::F32), t(1.0f32));
        assert_eq!(ok(2i32, DType::F64), t(2.0f64));
        assert_eq!(ok(2.0f64, DType::I32), t(2i32));
        assert_eq!(ok(255i64, DType::U8), t(255u8));
        assert_eq!(ok(-128i32, DType::I8), t(-128i8));
        assert_eq!(ok(u64::MAX, DType::U64), t(u64::MAX));
        assert_eq!(ok(i64::MIN, DType::I64), t(i64::MIN));
        assert_eq!(ok(16_777_216i64, DType::F32), t(16_777_216.0f32));
        assert_eq!(ok(1u8, DType::Bool), t(true));
        assert_eq!(ok(0.0f32, DType::Bool), t(false));
        // Floats round to nearest into a float dtype, as a literal of that type would.
        assert_eq!(ok(0.1f64, DType::F32), t(0.1f32));
        assert_eq!(ok(f64::MAX, DType::F64), t(f64::MAX));
    }

    #[test]
    fn nan_and_infinities_go_into_float_dtypes() {
        let nan = ok(f64::NAN, DType::F32);
        assert!(nan.as_array::<f32, ndarray::IxDyn>().unwrap()[[]].is_nan());
        assert_eq!(ok(f64::INFINITY, DType::F32), t(f32::INFINITY));
        assert_eq!(ok(f32::NEG_INFINITY, DType::F64), t(f64::NEG_INFINITY));
    }

    #[test]
    fn an_inexact_conversion_is_an_error_naming_op_scalar_and_dtype() {
        assert_eq!(
            err(1.5f64, DType::I32),
            "mul: scalar 1.5 (f64): expected a value exactly representable in i32, the dtype of \
             the other operand (a scalar takes it), found one with a fractional part"
        );
        assert_eq!(
            err(300i32, DType::U8),
            "mul: scalar 300 (i32): expected a value exactly representable in u8, the dtype of \
             the other operand (a scalar takes it), found one outside u8's range 0..=255"
        );
        assert_eq!(
            err(-1i64, DType::U64),
            "mul: scalar -1 (i64): expected a value exactly representable in u64, the dtype of \
             the other operand (a scalar takes it), found one outside u64's range \
             0..=18446744073709551615"
        );
        assert_eq!(
            err(1e300f64, DType::F32),
            "mul: scalar 1e300 (f64): expected a value within the finite range of f32, the dtype \
             of the other operand (a scalar takes it), found one that overflows f32"
        );
        assert_eq!(
            err(16_777_217i32, DType::F32),
            "mul: scalar 16777217 (i32): expected an integer exactly representable in f32, the \
             dtype of the other operand (a scalar takes it), found one f32 rounds to 16777216"
        );
        assert_eq!(
            err(f64::NAN, DType::I64),
            "mul: scalar NaN (f64): expected a value exactly representable in i64, the dtype of \
             the other operand (a scalar takes it), found a value that is not finite"
        );
        assert_eq!(
            err(2i32, DType::Bool),
            "mul: scalar 2 (i32): expected a value exactly representable in bool, the dtype of \
             the other operand (a scalar takes it), found a value other than 0 and 1"
        );
    }

    #[test]
    fn edges_of_integer_ranges() {
        assert!(scalar_as(&ADD, 128i32, DType::I8).is_err());
        assert!(scalar_as(&ADD, 1e40f64, DType::I64).is_err());
        assert!(scalar_as(&ADD, 2f64.powi(63), DType::I64).is_err());
        assert_eq!(ok(-(2f64.powi(63)), DType::I64), t(i64::MIN));
        assert!(scalar_as(&ADD, u64::MAX, DType::F64).is_err());
        assert!(scalar_as(&ADD, f64::INFINITY, DType::U8).is_err());
    }

    #[test]
    fn a_dense_operand_gives_its_dtype() {
        // (An operand that is not tensor-like leaves the scalar its own dtype:
        // `tests/dispatch_operators.rs`.)
        let x = ndarray::array![1u8, 2];
        assert_eq!(scalar_like(&ADD, &x, 3i64).unwrap(), t(3u8));
        let v = crate::tensor::Tensor::from(ndarray::array![1.0f64]);
        assert_eq!(scalar_like(&ADD, &v, 3i8).unwrap(), t(3.0f64));
    }
}

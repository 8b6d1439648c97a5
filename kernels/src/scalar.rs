//! The element types the kernels compute on, and what the kernels need to know about each.
//!
//! [`Scalar`] is every supported dtype (f32, f64, i32, i64, u8, u64, bool, the half-precision
//! floats `half::f16` and `half::bf16`, and for moving and casting i8, i16, u16, u32); [`Num`]
//! the numeric ones (NumPy arithmetic semantics:
//! integers wrap); [`Float`] the floating-point ones. The half-precision floats are [`Scalar`]s
//! only: the kernels move, select, compare for equality, test and [`cast`](crate::cast) them,
//! and a caller computes arithmetic on them in `f32` (convert, compute, convert back; extype's
//! ops do).
//!
//! [`Num`] is sealed: its supertrait `NumHooks` (the per-dtype reduction bodies, implemented in
//! `reduce/hooks.rs`) cannot be named outside the crate, so the numeric types are exactly the
//! six listed.

use std::fmt::Debug;

/// A scalar type the kernels handle: the element types they compute on (extype-core's tensor
/// `Element`s are a superset; the two traits are named apart because they mean different sets).
pub trait Scalar: Copy + Send + Sync + PartialEq + Debug + Default + 'static {
    /// NumPy's name for the dtype.
    const NAME: &'static str;
    /// `true` unless the value is zero (or `false`). NaN is non-zero, as in NumPy.
    fn is_nonzero(self) -> bool;
    /// 1 for `true`, 0 for `false`.
    fn from_bool(b: bool) -> Self;
    /// Whether the value is NaN (always `false` for non-floats).
    fn is_nan_value(self) -> bool;
    /// Whether the value is finite (always `true` for non-floats).
    fn is_finite_value(self) -> bool;
}

/// A numeric scalar: wrapping integer arithmetic and NaN-propagating float comparisons (NumPy).
pub trait Num: Scalar + PartialOrd + NumHooks {
    /// The type sums and products accumulate in and return, as NumPy: `i32 → i64`, `u8 → u64`,
    /// floats and 64-bit integers keep their type.
    type Wide: Num;
    /// The identity of `max` (`-inf` for floats, the minimum for integers).
    const LOWEST: Self;
    /// The identity of `min` (`+inf` for floats, the maximum for integers).
    const HIGHEST: Self;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// Converts to the accumulation type (exact).
    fn widen(self) -> Self::Wide;
    /// Wrapping (integers) or IEEE (floats) addition.
    fn add_(self, b: Self) -> Self;
    /// Wrapping or IEEE subtraction.
    fn sub_(self, b: Self) -> Self;
    /// Wrapping or IEEE multiplication.
    fn mul_(self, b: Self) -> Self;
    /// Wrapping or IEEE negation (`-x` of a `u8` wraps, as NumPy).
    fn neg_(self) -> Self;
    /// Wrapping absolute value (`abs(i32::MIN) == i32::MIN`, as NumPy).
    fn abs_(self) -> Self;
    /// Reduction step of `max`: `x` if `x` is NaN or greater than `acc`, else `acc`. NaN sticks.
    fn max_step(acc: Self, x: Self) -> Self;
    /// Reduction step of `min`: `x` if `x` is NaN or less than `acc`, else `acc`. NaN sticks.
    fn min_step(acc: Self, x: Self) -> Self;
    /// The value as `f64` (rounded for 64-bit integers beyond 2^53).
    fn to_f64(self) -> f64;
}

/// A floating-point scalar.
pub trait Float: Num {
    /// NaN.
    const NAN: Self;
    /// IEEE division.
    fn div_(self, b: Self) -> Self;
    /// e^x. For `f32` a branch-free Cephes-style polynomial (≤ 2 ulp) that vectorises; `f64`
    /// uses the platform's `exp`.
    fn exp_(self) -> Self;
    /// Natural logarithm.
    fn ln_(self) -> Self;
    /// Square root.
    fn sqrt_(self) -> Self;
    /// Sine.
    fn sin_(self) -> Self;
    /// Cosine.
    fn cos_(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh_(self) -> Self;
    /// Logistic sigmoid `1 / (1 + e^-x)`.
    fn sigmoid_(self) -> Self;
    /// Floor.
    fn floor_(self) -> Self;
    /// Ceiling.
    fn ceil_(self) -> Self;
    /// Round half to even (NumPy's `round`).
    fn round_(self) -> Self;
    /// From `f64`, rounding.
    fn from_f64(x: f64) -> Self;
    /// Whether the value is NaN.
    fn is_nan_(self) -> bool;
}

/// The sealed part of [`Num`]: see [`NumHooks`].
mod sealed {
    use std::fmt::Debug;

    use super::{Float, Num};
    use crate::simd::Simd;

    /// Reduction bodies for one dtype, implemented in `reduce/hooks.rs`. Implementation detail
    /// of [`Num`], and its seal: declared `pub` in a private module, so code outside
    /// the crate can neither name it nor implement [`Num`], and its methods, generic
    /// over the crate-private SIMD backends, cannot be called from outside.
    pub trait NumHooks: Copy + Send + Sync + 'static {
        /// The running state of a sum (`f64` for `f32` input: leaves sum in `f32` lanes and the
        /// tree above them adds in `f64`).
        type SumAcc: Copy + Send + Sync + Debug;
        /// The type of a mean (`f64` for integers, the float type itself for floats).
        type Real: Float;
        /// The value as [`Self::Real`](NumHooks::Real) (identity for floats, `as f64` for
        /// integers).
        fn to_real(self) -> Self::Real;
        /// `self` to the power `e`: IEEE `powf` for floats; wrapping square-and-multiply for
        /// integers, where `e` must not be negative (checked by the caller, see `exponent_ok`).
        fn pow_(self, e: Self) -> Self;
        /// Whether `e` is a valid exponent (integers: not negative, as NumPy requires).
        fn exponent_ok(e: Self) -> bool;
        /// The sum of nothing.
        fn sum_identity() -> Self::SumAcc;
        /// Sum of a contiguous leaf.
        fn sum_leaf<S: Simd>(xs: &[Self]) -> Self::SumAcc;
        /// Sum of a contiguous run shorter than [`SHORT`](crate::reduce::SHORT) (see there).
        fn sum_short<S: Simd>(xs: &[Self]) -> Self::SumAcc;
        /// [`sum_short`](NumHooks::sum_short) of 16 consecutive short rows at once, row `k`
        /// being `xs[splits[k]..splits[k + 1]]`, with the same result per row; `None` when this
        /// dtype or backend has no grouped form or a row is not a range of `xs` of at most 32
        /// elements (the caller then reduces row by row). Default: `None`.
        #[inline(always)]
        fn sum_short16<S: Simd>(xs: &[Self], splits: &[i64; 17]) -> Option<[Self::SumAcc; 16]> {
            let _ = (xs, splits);
            None
        }
        /// Sum of the elements of a contiguous leaf where `mask` is true.
        fn sum_leaf_masked<S: Simd>(xs: &[Self], mask: &[bool]) -> Self::SumAcc;
        /// Adds one element (strided paths).
        fn sum_step(acc: Self::SumAcc, x: Self) -> Self::SumAcc;
        /// Adds two partial sums.
        fn sum_combine(a: Self::SumAcc, b: Self::SumAcc) -> Self::SumAcc;
        /// The final sum as NumPy types it.
        fn sum_finish(acc: Self::SumAcc) -> <Self as Num>::Wide
        where
            Self: Num;
        /// The mean of `n` elements whose sum is `acc` (NaN for `n == 0`).
        fn mean_finish(acc: Self::SumAcc, n: usize) -> Self::Real;
        /// Product of a contiguous leaf.
        fn prod_leaf<S: Simd>(xs: &[Self]) -> <Self as Num>::Wide
        where
            Self: Num;
        /// Max of a contiguous leaf, starting from `LOWEST`; NaN propagates.
        fn max_leaf<S: Simd>(xs: &[Self]) -> Self;
        /// Min of a contiguous leaf, starting from `HIGHEST`; NaN propagates.
        fn min_leaf<S: Simd>(xs: &[Self]) -> Self;
        /// Max over masked-in elements.
        fn max_leaf_masked<S: Simd>(xs: &[Self], mask: &[bool]) -> Self;
        /// Min over masked-in elements.
        fn min_leaf_masked<S: Simd>(xs: &[Self], mask: &[bool]) -> Self;
    }
}
pub(crate) use sealed::NumHooks;

impl Scalar for bool {
    const NAME: &'static str = "bool";
    #[inline(always)]
    fn is_nonzero(self) -> bool {
        self
    }
    #[inline(always)]
    fn from_bool(b: bool) -> Self {
        b
    }
    #[inline(always)]
    fn is_nan_value(self) -> bool {
        false
    }
    #[inline(always)]
    fn is_finite_value(self) -> bool {
        true
    }
}

/// [`Scalar`] for an integer type (every width; those with kernels add [`Num`] in
/// `int_element!`, the others are moved, tested and cast only).
macro_rules! int_scalar {
    ($($t:ty => $name:literal),*) => {$(
        impl Scalar for $t {
            const NAME: &'static str = $name;
            #[inline(always)]
            fn is_nonzero(self) -> bool { self != 0 }
            #[inline(always)]
            fn from_bool(b: bool) -> Self { b as $t }
            #[inline(always)]
            fn is_nan_value(self) -> bool { false }
            #[inline(always)]
            fn is_finite_value(self) -> bool { true }
        }
    )*};
}
macro_rules! int_element {
    ($($t:ty => $name:literal, $wide:ty);*) => {$(
        int_scalar!($t => $name);
        impl Num for $t {
            type Wide = $wide;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn widen(self) -> $wide { self as $wide }
            #[inline(always)]
            fn add_(self, b: Self) -> Self { self.wrapping_add(b) }
            #[inline(always)]
            fn sub_(self, b: Self) -> Self { self.wrapping_sub(b) }
            #[inline(always)]
            fn mul_(self, b: Self) -> Self { self.wrapping_mul(b) }
            #[inline(always)]
            fn neg_(self) -> Self { self.wrapping_neg() }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn abs_(self) -> Self { if self < 0 { self.wrapping_neg() } else { self } }
            #[inline(always)]
            fn max_step(acc: Self, x: Self) -> Self { if x > acc { x } else { acc } }
            #[inline(always)]
            fn min_step(acc: Self, x: Self) -> Self { if x < acc { x } else { acc } }
            #[inline(always)]
            fn to_f64(self) -> f64 { self as f64 }
        }
    )*};
}
int_element!(i32 => "int32", i64; i64 => "int64", i64; u8 => "uint8", u64; u64 => "uint64", u64);

int_scalar!(i8 => "int8", i16 => "int16", u16 => "uint16", u32 => "uint32");

/// Branch-free `e^x` for `f32` (Cephes `expf` polynomial, range reduction by a rounding
/// constant, two-step scaling so subnormal results are exact). Written with plain IEEE
/// operations and selects so LLVM vectorises it and every backend gives the same bits.
#[inline(always)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    const ROUND: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer
    // Clamp with comparisons that keep NaN (a NaN input fails both tests and stays NaN).
    let xc = if x < -104.0 { -104.0 } else { x };
    let xc = if xc > 89.0 { 89.0 } else { xc };
    // Adding 1.5·2^23 rounds to an integer n that sits in the low mantissa bits of `t`, so
    // n is read out with integer ops (a float→int cast would not vectorise: Rust's `as`
    // saturates).
    let t = xc * LOG2E + ROUND;
    let n = t - ROUND;
    let r = (xc - n * LN2_HI) - n * LN2_LO;
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5; // Cephes: 5.0000001201e-1, which rounds to 0.5 in f32
    let poly = p * r * r + r + 1.0;
    // n is in [-150, 129]; split 2^n = 2^n1 * 2^n2 with both halves normal.
    let ni = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    let n1 = ni >> 1;
    let n2 = ni - n1;
    let s1 = f32::from_bits(((n1 + 127) as u32) << 23);
    let s2 = f32::from_bits(((n2 + 127) as u32) << 23);
    let y = poly * s1 * s2;
    if x.is_nan() { x } else { y }
}

macro_rules! float_element {
    ($t:ty, $name:literal, $exp:expr) => {
        impl Scalar for $t {
            const NAME: &'static str = $name;
            #[inline(always)]
            fn is_nonzero(self) -> bool {
                self != 0.0
            }
            #[inline(always)]
            fn from_bool(b: bool) -> Self {
                if b { 1.0 } else { 0.0 }
            }
            #[inline(always)]
            fn is_nan_value(self) -> bool {
                self.is_nan()
            }
            #[inline(always)]
            fn is_finite_value(self) -> bool {
                self.is_finite()
            }
        }
        impl Num for $t {
            type Wide = $t;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)]
            fn widen(self) -> $t {
                self
            }
            #[inline(always)]
            fn add_(self, b: Self) -> Self {
                self + b
            }
            #[inline(always)]
            fn sub_(self, b: Self) -> Self {
                self - b
            }
            #[inline(always)]
            fn mul_(self, b: Self) -> Self {
                self * b
            }
            #[inline(always)]
            fn neg_(self) -> Self {
                -self
            }
            #[inline(always)]
            fn abs_(self) -> Self {
                self.abs()
            }
            #[inline(always)]
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            fn max_step(acc: Self, x: Self) -> Self {
                if x.is_nan() || x > acc { x } else { acc }
            }
            #[inline(always)]
            fn min_step(acc: Self, x: Self) -> Self {
                if x.is_nan() || x < acc { x } else { acc }
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
        impl Float for $t {
            const NAN: Self = <$t>::NAN;
            #[inline(always)]
            fn div_(self, b: Self) -> Self {
                self / b
            }
            #[inline(always)]
            fn exp_(self) -> Self {
                $exp(self)
            }
            #[inline(always)]
            fn ln_(self) -> Self {
                self.ln()
            }
            #[inline(always)]
            fn sqrt_(self) -> Self {
                self.sqrt()
            }
            #[inline(always)]
            fn sin_(self) -> Self {
                self.sin()
            }
            #[inline(always)]
            fn cos_(self) -> Self {
                self.cos()
            }
            #[inline(always)]
            fn tanh_(self) -> Self {
                self.tanh()
            }
            #[inline(always)]
            fn sigmoid_(self) -> Self {
                // e^-|x| never overflows, so tiny results for very negative x stay accurate.
                let e = (-self.abs()).exp_();
                let s = 1.0 / (1.0 + e);
                if self >= 0.0 { s } else { e * s }
            }
            #[inline(always)]
            fn floor_(self) -> Self {
                self.floor()
            }
            #[inline(always)]
            fn ceil_(self) -> Self {
                self.ceil()
            }
            #[inline(always)]
            fn round_(self) -> Self {
                self.round_ties_even()
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn is_nan_(self) -> bool {
                self.is_nan()
            }
        }
    };
}
float_element!(f32, "float32", exp_f32);

macro_rules! half_element {
    ($($t:ty => $name:literal),*) => {$(
        impl Scalar for $t {
            const NAME: &'static str = $name;
            #[inline(always)]
            fn is_nonzero(self) -> bool {
                // Not ±0 (NaN is non-zero, as in NumPy).
                self.to_bits() & 0x7fff != 0
            }
            #[inline(always)]
            fn from_bool(b: bool) -> Self {
                if b { <$t>::ONE } else { <$t>::ZERO }
            }
            #[inline(always)]
            fn is_nan_value(self) -> bool {
                self.is_nan()
            }
            #[inline(always)]
            fn is_finite_value(self) -> bool {
                self.is_finite()
            }
        }
    )*};
}
half_element!(half::f16 => "float16", half::bf16 => "bfloat16");
float_element!(f64, "float64", f64::exp);

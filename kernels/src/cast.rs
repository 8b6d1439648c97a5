//! Casts between any two dtypes (bool, i8 … u64, f16, bf16, f32, f64). Float → integer truncates toward zero and saturates (NaN → 0), which
//! is Rust's `as`; NumPy leaves out-of-range casts undefined. Number → bool is `x != 0`;
//! bool → number is 0/1; integer → narrower integer wraps (NumPy's `astype`).
//!
//! Half precision (`half::f16`, `half::bf16`): to a wider float exactly; `f32` → half rounds
//! to nearest, ties to even, as `half`'s `from_f32` (out of range → ±inf, NaN stays NaN,
//! subnormals kept); `f64` → half is correctly rounded too (rounded to odd in `f32` first,
//! then to nearest even, which gives the same bits as one rounding), where `half`'s own
//! `from_f64` may differ in the last bit at near-ties; an integer → half goes through `f64`
//! as NumPy's does (exact up to 2^53, so every `i32`/`u8` is rounded once); half → integer
//! truncates and saturates through `f32` like any float (NaN → 0); `f16` ↔ `bf16` goes
//! through `f32` (exact), then rounds once. The functions [`f16_from_f64`] and
//! [`bf16_from_f64`] are these roundings for one value.

use half::{bf16, f16};
use ndarray::{Array, ArrayBase, Data, Dimension};

use crate::elementwise::unary::map;
use crate::scalar::Scalar;

/// Conversion of one element to another dtype.
pub trait CastTo<U>: Scalar {
    /// Converts `self` to `U`.
    fn cast(self) -> U;
}

macro_rules! num_casts {
    ($($from:ty),*) => {$(
        num_casts!(@to $from; f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
        impl CastTo<bool> for $from {
            #[inline(always)]
            fn cast(self) -> bool { self.is_nonzero() }
        }
        impl CastTo<$from> for bool {
            #[inline(always)]
            fn cast(self) -> $from { <$from as Scalar>::from_bool(self) }
        }
    )*};
    (@to $from:ty; $($to:ty),*) => {$(
        impl CastTo<$to> for $from {
            #[inline(always)]
            fn cast(self) -> $to { self as $to }
        }
    )*};
}
num_casts!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

/// `x` rounded to an `f32` of odd last bit when inexact ("round to odd"), exactly when
/// representable. Rounding that again to nearest-even with at most 22 bits of precision (f16
/// has 11, bf16 8) gives the correctly rounded result of `x`, as one rounding would
/// (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
/// rounding to odd", 2008). Values beyond `f32`'s range become ±inf or `f32::MAX`, which round
/// to ±inf in either half format, as `x` itself does.
#[inline(always)]
fn f32_round_to_odd(x: f64) -> f32 {
    let y = x as f32; // nearest-even
    let back = y as f64;
    let bits = y.to_bits();
    // Inexact and even: step one ulp toward `x` (the neighbour on `x`'s side, which is odd).
    // `y` has `x`'s sign (also when it underflows to ±0), so the step is in magnitude. Written
    // without branches (a NaN, "inexact", only gains a mantissa bit and stays NaN), so that
    // casts of random data do not pay a mispredicted branch per element.
    let step = u32::from(back != x) & !bits & 1;
    let down = u32::from(back.abs() > x.abs());
    f32::from_bits(bits.wrapping_add(step).wrapping_sub(2 * (step & down)))
}

/// `x` as an `f16`, correctly rounded (nearest, ties to even; beyond ±65520 → ±inf).
#[inline(always)]
pub fn f16_from_f64(x: f64) -> f16 {
    f16::from_f32(f32_round_to_odd(x))
}

/// `x` as a `bf16`, correctly rounded (nearest, ties to even).
#[inline(always)]
pub fn bf16_from_f64(x: f64) -> bf16 {
    bf16::from_f32(f32_round_to_odd(x))
}

macro_rules! half_casts {
    ($($h:ty, $from_f64:path);*) => {$(
        impl CastTo<$h> for f32 {
            #[inline(always)]
            fn cast(self) -> $h { <$h>::from_f32(self) }
        }
        impl CastTo<$h> for f64 {
            #[inline(always)]
            fn cast(self) -> $h { $from_f64(self) }
        }
        impl CastTo<f32> for $h {
            #[inline(always)]
            fn cast(self) -> f32 { self.to_f32() }
        }
        impl CastTo<f64> for $h {
            #[inline(always)]
            fn cast(self) -> f64 { self.to_f64() }
        }
        impl CastTo<bool> for $h {
            #[inline(always)]
            fn cast(self) -> bool { self.is_nonzero() }
        }
        impl CastTo<$h> for bool {
            #[inline(always)]
            fn cast(self) -> $h { <$h as Scalar>::from_bool(self) }
        }
        half_casts!(@ints $h, $from_f64; i8, i16, i32, i64, u8, u16, u32, u64);
    )*};
    (@ints $h:ty, $from_f64:path; $($i:ty),*) => {$(
        impl CastTo<$h> for $i {
            #[inline(always)]
            fn cast(self) -> $h { $from_f64(self as f64) }
        }
        impl CastTo<$i> for $h {
            #[inline(always)]
            fn cast(self) -> $i { self.to_f32() as $i }
        }
    )*};
}
half_casts!(f16, f16_from_f64; bf16, bf16_from_f64);

impl CastTo<f16> for f16 {
    #[inline(always)]
    fn cast(self) -> f16 {
        self
    }
}

impl CastTo<bf16> for bf16 {
    #[inline(always)]
    fn cast(self) -> bf16 {
        self
    }
}

impl CastTo<bf16> for f16 {
    #[inline(always)]
    fn cast(self) -> bf16 {
        bf16::from_f32(self.to_f32())
    }
}

impl CastTo<f16> for bf16 {
    #[inline(always)]
    fn cast(self) -> f16 {
        f16::from_f32(self.to_f32())
    }
}

impl CastTo<bool> for bool {
    #[inline(always)]
    fn cast(self) -> bool {
        self
    }
}

/// Converts every element of `a` to `U` (vectorised elementwise map).
pub fn cast<T: CastTo<U>, U: Scalar, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
) -> Array<U, D> {
    map(a, |x: T| x.cast())
}

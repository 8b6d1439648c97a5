//! Per-dtype reduction bodies (sum, product, max, min): the implementations of `NumHooks`, the
//! sealed supertrait of [`Num`] (declared beside it in `scalar.rs`). Floats use the
//! virtual-lane engine; integers use plain folds, which LLVM vectorises on its own because
//! wrapping integer arithmetic is associative.

use super::lanes::{AddOp, MaxOp, MinOp, MulOp, lanes32, lanes64};
use crate::scalar::{Num, NumHooks};
use crate::simd::Simd;

macro_rules! float_hooks {
    ($t:ty, $acc:ty, $engine:ident, $short:ident $(, $rows16:ident)?) => {
        impl NumHooks for $t {
            type SumAcc = $acc;
            type Real = $t;
            #[inline(always)]
            fn to_real(self) -> $t {
                self
            }
            #[inline(always)]
            fn pow_(self, e: $t) -> $t {
                self.powf(e)
            }
            #[inline(always)]
            fn exponent_ok(_e: $t) -> bool {
                true
            }
            #[inline(always)]
            fn sum_identity() -> $acc {
                0.0
            }
            #[inline(always)]
            fn sum_leaf<S: Simd>(xs: &[$t]) -> $acc {
                $engine::<S, AddOp>(xs, None, 0.0) as $acc
            }
            #[inline(always)]
            fn sum_short<S: Simd>(xs: &[$t]) -> $acc {
                S::$short(xs) as $acc
            }
            $(
            #[inline(always)]
            fn sum_short16<S: Simd>(xs: &[$t], splits: &[i64; 17]) -> Option<[$acc; 16]> {
                S::$rows16(xs, splits).map(|sums| sums.map(|x| x as $acc))
            }
            )?
            #[inline(always)]
            fn sum_leaf_masked<S: Simd>(xs: &[$t], mask: &[bool]) -> $acc {
                $engine::<S, AddOp>(xs, Some(mask), 0.0) as $acc
            }
            #[inline(always)]
            fn sum_step(acc: $acc, x: $t) -> $acc {
                acc + x as $acc
            }
            #[inline(always)]
            fn sum_combine(a: $acc, b: $acc) -> $acc {
                a + b
            }
            #[inline(always)]
            fn sum_finish(acc: $acc) -> $t {
                acc as $t
            }
            #[inline(always)]
            fn mean_finish(acc: $acc, n: usize) -> $t {
                if n == 0 {
                    <$t>::NAN
                } else {
                    (acc / n as $acc) as $t
                }
            }
            #[inline(always)]
            fn prod_leaf<S: Simd>(xs: &[$t]) -> $t {
                $engine::<S, MulOp>(xs, None, 1.0)
            }
            #[inline(always)]
            fn max_leaf<S: Simd>(xs: &[$t]) -> $t {
                $engine::<S, MaxOp>(xs, None, <$t>::NEG_INFINITY)
            }
            #[inline(always)]
            fn min_leaf<S: Simd>(xs: &[$t]) -> $t {
                $engine::<S, MinOp>(xs, None, <$t>::INFINITY)
            }
            #[inline(always)]
            fn max_leaf_masked<S: Simd>(xs: &[$t], mask: &[bool]) -> $t {
                $engine::<S, MaxOp>(xs, Some(mask), <$t>::NEG_INFINITY)
            }
            #[inline(always)]
            fn min_leaf_masked<S: Simd>(xs: &[$t], mask: &[bool]) -> $t {
                $engine::<S, MinOp>(xs, Some(mask), <$t>::INFINITY)
            }
        }
    };
}
float_hooks!(f32, f64, lanes32, sum16_32, sum16_32_rows16);
float_hooks!(f64, f64, lanes64, sum16_64);

macro_rules! int_hooks {
    ($($t:ty),*) => {$(
        impl NumHooks for $t {
            type SumAcc = <$t as Num>::Wide;
            type Real = f64;
            #[inline(always)]
            fn to_real(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn pow_(self, e: $t) -> $t {
                // Wrapping square-and-multiply over all bits of the (non-negative) exponent.
                let (mut base, mut e, mut acc) = (self, e as u64, 1 as $t);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn exponent_ok(e: $t) -> bool {
                e >= 0
            }
            #[inline(always)]
            fn sum_identity() -> Self::SumAcc {
                0
            }
            #[inline(always)]
            fn sum_leaf<S: Simd>(xs: &[$t]) -> Self::SumAcc {
                xs.iter().fold(0, |a: Self::SumAcc, &x| a.wrapping_add(x.widen()))
            }
            #[inline(always)]
            fn sum_short<S: Simd>(xs: &[$t]) -> Self::SumAcc {
                Self::sum_leaf::<crate::simd::Scalar>(xs)
            }
            #[inline(always)]
            fn sum_leaf_masked<S: Simd>(xs: &[$t], mask: &[bool]) -> Self::SumAcc {
                xs.iter().zip(mask).fold(0, |a: Self::SumAcc, (&x, &m)| {
                    a.wrapping_add(if m { x.widen() } else { 0 })
                })
            }
            #[inline(always)]
            fn sum_step(acc: Self::SumAcc, x: $t) -> Self::SumAcc {
                acc.wrapping_add(x.widen())
            }
            #[inline(always)]
            fn sum_combine(a: Self::SumAcc, b: Self::SumAcc) -> Self::SumAcc {
                a.wrapping_add(b)
            }
            #[inline(always)]
            fn sum_finish(acc: Self::SumAcc) -> Self::SumAcc {
                acc
            }
            #[inline(always)]
            fn mean_finish(acc: Self::SumAcc, n: usize) -> f64 {
                if n == 0 { f64::NAN } else { acc as f64 / n as f64 }
            }
            #[inline(always)]
            fn prod_leaf<S: Simd>(xs: &[$t]) -> Self::SumAcc {
                xs.iter().fold(1, |a: Self::SumAcc, &x| a.wrapping_mul(x.widen()))
            }
            #[inline(always)]
            fn max_leaf<S: Simd>(xs: &[$t]) -> $t {
                xs.iter().fold(<$t>::MIN, |a, &x| a.max(x))
            }
            #[inline(always)]
            fn min_leaf<S: Simd>(xs: &[$t]) -> $t {
                xs.iter().fold(<$t>::MAX, |a, &x| a.min(x))
            }
            #[inline(always)]
            fn max_leaf_masked<S: Simd>(xs: &[$t], mask: &[bool]) -> $t {
                xs.iter().zip(mask).fold(<$t>::MIN, |a, (&x, &m)| a.max(if m { x } else { <$t>::MIN }))
            }
            #[inline(always)]
            fn min_leaf_masked<S: Simd>(xs: &[$t], mask: &[bool]) -> $t {
                xs.iter().zip(mask).fold(<$t>::MAX, |a, (&x, &m)| a.min(if m { x } else { <$t>::MAX }))
            }
        }
    )*};
}
int_hooks!(i32, i64, u8, u64);

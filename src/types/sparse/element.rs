//! The numeric element types of sparse arithmetic ([`Arith`]: wrapping integer arithmetic, half
//! floats in `f32` rounded after each step, a magnitude for the add's threshold) and
//! `with_arith!`, which runs a body with the element type of a dtype known at run time. The
//! lowest file of the sparse module: the merge, the arithmetic, the reductions and the product
//! all build on it.

use crate::Element;
use extype_kernels::sparse_merge::Summand;

/// The numeric element types of sparse arithmetic: wrapping integer arithmetic, a magnitude
/// for the threshold.
/// The sum and the threshold's magnitude are the kernels' ([`Summand`]: the merge of
/// `sparse + sparse` runs there).
pub(crate) trait Arith: Element + Summand + PartialEq + Default + Send + Sync {
    /// `a * b` (wrapping for integers).
    fn times(self, other: Self) -> Self;
    /// `a / b`, for floats (IEEE: `x / 0` is ±inf or NaN). Sparse division refuses integer
    /// dtypes before it runs, as the dense `div` does; for them this is the wrapping quotient,
    /// 0 for a zero divisor, never a panic.
    fn over(self, other: Self) -> Self;
}

macro_rules! arith_int {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn times(self, o: $t) -> $t { self.wrapping_mul(o) }
            #[inline]
            fn over(self, o: $t) -> $t { if o == 0 { 0 } else { self.wrapping_div(o) } }
        }
    )*};
}
arith_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! arith_float {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn times(self, o: $t) -> $t { self * o }
            #[inline]
            fn over(self, o: $t) -> $t { self / o }
        }
    )*};
}
arith_float!(f32, f64);

// Half floats: each operation in f32, rounded back once (as the dense ops on them).
macro_rules! arith_half {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn times(self, o: $t) -> $t { <$t>::from_f32(self.to_f32() * o.to_f32()) }
            #[inline]
            fn over(self, o: $t) -> $t { <$t>::from_f32(self.to_f32() / o.to_f32()) }
        }
    )*};
}
arith_half!(crate::half::f16, crate::half::bf16);

/// Runs `$body` with `$T` the numeric element type of `$dtype`, or returns the error of `$op`
/// refusing the dtype.
macro_rules! with_arith {
    ($op:expr, $dtype:expr, $T:ident => $body:expr) => {{
        #[allow(unreachable_patterns)]
        match $dtype {
            $crate::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::DType::U16 => {
                type $T = u16;
                $body
            }
            $crate::DType::U32 => {
                type $T = u32;
                $body
            }
            $crate::DType::U64 => {
                type $T = u64;
                $body
            }
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::DType::F16 => {
                type $T = $crate::half::f16;
                $body
            }
            $crate::DType::BF16 => {
                type $T = $crate::half::bf16;
                $body
            }
            other => Err($crate::Error::unsupported(
                $op,
                format!("a numeric dtype, found dtype {other}"),
            )),
        }
    }};
}

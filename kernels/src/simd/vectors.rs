//! Virtual vectors: 64 `f32` lanes ([`crate::simd::F32_LANES`]) or 32 `f64` lanes
//! ([`crate::simd::F64_LANES`]), held in as many native registers as the backend needs.
//! Each backend implements the handful of operations the reduction engine needs with its own
//! intrinsics; the lane semantics are identical everywhere, so results are bit-identical.
//!
//! Lane operations (per lane, `acc` is the running value and `x` the new element):
//! * `add`/`mul`: IEEE `acc + x`, `acc * x`;
//! * `max_step`: `x` if `x` is NaN or `x > acc`, else `acc` (so a NaN sticks);
//! * `min_step`: `x` if `x` is NaN or `x < acc`, else `acc`;
//! * masked load: lanes whose mask byte is `false` read `fill` instead of memory.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::backends::Scalar;
#[cfg(target_arch = "x86_64")]
use super::backends::{Avx2, Avx512, Sse2};

/// Virtual accumulator lanes for `f32` reductions: 64 lanes = four 512-bit registers. Fixed for
/// every instruction set so that the association order, hence the result, never depends on the CPU.
pub const F32_LANES: usize = 64;
/// Virtual accumulator lanes for `f64` and 64-bit integer reductions (four 512-bit registers).
pub const F64_LANES: usize = 32;

/// The reference (scalar) pairwise folds, as default methods of [`VirtualVectors`].
macro_rules! fold_defaults {
    ($($name:ident: $v:ident, $t:ty, $to_array:ident, $step:ident;)*) => {$(
        #[doc = concat!("Pairwise fold of the lanes with `", stringify!($step), "`.")]
        #[inline(always)]
        fn $name(v: Self::$v) -> $t {
            pairwise(Self::$to_array(v), $step::<$t>)
        }
    )*};
}

/// Operations on virtual vectors. All pointer-taking methods require `count` readable
/// elements (64 `f32`/`bool` or 32 `f64`/`bool`) at the pointers.
///
/// The x86 implementations' safe methods execute their backend's instructions without
/// checking the CPU; they may run only inside that backend's target-feature wrapper, which
/// `dispatch` enters after checking support. That is why neither this trait nor the backends
/// can be named outside the crate (see `backends.rs`).
pub trait VirtualVectors: Copy {
    /// 64 `f32` lanes.
    type V32: Copy;
    /// 32 `f64` lanes.
    type V64: Copy;
    /// All lanes `x`.
    fn splat32(x: f32) -> Self::V32;
    /// Loads 64 lanes.
    ///
    /// # Safety
    /// `p` must be valid for reading 64 `f32`.
    unsafe fn load32(p: *const f32) -> Self::V32;
    /// Loads 64 lanes, `fill` where the mask is false.
    ///
    /// # Safety
    /// `p` must be valid for reading 64 `f32` and `m` for reading 64 `bool`.
    unsafe fn load32_masked(p: *const f32, m: *const bool, fill: f32) -> Self::V32;
    /// Lanewise `a + b`.
    fn add32(a: Self::V32, b: Self::V32) -> Self::V32;
    /// Lanewise `a * b`.
    fn mul32(a: Self::V32, b: Self::V32) -> Self::V32;
    /// Lanewise `max_step(acc, x)`.
    fn max32(acc: Self::V32, x: Self::V32) -> Self::V32;
    /// Lanewise `min_step(acc, x)`.
    fn min32(acc: Self::V32, x: Self::V32) -> Self::V32;
    /// The lanes in order.
    fn to_array32(v: Self::V32) -> [f32; 64];
    /// All lanes `x`.
    fn splat64(x: f64) -> Self::V64;
    /// Loads 32 lanes.
    ///
    /// # Safety
    /// `p` must be valid for reading 32 `f64`.
    unsafe fn load64(p: *const f64) -> Self::V64;
    /// Loads 32 lanes, `fill` where the mask is false.
    ///
    /// # Safety
    /// `p` must be valid for reading 32 `f64` and `m` for reading 32 `bool`.
    unsafe fn load64_masked(p: *const f64, m: *const bool, fill: f64) -> Self::V64;
    /// Lanewise `a + b`.
    fn add64(a: Self::V64, b: Self::V64) -> Self::V64;
    /// Lanewise `a * b`.
    fn mul64(a: Self::V64, b: Self::V64) -> Self::V64;
    /// Lanewise `max_step(acc, x)`.
    fn max64(acc: Self::V64, x: Self::V64) -> Self::V64;
    /// Lanewise `min_step(acc, x)`.
    fn min64(acc: Self::V64, x: Self::V64) -> Self::V64;
    /// The lanes in order.
    fn to_array64(v: Self::V64) -> [f64; 32];
    /// Whether some lane of `x` may be NaN. Backends without a cheap test answer `true`, so
    /// the exact `max32`/`min32` run.
    #[inline(always)]
    fn any_nan32(_x: Self::V32) -> bool {
        true
    }
    /// As [`any_nan32`](Self::any_nan32) for 32 `f64` lanes.
    #[inline(always)]
    fn any_nan64(_x: Self::V64) -> bool {
        true
    }
    /// `max32` for an `x` with no NaN lane (`acc` may have NaN lanes, which stick).
    #[inline(always)]
    fn max32_ordered(acc: Self::V32, x: Self::V32) -> Self::V32 {
        Self::max32(acc, x)
    }
    /// `min32` for an `x` with no NaN lane.
    #[inline(always)]
    fn min32_ordered(acc: Self::V32, x: Self::V32) -> Self::V32 {
        Self::min32(acc, x)
    }
    /// `max64` for an `x` with no NaN lane.
    #[inline(always)]
    fn max64_ordered(acc: Self::V64, x: Self::V64) -> Self::V64 {
        Self::max64(acc, x)
    }
    /// `min64` for an `x` with no NaN lane.
    #[inline(always)]
    fn min64_ordered(acc: Self::V64, x: Self::V64) -> Self::V64 {
        Self::min64(acc, x)
    }
    /// The alignment, in `f32` elements, at which this backend's row loads are fastest: rows
    /// are loaded from that alignment (see [`load32_range`](Self::load32_range)) and the
    /// accumulator is rotated back (see [`rotate32`](Self::rotate32)). 1: no preference.
    const ALIGN32: usize = 1;
    /// As [`ALIGN32`](Self::ALIGN32), in `f64` elements.
    const ALIGN64: usize = 1;
    /// Loads 64 lanes; lanes outside `lo..hi` read `fill`, and only lanes `lo..hi` are read
    /// from memory.
    ///
    /// # Safety
    /// `lo <= hi <= 64`, and `p.wrapping_add(j)` must be valid for reading for `j` in `lo..hi`.
    #[inline(always)]
    unsafe fn load32_range(p: *const f32, lo: usize, hi: usize, fill: f32) -> Self::V32 {
        let mut lanes = [fill; 64];
        // SAFETY: the caller guarantees `lo..hi` readable at `p` and `hi <= 64`.
        unsafe {
            std::ptr::copy_nonoverlapping(p.wrapping_add(lo), lanes.as_mut_ptr().add(lo), hi - lo);
            Self::load32(lanes.as_ptr())
        }
    }
    /// As [`load32_range`](Self::load32_range) for 32 `f64` lanes.
    ///
    /// # Safety
    /// `lo <= hi <= 32`, and `p.wrapping_add(j)` must be valid for reading for `j` in `lo..hi`.
    #[inline(always)]
    unsafe fn load64_range(p: *const f64, lo: usize, hi: usize, fill: f64) -> Self::V64 {
        let mut lanes = [fill; 32];
        // SAFETY: as in `load32_range`.
        unsafe {
            std::ptr::copy_nonoverlapping(p.wrapping_add(lo), lanes.as_mut_ptr().add(lo), hi - lo);
            Self::load64(lanes.as_ptr())
        }
    }
    /// Lane `j` of the result is lane `(j + k) % 64` of `v`; `k < ALIGN32`.
    #[inline(always)]
    fn rotate32(v: Self::V32, k: usize) -> Self::V32 {
        if k == 0 {
            return v;
        }
        let mut lanes = Self::to_array32(v);
        lanes.rotate_left(k % 64);
        // SAFETY: `lanes` holds 64 elements.
        unsafe { Self::load32(lanes.as_ptr()) }
    }
    /// Lane `j` of the result is lane `(j + k) % 32` of `v`; `k < ALIGN64`.
    #[inline(always)]
    fn rotate64(v: Self::V64, k: usize) -> Self::V64 {
        if k == 0 {
            return v;
        }
        let mut lanes = Self::to_array64(v);
        lanes.rotate_left(k % 32);
        // SAFETY: `lanes` holds 32 elements.
        unsafe { Self::load64(lanes.as_ptr()) }
    }
    /// The short-run sum ([`crate::reduce::SHORT`]): 16 lanes, element `i` added to lane
    /// `i % 16` in increasing `i` (each lane starting at `+0.0`), then the pairwise fold (lane
    /// `j` plus lane `j + 8`, `j + 4`, …). This default is the reference; backends override it
    /// with registers, in the same order.
    #[inline(always)]
    fn sum16_32(xs: &[f32]) -> f32 {
        let mut lanes = [0.0f32; 16];
        for (i, &x) in xs.iter().enumerate() {
            lanes[i % 16] += x;
        }
        pairwise(lanes, add_step::<f32>)
    }
    /// [`sum16_32`](Self::sum16_32) of 16 consecutive short rows at once, row `k` being
    /// `xs[splits[k]..splits[k + 1]]`: each sum has exactly the bits `sum16_32` gives for its
    /// row. `None` (the caller then reduces row by row) unless every row is a range of `xs` of
    /// at most 32 elements; this default, for backends without a grouped form, is always `None`.
    #[inline(always)]
    fn sum16_32_rows16(xs: &[f32], splits: &[i64; 17]) -> Option<[f32; 16]> {
        let _ = (xs, splits);
        None
    }
    /// As [`sum16_32`](Self::sum16_32) for `f64`.
    #[inline(always)]
    fn sum16_64(xs: &[f64]) -> f64 {
        let mut lanes = [0.0f64; 16];
        for (i, &x) in xs.iter().enumerate() {
            lanes[i % 16] += x;
        }
        pairwise(lanes, add_step::<f64>)
    }
    // Pairwise folds of the 64 `f32` (32 `f64`) lanes with each lane operation: lane `j` with
    // lane `j + L/2`, then `j + L/4`, …, down to lane 0 (the fixed order of every backend;
    // backends override these defaults with register shuffles in that order).
    fold_defaults! {
        reduce_add32: V32, f32, to_array32, add_step;
        reduce_mul32: V32, f32, to_array32, mul_step;
        reduce_max32: V32, f32, to_array32, max_step;
        reduce_min32: V32, f32, to_array32, min_step;
        reduce_add64: V64, f64, to_array64, add_step;
        reduce_mul64: V64, f64, to_array64, mul_step;
        reduce_max64: V64, f64, to_array64, max_step;
        reduce_min64: V64, f64, to_array64, min_step;
    }
}

/// The reference fold: lane `j` with lane `j + width` for `width = N/2, N/4, …, 1`.
#[inline(always)]
fn pairwise<T: Copy, const N: usize>(mut lanes: [T; N], step: fn(T, T) -> T) -> T {
    let mut width = N;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            lanes[j] = step(lanes[j], lanes[j + width]);
        }
    }
    lanes[0]
}

/// The scalar lane operations (the reference semantics of the vector ones).
#[inline(always)]
pub(crate) fn add_step<T: std::ops::Add<Output = T>>(acc: T, x: T) -> T {
    acc + x
}
#[inline(always)]
pub(crate) fn mul_step<T: std::ops::Mul<Output = T>>(acc: T, x: T) -> T {
    acc * x
}
/// `x` if `x` is NaN or `x > acc`, else `acc`.
#[inline(always)]
#[allow(clippy::eq_op)]
pub(crate) fn max_step<T: PartialOrd + Copy>(acc: T, x: T) -> T {
    // `x != x` is the generic NaN test.
    if x != x || x > acc { x } else { acc }
}
/// `x` if `x` is NaN or `x < acc`, else `acc`.
#[inline(always)]
#[allow(clippy::eq_op)]
pub(crate) fn min_step<T: PartialOrd + Copy>(acc: T, x: T) -> T {
    if x != x || x < acc { x } else { acc }
}

macro_rules! scalar_lanes {
    ($splat:ident, $load:ident, $load_masked:ident, $add:ident, $mul:ident, $max:ident, $min:ident,
     $to_array:ident, $t:ty, $n:literal, $v:ident) => {
        #[inline(always)]
        fn $splat(x: $t) -> Self::$v {
            [x; $n]
        }
        #[inline(always)]
        unsafe fn $load(p: *const $t) -> Self::$v {
            // SAFETY: the caller guarantees `$n` readable elements at `p`.
            unsafe { std::ptr::read_unaligned(p as *const [$t; $n]) }
        }
        #[inline(always)]
        unsafe fn $load_masked(p: *const $t, m: *const bool, fill: $t) -> Self::$v {
            // SAFETY: the caller guarantees `$n` readable elements at `p` and at `m`.
            let (x, m) = unsafe {
                (
                    std::ptr::read_unaligned(p as *const [$t; $n]),
                    std::ptr::read_unaligned(m as *const [bool; $n]),
                )
            };
            std::array::from_fn(|j| if m[j] { x[j] } else { fill })
        }
        #[inline(always)]
        fn $add(a: Self::$v, b: Self::$v) -> Self::$v {
            std::array::from_fn(|j| a[j] + b[j])
        }
        #[inline(always)]
        fn $mul(a: Self::$v, b: Self::$v) -> Self::$v {
            std::array::from_fn(|j| a[j] * b[j])
        }
        #[inline(always)]
        fn $max(acc: Self::$v, x: Self::$v) -> Self::$v {
            std::array::from_fn(|j| max_step(acc[j], x[j]))
        }
        #[inline(always)]
        fn $min(acc: Self::$v, x: Self::$v) -> Self::$v {
            std::array::from_fn(|j| min_step(acc[j], x[j]))
        }
        #[inline(always)]
        fn $to_array(v: Self::$v) -> [$t; $n] {
            v
        }
    };
}

impl VirtualVectors for Scalar {
    type V32 = [f32; 64];
    type V64 = [f64; 32];
    scalar_lanes!(
        splat32,
        load32,
        load32_masked,
        add32,
        mul32,
        max32,
        min32,
        to_array32,
        f32,
        64,
        V32
    );
    scalar_lanes!(
        splat64,
        load64,
        load64_masked,
        add64,
        mul64,
        max64,
        min64,
        to_array64,
        f64,
        32,
        V64
    );
}

/// `[e(0), e(1), …, e(n - 1)]` written out, so each element is an inline expression. Array
/// construction through `std::array::from_fn` would go through a closure, which LLVM does not
/// reliably inline into the target-feature wrapper; the intrinsics would then become calls.
#[cfg(target_arch = "x86_64")]
macro_rules! regs {
    (4, |$k:ident| $e:expr) => { [{ let $k: usize = 0; $e }, { let $k: usize = 1; $e }, { let $k: usize = 2; $e }, { let $k: usize = 3; $e }] };
    (8, |$k:ident| $e:expr) => { [{ let $k: usize = 0; $e }, { let $k: usize = 1; $e }, { let $k: usize = 2; $e }, { let $k: usize = 3; $e }, { let $k: usize = 4; $e }, { let $k: usize = 5; $e }, { let $k: usize = 6; $e }, { let $k: usize = 7; $e }] };
    (16, |$k:ident| $e:expr) => { [{ let $k: usize = 0; $e }, { let $k: usize = 1; $e }, { let $k: usize = 2; $e }, { let $k: usize = 3; $e }, { let $k: usize = 4; $e }, { let $k: usize = 5; $e }, { let $k: usize = 6; $e }, { let $k: usize = 7; $e }, { let $k: usize = 8; $e }, { let $k: usize = 9; $e }, { let $k: usize = 10; $e }, { let $k: usize = 11; $e }, { let $k: usize = 12; $e }, { let $k: usize = 13; $e }, { let $k: usize = 14; $e }, { let $k: usize = 15; $e }] };
}

/// Implements one element type's half of [`VirtualVectors`] for an x86 backend whose vector
/// type is `$reg` holding `$w` lanes, `$r` registers per virtual vector.
#[cfg(target_arch = "x86_64")]
macro_rules! x86_lanes {
    (
        $t:ty, $n:literal, $v:ident, $reg:ty, $r:tt, $w:literal,
        splat: $splat:ident = $set1:ident,
        load: $load:ident = $loadu:ident,
        masked: $load_masked:ident = |$mp:ident, $mm:ident, $mfill:ident| $masked_body:expr,
        add: $add:ident = $addi:ident,
        mul: $mul:ident = $muli:ident,
        max: $max:ident = |$xa:ident, $xx:ident| $max_body:expr,
        min: $min:ident = |$na:ident, $nx:ident| $min_body:expr,
        to_array: $to_array:ident = $storeu:ident
    ) => {
        #[inline(always)]
        fn $splat(x: $t) -> Self::$v {
            // SAFETY: this backend is only instantiated inside its target-feature wrapper,
            // which `dispatch` enters only after checking CPU support.
            [unsafe { $set1(x) }; $r]
        }
        #[inline(always)]
        unsafe fn $load(p: *const $t) -> Self::$v {
            // SAFETY: the caller guarantees `$n` readable elements; CPU support as above.
            regs!($r, |k| unsafe { $loadu(p.add(k * $w)) })
        }
        #[inline(always)]
        unsafe fn $load_masked($mp: *const $t, $mm: *const bool, $mfill: $t) -> Self::$v {
            // SAFETY: the caller guarantees `$n` readable elements and mask bytes.
            unsafe { $masked_body }
        }
        #[inline(always)]
        fn $add(a: Self::$v, b: Self::$v) -> Self::$v {
            // SAFETY: CPU support as above.
            regs!($r, |k| unsafe { $addi(a[k], b[k]) })
        }
        #[inline(always)]
        fn $mul(a: Self::$v, b: Self::$v) -> Self::$v {
            // SAFETY: CPU support as above.
            regs!($r, |k| unsafe { $muli(a[k], b[k]) })
        }
        #[inline(always)]
        fn $max(acc: Self::$v, x: Self::$v) -> Self::$v {
            // SAFETY: CPU support as above.
            regs!($r, |k| unsafe {
                let ($xa, $xx) = (acc[k], x[k]);
                $max_body
            })
        }
        #[inline(always)]
        fn $min(acc: Self::$v, x: Self::$v) -> Self::$v {
            // SAFETY: CPU support as above.
            regs!($r, |k| unsafe {
                let ($na, $nx) = (acc[k], x[k]);
                $min_body
            })
        }
        #[inline(always)]
        fn $to_array(v: Self::$v) -> [$t; $n] {
            let mut out = [0.0; $n];
            for k in 0..$r {
                // SAFETY: `out` has room for `$w` lanes at `k * $w`; CPU support as above.
                unsafe { $storeu(out.as_mut_ptr().add(k * $w), v[k]) };
            }
            out
        }
    };
}

/// Bit `j` set for `j` in `lo..hi` (`lo <= hi <= 64`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lane_bits(lo: usize, hi: usize) -> u64 {
    let below = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    below(hi) & !below(lo)
}

/// One register of the `max_step`/`min_step` lane operations, per width. Only called from
/// backend code inlined into a target-feature wrapper that enables the instructions used
/// (AVX-512 F for the 512-bit forms, AVX for `blendv`; both wrappers enable AVX).
#[cfg(target_arch = "x86_64")]
macro_rules! x86_steps {
    ($($name:ident: $reg:ty = |$a:ident, $x:ident| $body:expr;)*) => {$(
        #[inline(always)]
        unsafe fn $name($a: $reg, $x: $reg) -> $reg {
            // SAFETY: the enclosing wrapper enables the instructions (see above).
            unsafe { $body }
        }
    )*};
}
#[cfg(target_arch = "x86_64")]
x86_steps! {
    max512_ps: __m512 = |a, x| _mm512_mask_max_ps(x, _mm512_cmp_ps_mask::<_CMP_ORD_Q>(x, x), x, a);
    min512_ps: __m512 = |a, x| _mm512_mask_min_ps(x, _mm512_cmp_ps_mask::<_CMP_ORD_Q>(x, x), x, a);
    max512_pd: __m512d = |a, x| _mm512_mask_max_pd(x, _mm512_cmp_pd_mask::<_CMP_ORD_Q>(x, x), x, a);
    min512_pd: __m512d = |a, x| _mm512_mask_min_pd(x, _mm512_cmp_pd_mask::<_CMP_ORD_Q>(x, x), x, a);
    max256_ps: __m256 = |a, x| _mm256_blendv_ps(_mm256_max_ps(x, a), x, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x));
    min256_ps: __m256 = |a, x| _mm256_blendv_ps(_mm256_min_ps(x, a), x, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x));
    max256_pd: __m256d = |a, x| _mm256_blendv_pd(_mm256_max_pd(x, a), x, _mm256_cmp_pd::<_CMP_UNORD_Q>(x, x));
    min256_pd: __m256d = |a, x| _mm256_blendv_pd(_mm256_min_pd(x, a), x, _mm256_cmp_pd::<_CMP_UNORD_Q>(x, x));
    max128_ps: __m128 = |a, x| _mm_blendv_ps(_mm_max_ps(x, a), x, _mm_cmpunord_ps(x, x));
    min128_ps: __m128 = |a, x| _mm_blendv_ps(_mm_min_ps(x, a), x, _mm_cmpunord_ps(x, x));
    max128_pd: __m128d = |a, x| _mm_blendv_pd(_mm_max_pd(x, a), x, _mm_cmpunord_pd(x, x));
    min128_pd: __m128d = |a, x| _mm_blendv_pd(_mm_min_pd(x, a), x, _mm_cmpunord_pd(x, x));
}

/// The pairwise fold of [`VirtualVectors::reduce_add32`] (lane `j` with `j + width`, width
/// halving) in registers: whole registers first, then halves of one register.
#[cfg(target_arch = "x86_64")]
macro_rules! fold128_ps {
    ($v:expr, $s128:path) => {{
        let v = $v;
        let v = $s128(v, _mm_movehl_ps(v, v)); // width 2: lanes 2, 3 onto 0, 1
        let v = $s128(v, _mm_shuffle_ps::<1>(v, v)); // width 1
        _mm_cvtss_f32(v)
    }};
}
#[cfg(target_arch = "x86_64")]
macro_rules! fold128_pd {
    ($v:expr, $s128:path) => {{
        let v = $v;
        let v = $s128(v, _mm_unpackhi_pd(v, v)); // width 1
        _mm_cvtsd_f64(v)
    }};
}
/// The whole-register levels of the fold: register `k` with register `k + r/2`, halving, down
/// to one register (`r` = 4 or 8).
#[cfg(target_arch = "x86_64")]
macro_rules! fold_regs {
    (4, $v:expr, $s:path) => {{
        let v = $v;
        let v = [$s(v[0], v[2]), $s(v[1], v[3])];
        $s(v[0], v[1])
    }};
    (8, $v:expr, $s:path) => {{
        let v = $v;
        fold_regs!(
            4,
            [
                $s(v[0], v[4]),
                $s(v[1], v[5]),
                $s(v[2], v[6]),
                $s(v[3], v[7])
            ],
            $s
        )
    }};
}
#[cfg(target_arch = "x86_64")]
macro_rules! avx512_fold32 {
    ($v:expr, $s512:path, $s256:path, $s128:path) => {{
        let v = fold_regs!(4, $v, $s512); // widths 32, 16
        let v = $s256(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps::<1>(v)); // 8
        let v = $s128(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)); // 4
        fold128_ps!(v, $s128)
    }};
}
#[cfg(target_arch = "x86_64")]
macro_rules! avx512_fold64 {
    ($v:expr, $s512:path, $s256:path, $s128:path) => {{
        let v = fold_regs!(4, $v, $s512); // widths 16, 8
        let v = $s256(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd::<1>(v)); // 4
        let v = $s128(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v)); // 2
        fold128_pd!(v, $s128)
    }};
}
#[cfg(target_arch = "x86_64")]
macro_rules! avx2_fold32 {
    ($v:expr, $s256:path, $s128:path) => {{
        let v = fold_regs!(8, $v, $s256); // widths 32, 16, 8
        let v = $s128(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)); // 4
        fold128_ps!(v, $s128)
    }};
}
#[cfg(target_arch = "x86_64")]
macro_rules! avx2_fold64 {
    ($v:expr, $s256:path, $s128:path) => {{
        let v = fold_regs!(8, $v, $s256); // widths 16, 8, 4
        let v = $s128(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v)); // 2
        fold128_pd!(v, $s128)
    }};
}

/// The NaN test and the NaN-free max/min steps of an x86 backend with `$r` registers per
/// virtual vector. `max(x, acc)` (x86 semantics: `x > acc ? x : acc`, the second operand when
/// either is NaN) is exactly `max_step(acc, x)` when `x` has no NaN; a NaN in `acc` sticks.
/// The test compares registers in pairs (unordered if either is NaN): half a compare per
/// register, against a compare and a blend per register for the exact step.
#[cfg(target_arch = "x86_64")]
macro_rules! ordered_steps {
    ($r:tt, $unord32:expr, $unord64:expr, $max_ps:ident, $min_ps:ident, $max_pd:ident, $min_pd:ident) => {
        #[inline(always)]
        fn any_nan32(x: Self::V32) -> bool {
            // SAFETY: the enclosing wrapper enables the instructions (see `x86_steps!`).
            unsafe { $unord32(x) }
        }
        #[inline(always)]
        fn any_nan64(x: Self::V64) -> bool {
            // SAFETY: as above.
            unsafe { $unord64(x) }
        }
        #[inline(always)]
        fn max32_ordered(acc: Self::V32, x: Self::V32) -> Self::V32 {
            // SAFETY: as above.
            regs!($r, |k| unsafe { $max_ps(x[k], acc[k]) })
        }
        #[inline(always)]
        fn min32_ordered(acc: Self::V32, x: Self::V32) -> Self::V32 {
            // SAFETY: as above.
            regs!($r, |k| unsafe { $min_ps(x[k], acc[k]) })
        }
        #[inline(always)]
        fn max64_ordered(acc: Self::V64, x: Self::V64) -> Self::V64 {
            // SAFETY: as above.
            regs!($r, |k| unsafe { $max_pd(x[k], acc[k]) })
        }
        #[inline(always)]
        fn min64_ordered(acc: Self::V64, x: Self::V64) -> Self::V64 {
            // SAFETY: as above.
            regs!($r, |k| unsafe { $min_pd(x[k], acc[k]) })
        }
    };
}

/// `unord512_ps`/`_pd`: whether any lane of four 512-bit registers is NaN; `unord256_ps`/`_pd`:
/// of eight 256-bit registers. Registers are compared in pairs (unordered if either is NaN).
/// Only called inside a wrapper that enables the instructions (AVX-512 F, resp. AVX).
#[cfg(target_arch = "x86_64")]
macro_rules! unord_fns {
    ($($n512:ident: $r512:ty, $cmp512:ident; $n256:ident: $r256:ty, $cmp256:ident, $or:ident, $movemask:ident;)*) => {$(
        #[inline(always)]
        unsafe fn $n512(x: [$r512; 4]) -> bool {
            // SAFETY: AVX-512 F is enabled by the caller's wrapper.
            unsafe {
                ($cmp512::<_CMP_UNORD_Q>(x[0], x[1]) | $cmp512::<_CMP_UNORD_Q>(x[2], x[3])) != 0
            }
        }
        #[inline(always)]
        unsafe fn $n256(x: [$r256; 8]) -> bool {
            // SAFETY: AVX is enabled by the caller's wrapper.
            unsafe {
                // No closure for the compare: it might not be inlined into the wrapper.
                let u01 = $cmp256::<_CMP_UNORD_Q>(x[0], x[1]);
                let u23 = $cmp256::<_CMP_UNORD_Q>(x[2], x[3]);
                let u45 = $cmp256::<_CMP_UNORD_Q>(x[4], x[5]);
                let u67 = $cmp256::<_CMP_UNORD_Q>(x[6], x[7]);
                $movemask($or($or(u01, u23), $or(u45, u67))) != 0
            }
        }
    )*};
}
#[cfg(target_arch = "x86_64")]
unord_fns! {
    unord512_ps: __m512, _mm512_cmp_ps_mask; unord256_ps: __m256, _mm256_cmp_ps, _mm256_or_ps, _mm256_movemask_ps;
    unord512_pd: __m512d, _mm512_cmp_pd_mask; unord256_pd: __m256d, _mm256_cmp_pd, _mm256_or_pd, _mm256_movemask_pd;
}

/// The `reduce_*` overrides of an x86 backend: each folds with `$fold32`/`$fold64` and the
/// given per-width register steps.
#[cfg(target_arch = "x86_64")]
macro_rules! reduce_fns {
    ($fold32:ident, $fold64:ident; $($n32:ident, $n64:ident = [$($s32:path),*], [$($s64:path),*];)*) => {$(
        #[inline(always)]
        fn $n32(v: Self::V32) -> f32 {
            // SAFETY: the backend is only instantiated inside its target-feature wrapper,
            // which enables every instruction the fold uses; same order as the default.
            unsafe { $fold32!(v, $($s32),*) }
        }
        #[inline(always)]
        fn $n64(v: Self::V64) -> f64 {
            // SAFETY: as above.
            unsafe { $fold64!(v, $($s64),*) }
        }
    )*};
}

#[cfg(target_arch = "x86_64")]
impl VirtualVectors for Avx512 {
    type V32 = [__m512; 4];
    type V64 = [__m512d; 4];
    x86_lanes!(
        f32, 64, V32, __m512, 4, 16,
        splat: splat32 = _mm512_set1_ps,
        load: load32 = _mm512_loadu_ps,
        masked: load32_masked = |p, m, fill| {
            let bits = _mm512_test_epi8_mask(_mm512_loadu_si512(m as *const _), _mm512_set1_epi8(1));
            regs!(4, |k| {
                _mm512_mask_mov_ps(_mm512_set1_ps(fill), (bits >> (16 * k)) as u16, _mm512_loadu_ps(p.add(16 * k)))
            })
        },
        add: add32 = _mm512_add_ps,
        mul: mul32 = _mm512_mul_ps,
        max: max32 = |a, x| max512_ps(a, x),
        min: min32 = |a, x| min512_ps(a, x),
        to_array: to_array32 = _mm512_storeu_ps
    );
    x86_lanes!(
        f64, 32, V64, __m512d, 4, 8,
        splat: splat64 = _mm512_set1_pd,
        load: load64 = _mm512_loadu_pd,
        masked: load64_masked = |p, m, fill| {
            let bits = _mm256_test_epi8_mask(_mm256_loadu_si256(m as *const _), _mm256_set1_epi8(1));
            regs!(4, |k| {
                _mm512_mask_mov_pd(_mm512_set1_pd(fill), (bits >> (8 * k)) as u8, _mm512_loadu_pd(p.add(8 * k)))
            })
        },
        add: add64 = _mm512_add_pd,
        mul: mul64 = _mm512_mul_pd,
        max: max64 = |a, x| max512_pd(a, x),
        min: min64 = |a, x| min512_pd(a, x),
        to_array: to_array64 = _mm512_storeu_pd
    );

    const ALIGN32: usize = 16;
    const ALIGN64: usize = 8;

    #[inline(always)]
    unsafe fn load32_range(p: *const f32, lo: usize, hi: usize, fill: f32) -> Self::V32 {
        let bits = lane_bits(lo, hi);
        // SAFETY: AVX-512 F is enabled in this backend's wrapper. A masked load reads only the
        // lanes whose mask bit is set (faults are suppressed for the others): lanes `lo..hi`,
        // which the caller guarantees readable.
        regs!(4, |k| unsafe {
            _mm512_mask_loadu_ps(
                _mm512_set1_ps(fill),
                (bits >> (16 * k)) as u16,
                p.wrapping_add(16 * k),
            )
        })
    }

    #[inline(always)]
    unsafe fn load64_range(p: *const f64, lo: usize, hi: usize, fill: f64) -> Self::V64 {
        let bits = lane_bits(lo, hi);
        // SAFETY: as in `load32_range`.
        regs!(4, |k| unsafe {
            _mm512_mask_loadu_pd(
                _mm512_set1_pd(fill),
                (bits >> (8 * k)) as u8,
                p.wrapping_add(8 * k),
            )
        })
    }

    #[inline(always)]
    fn rotate32(v: Self::V32, k: usize) -> Self::V32 {
        // SAFETY: AVX-512 F as above. Lane t of register q takes lane t + k of the pair
        // (register q, register q + 1 mod 4), i.e. virtual lane (16q + t + k) mod 64 (k < 16).
        unsafe {
            let idx = _mm512_add_epi32(
                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                _mm512_set1_epi32(k as i32),
            );
            regs!(4, |q| _mm512_permutex2var_ps(v[q], idx, v[(q + 1) % 4]))
        }
    }

    #[inline(always)]
    fn rotate64(v: Self::V64, k: usize) -> Self::V64 {
        // SAFETY: as in `rotate32`, with 8 lanes per register (k < 8).
        unsafe {
            let idx = _mm512_add_epi64(
                _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                _mm512_set1_epi64(k as i64),
            );
            regs!(4, |q| _mm512_permutex2var_pd(v[q], idx, v[(q + 1) % 4]))
        }
    }

    #[inline(always)]
    fn sum16_32(xs: &[f32]) -> f32 {
        let (rows, n) = (xs.len() / 16, xs.len());
        let p = xs.as_ptr();
        // SAFETY: AVX-512 F/DQ are enabled in this backend's wrapper; row `r` reads
        // `xs[16r..16r + 16]` (in bounds for `r < rows`), and the masked load reads only the
        // lanes `xs[16 * rows..n]` (the others are +0.0, which leaves a lane's bits unchanged).
        // Up to 32 elements (one segment of a typical ragged row): two masked loads and no
        // data-dependent branch, the same additions in the same order (a row whose mask is
        // empty adds +0.0 to every lane; masked-off lanes are never read, so the second
        // pointer may lie past the end: `wrapping_add`).
        unsafe {
            let mut acc = _mm512_setzero_ps();
            if n <= 32 {
                let bits = lane_bits(0, n);
                acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(bits as u16, p));
                let second = _mm512_maskz_loadu_ps((bits >> 16) as u16, p.wrapping_add(16));
                acc = _mm512_add_ps(acc, second);
                let v = _mm256_add_ps(
                    _mm512_castps512_ps256(acc),
                    _mm512_extractf32x8_ps::<1>(acc),
                ); // 8
                let v = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)); // 4
                return fold128_ps!(v, _mm_add_ps);
            }
            for r in 0..rows {
                acc = _mm512_add_ps(acc, _mm512_loadu_ps(p.add(16 * r)));
            }
            if n % 16 != 0 {
                let tail = _mm512_maskz_loadu_ps(lane_bits(0, n % 16) as u16, p.add(16 * rows));
                acc = _mm512_add_ps(acc, tail);
            }
            let v = _mm256_add_ps(
                _mm512_castps512_ps256(acc),
                _mm512_extractf32x8_ps::<1>(acc),
            ); // 8
            let v = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)); // 4
            fold128_ps!(v, _mm_add_ps)
        }
    }

    #[inline(always)]
    fn sum16_32_rows16(xs: &[f32], splits: &[i64; 17]) -> Option<[f32; 16]> {
        // Every row a range of `xs` of at most 32 elements: the first split within `xs`, each
        // row 0..=32 long (so splits increase from there), the last split within `xs`. One
        // branch for the group.
        let n = xs.len() as u64;
        let mut bad = (splits[0] as u64 > n) | (splits[16] as u64 > n);
        for k in 0..16 {
            bad |= (splits[k + 1].wrapping_sub(splits[k])) as u64 > 32;
        }
        if bad {
            return None;
        }
        let p = xs.as_ptr();
        // Row `4 * (s % 4) + s / 4` goes to slot `s`: the transposed fold below leaves slot
        // `q + 4 * i` in lane `4 * q + i`, so lane `k` ends up holding row `k`.
        const ROW: [usize; 16] = {
            let mut r = [0; 16];
            let mut s = 0;
            while s < 16 {
                r[s] = 4 * (s % 4) + s / 4;
                s += 1;
            }
            r
        };
        // SAFETY: AVX-512 F/DQ are enabled in this backend's wrapper. Each row `r` lies within
        // `xs` (checked above: `0 <= splits[r] <= splits[r + 1] <= xs.len()`) and holds at most
        // 32 elements, so the two masked loads read only `xs[splits[r]..splits[r + 1]]`
        // (masked-off lanes are never read and do not fault; the second pointer may lie past
        // the end, hence `wrapping_add`).
        unsafe {
            // Slot accumulators as in `sum16_32`: (+0.0 + element j) + element j + 16.
            let acc: [__m512; 16] = std::array::from_fn(|s| {
                let r = ROW[s];
                let a = splits[r] as usize;
                let len = (splits[r + 1] - splits[r]) as u32;
                let bits = lane_bits(0, len as usize);
                let q = p.wrapping_add(a);
                let first = _mm512_maskz_loadu_ps(bits as u16, q);
                let second = _mm512_maskz_loadu_ps((bits >> 16) as u16, q.wrapping_add(16));
                _mm512_add_ps(_mm512_add_ps(_mm512_setzero_ps(), first), second)
            });
            // The pairwise fold of `sum16_32` (lane j plus lane j + 8, + 4, + 2, + 1, lower
            // operand first), done for 16 slots at once by pairing slots' halves. Width 8:
            // slot 2k's sums in lanes 0..8, slot 2k + 1's in 8..16.
            let t1: [__m512; 8] = std::array::from_fn(|k| {
                let (a, b) = (acc[2 * k], acc[2 * k + 1]);
                _mm512_add_ps(
                    _mm512_shuffle_f32x4::<0x44>(a, b),
                    _mm512_shuffle_f32x4::<0xEE>(a, b),
                )
            });
            // Width 4: 128-bit block q of t2[m] holds slot 4m + q.
            let t2: [__m512; 4] = std::array::from_fn(|m| {
                let (x, y) = (t1[2 * m], t1[2 * m + 1]);
                _mm512_add_ps(
                    _mm512_shuffle_f32x4::<0x88>(x, y),
                    _mm512_shuffle_f32x4::<0xDD>(x, y),
                )
            });
            // Width 2: block q of t3[h] holds slots 8h + q (lanes 0, 1) and 8h + 4 + q (2, 3).
            let t3: [__m512; 2] = std::array::from_fn(|h| {
                let (x, y) = (t2[2 * h], t2[2 * h + 1]);
                _mm512_add_ps(
                    _mm512_shuffle_ps::<0x44>(x, y),
                    _mm512_shuffle_ps::<0xEE>(x, y),
                )
            });
            // Width 1: lane 4q + i holds slot q + 4i, i.e. row 4q + i.
            let sums = _mm512_add_ps(
                _mm512_shuffle_ps::<0x88>(t3[0], t3[1]),
                _mm512_shuffle_ps::<0xDD>(t3[0], t3[1]),
            );
            let mut out = [0.0f32; 16];
            _mm512_storeu_ps(out.as_mut_ptr(), sums);
            Some(out)
        }
    }

    #[inline(always)]
    fn sum16_64(xs: &[f64]) -> f64 {
        let (rows, n) = (xs.len() / 16, xs.len());
        let p = xs.as_ptr();
        // SAFETY: as in `sum16_32`; lanes 0..8 in `lo`, 8..16 in `hi`.
        unsafe {
            let (mut lo, mut hi) = (_mm512_setzero_pd(), _mm512_setzero_pd());
            for r in 0..rows {
                lo = _mm512_add_pd(lo, _mm512_loadu_pd(p.add(16 * r)));
                hi = _mm512_add_pd(hi, _mm512_loadu_pd(p.add(16 * r + 8)));
            }
            if n % 16 != 0 {
                let bits = lane_bits(0, n % 16);
                let q = p.add(16 * rows);
                lo = _mm512_add_pd(lo, _mm512_maskz_loadu_pd(bits as u8, q));
                hi = _mm512_add_pd(
                    hi,
                    _mm512_maskz_loadu_pd((bits >> 8) as u8, q.wrapping_add(8)),
                );
            }
            let v = _mm512_add_pd(lo, hi); // 8
            let v = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd::<1>(v)); // 4
            let v = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v)); // 2
            fold128_pd!(v, _mm_add_pd)
        }
    }

    ordered_steps!(
        4,
        unord512_ps,
        unord512_pd,
        _mm512_max_ps,
        _mm512_min_ps,
        _mm512_max_pd,
        _mm512_min_pd
    );
    reduce_fns!(avx512_fold32, avx512_fold64;
        reduce_add32, reduce_add64 = [_mm512_add_ps, _mm256_add_ps, _mm_add_ps], [_mm512_add_pd, _mm256_add_pd, _mm_add_pd];
        reduce_mul32, reduce_mul64 = [_mm512_mul_ps, _mm256_mul_ps, _mm_mul_ps], [_mm512_mul_pd, _mm256_mul_pd, _mm_mul_pd];
        reduce_max32, reduce_max64 = [max512_ps, max256_ps, max128_ps], [max512_pd, max256_pd, max128_pd];
        reduce_min32, reduce_min64 = [min512_ps, min256_ps, min128_ps], [min512_pd, min256_pd, min128_pd];
    );
}

#[cfg(target_arch = "x86_64")]
impl VirtualVectors for Avx2 {
    type V32 = [__m256; 8];
    type V64 = [__m256d; 8];
    x86_lanes!(
        f32, 64, V32, __m256, 8, 8,
        splat: splat32 = _mm256_set1_ps,
        load: load32 = _mm256_loadu_ps,
        masked: load32_masked = |p, m, fill| {
            regs!(8, |k| {
                let bytes = _mm_loadl_epi64(m.add(8 * k) as *const __m128i);
                let keep = _mm256_cmpgt_epi32(_mm256_cvtepu8_epi32(bytes), _mm256_setzero_si256());
                _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_loadu_ps(p.add(8 * k)), _mm256_castsi256_ps(keep))
            })
        },
        add: add32 = _mm256_add_ps,
        mul: mul32 = _mm256_mul_ps,
        max: max32 = |a, x| max256_ps(a, x),
        min: min32 = |a, x| min256_ps(a, x),
        to_array: to_array32 = _mm256_storeu_ps
    );
    x86_lanes!(
        f64, 32, V64, __m256d, 8, 4,
        splat: splat64 = _mm256_set1_pd,
        load: load64 = _mm256_loadu_pd,
        masked: load64_masked = |p, m, fill| {
            regs!(8, |k| {
                let bytes = _mm_cvtsi32_si128(std::ptr::read_unaligned(m.add(4 * k) as *const i32));
                let keep = _mm256_cmpgt_epi64(_mm256_cvtepu8_epi64(bytes), _mm256_setzero_si256());
                _mm256_blendv_pd(_mm256_set1_pd(fill), _mm256_loadu_pd(p.add(4 * k)), _mm256_castsi256_pd(keep))
            })
        },
        add: add64 = _mm256_add_pd,
        mul: mul64 = _mm256_mul_pd,
        max: max64 = |a, x| max256_pd(a, x),
        min: min64 = |a, x| min256_pd(a, x),
        to_array: to_array64 = _mm256_storeu_pd
    );
    #[inline(always)]
    fn sum16_32(xs: &[f32]) -> f32 {
        let (rows, n) = (xs.len() / 16, xs.len());
        let p = xs.as_ptr();
        // SAFETY: AVX2 is enabled in this backend's wrapper; rows are in bounds as in the
        // AVX-512 version, and `maskload` reads only lanes whose mask is set (`xs[16 * rows..n]`).
        unsafe {
            let (mut lo, mut hi) = (_mm256_setzero_ps(), _mm256_setzero_ps());
            for r in 0..rows {
                lo = _mm256_add_ps(lo, _mm256_loadu_ps(p.add(16 * r)));
                hi = _mm256_add_ps(hi, _mm256_loadu_ps(p.add(16 * r + 8)));
            }
            let rem = (n % 16) as i32;
            if rem != 0 {
                let q = p.add(16 * rows);
                let idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                let m_lo = _mm256_cmpgt_epi32(_mm256_set1_epi32(rem), idx);
                let m_hi = _mm256_cmpgt_epi32(_mm256_set1_epi32(rem - 8), idx);
                lo = _mm256_add_ps(lo, _mm256_maskload_ps(q, m_lo));
                hi = _mm256_add_ps(hi, _mm256_maskload_ps(q.wrapping_add(8), m_hi));
            }
            let v = _mm256_add_ps(lo, hi); // 8
            let v = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)); // 4
            fold128_ps!(v, _mm_add_ps)
        }
    }

    #[inline(always)]
    fn sum16_64(xs: &[f64]) -> f64 {
        let (rows, n) = (xs.len() / 16, xs.len());
        let p = xs.as_ptr();
        // SAFETY: as in `sum16_32`; register `k` holds lanes `4k..4k + 4`.
        unsafe {
            let mut acc = [_mm256_setzero_pd(); 4];
            for r in 0..rows {
                acc = regs!(4, |k| _mm256_add_pd(
                    acc[k],
                    _mm256_loadu_pd(p.add(16 * r + 4 * k))
                ));
            }
            let rem = (n % 16) as i64;
            if rem != 0 {
                let q = p.add(16 * rows);
                let idx = _mm256_setr_epi64x(0, 1, 2, 3);
                acc = regs!(4, |k| {
                    let m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(rem - 4 * k as i64), idx);
                    _mm256_add_pd(acc[k], _mm256_maskload_pd(q.wrapping_add(4 * k), m))
                });
            }
            let v = fold_regs!(4, acc, _mm256_add_pd); // widths 8, 4
            let v = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v)); // 2
            fold128_pd!(v, _mm_add_pd)
        }
    }

    ordered_steps!(
        8,
        unord256_ps,
        unord256_pd,
        _mm256_max_ps,
        _mm256_min_ps,
        _mm256_max_pd,
        _mm256_min_pd
    );
    reduce_fns!(avx2_fold32, avx2_fold64;
        reduce_add32, reduce_add64 = [_mm256_add_ps, _mm_add_ps], [_mm256_add_pd, _mm_add_pd];
        reduce_mul32, reduce_mul64 = [_mm256_mul_ps, _mm_mul_ps], [_mm256_mul_pd, _mm_mul_pd];
        reduce_max32, reduce_max64 = [max256_ps, max128_ps], [max256_pd, max128_pd];
        reduce_min32, reduce_min64 = [min256_ps, min128_ps], [min256_pd, min128_pd];
    );
}

/// SSE2 has no blend: `mask ? b : a` as `(a & !mask) | (b & mask)`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn blend_ps(a: __m128, b: __m128, mask: __m128) -> __m128 {
    // SAFETY: SSE2 is part of the x86-64 baseline.
    unsafe { _mm_or_ps(_mm_andnot_ps(mask, a), _mm_and_ps(mask, b)) }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn blend_pd(a: __m128d, b: __m128d, mask: __m128d) -> __m128d {
    // SAFETY: SSE2 is part of the x86-64 baseline.
    unsafe { _mm_or_pd(_mm_andnot_pd(mask, a), _mm_and_pd(mask, b)) }
}

#[cfg(target_arch = "x86_64")]
impl VirtualVectors for Sse2 {
    type V32 = [__m128; 16];
    type V64 = [__m128d; 16];
    x86_lanes!(
        f32, 64, V32, __m128, 16, 4,
        splat: splat32 = _mm_set1_ps,
        load: load32 = _mm_loadu_ps,
        masked: load32_masked = |p, m, fill| {
            regs!(16, |k| {
                let bytes = _mm_cvtsi32_si128(std::ptr::read_unaligned(m.add(4 * k) as *const i32));
                let zero = _mm_setzero_si128();
                let words = _mm_unpacklo_epi16(_mm_unpacklo_epi8(bytes, zero), zero);
                let keep = _mm_castsi128_ps(_mm_cmpgt_epi32(words, zero));
                blend_ps(_mm_set1_ps(fill), _mm_loadu_ps(p.add(4 * k)), keep)
            })
        },
        add: add32 = _mm_add_ps,
        mul: mul32 = _mm_mul_ps,
        max: max32 = |a, x| blend_ps(_mm_max_ps(x, a), x, _mm_cmpunord_ps(x, x)),
        min: min32 = |a, x| blend_ps(_mm_min_ps(x, a), x, _mm_cmpunord_ps(x, x)),
        to_array: to_array32 = _mm_storeu_ps
    );
    x86_lanes!(
        f64, 32, V64, __m128d, 16, 2,
        splat: splat64 = _mm_set1_pd,
        load: load64 = _mm_loadu_pd,
        masked: load64_masked = |p, m, fill| {
            regs!(16, |k| {
                let (m0, m1) = (*m.add(2 * k) as i64, *m.add(2 * k + 1) as i64);
                let keep = _mm_castsi128_pd(_mm_set_epi64x(-m1, -m0));
                blend_pd(_mm_set1_pd(fill), _mm_loadu_pd(p.add(2 * k)), keep)
            })
        },
        add: add64 = _mm_add_pd,
        mul: mul64 = _mm_mul_pd,
        max: max64 = |a, x| blend_pd(_mm_max_pd(x, a), x, _mm_cmpunord_pd(x, x)),
        min: min64 = |a, x| blend_pd(_mm_min_pd(x, a), x, _mm_cmpunord_pd(x, x)),
        to_array: to_array64 = _mm_storeu_pd
    );
}

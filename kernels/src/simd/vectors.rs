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

use super::{Avx2, Avx512, Scalar, Sse2};

/// Operations on virtual vectors. All pointer-taking methods require `count` readable
/// elements (64 `f32`/`bool` or 32 `f64`/`bool`) at the pointers.
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
    /// Pairwise sum of the lanes: lane `j` plus lane `j + 32`, then `j + 16`, … (the fixed
    /// order of every backend). Backends may override with register shuffles in that order.
    #[inline(always)]
    fn reduce_add32(v: Self::V32) -> f32 {
        let mut lanes = Self::to_array32(v);
        let mut width = 64;
        while width > 1 {
            width /= 2;
            for j in 0..width {
                lanes[j] += lanes[j + width];
            }
        }
        lanes[0]
    }
    /// Pairwise sum of the 32 `f64` lanes, in the same fixed order.
    #[inline(always)]
    fn reduce_add64(v: Self::V64) -> f64 {
        let mut lanes = Self::to_array64(v);
        let mut width = 32;
        while width > 1 {
            width /= 2;
            for j in 0..width {
                lanes[j] += lanes[j + width];
            }
        }
        lanes[0]
    }
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
            std::array::from_fn(|j| {
                if x[j].is_nan() || x[j] > acc[j] {
                    x[j]
                } else {
                    acc[j]
                }
            })
        }
        #[inline(always)]
        fn $min(acc: Self::$v, x: Self::$v) -> Self::$v {
            std::array::from_fn(|j| {
                if x[j].is_nan() || x[j] < acc[j] {
                    x[j]
                } else {
                    acc[j]
                }
            })
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
        max: max32 = |a, x| _mm512_mask_max_ps(x, _mm512_cmp_ps_mask::<_CMP_ORD_Q>(x, x), x, a),
        min: min32 = |a, x| _mm512_mask_min_ps(x, _mm512_cmp_ps_mask::<_CMP_ORD_Q>(x, x), x, a),
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
        max: max64 = |a, x| _mm512_mask_max_pd(x, _mm512_cmp_pd_mask::<_CMP_ORD_Q>(x, x), x, a),
        min: min64 = |a, x| _mm512_mask_min_pd(x, _mm512_cmp_pd_mask::<_CMP_ORD_Q>(x, x), x, a),
        to_array: to_array64 = _mm512_storeu_pd
    );

    #[inline(always)]
    fn reduce_add32(v: Self::V32) -> f32 {
        // SAFETY: AVX-512 F/DQ and SSE are available inside the AVX-512 wrapper (see above).
        // Each step adds lane j + width to lane j, exactly the default's pairwise order.
        unsafe {
            let v = [_mm512_add_ps(v[0], v[2]), _mm512_add_ps(v[1], v[3])]; // width 32
            let v = _mm512_add_ps(v[0], v[1]); // width 16
            let v = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps::<1>(v)); // 8
            let v = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)); // 4
            let v = _mm_add_ps(v, _mm_movehl_ps(v, v)); // 2
            let v = _mm_add_ss(v, _mm_shuffle_ps::<1>(v, v)); // 1
            _mm_cvtss_f32(v)
        }
    }

    #[inline(always)]
    fn reduce_add64(v: Self::V64) -> f64 {
        // SAFETY: as in `reduce_add32`; same pairwise order as the default.
        unsafe {
            let v = [_mm512_add_pd(v[0], v[2]), _mm512_add_pd(v[1], v[3])]; // width 16
            let v = _mm512_add_pd(v[0], v[1]); // width 8
            let v = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd::<1>(v)); // 4
            let v = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v)); // 2
            let v = _mm_add_sd(v, _mm_unpackhi_pd(v, v)); // 1
            _mm_cvtsd_f64(v)
        }
    }
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
        max: max32 = |a, x| _mm256_blendv_ps(_mm256_max_ps(x, a), x, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x)),
        min: min32 = |a, x| _mm256_blendv_ps(_mm256_min_ps(x, a), x, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x)),
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
        max: max64 = |a, x| _mm256_blendv_pd(_mm256_max_pd(x, a), x, _mm256_cmp_pd::<_CMP_UNORD_Q>(x, x)),
        min: min64 = |a, x| _mm256_blendv_pd(_mm256_min_pd(x, a), x, _mm256_cmp_pd::<_CMP_UNORD_Q>(x, x)),
        to_array: to_array64 = _mm256_storeu_pd
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

//! The virtual-lane reduction engine: a virtual vector of `L` lanes (64 `f32` or 32 `f64`)
//! accumulates `L`-element rows; a partial last row is padded with the operation's identity
//! (which leaves every lane bit-for-bit unchanged); then the lanes fold pairwise (lane `j`
//! with lane `j + L/2`, halving). The association order depends on `L` alone, never on the
//! backend, so every instruction set computes the same bits.

use crate::simd::{F32_LANES, F64_LANES, Simd, prefetch};

/// A lanewise reduction operation on virtual vectors, and its fixed-order horizontal fold.
pub(crate) trait LaneOp {
    /// Lanewise on 64 `f32` lanes.
    fn v32<S: Simd>(acc: S::V32, x: S::V32) -> S::V32;
    /// Lanewise on 32 `f64` lanes.
    fn v64<S: Simd>(acc: S::V64, x: S::V64) -> S::V64;
    /// Pairwise fold of 64 `f32` lanes (lane `j` with `j + width`, halving).
    fn fold32<S: Simd>(v: S::V32) -> f32;
    /// Pairwise fold of 32 `f64` lanes.
    fn fold64<S: Simd>(v: S::V64) -> f64;
}

macro_rules! lane_op {
    ($name:ident, $v32:ident, $v64:ident, $fold32:ident, $fold64:ident) => {
        lane_op!(@impl $name, $fold32, $fold64,
            |acc, x| S::$v32(acc, x),
            |acc, x| S::$v64(acc, x));
    };
    // Max/min: the cheap NaN-free step unless the backend sees a NaN in the row (same bits).
    ($name:ident, $v32:ident, $v64:ident, $fold32:ident, $fold64:ident; $o32:ident, $o64:ident) => {
        lane_op!(@impl $name, $fold32, $fold64,
            |acc, x| if S::any_nan32(x) { S::$v32(acc, x) } else { S::$o32(acc, x) },
            |acc, x| if S::any_nan64(x) { S::$v64(acc, x) } else { S::$o64(acc, x) });
    };
    (@impl $name:ident, $fold32:ident, $fold64:ident,
     |$a:ident, $x:ident| $body32:expr, |$a64:ident, $x64:ident| $body64:expr) => {
        pub(crate) struct $name;
        impl LaneOp for $name {
            #[inline(always)]
            fn v32<S: Simd>($a: S::V32, $x: S::V32) -> S::V32 {
                $body32
            }
            #[inline(always)]
            fn v64<S: Simd>($a64: S::V64, $x64: S::V64) -> S::V64 {
                $body64
            }
            #[inline(always)]
            fn fold32<S: Simd>(v: S::V32) -> f32 {
                S::$fold32(v)
            }
            #[inline(always)]
            fn fold64<S: Simd>(v: S::V64) -> f64 {
                S::$fold64(v)
            }
        }
    };
}
lane_op!(AddOp, add32, add64, reduce_add32, reduce_add64);
lane_op!(MulOp, mul32, mul64, reduce_mul32, reduce_mul64);
lane_op!(MaxOp, max32, max64, reduce_max32, reduce_max64; max32_ordered, max64_ordered);
lane_op!(MinOp, min32, min64, reduce_min32, reduce_min64; min32_ordered, min64_ordered);

macro_rules! engine {
    (
        $name:ident, $t:ty, $lanes:expr, $align:ident, $splat:ident, $load:ident,
        $load_range:ident, $load_masked:ident, $rotate:ident, $v:ident, $fold:ident
    ) => {
        /// Reduces `xs` (where `mask`, if given, is true; `mask.len() == xs.len()`) with `O`,
        /// starting every lane at `identity`, which must be `O`'s identity.
        ///
        /// Scalar `i` always goes to virtual lane `i % L`, lanes accumulate in increasing `i`.
        /// Without a mask, a backend that prefers aligned rows (`ALIGN > 1`) loads rows from
        /// the aligned address `k` elements before `xs`: register lane `P` then accumulates the
        /// elements of virtual lane `(P - k) % L`, in the same order, plus identities where a
        /// row reaches outside `xs` (which leave a lane bit-for-bit unchanged); rotating the
        /// accumulator by `k` restores the virtual lanes, so the result is the same bits.
        #[inline(always)]
        pub(crate) fn $name<S: Simd, O: LaneOp>(
            xs: &[$t],
            mask: Option<&[bool]>,
            identity: $t,
        ) -> $t {
            const L: usize = $lanes;
            let mut acc = S::$splat(identity);
            match mask {
                None => {
                    let n = xs.len();
                    let p = xs.as_ptr();
                    let k = (p as usize / size_of::<$t>()) % S::$align;
                    // Rows of the aligned grid: row `r` covers `xs[r * L - k..(r + 1) * L - k]`.
                    let total = n + k;
                    let full = total / L;
                    let mut r = 0;
                    if k > 0 && n > 0 {
                        let v =
                            // SAFETY: lanes `k..min(total, L)` of the row at `p - k` are
                            // `xs[0..min(n, L - k)]`.
                            unsafe { S::$load_range(p.wrapping_sub(k), k, total.min(L), identity) };
                        acc = O::$v::<S>(acc, v);
                        r = 1;
                    }
                    while r < full {
                        // SAFETY: `r >= 1` when `k > 0`, and `(r + 1) * L - k <= n`: the row
                        // `xs[r * L - k..(r + 1) * L - k]` is in bounds.
                        let v = unsafe { S::$load(p.add(r * L - k)) };
                        acc = O::$v::<S>(acc, v);
                        r += 1;
                    }
                    if r == full && total % L != 0 && (k == 0 || full > 0) {
                        // SAFETY: lanes `0..total - full * L` of the last row are
                        // `xs[full * L - k..n]` (here `full * L >= k`).
                        let v = unsafe {
                            S::$load_range(
                                p.wrapping_add(full * L).wrapping_sub(k),
                                0,
                                total - full * L,
                                identity,
                            )
                        };
                        acc = O::$v::<S>(acc, v);
                    }
                    acc = S::$rotate(acc, k);
                }
                Some(m) => {
                    let n = xs.len().min(m.len());
                    let rows = n / L;
                    for i in 0..rows {
                        // Two streams (values and mask) at different rates: fetch both ahead
                        // (no effect on results).
                        prefetch(xs.as_ptr().wrapping_add(i * L + 1024));
                        prefetch(xs.as_ptr().wrapping_add(i * L + 1024 + 16));
                        prefetch(xs.as_ptr().wrapping_add(i * L + 1024 + 32));
                        prefetch(xs.as_ptr().wrapping_add(i * L + 1024 + 48));
                        prefetch(m.as_ptr().wrapping_add(i * L + 1024));
                        // SAFETY: `(i + 1) * L <= n`, and `n` is at most both lengths.
                        let v = unsafe {
                            S::$load_masked(xs.as_ptr().add(i * L), m.as_ptr().add(i * L), identity)
                        };
                        acc = O::$v::<S>(acc, v);
                    }
                    let done = rows * L;
                    if done < n {
                        let mut tail = [identity; L];
                        for j in 0..n - done {
                            if m[done + j] {
                                tail[j] = xs[done + j];
                            }
                        }
                        // SAFETY: `tail` holds L elements.
                        acc = O::$v::<S>(acc, unsafe { S::$load(tail.as_ptr()) });
                    }
                }
            }
            O::$fold::<S>(acc)
        }
    };
}
engine!(
    lanes32,
    f32,
    F32_LANES,
    ALIGN32,
    splat32,
    load32,
    load32_range,
    load32_masked,
    rotate32,
    v32,
    fold32
);
engine!(
    lanes64,
    f64,
    F64_LANES,
    ALIGN64,
    splat64,
    load64,
    load64_range,
    load64_masked,
    rotate64,
    v64,
    fold64
);

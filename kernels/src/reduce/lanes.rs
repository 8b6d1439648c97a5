//! The virtual-lane reduction engine: a virtual vector of `L` lanes (64 `f32` or 32 `f64`)
//! accumulates `L`-element rows; a partial last row is padded with the operation's identity
//! (which leaves every lane bit-for-bit unchanged); then the lanes fold pairwise (lane `j`
//! with lane `j + L/2`, halving). The association order depends on `L` alone, never on the
//! backend, so every instruction set computes the same bits.

use crate::simd::{F32_LANES, F64_LANES, Simd};

/// A lanewise reduction operation on virtual vectors and on scalars (for the final fold).
pub(crate) trait LaneOp {
    /// Lanewise on 64 `f32` lanes.
    fn v32<S: Simd>(acc: S::V32, x: S::V32) -> S::V32;
    /// Lanewise on 32 `f64` lanes.
    fn v64<S: Simd>(acc: S::V64, x: S::V64) -> S::V64;
    /// One `f32` lane.
    fn s32(acc: f32, x: f32) -> f32;
    /// One `f64` lane.
    fn s64(acc: f64, x: f64) -> f64;
    /// Pairwise fold of 64 `f32` lanes (lane `j` with `j + width`, halving).
    #[inline(always)]
    fn fold32<S: Simd>(v: S::V32) -> f32 {
        let mut lanes = S::to_array32(v);
        let mut width = F32_LANES;
        while width > 1 {
            width /= 2;
            for j in 0..width {
                lanes[j] = Self::s32(lanes[j], lanes[j + width]);
            }
        }
        lanes[0]
    }
    /// Pairwise fold of 32 `f64` lanes.
    #[inline(always)]
    fn fold64<S: Simd>(v: S::V64) -> f64 {
        let mut lanes = S::to_array64(v);
        let mut width = F64_LANES;
        while width > 1 {
            width /= 2;
            for j in 0..width {
                lanes[j] = Self::s64(lanes[j], lanes[j + width]);
            }
        }
        lanes[0]
    }
}

/// Addition, whose fold backends may vectorise.
pub(crate) struct AddOp;
impl LaneOp for AddOp {
    #[inline(always)]
    fn v32<S: Simd>(acc: S::V32, x: S::V32) -> S::V32 {
        S::add32(acc, x)
    }
    #[inline(always)]
    fn v64<S: Simd>(acc: S::V64, x: S::V64) -> S::V64 {
        S::add64(acc, x)
    }
    #[inline(always)]
    fn s32(a: f32, x: f32) -> f32 {
        a + x
    }
    #[inline(always)]
    fn s64(a: f64, x: f64) -> f64 {
        a + x
    }
    #[inline(always)]
    fn fold32<S: Simd>(v: S::V32) -> f32 {
        S::reduce_add32(v)
    }
    #[inline(always)]
    fn fold64<S: Simd>(v: S::V64) -> f64 {
        S::reduce_add64(v)
    }
}

macro_rules! lane_op {
    ($name:ident, $v32:ident, $v64:ident, |$a:ident, $x:ident| $scalar:expr) => {
        pub(crate) struct $name;
        impl LaneOp for $name {
            #[inline(always)]
            fn v32<S: Simd>(acc: S::V32, x: S::V32) -> S::V32 {
                S::$v32(acc, x)
            }
            #[inline(always)]
            fn v64<S: Simd>(acc: S::V64, x: S::V64) -> S::V64 {
                S::$v64(acc, x)
            }
            #[inline(always)]
            fn s32($a: f32, $x: f32) -> f32 {
                $scalar
            }
            #[inline(always)]
            fn s64($a: f64, $x: f64) -> f64 {
                $scalar
            }
        }
    };
}
lane_op!(MulOp, mul32, mul64, |a, x| a * x);
lane_op!(MaxOp, max32, max64, |a, x| if x.is_nan() || x > a {
    x
} else {
    a
});
lane_op!(MinOp, min32, min64, |a, x| if x.is_nan() || x < a {
    x
} else {
    a
});

macro_rules! engine {
    ($name:ident, $t:ty, $lanes:expr, $splat:ident, $load:ident, $load_masked:ident, $v:ident, $fold:ident) => {
        /// Reduces `xs` (where `mask`, if given, is true; `mask.len() == xs.len()`) with `O`,
        /// starting every lane at `identity`, which must be `O`'s identity.
        #[inline(always)]
        pub(crate) fn $name<S: Simd, O: LaneOp>(
            xs: &[$t],
            mask: Option<&[bool]>,
            identity: $t,
        ) -> $t {
            const L: usize = $lanes;
            let n = match mask {
                Some(m) => xs.len().min(m.len()),
                None => xs.len(),
            };
            let rows = n / L;
            let mut acc = S::$splat(identity);
            match mask {
                None => {
                    for i in 0..rows {
                        // SAFETY: `(i + 1) * L <= n <= xs.len()`, so L elements are readable.
                        let v = unsafe { S::$load(xs.as_ptr().add(i * L)) };
                        acc = O::$v::<S>(acc, v);
                    }
                }
                Some(m) => {
                    for i in 0..rows {
                        // SAFETY: `(i + 1) * L <= n`, and `n` is at most both lengths.
                        let v = unsafe {
                            S::$load_masked(xs.as_ptr().add(i * L), m.as_ptr().add(i * L), identity)
                        };
                        acc = O::$v::<S>(acc, v);
                    }
                }
            }
            let done = rows * L;
            if done < n {
                let mut tail = [identity; L];
                match mask {
                    None => tail[..n - done].copy_from_slice(&xs[done..n]),
                    Some(m) => {
                        for j in 0..n - done {
                            if m[done + j] {
                                tail[j] = xs[done + j];
                            }
                        }
                    }
                }
                // SAFETY: `tail` holds L elements.
                acc = O::$v::<S>(acc, unsafe { S::$load(tail.as_ptr()) });
            }
            O::$fold::<S>(acc)
        }
    };
}
engine!(
    lanes32,
    f32,
    F32_LANES,
    splat32,
    load32,
    load32_masked,
    v32,
    fold32
);
engine!(
    lanes64,
    f64,
    F64_LANES,
    splat64,
    load64,
    load64_masked,
    v64,
    fold64
);

//! The sum and the maximum `tf.sparse.reduce_sum` / `reduce_max` compute for one output element,
//! bit for bit: rounding, NaN and signed zeros included.
//!
//! TensorFlow orders the entries (by the kept axes, then the reduced ones) and reduces each
//! output element's values with Eigen's full reduction (`values.sum()`, `values.maximum()`),
//! whose order of operations decides how a float sum rounds and where a NaN goes. Eigen works
//! in packets of `LANES` values (the AVX registers of TensorFlow's x86 build: 4 `f64`, 8 `f32`,
//! 8 half floats):
//! - from `4 × LANES` values on, four packet accumulators take the packets in turn, then are
//!   folded into the first one by one; the packets left over go into the first, one by one;
//! - the values after the last whole packet are folded one by one into a scalar;
//! - the packet is reduced across its lanes (the upper half onto the lower, down to one lane;
//!   half floats do this in `f32`, rounded once), and the scalar and that result are combined;
//! - above `LANES × 1024` values the range is halved at a packet boundary and each half reduced
//!   alike, the two results folded in order.
//!
//! For the maximum, a packet step is `_mm256_max_p*(value, lane)`, which keeps the lane when
//! either is NaN, and a scalar step `std::max(value, acc)`, which takes a NaN: so a NaN among
//! the packets is skipped and a NaN among the last `n % LANES` values is kept unless a later
//! one replaces it. Half floats add in `f32`, rounded back after each addition, as Eigen's.
//!
//! Checked against TensorFlow 2.21 on random groups of 1 to 80 values and of sizes around each
//! halving threshold, in every float dtype, sums of values of mixed magnitudes and maxima with
//! NaN, −inf and both zeros: every result equal, bits included. Integers are not here: their
//! wrapping sum and their maximum do not depend on the order.

use half::{bf16, f16};

/// Above `lanes × LEAF` values, Eigen's full reduction halves the range (its tree reduction).
const LEAF: usize = 1024;

/// The widest packet (8 lanes).
const MAX_LANES: usize = 8;

/// A float element as Eigen reduces it in TensorFlow's x86 build.
pub trait Lane: Copy + PartialOrd {
    /// The lanes of a packet.
    const LANES: usize;
    /// Where a maximum starts (−inf).
    const LOWEST: Self;
    /// Where a sum starts (+0).
    const ZERO: Self;
    /// `a + b` as Eigen adds (half floats: in `f32`, rounded back).
    fn add(self, other: Self) -> Self;
    /// The sum across a packet's lanes, the upper half onto the lower down to one lane (half
    /// floats: in `f32`, rounded once).
    fn sum_across(lanes: &mut [Self]) -> Self;
}

/// The upper half of `lanes` onto the lower with `f`, down to one lane.
#[inline(always)]
fn across<T: Copy>(lanes: &mut [T], f: impl Fn(T, T) -> T) -> T {
    let mut half = lanes.len() / 2;
    while half >= 1 {
        for l in 0..half {
            lanes[l] = f(lanes[l + half], lanes[l]);
        }
        half /= 2;
    }
    lanes[0]
}

macro_rules! lane_float {
    ($($t:ty => $lanes:expr),*) => {$(
        impl Lane for $t {
            const LANES: usize = $lanes;
            const LOWEST: $t = <$t>::NEG_INFINITY;
            const ZERO: $t = 0.0;
            #[inline(always)]
            fn add(self, other: $t) -> $t { self + other }
            fn sum_across(lanes: &mut [$t]) -> $t { across(lanes, |hi, lo| lo + hi) }
        }
    )*};
}
lane_float!(f32 => 8, f64 => 4);

macro_rules! lane_half {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            const LANES: usize = 8;
            const LOWEST: $t = <$t>::NEG_INFINITY;
            const ZERO: $t = <$t>::ZERO;
            #[inline(always)]
            fn add(self, other: $t) -> $t { <$t>::from_f32(self.to_f32() + other.to_f32()) }
            fn sum_across(lanes: &mut [$t]) -> $t {
                let mut wide = [0.0f32; MAX_LANES];
                for (w, l) in wide.iter_mut().zip(lanes.iter()) {
                    *w = l.to_f32();
                }
                <$t>::from_f32(across(&mut wide[..lanes.len()], |hi, lo| lo + hi))
            }
        }
    )*};
}
lane_half!(f16, bf16);

/// `_mm256_max_p*(x, y)`: `x` when `x > y`, else `y` (so `y` when either is NaN).
#[inline(always)]
fn simd_max<T: PartialOrd>(x: T, y: T) -> T {
    if x > y { x } else { y }
}

/// `std::max(a, b)`: `b` when `a < b`, else `a` (so `a` when either is NaN).
#[inline(always)]
fn std_max<T: PartialOrd>(a: T, b: T) -> T {
    if a < b { b } else { a }
}

/// The reduction's steps: the maximum (`MAX`) or the sum.
struct Steps<const MAX: bool>;

impl<const MAX: bool> Steps<MAX> {
    #[inline(always)]
    fn init<T: Lane>() -> T {
        if MAX { T::LOWEST } else { T::ZERO }
    }
    /// `reducePacket`: one lane of a packet into one lane of an accumulator.
    #[inline(always)]
    fn packet<T: Lane>(acc: T, value: T) -> T {
        if MAX {
            simd_max(value, acc)
        } else {
            acc.add(value)
        }
    }
    /// `reduce`: one value (or a half's result) into a scalar accumulator.
    #[inline(always)]
    fn scalar<T: Lane>(value: T, acc: T) -> T {
        if MAX {
            std_max(value, acc)
        } else {
            acc.add(value)
        }
    }
    /// `finalizeBoth`: the scalar accumulator and the packet's reduction across lanes.
    #[inline(always)]
    fn finalize<T: Lane>(scalar: T, lanes: &mut [T]) -> T {
        if MAX {
            std_max(scalar, across(lanes, simd_max))
        } else {
            scalar.add(T::sum_across(lanes))
        }
    }
}

/// TensorFlow's (Eigen's) sum of `values`, in their order.
pub fn eigen_sum<T: Lane>(values: &[T]) -> T {
    range::<T, false>(values, 0, values.len())
}

/// TensorFlow's (Eigen's) maximum of `values`, in their order.
pub fn eigen_max<T: Lane>(values: &[T]) -> T {
    range::<T, true>(values, 0, values.len())
}

/// Eigen's `InnerMostDimReducer::reduce(first, n)` (vectorised, with tree reduction).
fn range<T: Lane, const MAX: bool>(v: &[T], first: usize, n: usize) -> T {
    let lanes = T::LANES;
    if n <= lanes * LEAF {
        return leaf::<T, MAX>(&v[first..first + n]);
    }
    // The split lands on a packet boundary of the whole range, as Eigen's.
    let split = lanes * (first + n.div_ceil(2)).div_ceil(lanes);
    let left = (split - first).min(n);
    let mut acc = Steps::<MAX>::scalar(range::<T, MAX>(v, first, left), Steps::<MAX>::init());
    if left < n {
        acc = Steps::<MAX>::scalar(range::<T, MAX>(v, split, n - left), acc);
    }
    acc
}

/// One leaf: packets four at a time into four accumulators folded into the first, the packets
/// left over into the first, the values after the last whole packet into a scalar, then the
/// two combined.
fn leaf<T: Lane, const MAX: bool>(v: &[T]) -> T {
    let lanes = T::LANES;
    let init = Steps::<MAX>::init::<T>();
    let mut acc = [[init; MAX_LANES]; 4];
    let quads = v.len() / (4 * lanes) * 4 * lanes;
    for quad in v[..quads].chunks_exact(4 * lanes) {
        for (a, packet) in acc.iter_mut().zip(quad.chunks_exact(lanes)) {
            for l in 0..lanes {
                a[l] = Steps::<MAX>::packet(a[l], packet[l]);
            }
        }
    }
    let [mut first, rest @ ..] = acc;
    if quads > 0 {
        for a in &rest {
            for l in 0..lanes {
                first[l] = Steps::<MAX>::packet(first[l], a[l]);
            }
        }
    }
    let packed = v.len() / lanes * lanes;
    for packet in v[quads..packed].chunks_exact(lanes) {
        for l in 0..lanes {
            first[l] = Steps::<MAX>::packet(first[l], packet[l]);
        }
    }
    let scalar = v[packed..]
        .iter()
        .fold(init, |acc, &t| Steps::<MAX>::scalar(t, acc));
    Steps::<MAX>::finalize(scalar, &mut first[..lanes])
}

#[cfg(test)]
mod tests {
    use super::{eigen_max, eigen_sum};
    use half::f16;

    const NAN: f64 = f64::NAN;
    const INF: f64 = f64::INFINITY;

    fn same(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
    }

    /// TensorFlow 2.21, `tf.sparse.reduce_max` of a `[n]` tensor storing these `f64` values.
    #[test]
    fn max_follows_tf_on_f64() {
        let cases: &[(&[f64], f64)] = &[
            (&[NAN, 1.0], 1.0),
            (&[1.0, NAN], NAN),
            (&[NAN], NAN),
            (&[2.0, NAN, 1.0], 1.0),
            (&[1.0, 2.0, NAN], NAN),
            // Four values fill one packet, whose NaN lane is skipped.
            (&[0.0, 0.0, NAN, -1.0], 0.0),
            (&[1.0, 2.0, 3.0, NAN], 3.0),
            (&[INF, 0.0, -0.0, NAN], INF),
            // The fifth value is folded after the packet: a NaN there is kept.
            (&[1.0, 2.0, 3.0, 4.0, NAN], NAN),
            (&[NAN, 2.0, 3.0, 4.0, 5.0, 1.0], 5.0),
            (&[-INF, 3.0, -0.0, 0.5, NAN], NAN),
        ];
        for &(v, want) in cases {
            let got = eigen_max(v);
            assert!(same(got, want), "{v:?}: {got} != {want}");
        }
    }

    /// TensorFlow 2.21 with `f32`: packets of eight, so four values are folded one by one.
    #[test]
    fn max_follows_tf_on_f32() {
        let nan = f32::NAN;
        assert!(eigen_max(&[1.0f32, 2.0, 3.0, nan]).is_nan());
        assert_eq!(eigen_max(&[1.0f32, 2.0, 3.0, 4.0, nan, 5.0, 6.0, 7.0]), 7.0);
        assert!(eigen_max(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, nan]).is_nan());
    }

    /// Above 4096 `f64` values the range is halved at a packet boundary (2052 + 2045 for 4097):
    /// a NaN last in the left half is skipped (a whole packet), one last in the right half is
    /// in its tail and kept (TensorFlow 2.21: 1.0, then NaN).
    #[test]
    fn halves_large_ranges_as_eigen() {
        let mut v = vec![1.0f64; 4097];
        v[2051] = NAN;
        assert_eq!(eigen_max(&v), 1.0);
        v[4096] = NAN;
        assert!(eigen_max(&v).is_nan());
        for at in [0, 2051, 2052, 4096] {
            let mut v = vec![1.0f64; 4097];
            v[at] = 5.0;
            assert_eq!(eigen_max(&v), 5.0);
        }
    }

    /// Of two equal zeros the later wins in a scalar fold (TensorFlow 2.21: `[-0.0, 0.0]` →
    /// `0.0`, `[0.0, -0.0]` → `-0.0`, in `f64` and `f32`); across a packet's lanes the upper
    /// half is compared against the lower (`[-inf, 0.0, -0.0, nan]` in `f64` → `-0.0`).
    #[test]
    fn max_keeps_tf_s_signed_zeros() {
        assert!(same(eigen_max(&[-0.0, 0.0]), 0.0));
        assert!(same(eigen_max(&[0.0, -0.0]), -0.0));
        assert!(same(eigen_max(&[-INF, 0.0, -0.0, NAN]), -0.0));
        assert!(eigen_max(&[0.0f32, -0.0]).is_sign_negative());
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for n in 1..200 {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 1000) as f64 - 500.5
                })
                .collect();
            let want = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(eigen_max(&v), want);
        }
    }

    /// The sum's association: `[a, b, c, d]` in `f64` is `(a + c) + (b + d)` (one packet),
    /// below a packet the values add in order; `1e16, 1, -1e16, 1` gives 0 in order and 2 here
    /// (TensorFlow 2.21: 2.0 and, for `[1e16, 1, -1e16]`, 0.0).
    #[test]
    fn sum_associates_as_eigen() {
        assert_eq!(eigen_sum(&[1e16, 1.0, -1e16, 1.0]), 2.0);
        assert_eq!(eigen_sum(&[1e16, 1.0, -1e16]), 0.0);
        // Half floats add in f32 rounded after each addition: 2048 + 1 + 1 stays 2048
        // (TensorFlow 2.21), where one f32 sum would give 2050.
        let h = |x: f32| f16::from_f32(x);
        assert_eq!(eigen_sum(&[h(2048.0), h(1.0), h(1.0)]), h(2048.0));
        // Without rounding the sum is the plain sum, at every size.
        for n in 0..300 {
            let v: Vec<f64> = (0..n).map(|k| (k % 7) as f64 - 3.0).collect();
            assert_eq!(eigen_sum(&v), v.iter().sum::<f64>());
        }
    }
}

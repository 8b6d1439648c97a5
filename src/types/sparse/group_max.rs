//! The maximum `tf.sparse.reduce_max` computes for one output element, NaN and signed zeros
//! included.
//!
//! TensorFlow reorders the entries (by the kept axes, then the reduced ones) and reduces each
//! output element's values with Eigen's full reduction, `values.maximum()`, whose result on a
//! NaN depends on where the NaN falls: Eigen reduces whole packets of `LANES` values (the AVX
//! registers of TensorFlow's x86 build: 4 `f64`, 8 `f32`; half floats are reduced as 8-lane
//! packets too) with `_mm256_max_p*(value, lane)`, which keeps the lane when either is NaN, and
//! folds the values left after the last whole packet with `std::max(value, acc)`, which takes a
//! NaN. So a NaN among the packets is skipped and a NaN among the last `n % LANES` values is
//! kept unless a later one replaces it. Above `LANES × 1024` values Eigen halves the range at a
//! packet boundary, reduces each half alike and folds the two results in order.
//!
//! This module reproduces that order of operations step by step, lane by lane. Checked against
//! TensorFlow 2.21 on random groups of 1 to 40 values and of sizes around each halving
//! threshold, in every float dtype, with NaN, ±inf and both zeros: every NaN case matched, and
//! every signed-zero case but some `f64` groups of more than four values mixing `0.0` and
//! `-0.0` (9 of 400), where TensorFlow's sign of a zero maximum follows an order of lane
//! comparisons not found here. Integers have no NaN and no signed zero: any order gives
//! TensorFlow's result.

/// Above `lanes × LEAF` values, Eigen's full reduction halves the range (its tree reduction).
const LEAF: usize = 1024;

/// The widest packet Eigen reduces in (8 `f32` lanes).
const MAX_LANES: usize = 8;

/// `_mm256_max_p*(x, y)`: `x` when `x > y`, else `y` (so `y` when either is NaN).
#[inline(always)]
fn simd_max<T: PartialOrd + Copy>(x: T, y: T) -> T {
    if x > y { x } else { y }
}

/// `std::max(a, b)`: `b` when `a < b`, else `a` (so `a` when either is NaN).
#[inline(always)]
fn std_max<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if a < b { b } else { a }
}

/// TensorFlow's (Eigen's) maximum of `values` reduced in packets of `lanes` (4 or 8), starting
/// from `lowest` (−inf): the result of `tf.sparse.reduce_max` for one output element whose
/// values, in TensorFlow's order, are `values`.
pub(super) fn eigen_max<T: PartialOrd + Copy>(values: &[T], lanes: usize, lowest: T) -> T {
    debug_assert!(
        lanes == 4 || lanes == 8,
        "Eigen's AVX packets: 4 or 8 lanes"
    );
    range(values, 0, values.len(), lanes, lowest)
}

/// Eigen's `InnerMostDimReducer::reduce(first, n)` (vectorised, with tree reduction).
fn range<T: PartialOrd + Copy>(v: &[T], first: usize, n: usize, lanes: usize, lowest: T) -> T {
    if n <= lanes * LEAF {
        return leaf(&v[first..first + n], lanes, lowest);
    }
    // The split lands on a packet boundary of the whole range, as Eigen's.
    let split = lanes * (first + n.div_ceil(2)).div_ceil(lanes);
    let left = (split - first).min(n);
    let mut acc = std_max(range(v, first, left, lanes, lowest), lowest);
    if left < n {
        acc = std_max(range(v, split, n - left, lanes, lowest), acc);
    }
    acc
}

/// One leaf: packets two at a time into two accumulators, then one at a time into the first,
/// the accumulators merged lane by lane; the values after the last whole packet folded one by
/// one; then the packet reduced across its lanes and the two results combined.
fn leaf<T: PartialOrd + Copy>(v: &[T], lanes: usize, lowest: T) -> T {
    let (mut a, mut b) = ([lowest; MAX_LANES], [lowest; MAX_LANES]);
    let unrolled = v.len() / (2 * lanes) * 2 * lanes;
    let packed = v.len() / lanes * lanes;
    for pair in v[..unrolled].chunks_exact(2 * lanes) {
        for l in 0..lanes {
            a[l] = simd_max(pair[l], a[l]);
            b[l] = simd_max(pair[lanes + l], b[l]);
        }
    }
    for packet in v[unrolled..packed].chunks_exact(lanes) {
        for l in 0..lanes {
            a[l] = simd_max(packet[l], a[l]);
        }
    }
    for l in 0..lanes {
        a[l] = simd_max(b[l], a[l]);
    }
    let scalar = v[packed..].iter().fold(lowest, |acc, &t| std_max(t, acc));
    // Across the lanes (Eigen's `predux_max`): the upper half against the lower, down to one.
    let mut half = lanes / 2;
    while half >= 1 {
        for l in 0..half {
            a[l] = simd_max(a[l + half], a[l]);
        }
        half /= 2;
    }
    std_max(scalar, a[0])
}

#[cfg(test)]
mod tests {
    use super::eigen_max;

    const NAN: f64 = f64::NAN;
    const INF: f64 = f64::INFINITY;

    fn same(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
    }

    /// TensorFlow 2.21, `tf.sparse.reduce_max` of a `[n]` tensor storing these `f64` values.
    #[test]
    fn follows_tf_on_f64() {
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
            let got = eigen_max(v, 4, f64::NEG_INFINITY);
            assert!(same(got, want), "{v:?}: {got} != {want}");
        }
    }

    /// TensorFlow 2.21 with `f32`: packets of eight, so four values are folded one by one.
    #[test]
    fn follows_tf_on_f32() {
        let nan = f32::NAN;
        assert!(eigen_max(&[1.0f32, 2.0, 3.0, nan], 8, f32::NEG_INFINITY).is_nan());
        let v = [1.0f32, 2.0, 3.0, 4.0, nan, 5.0, 6.0, 7.0];
        assert_eq!(eigen_max(&v, 8, f32::NEG_INFINITY), 7.0);
        let v = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, nan];
        assert!(eigen_max(&v, 8, f32::NEG_INFINITY).is_nan());
    }

    /// Above 4096 `f64` values the range is halved at a packet boundary (2052 + 2045 for 4097):
    /// a NaN last in the left half is skipped (a whole packet), one last in the right half is
    /// in its tail and kept.
    #[test]
    fn halves_large_ranges_as_eigen() {
        let mut v = vec![1.0f64; 4097];
        v[2051] = NAN;
        assert_eq!(eigen_max(&v, 4, f64::NEG_INFINITY), 1.0);
        v[4096] = NAN;
        assert!(eigen_max(&v, 4, f64::NEG_INFINITY).is_nan());
        // Without a NaN it is the plain maximum wherever the largest value sits.
        for at in [0, 2051, 2052, 4096] {
            let mut v = vec![1.0f64; 4097];
            v[at] = 5.0;
            assert_eq!(eigen_max(&v, 4, f64::NEG_INFINITY), 5.0);
        }
    }

    /// Without NaN the result is the maximum; of two equal zeros the fold keeps the later
    /// (TensorFlow 2.21: `[-0.0, 0.0]` → `0.0`, `[0.0, -0.0]` → `-0.0`, in `f64` and `f32`).
    #[test]
    fn is_the_maximum_without_nan() {
        assert!(same(eigen_max(&[-0.0, 0.0], 4, f64::NEG_INFINITY), 0.0));
        assert!(same(eigen_max(&[0.0, -0.0], 4, f64::NEG_INFINITY), -0.0));
        assert!(eigen_max(&[0.0f32, -0.0], 8, f32::NEG_INFINITY).is_sign_negative());
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for n in 1..200 {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 1000) as f64 - 500.0
                })
                .collect();
            let want = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(eigen_max(&v, 4, f64::NEG_INFINITY), want);
            assert_eq!(eigen_max(&v, 8, f64::NEG_INFINITY), want);
        }
    }
}

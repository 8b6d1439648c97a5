//! The merge of `sparse + sparse` for ranks 1 and 2 (TensorFlow's `SparseAdd` step by step):
//! branch-free, into uninitialised output, and in two halves on two cores for canonical input.
//!
//! **Branch-free.** Where two index lists interleave at random, a merge that branches on each
//! comparison mispredicts about every other entry. Here each step compares the two current keys
//! (an index row as one `u64` for rank 1, one `u128` for rank 2: the row-major order of
//! non-negative indices) and writes without selecting: the row of `a`, then the row of `b` one
//! slot further unless `b`'s is the one taken (a later store to the same slot wins), and alike
//! the values (`a`'s, `b`'s, then the sum, which lands on the slot only for equal keys); the
//! cursors advance by the comparison flags. The extra stores land at most one slot past the
//! step's own, which is inside the output while both lists have entries left.
//!
//! **Two halves.** For canonical inputs the merge is cut at one output position by binary search
//! (merge-path co-ranking, equal keys kept on one side), so each half merges on its own, one per
//! core. The second half merges forwards from the cut and the first *backwards* up to it: their
//! outputs meet at the cut whatever number of equal keys each half summed, so nothing is
//! moved afterwards; the result starts at an offset of the allocation (the slots before it and
//! after it, one per summed pair, are zeroed, and the arrays are views past them). Each core
//! writes, and so page-faults, its own half of the output. The output is not asked for huge
//! pages (as the kernels' large outputs are): with `madvise(MADV_HUGEPAGE)` the add ran 2.5×
//! slower on a quiet machine whose memory was fragmented (faults waiting on compaction, the
//! two halves faulting the same 2 MiB page), 41 ms against 17 ms (BENCHMARKS.md).

use std::mem::MaybeUninit;

use super::arith::Arith;
use crate::ndarray::{Array1, Array2, s};

/// Both lists together from this many entries merge in two halves (on a free second core).
/// Below it the join and the second core's cache misses cost more than they save.
const PAR_MIN_ENTRIES: usize = 1 << 17;

/// An index row as one integer of the same order (row-major order of non-negative indices).
pub(super) trait RowKey<const R: usize> {
    /// The key type.
    type Key: Ord + Copy;
    /// The key of `row`.
    fn key(row: &[i64; R]) -> Self::Key;
}

/// The keys of ranks 1 and 2.
pub(super) struct Keys;

impl RowKey<1> for Keys {
    type Key = u64;
    #[inline(always)]
    fn key(row: &[i64; 1]) -> u64 {
        row[0] as u64
    }
}

impl RowKey<2> for Keys {
    type Key = u128;
    #[inline(always)]
    fn key(row: &[i64; 2]) -> u128 {
        ((row[0] as u64 as u128) << 64) | row[1] as u64 as u128
    }
}

/// Whether a sum at equal keys is kept: TensorFlow's `thresh <= abs(sum)`, false for a NaN
/// sum (or threshold), so a NaN sum is dropped even at threshold 0.
#[inline(always)]
fn keep_sum<T: Arith>(s: T, threshold: f64) -> bool {
    s.magnitude() >= threshold
}

/// The merge of `a` and `b` (TensorFlow's order of steps; any input order), each index row
/// in bounds (non-negative). Canonical inputs may merge in halves on two cores. Returns the
/// result's indices (`[n, R]`) and values.
pub(super) fn merge<const R: usize, T: Arith>(
    a: (&[[i64; R]], &[T]),
    b: (&[[i64; R]], &[T]),
    threshold: f64,
    canonical: bool,
) -> (Array2<i64>, Array1<T>)
where
    Keys: RowKey<R>,
{
    merge_with::<R, T>(a, b, threshold, canonical, PAR_MIN_ENTRIES)
}

fn merge_with<const R: usize, T: Arith>(
    (ai, av): (&[[i64; R]], &[T]),
    (bi, bv): (&[[i64; R]], &[T]),
    threshold: f64,
    canonical: bool,
    par_min: usize,
) -> (Array2<i64>, Array1<T>)
where
    Keys: RowKey<R>,
{
    let (na, nb) = (ai.len(), bi.len());
    let cap = na + nb;
    let mut idx: Vec<[i64; R]> = Vec::with_capacity(cap);
    let mut vals: Vec<T> = Vec::with_capacity(cap);
    let (oi, ov) = (
        &mut idx.spare_capacity_mut()[..cap],
        &mut vals.spare_capacity_mut()[..cap],
    );
    if !(canonical && cap >= par_min && rayon::current_num_threads() > 1) {
        let n = forward::<R, T>((ai, av), (bi, bv), threshold, oi, ov);
        // SAFETY: `forward` initialised the first `n` slots of both.
        unsafe {
            idx.set_len(n);
            vals.set_len(n);
        }
        let indices = Array2::from_shape_vec((n, R), idx.into_flattened()).expect("n rows of R");
        return (indices, Array1::from(vals));
    }
    let (i, j) = cut::<R>(ai, bi, cap / 2);
    let m = i + j;
    let (oi1, oi2) = oi.split_at_mut(m);
    let (ov1, ov2) = ov.split_at_mut(m);
    let (n1, n2) = rayon::join(
        || {
            backward::<R, T>(
                (&ai[..i], &av[..i]),
                (&bi[..j], &bv[..j]),
                threshold,
                oi1,
                ov1,
            )
        },
        || {
            forward::<R, T>(
                (&ai[i..], &av[i..]),
                (&bi[j..], &bv[j..]),
                threshold,
                oi2,
                ov2,
            )
        },
    );
    // The result is `[m - n1, m + n2)`; the slots around it are zeroed so that the whole
    // allocation is initialised (the arrays own it and view the result).
    let start = m - n1;
    oi[..start].fill(MaybeUninit::new([0; R]));
    oi[m + n2..].fill(MaybeUninit::new([0; R]));
    ov[..start].fill(MaybeUninit::new(T::default()));
    ov[m + n2..].fill(MaybeUninit::new(T::default()));
    // SAFETY: `backward` initialised `[start, m)`, `forward` `[m, m + n2)`, and the fills the
    // rest of the `cap` slots.
    unsafe {
        idx.set_len(cap);
        vals.set_len(cap);
    }
    let end = m + n2;
    let indices = Array2::from_shape_vec((cap, R), idx.into_flattened()).expect("cap rows of R");
    (
        indices.slice_move(s![start..end, ..]),
        Array1::from(vals).slice_move(s![start..end]),
    )
}

/// Where the merge of canonical `a` and `b` splits near output position `t`: `(i, j)` such
/// that every key of `a[..i]` and `b[..j]` is below every key of `a[i..]` and `b[j..]` (equal
/// keys of `a` and `b` on one side). Merge-path co-ranking: `i` entries of `a` among the first
/// `t` of the merge (ties taking `a` first), then a tie across the cut moved before it.
pub(super) fn cut<const R: usize>(a: &[[i64; R]], b: &[[i64; R]], t: usize) -> (usize, usize)
where
    Keys: RowKey<R>,
{
    let (na, nb) = (a.len(), b.len());
    let t = t.min(na + nb);
    let (mut lo, mut hi) = (t.saturating_sub(nb), t.min(na));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // `mid < hi <= min(t, na)` and `mid >= lo >= t - nb`, so `0 <= t - mid - 1 < nb`.
        if Keys::key(&a[mid]) <= Keys::key(&b[t - mid - 1]) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let (i, mut j) = (lo, t - lo);
    if i > 0 && j < nb && Keys::key(&a[i - 1]) == Keys::key(&b[j]) {
        j += 1;
    }
    (i, j)
}

/// Merges `a` and `b` forwards into the start of `oi`, `ov` (each at least `a.len() + b.len()`
/// long); returns the number of entries written.
#[inline(always)]
fn forward<const R: usize, T: Arith>(
    (ai, av): (&[[i64; R]], &[T]),
    (bi, bv): (&[[i64; R]], &[T]),
    threshold: f64,
    oi: &mut [MaybeUninit<[i64; R]>],
    ov: &mut [MaybeUninit<T>],
) -> usize
where
    Keys: RowKey<R>,
{
    let (na, nb) = (ai.len(), bi.len());
    assert!(av.len() == na && bv.len() == nb && oi.len() >= na + nb && ov.len() >= na + nb);
    let (pa, pav, pb, pbv) = (ai.as_ptr(), av.as_ptr(), bi.as_ptr(), bv.as_ptr());
    let (poi, pov) = (
        oi.as_mut_ptr().cast::<[i64; R]>(),
        ov.as_mut_ptr().cast::<T>(),
    );
    let (mut i, mut j, mut o) = (0usize, 0usize, 0usize);
    while i < na && j < nb {
        // SAFETY: `i < na` and `j < nb` index the inputs; `o <= i + j` (each step writes one
        // entry at most and consumes one at least), so the slots `o` and `o + 1` are below
        // `na + nb`, inside both outputs.
        unsafe {
            let (x, y) = (*pa.add(i), *pb.add(j));
            let (kx, ky) = (Keys::key(&x), Keys::key(&y));
            let (lt, gt) = (kx < ky, kx > ky);
            let (va, vb) = (*pav.add(i), *pbv.add(j));
            let s = va.plus(vb);
            // No selects (they compile to branches): later stores to a slot win.
            poi.add(o).write(x);
            poi.add(o + usize::from(!gt)).write(y);
            pov.add(o).write(va);
            pov.add(o + usize::from(!gt)).write(vb);
            pov.add(o + usize::from(lt | gt)).write(s);
            let keep = lt | gt | keep_sum(s, threshold);
            o += usize::from(keep);
            i += usize::from(!gt);
            j += usize::from(!lt);
        }
    }
    // SAFETY: the rest of one input (the other is done) goes to `o..`, which holds it: `o +
    // (na - i) + (nb - j) <= na + nb`; inputs and outputs are distinct allocations.
    unsafe {
        std::ptr::copy_nonoverlapping(pa.add(i), poi.add(o), na - i);
        std::ptr::copy_nonoverlapping(pav.add(i), pov.add(o), na - i);
        o += na - i;
        std::ptr::copy_nonoverlapping(pb.add(j), poi.add(o), nb - j);
        std::ptr::copy_nonoverlapping(pbv.add(j), pov.add(o), nb - j);
        o + (nb - j)
    }
}

/// Merges `a` and `b` backwards into the end of `oi`, `ov` (each exactly `a.len() + b.len()`
/// long): the same result as [`forward`] for canonical inputs, ending at the outputs' end;
/// returns the number of entries written (the last ones of the outputs).
#[inline(always)]
fn backward<const R: usize, T: Arith>(
    (ai, av): (&[[i64; R]], &[T]),
    (bi, bv): (&[[i64; R]], &[T]),
    threshold: f64,
    oi: &mut [MaybeUninit<[i64; R]>],
    ov: &mut [MaybeUninit<T>],
) -> usize
where
    Keys: RowKey<R>,
{
    let (na, nb) = (ai.len(), bi.len());
    let cap = na + nb;
    assert!(av.len() == na && bv.len() == nb && oi.len() == cap && ov.len() == cap);
    let (pa, pav, pb, pbv) = (ai.as_ptr(), av.as_ptr(), bi.as_ptr(), bv.as_ptr());
    let (poi, pov) = (
        oi.as_mut_ptr().cast::<[i64; R]>(),
        ov.as_mut_ptr().cast::<T>(),
    );
    // `i`, `j`: entries of each input left; `o`: the first slot written so far.
    let (mut i, mut j, mut o) = (na, nb, cap);
    while i > 0 && j > 0 {
        // SAFETY: `i - 1 < na`, `j - 1 < nb`; `o >= i + j >= 2` (each step writes one entry
        // at most and consumes one at least), so the slots `o - 1` and `o - 2` are inside the
        // outputs.
        unsafe {
            let (x, y) = (*pa.add(i - 1), *pb.add(j - 1));
            let (kx, ky) = (Keys::key(&x), Keys::key(&y));
            let (lt, gt) = (kx < ky, kx > ky);
            let (va, vb) = (*pav.add(i - 1), *pbv.add(j - 1));
            let s = va.plus(vb);
            // The larger key is taken: `b`'s when `lt`, else `a`'s (a sum when equal).
            poi.add(o - 1).write(y);
            poi.add(o - 1 - usize::from(lt)).write(x);
            pov.add(o - 1).write(vb);
            pov.add(o - 1 - usize::from(lt)).write(va);
            pov.add(o - 1 - usize::from(lt | gt)).write(s);
            let keep = lt | gt | keep_sum(s, threshold);
            o -= usize::from(keep);
            i -= usize::from(!lt);
            j -= usize::from(!gt);
        }
    }
    // SAFETY: the rest of one input (the other is done) ends at `o`, which has room: `o >= i
    // + j`; inputs and outputs are distinct allocations.
    unsafe {
        o -= i;
        std::ptr::copy_nonoverlapping(pa, poi.add(o), i);
        std::ptr::copy_nonoverlapping(pav, pov.add(o), i);
        o -= j;
        std::ptr::copy_nonoverlapping(pb, poi.add(o), j);
        std::ptr::copy_nonoverlapping(pbv, pov.add(o), j);
    }
    cap - o
}

#[cfg(test)]
mod tests {
    use super::super::arith::merge_dyn;
    use super::*;

    /// A small pseudo-random generator (tests only).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, m: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % m.max(1)
        }
    }

    /// `n` entries of rank `R` in a dense shape of `dims`, canonical (sorted, distinct) or
    /// not (shuffled, with repeats); values small integers and their negatives (so sums cancel
    /// to zero), with NaN and ±inf mixed in when `specials`.
    fn entries<const R: usize>(
        rng: &mut Rng,
        n: usize,
        dims: [u64; R],
        canonical: bool,
        specials: bool,
    ) -> (Vec<[i64; R]>, Vec<f64>) {
        let size: u64 = dims.iter().product();
        let mut keys: Vec<u64> = (0..n).map(|_| rng.below(size)).collect();
        if canonical {
            keys.sort_unstable();
            keys.dedup();
        }
        let rows = keys
            .iter()
            .map(|&k| {
                let mut row = [0i64; R];
                let mut rest = k;
                for d in (0..R).rev() {
                    row[d] = (rest % dims[d]) as i64;
                    rest /= dims[d];
                }
                row
            })
            .collect();
        let vals = keys
            .iter()
            .map(|_| match rng.below(if specials { 12 } else { 9 }) {
                9 => f64::NAN,
                10 => f64::INFINITY,
                11 => f64::NEG_INFINITY,
                v => v as f64 - 4.0,
            })
            .collect();
        (rows, vals)
    }

    /// The plain merge (the reference), as flat indices and values.
    fn reference<const R: usize>(
        a: &(Vec<[i64; R]>, Vec<f64>),
        b: &(Vec<[i64; R]>, Vec<f64>),
        threshold: f64,
    ) -> (Vec<i64>, Vec<f64>) {
        merge_dyn(
            R,
            a.0.as_flattened(),
            &a.1,
            b.0.as_flattened(),
            &b.1,
            threshold,
        )
    }

    /// Values equal, NaN equal to NaN.
    fn same(x: &[f64], y: &[f64]) -> bool {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()))
    }

    fn check<const R: usize>(
        a: &(Vec<[i64; R]>, Vec<f64>),
        b: &(Vec<[i64; R]>, Vec<f64>),
        canonical: bool,
        what: &str,
    ) where
        Keys: RowKey<R>,
    {
        for threshold in [0.0, 0.5, 2.5, f64::NAN] {
            let (want_i, want_v) = reference(a, b, threshold);
            // Sequential, and in halves from any size (a 2-thread pool, so that the halves
            // may run on two threads).
            for par_min in [usize::MAX, 0] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(2)
                    .build()
                    .unwrap();
                let (gi, gv) = pool.install(|| {
                    merge_with::<R, f64>((&a.0, &a.1), (&b.0, &b.1), threshold, canonical, par_min)
                });
                let gi = gi.as_standard_layout().iter().copied().collect::<Vec<_>>();
                let gv = gv.to_vec();
                assert_eq!(
                    gi, want_i,
                    "{what}: indices, threshold {threshold}, par_min {par_min}"
                );
                assert!(
                    same(&gv, &want_v),
                    "{what}: values, threshold {threshold}, par_min {par_min}: {gv:?} vs {want_v:?}"
                );
            }
        }
    }

    /// The branch-free merge, sequential and in halves, is the plain merge: ranks 1 and 2,
    /// either side empty, odd sizes, keys shared by both operands (sums cancelling to zero,
    /// thresholds, NaN and ±inf), and unordered input with repeats (sequential only).
    #[test]
    fn merge_is_the_plain_merge() {
        let mut rng = Rng(11);
        for round in 0..300 {
            let (na, nb) = (rng.below(40) as usize, rng.below(40) as usize);
            let na = if round % 17 == 0 { 0 } else { na };
            let nb = if round % 13 == 0 { 0 } else { nb };
            let specials = round % 3 == 0;
            // Small dense shapes make many shared keys.
            let d = 1 + rng.below(12);
            let a = entries::<2>(&mut rng, na, [d, 7], true, specials);
            let b = entries::<2>(&mut rng, nb, [d, 7], true, specials);
            check(&a, &b, true, &format!("rank 2, round {round}"));
            let a = entries::<1>(&mut rng, na, [d * 3], true, specials);
            let b = entries::<1>(&mut rng, nb, [d * 3], true, specials);
            check(&a, &b, true, &format!("rank 1, round {round}"));
            let a = entries::<2>(&mut rng, na, [d, 3], false, specials);
            let b = entries::<2>(&mut rng, nb, [d, 3], false, specials);
            check(&a, &b, false, &format!("rank 2 unordered, round {round}"));
        }
    }

    /// Both halves at every cut of small canonical lists give the whole merge: including cuts
    /// where the key at the cut is in both lists.
    #[test]
    fn every_cut_is_exact() {
        let mut rng = Rng(5);
        for round in 0..60 {
            let (na, nb) = (rng.below(30) as usize, rng.below(30) as usize);
            let a = entries::<2>(&mut rng, na, [4, 5], true, false);
            let b = entries::<2>(&mut rng, nb, [4, 5], true, false);
            let (want_i, want_v) = reference(&a, &b, 0.0);
            let cap = a.0.len() + b.0.len();
            for t in 0..=cap {
                let (i, j) = cut::<2>(&a.0, &b.0, t);
                assert!(i <= a.0.len() && j <= b.0.len());
                if i > 0 && j < b.0.len() {
                    assert!(a.0[i - 1] < b.0[j], "round {round}, t {t}");
                }
                if j > 0 && i < a.0.len() {
                    assert!(b.0[j - 1] < a.0[i], "round {round}, t {t}");
                }
                let mut oi = vec![MaybeUninit::new([0i64; 2]); cap];
                let mut ov = vec![MaybeUninit::new(0.0f64); cap];
                let (oi1, oi2) = oi.split_at_mut(i + j);
                let (ov1, ov2) = ov.split_at_mut(i + j);
                let n1 = backward::<2, f64>(
                    (&a.0[..i], &a.1[..i]),
                    (&b.0[..j], &b.1[..j]),
                    0.0,
                    oi1,
                    ov1,
                );
                let n2 = forward::<2, f64>(
                    (&a.0[i..], &a.1[i..]),
                    (&b.0[j..], &b.1[j..]),
                    0.0,
                    oi2,
                    ov2,
                );
                let range = i + j - n1..i + j + n2;
                // SAFETY: every slot was initialised by the `vec!` fill.
                let got_i: Vec<i64> = oi[range.clone()]
                    .iter()
                    .flat_map(|r| unsafe { r.assume_init() })
                    .collect();
                // SAFETY: as above.
                let got_v: Vec<f64> = ov[range]
                    .iter()
                    .map(|v| unsafe { v.assume_init() })
                    .collect();
                assert_eq!(got_i, want_i, "round {round}, t {t}");
                assert!(same(&got_v, &want_v), "round {round}, t {t}");
            }
        }
    }
}

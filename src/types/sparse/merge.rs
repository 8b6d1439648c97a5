//! The merge of `sparse + sparse` for ranks 1 and 2 (TensorFlow's `SparseAdd` step by step):
//! branch-free, into uninitialised output, and for canonical input in several independent
//! chains: two per core, on up to two cores.
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
//! **Chains.** A branch-free step still waits on the previous one: its loads need the cursors
//! the last comparison moved, so one merge runs at the latency of load, compare and add, far
//! below what a core can issue. Canonical inputs are therefore cut by binary search
//! (merge-path co-ranking, equal keys kept on one side) into pieces that merge independently:
//! around a pivot, one chain merges *backwards* up to it and one forwards from it, in the same
//! loop, so a core overlaps two chains; their outputs meet at the pivot whatever number of
//! equal keys each summed. With two cores the output is first cut in halves, each merged
//! around its own pivot on its own core (each core writes, and so page-faults, its own half);
//! the two blocks are then contiguous unless equal keys were summed (or dropped) between the
//! pivots, and then the smaller block moves by that many slots. The result starts at an
//! offset of the allocation (the slots before and after it are zeroed, and the arrays are
//! views past them).
//!
//! **Memory.** The output is not asked for huge pages (as the kernels' large outputs are):
//! with `madvise(MADV_HUGEPAGE)` the add ran anywhere from 1.6× faster to 3× slower from one
//! process to the next, against a steady time on 4 KiB pages (BENCHMARKS.md). The slow faults
//! wait on compaction of fragmented memory, or, in a VM whose balloon reports free 2 MiB blocks
//! to the host, on the host backing a reported block again.

use std::mem::MaybeUninit;

use super::element::Arith;
use crate::ndarray::{Array1, Array2, s};

/// Both lists together from this many entries merge in halves on two cores (when a second is
/// free).
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
/// in bounds (non-negative). Canonical inputs merge in chains, on two cores when large.
/// Returns the result's indices (`[n, R]`) and values.
pub(super) fn merge<const R: usize, T: Arith>(
    a: (&[[i64; R]], &[T]),
    b: (&[[i64; R]], &[T]),
    threshold: f64,
    canonical: bool,
) -> (Array2<i64>, Array1<T>)
where
    Keys: RowKey<R>,
{
    let cores = if a.0.len() + b.0.len() >= PAR_MIN_ENTRIES {
        rayon::current_num_threads().min(2)
    } else {
        1
    };
    merge_with::<R, T>(a, b, threshold, canonical, cores)
}

/// The merge on `cores` (1 or 2) cores; unordered input merges forwards in one chain.
fn merge_with<const R: usize, T: Arith>(
    a: (&[[i64; R]], &[T]),
    b: (&[[i64; R]], &[T]),
    threshold: f64,
    canonical: bool,
    cores: usize,
) -> (Array2<i64>, Array1<T>)
where
    Keys: RowKey<R>,
{
    let cap = a.0.len() + b.0.len();
    let mut idx: Vec<[i64; R]> = Vec::with_capacity(cap);
    let mut vals: Vec<T> = Vec::with_capacity(cap);
    let out = Out {
        idx: &mut idx.spare_capacity_mut()[..cap],
        vals: &mut vals.spare_capacity_mut()[..cap],
    };
    if !canonical {
        let n = Forward::new(a, b, threshold, out).run();
        // SAFETY: the forward merge initialised the first `n` slots of both.
        unsafe {
            idx.set_len(n);
            vals.set_len(n);
        }
        let indices = Array2::from_shape_vec((n, R), idx.into_flattened()).expect("n rows of R");
        return (indices, Array1::from(vals));
    }
    let Out { idx: oi, vals: ov } = out;
    let (start, end) = if cores < 2 {
        around(a, b, threshold, Out { idx: oi, vals: ov })
    } else {
        let (i, j) = cut::<R>(a.0, b.0, cap / 2);
        let m = i + j;
        let (oi1, oi2) = oi.split_at_mut(m);
        let (ov1, ov2) = ov.split_at_mut(m);
        let (left, right) = rayon::join(
            || {
                let a = (&a.0[..i], &a.1[..i]);
                let b = (&b.0[..j], &b.1[..j]);
                around(
                    a,
                    b,
                    threshold,
                    Out {
                        idx: oi1,
                        vals: ov1,
                    },
                )
            },
            || {
                let a = (&a.0[i..], &a.1[i..]);
                let b = (&b.0[j..], &b.1[j..]);
                around(
                    a,
                    b,
                    threshold,
                    Out {
                        idx: oi2,
                        vals: ov2,
                    },
                )
            },
        );
        let right = (m + right.0, m + right.1);
        close_gap(oi, ov, left, right)
    };
    // The slots around the result are zeroed so that the whole allocation is initialised (the
    // arrays own it and view the result).
    oi[..start].fill(MaybeUninit::new([0; R]));
    oi[end..].fill(MaybeUninit::new([0; R]));
    ov[..start].fill(MaybeUninit::new(T::default()));
    ov[end..].fill(MaybeUninit::new(T::default()));
    // SAFETY: the merges (and the move) initialised `[start, end)`, the fills the rest of the
    // `cap` slots.
    unsafe {
        idx.set_len(cap);
        vals.set_len(cap);
    }
    let indices = Array2::from_shape_vec((cap, R), idx.into_flattened()).expect("cap rows of R");
    (
        indices.slice_move(s![start..end, ..]),
        Array1::from(vals).slice_move(s![start..end]),
    )
}

/// The output slots of a merge: index rows and values, as many of each.
struct Out<'o, const R: usize, T> {
    idx: &'o mut [MaybeUninit<[i64; R]>],
    vals: &'o mut [MaybeUninit<T>],
}

/// Moves the smaller of two merged blocks of `oi`, `ov` (`left` before `right`, each an
/// initialised `[start, end)`) next to the other; returns the joined block.
fn close_gap<const R: usize, T: Copy>(
    oi: &mut [MaybeUninit<[i64; R]>],
    ov: &mut [MaybeUninit<T>],
    left: (usize, usize),
    right: (usize, usize),
) -> (usize, usize) {
    let gap = right.0 - left.1;
    if gap == 0 {
        return (left.0, right.1);
    }
    if left.1 - left.0 <= right.1 - right.0 {
        oi.copy_within(left.0..left.1, left.0 + gap);
        ov.copy_within(left.0..left.1, left.0 + gap);
        (left.0 + gap, right.1)
    } else {
        oi.copy_within(right.0..right.1, right.0 - gap);
        ov.copy_within(right.0..right.1, right.0 - gap);
        (left.0, right.1 - gap)
    }
}

/// Merges canonical `a` and `b` into `out` (exactly `a.len() + b.len()` slots) in two chains
/// in one loop, backwards up to the middle pivot and forwards from it; returns the written
/// `[start, end)`.
fn around<const R: usize, T: Arith>(
    a: (&[[i64; R]], &[T]),
    b: (&[[i64; R]], &[T]),
    threshold: f64,
    out: Out<'_, R, T>,
) -> (usize, usize)
where
    Keys: RowKey<R>,
{
    let cap = a.0.len() + b.0.len();
    let (i, j) = cut::<R>(a.0, b.0, cap / 2);
    let m = i + j;
    let (oi1, oi2) = out.idx.split_at_mut(m);
    let (ov1, ov2) = out.vals.split_at_mut(m);
    let mut low = Backward::new(
        (&a.0[..i], &a.1[..i]),
        (&b.0[..j], &b.1[..j]),
        threshold,
        Out {
            idx: oi1,
            vals: ov1,
        },
    );
    let mut high = Forward::new(
        (&a.0[i..], &a.1[i..]),
        (&b.0[j..], &b.1[j..]),
        threshold,
        Out {
            idx: oi2,
            vals: ov2,
        },
    );
    // Two independent chains in one loop, so that the core overlaps their latencies.
    while low.live() && high.live() {
        low.step();
        high.step();
    }
    (m - low.run(), m + high.run())
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

/// The inputs and output of one merge, their lengths checked: the bounds every step of
/// [`Forward`] and [`Backward`] relies on.
struct Chain<'a, 'o, const R: usize, T> {
    a: (&'a [[i64; R]], &'a [T]),
    b: (&'a [[i64; R]], &'a [T]),
    threshold: f64,
    out: Out<'o, R, T>,
}

impl<'a, 'o, const R: usize, T> Chain<'a, 'o, R, T> {
    fn new(
        a: (&'a [[i64; R]], &'a [T]),
        b: (&'a [[i64; R]], &'a [T]),
        threshold: f64,
        out: Out<'o, R, T>,
    ) -> Self {
        let (na, nb) = (a.0.len(), b.0.len());
        assert!(a.1.len() == na && b.1.len() == nb);
        assert!(out.idx.len() >= na + nb && out.vals.len() == out.idx.len());
        Chain {
            a,
            b,
            threshold,
            out,
        }
    }
}

/// A merge from the front into the start of its output (at least `a.len() + b.len()` slots).
struct Forward<'a, 'o, const R: usize, T> {
    c: Chain<'a, 'o, R, T>,
    /// Entries of `a` and `b` consumed, and slots written.
    i: usize,
    j: usize,
    o: usize,
}

impl<'a, 'o, const R: usize, T: Arith> Forward<'a, 'o, R, T>
where
    Keys: RowKey<R>,
{
    fn new(
        a: (&'a [[i64; R]], &'a [T]),
        b: (&'a [[i64; R]], &'a [T]),
        threshold: f64,
        out: Out<'o, R, T>,
    ) -> Self {
        Forward {
            c: Chain::new(a, b, threshold, out),
            i: 0,
            j: 0,
            o: 0,
        }
    }

    /// Whether both inputs have entries left (the steps' condition).
    #[inline(always)]
    fn live(&self) -> bool {
        self.i < self.c.a.0.len() && self.j < self.c.b.0.len()
    }

    /// One step of the merge; only while [`live`](Self::live).
    #[inline(always)]
    fn step(&mut self) {
        let (i, j, o) = (self.i, self.j, self.o);
        debug_assert!(self.live());
        let (poi, pov) = (
            self.c.out.idx.as_mut_ptr().cast::<[i64; R]>(),
            self.c.out.vals.as_mut_ptr().cast::<T>(),
        );
        // SAFETY: while live, `i < na` and `j < nb` index the inputs (whose lengths `new`
        // checked); `o <= i + j` (each step writes one entry at most and consumes one at
        // least), so the slots `o` and `o + 1` are below `na + nb`, inside both outputs.
        unsafe {
            let (x, y) = (*self.c.a.0.get_unchecked(i), *self.c.b.0.get_unchecked(j));
            let (kx, ky) = (Keys::key(&x), Keys::key(&y));
            let (lt, gt) = (kx < ky, kx > ky);
            let (va, vb) = (*self.c.a.1.get_unchecked(i), *self.c.b.1.get_unchecked(j));
            let s = va.plus(vb);
            // No selects (they compile to branches): later stores to a slot win.
            poi.add(o).write(x);
            poi.add(o + usize::from(!gt)).write(y);
            pov.add(o).write(va);
            pov.add(o + usize::from(!gt)).write(vb);
            pov.add(o + usize::from(lt | gt)).write(s);
            let keep = lt | gt | keep_sum(s, self.c.threshold);
            self.o = o + usize::from(keep);
            self.i = i + usize::from(!gt);
            self.j = j + usize::from(!lt);
        }
    }

    /// Runs the merge to its end: the steps left, then the rest of one input (the other is
    /// done) copied; returns the number of slots written.
    fn run(mut self) -> usize {
        while self.live() {
            self.step();
        }
        let (i, j, o) = (self.i, self.j, self.o);
        let (ra, rb) = (self.c.a.0.len() - i, self.c.b.0.len() - j);
        // `o + ra + rb <= na + nb`: the rest fits.
        let out = &mut self.c.out;
        out.idx[o..o + ra].write_copy_of_slice(&self.c.a.0[i..]);
        out.vals[o..o + ra].write_copy_of_slice(&self.c.a.1[i..]);
        out.idx[o + ra..o + ra + rb].write_copy_of_slice(&self.c.b.0[j..]);
        out.vals[o + ra..o + ra + rb].write_copy_of_slice(&self.c.b.1[j..]);
        o + ra + rb
    }
}

/// A merge from the back into the end of its output (at least `a.len() + b.len()` slots): the
/// same result as [`Forward`] for canonical inputs.
struct Backward<'a, 'o, const R: usize, T> {
    c: Chain<'a, 'o, R, T>,
    /// Entries of `a` and `b` left, and the first slot written so far.
    i: usize,
    j: usize,
    o: usize,
}

impl<'a, 'o, const R: usize, T: Arith> Backward<'a, 'o, R, T>
where
    Keys: RowKey<R>,
{
    fn new(
        a: (&'a [[i64; R]], &'a [T]),
        b: (&'a [[i64; R]], &'a [T]),
        threshold: f64,
        out: Out<'o, R, T>,
    ) -> Self {
        let c = Chain::new(a, b, threshold, out);
        let (i, j, o) = (c.a.0.len(), c.b.0.len(), c.out.idx.len());
        Backward { c, i, j, o }
    }

    /// Whether both inputs have entries left (the steps' condition).
    #[inline(always)]
    fn live(&self) -> bool {
        self.i > 0 && self.j > 0
    }

    /// One step of the merge; only while [`live`](Self::live).
    #[inline(always)]
    fn step(&mut self) {
        let (i, j, o) = (self.i, self.j, self.o);
        debug_assert!(self.live());
        let (poi, pov) = (
            self.c.out.idx.as_mut_ptr().cast::<[i64; R]>(),
            self.c.out.vals.as_mut_ptr().cast::<T>(),
        );
        // SAFETY: while live, `i - 1 < na` and `j - 1 < nb` index the inputs (whose lengths
        // `new` checked); `o >= i + j >= 2` (each step writes one entry at most and consumes
        // one at least), so the slots `o - 1` and `o - 2` are inside the outputs.
        unsafe {
            let (x, y) = (
                *self.c.a.0.get_unchecked(i - 1),
                *self.c.b.0.get_unchecked(j - 1),
            );
            let (kx, ky) = (Keys::key(&x), Keys::key(&y));
            let (lt, gt) = (kx < ky, kx > ky);
            let (va, vb) = (
                *self.c.a.1.get_unchecked(i - 1),
                *self.c.b.1.get_unchecked(j - 1),
            );
            let s = va.plus(vb);
            // The larger key is taken: `b`'s when `lt`, else `a`'s (a sum when equal).
            poi.add(o - 1).write(y);
            poi.add(o - 1 - usize::from(lt)).write(x);
            pov.add(o - 1).write(vb);
            pov.add(o - 1 - usize::from(lt)).write(va);
            pov.add(o - 1 - usize::from(lt | gt)).write(s);
            let keep = lt | gt | keep_sum(s, self.c.threshold);
            self.o = o - usize::from(keep);
            self.i = i - usize::from(!lt);
            self.j = j - usize::from(!gt);
        }
    }

    /// Runs the merge to its end: the steps left, then the rest of one input (the other is
    /// done) copied; returns the number of slots written (the last ones of the output).
    fn run(mut self) -> usize {
        while self.live() {
            self.step();
        }
        let (i, j, o) = (self.i, self.j, self.o);
        // `o >= i + j`: the rest fits below `o`.
        let out = &mut self.c.out;
        out.idx[o - i..o].write_copy_of_slice(&self.c.a.0[..i]);
        out.vals[o - i..o].write_copy_of_slice(&self.c.a.1[..i]);
        out.idx[o - i - j..o - i].write_copy_of_slice(&self.c.b.0[..j]);
        out.vals[o - i - j..o - i].write_copy_of_slice(&self.c.b.1[..j]);
        out.idx.len() - (o - i - j)
    }
}

/// The plain merge of two entry lists for any rank (the arithmetic's path for rank 0 and ranks
/// above 4, and the reference of the tests), summing equal indices and keeping a sum whose
/// magnitude reaches `threshold`.
pub(super) fn merge_dyn<T: Arith>(
    rank: usize,
    af: &[i64],
    av: &[T],
    bf: &[i64],
    bv: &[T],
    threshold: f64,
) -> (Vec<i64>, Vec<T>) {
    let (na, nb) = (av.len(), bv.len());
    let row = |k: usize| -> std::ops::Range<usize> { k * rank..(k + 1) * rank };
    let mut idx: Vec<i64> = Vec::with_capacity((na + nb) * rank);
    let mut vals: Vec<T> = Vec::with_capacity(na + nb);
    let (mut i, mut j) = (0, 0);
    while i < na && j < nb {
        match af[row(i)].cmp(&bf[row(j)]) {
            std::cmp::Ordering::Less => {
                idx.extend_from_slice(&af[row(i)]);
                vals.push(av[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                idx.extend_from_slice(&bf[row(j)]);
                vals.push(bv[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let s = av[i].plus(bv[j]);
                if s.magnitude() >= threshold {
                    idx.extend_from_slice(&af[row(i)]);
                    vals.push(s);
                }
                i += 1;
                j += 1;
            }
        }
    }
    idx.extend_from_slice(&af[i * rank..]);
    vals.extend_from_slice(&av[i..]);
    idx.extend_from_slice(&bf[j * rank..]);
    vals.extend_from_slice(&bv[j..]);
    (idx, vals)
}

#[cfg(test)]
mod tests {
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
            // The forward merge, and canonical inputs in chains on one core and on two (a
            // 2-thread pool, so that the halves may run on two threads).
            let ways = if canonical {
                &[(false, 1), (true, 1), (true, 2)][..]
            } else {
                &[(false, 1)][..]
            };
            for &(chains, cores) in ways {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(2)
                    .build()
                    .unwrap();
                let (gi, gv) = pool.install(|| {
                    merge_with::<R, f64>((&a.0, &a.1), (&b.0, &b.1), threshold, chains, cores)
                });
                let gi = gi.as_standard_layout().iter().copied().collect::<Vec<_>>();
                let gv = gv.to_vec();
                assert_eq!(
                    gi, want_i,
                    "{what}: indices, threshold {threshold}, chains {chains}, cores {cores}"
                );
                assert!(
                    same(&gv, &want_v),
                    "{what}: values, threshold {threshold}, chains {chains}, cores {cores}: {gv:?} vs {want_v:?}"
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
                let n1 = Backward::new(
                    (&a.0[..i], &a.1[..i]),
                    (&b.0[..j], &b.1[..j]),
                    0.0,
                    Out {
                        idx: oi1,
                        vals: ov1,
                    },
                )
                .run();
                let n2 = Forward::new(
                    (&a.0[i..], &a.1[i..]),
                    (&b.0[j..], &b.1[j..]),
                    0.0,
                    Out {
                        idx: oi2,
                        vals: ov2,
                    },
                )
                .run();
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

    /// The smaller block moves, either way, and the joined block holds both in order.
    #[test]
    fn close_gap_moves_the_smaller_block() {
        for (left, right, want) in [
            ((1, 3), (6, 10), (4, 10)),
            ((0, 5), (7, 9), (0, 7)),
            ((2, 4), (4, 8), (2, 8)),
        ] {
            let mut oi: Vec<MaybeUninit<[i64; 1]>> =
                (0..10).map(|k| MaybeUninit::new([k])).collect();
            let mut ov: Vec<MaybeUninit<f32>> =
                (0..10).map(|k| MaybeUninit::new(k as f32)).collect();
            let got = close_gap(&mut oi, &mut ov, left, right);
            assert_eq!(got, want);
            let expect: Vec<i64> = (left.0..left.1)
                .chain(right.0..right.1)
                .map(|k| k as i64)
                .collect();
            // SAFETY: every slot was initialised above.
            let idx: Vec<i64> = oi[got.0..got.1]
                .iter()
                .map(|r| unsafe { r.assume_init() }[0])
                .collect();
            // SAFETY: as above.
            let vals: Vec<f32> = ov[got.0..got.1]
                .iter()
                .map(|v| unsafe { v.assume_init() })
                .collect();
            assert_eq!(idx, expect);
            assert_eq!(vals, expect.iter().map(|&k| k as f32).collect::<Vec<_>>());
        }
    }
}

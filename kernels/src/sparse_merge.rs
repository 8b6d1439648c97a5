//! The sum of two sparse tensors in coordinate (COO) form: the merge of two entry lists (index
//! rows of rank `R`, one value each), entries at the same index summed and a sum kept when
//! `threshold <= |sum|` (TensorFlow's `SparseAdd`, step by step). [`add`] is the fast path,
//! [`add_reference`] the plain merge it is tested against (and the path of rank 0 and ranks
//! above [`MAX_FAST_RANK`]).
//!
//! **Keys.** An index row is compared as one integer of the same order: when the product of the
//! dense shape fits in a `u64`, its row-major offset (one multiply-add per axis, one compare);
//! otherwise rank 2 as one `u128` (the two indices side by side) and ranks 3 and 4 as arrays
//! (compared axis by axis). Both orders are the row-major order of in-bounds indices.
//!
//! **Branch-free.** Where two index lists interleave at random, a merge that branches on each
//! comparison mispredicts about every other entry. Here each step compares the two current keys
//! and writes without selecting: the row of `a`, then the row of `b` one slot further unless
//! `b`'s is the one taken (a later store to the same slot wins), and alike the values (`a`'s,
//! `b`'s, then the sum, which lands on the slot only for equal keys); the cursors advance by the
//! comparison flags. The extra stores land at most one slot past the step's own, which is inside
//! the output while both lists have entries left.
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
//! **Memory.** The output is allocated fallibly (a refusal is [`KernelError::TooLarge`]) and
//! not asked for huge pages (as the kernels' large outputs are): with `madvise(MADV_HUGEPAGE)`
//! the add ran anywhere from 1.6× faster to 3× slower from one process to the next, against a
//! steady time on 4 KiB pages (BENCHMARKS.md in the repository).

use std::cmp::Ordering;
use std::mem::MaybeUninit;

use ndarray::{Array1, Array2, s};

use crate::error::{KernelError, Result};
use crate::layout::refused;
use crate::parallel;

const OP: &str = "sparse add";

/// The highest rank [`add`] merges branch-free; higher ranks (and rank 0) take the plain merge.
pub const MAX_FAST_RANK: usize = 4;

/// Both lists together from this many entries merge in halves on two cores (when a second is
/// free). Below it the join and the second core's cache misses cost more than they save.
pub const PAR_MIN_ENTRIES: usize = 1 << 17;

/// The element types of a sparse sum: an addition (wrapping for integers, in `f32` rounded
/// once for the half floats) and a magnitude for the threshold. Implemented for every integer
/// width, `f32`, `f64`, `half::f16` and `half::bf16`; not for `bool`, which has no sparse sum
/// (TensorFlow registers no `SparseAdd` for it, and the callers refuse it first).
pub trait Summand: Copy + Send + Sync + Default + 'static {
    /// `self + other` (wrapping for integers; half floats in `f32`, rounded back once).
    fn plus(self, other: Self) -> Self;
    /// `|self|` as `f64`. For signed integers it wraps, as TensorFlow's `std::abs` does on
    /// x86: `|MIN|` is `MIN`, negative, so a sum that wraps to `MIN` is below every threshold
    /// from `MIN + 1` up (0 included) and is dropped.
    fn magnitude(self) -> f64;
}

macro_rules! summand_int {
    ($($t:ty => $abs:expr),*) => {$(
        impl Summand for $t {
            #[inline(always)]
            fn plus(self, o: $t) -> $t { self.wrapping_add(o) }
            #[inline(always)]
            #[allow(clippy::cast_lossless)]
            fn magnitude(self) -> f64 { $abs(self) as f64 }
        }
    )*};
}
summand_int!(i8 => i8::wrapping_abs, i16 => i16::wrapping_abs, i32 => i32::wrapping_abs,
    i64 => i64::wrapping_abs, u8 => std::convert::identity, u16 => std::convert::identity,
    u32 => std::convert::identity, u64 => std::convert::identity);

macro_rules! summand_float {
    ($($t:ty),*) => {$(
        impl Summand for $t {
            #[inline(always)]
            fn plus(self, o: $t) -> $t { self + o }
            #[inline(always)]
            fn magnitude(self) -> f64 { (self as f64).abs() }
        }
    )*};
}
summand_float!(f32, f64);

macro_rules! summand_half {
    ($($t:ty),*) => {$(
        impl Summand for $t {
            #[inline(always)]
            fn plus(self, o: $t) -> $t { <$t>::from_f32(self.to_f32() + o.to_f32()) }
            #[inline(always)]
            fn magnitude(self) -> f64 { self.to_f64().abs() }
        }
    )*};
}
summand_half!(half::f16, half::bf16);

/// Whether a sum at equal keys is kept: TensorFlow's `thresh <= abs(sum)`, false for a NaN
/// sum (or threshold), so a NaN sum is dropped even at threshold 0.
#[inline(always)]
fn keep_sum<T: Summand>(s: T, threshold: f64) -> bool {
    s.magnitude() >= threshold
}

/// One operand of a sparse sum: `values.len()` entries, the index row of entry `k` at
/// `indices[k * rank..(k + 1) * rank]` (a row-major `[n, rank]` array, flattened).
#[derive(Clone, Copy, Debug)]
pub struct Entries<'a, T> {
    /// The index rows, flattened.
    pub indices: &'a [i64],
    /// The values.
    pub values: &'a [T],
}

/// The index rows of `e` as arrays of `R`, checked against its values (`arg` names it).
fn rows<'a, const R: usize, T>(e: &Entries<'a, T>, arg: &'static str) -> Result<&'a [[i64; R]]> {
    let (rows, rest) = e.indices.as_chunks::<R>();
    if !rest.is_empty() || rows.len() != e.values.len() {
        return Err(lengths(arg, R, e));
    }
    Ok(rows)
}

/// The error of an operand whose indices are not `values.len()` rows of `rank`.
#[cold]
fn lengths<T>(arg: &'static str, rank: usize, e: &Entries<'_, T>) -> KernelError {
    KernelError::Argument {
        op: OP,
        arg,
        expected: format!(
            "{} indices ({} values, rank {rank})",
            e.values.len().saturating_mul(rank),
            e.values.len()
        ),
        found: format!("{} indices", e.indices.len()),
    }
}

/// `a + b` of two sparse tensors of dense shape `dense_shape` (its length is the rank): their
/// entries merged in their stored order, entries at equal indices summed, and a sum kept when
/// `threshold <= |sum|` (only sums: an entry of one operand alone is kept, explicit zeros and
/// NaN included; a NaN sum is dropped at any threshold). Returns the result's indices
/// (`[n, rank]`) and values.
///
/// `canonical` says both inputs are sorted in row-major order without repeated indices (the
/// result then is too): they merge in chains, on two cores when large. Otherwise the merge is
/// one forward pass, TensorFlow's for unordered input. The indices must lie inside
/// `dense_shape` and `canonical` must be true of the input, as the callers' constructors
/// check; input that breaks either is merged in an unspecified order (never unsafely, never a
/// panic). Indices that are not `values.len()` rows of the rank are [`KernelError::Argument`];
/// an output the allocator refuses is [`KernelError::TooLarge`].
///
/// ```
/// use extype_kernels::sparse_merge::{Entries, add};
/// let a = Entries { indices: &[0, 0, 1, 1], values: &[1.0f32, 2.0] };
/// let b = Entries { indices: &[0, 0, 1, 2], values: &[-1.0f32, 3.0] };
/// let (idx, vals) = add(&[2, 3], a, b, 0.0, true)?;
/// assert_eq!(idx, ndarray::array![[0i64, 0], [1, 1], [1, 2]]);
/// assert_eq!(vals, ndarray::array![0.0f32, 2.0, 3.0]);
/// let (_, vals) = add(&[2, 3], a, b, 0.5, true)?; // the sum 0 at [0, 0] is dropped
/// assert_eq!(vals, ndarray::array![2.0f32, 3.0]);
/// # Ok::<(), extype_kernels::KernelError>(())
/// ```
pub fn add<T: Summand>(
    dense_shape: &[usize],
    a: Entries<'_, T>,
    b: Entries<'_, T>,
    threshold: f64,
    canonical: bool,
) -> Result<(Array2<i64>, Array1<T>)> {
    let cores = if a.values.len() + b.values.len() >= PAR_MIN_ENTRIES {
        rayon::current_num_threads().min(2)
    } else {
        1
    };
    add_on(dense_shape, a, b, threshold, canonical, cores)
}

/// [`add`] on `cores` (1 or 2) cores.
fn add_on<T: Summand>(
    dense_shape: &[usize],
    a: Entries<'_, T>,
    b: Entries<'_, T>,
    threshold: f64,
    canonical: bool,
    cores: usize,
) -> Result<(Array2<i64>, Array1<T>)> {
    match dense_shape.len() {
        1 => keyed::<1, T>(dense_shape, a, b, threshold, canonical, cores),
        2 => keyed::<2, T>(dense_shape, a, b, threshold, canonical, cores),
        3 => keyed::<3, T>(dense_shape, a, b, threshold, canonical, cores),
        4 => keyed::<4, T>(dense_shape, a, b, threshold, canonical, cores),
        rank => {
            let (idx, vals) = add_reference(rank, a, b, threshold)?;
            let n = vals.len();
            let idx = Array2::from_shape_vec((n, rank), idx).expect("n rows of rank entries");
            Ok((idx, Array1::from(vals)))
        }
    }
}

/// The merge of rank `R` with the cheapest key the dense shape allows.
fn keyed<const R: usize, T: Summand>(
    dense_shape: &[usize],
    a: Entries<'_, T>,
    b: Entries<'_, T>,
    threshold: f64,
    canonical: bool,
    cores: usize,
) -> Result<(Array2<i64>, Array1<T>)>
where
    Wide: RowKey<R>,
{
    let (ra, rb) = (
        rows::<R, T>(&a, "argument 0")?,
        rows::<R, T>(&b, "argument 1")?,
    );
    let a = (ra, a.values);
    let b = (rb, b.values);
    match Linear::<R>::of(dense_shape) {
        Some(linear) => merge(linear, a, b, threshold, canonical, cores),
        None => merge(Wide, a, b, threshold, canonical, cores),
    }
}

/// An index row as one value of the same order (the row-major order of in-bounds indices).
pub(crate) trait RowKey<const R: usize>: Copy + Send + Sync {
    /// The key type.
    type Key: Ord + Copy;
    /// The key of `row`.
    fn key(&self, row: &[i64; R]) -> Self::Key;
}

/// The row-major offset in a dense shape whose size fits in a `u64`: `strides[R - 1] = 1`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Linear<const R: usize> {
    strides: [u64; R],
}

impl<const R: usize> Linear<R> {
    /// The row-major strides of `shape` (of rank `R`), or `None` when its size exceeds `u64`.
    fn of(shape: &[usize]) -> Option<Self> {
        let mut strides = [1u64; R];
        let mut size = 1u64;
        for axis in (0..R).rev() {
            strides[axis] = size;
            size = size.checked_mul(*shape.get(axis)? as u64)?;
        }
        Some(Linear { strides })
    }
}

impl<const R: usize> RowKey<R> for Linear<R> {
    type Key = u64;
    #[inline(always)]
    fn key(&self, row: &[i64; R]) -> u64 {
        // The last stride is 1: no multiply for it (nor any for rank 1). Wrapping: indices
        // out of bounds give some order, never a panic.
        let mut k = row[R - 1] as u64;
        for (&x, &stride) in row[..R - 1].iter().zip(&self.strides[..R - 1]) {
            k = k.wrapping_add((x as u64).wrapping_mul(stride));
        }
        k
    }
}

/// The keys of dense shapes whose size exceeds `u64`: rank 2 as one `u128`, ranks 3 and 4 as
/// arrays of `u64` (ordered axis by axis).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wide;

impl RowKey<1> for Wide {
    type Key = u64;
    #[inline(always)]
    fn key(&self, row: &[i64; 1]) -> u64 {
        row[0] as u64
    }
}

impl RowKey<2> for Wide {
    type Key = u128;
    #[inline(always)]
    fn key(&self, row: &[i64; 2]) -> u128 {
        ((row[0] as u64 as u128) << 64) | row[1] as u64 as u128
    }
}

impl RowKey<3> for Wide {
    type Key = [u64; 3];
    #[inline(always)]
    fn key(&self, row: &[i64; 3]) -> [u64; 3] {
        row.map(|x| x as u64)
    }
}

impl RowKey<4> for Wide {
    type Key = [u64; 4];
    #[inline(always)]
    fn key(&self, row: &[i64; 4]) -> [u64; 4] {
        row.map(|x| x as u64)
    }
}

/// An operand of the merge: its index rows and values, as many of each.
type Side<'a, const R: usize, T> = (&'a [[i64; R]], &'a [T]);

/// The merge of `a` and `b` (lengths checked) on `cores` (1 or 2) cores; unordered input
/// merges forwards in one chain.
fn merge<const R: usize, T: Summand, K: RowKey<R>>(
    keys: K,
    a: Side<'_, R, T>,
    b: Side<'_, R, T>,
    threshold: f64,
    canonical: bool,
    cores: usize,
) -> Result<(Array2<i64>, Array1<T>)> {
    let cap = a.0.len() + b.0.len();
    let mut idx: Vec<[i64; R]> = Vec::new();
    let mut vals: Vec<T> = Vec::new();
    idx.try_reserve_exact(cap)
        .map_err(|_| refused::<i64>(OP, &[cap, R]))?;
    vals.try_reserve_exact(cap)
        .map_err(|_| refused::<T>(OP, &[cap]))?;
    let out = Out {
        idx: &mut idx.spare_capacity_mut()[..cap],
        vals: &mut vals.spare_capacity_mut()[..cap],
    };
    if !canonical {
        let n = Forward::new(keys, a, b, threshold, out).run();
        // SAFETY: the forward merge initialised the first `n` slots of both (`n <= cap`).
        unsafe {
            idx.set_len(n);
            vals.set_len(n);
        }
        let indices = Array2::from_shape_vec((n, R), idx.into_flattened()).expect("n rows of R");
        return Ok((indices, Array1::from(vals)));
    }
    let Out { idx: oi, vals: ov } = out;
    let (start, end) = if cores < 2 {
        around(keys, a, b, threshold, Out { idx: oi, vals: ov })
    } else {
        let (i, j) = cut(keys, a.0, b.0, cap / 2);
        let m = i + j;
        let (oi1, oi2) = oi.split_at_mut(m);
        let (ov1, ov2) = ov.split_at_mut(m);
        let (left, right) = parallel::join(
            || {
                let a = (&a.0[..i], &a.1[..i]);
                let b = (&b.0[..j], &b.1[..j]);
                around(
                    keys,
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
                    keys,
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
    Ok((
        indices.slice_move(s![start..end, ..]),
        Array1::from(vals).slice_move(s![start..end]),
    ))
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
fn around<const R: usize, T: Summand, K: RowKey<R>>(
    keys: K,
    a: Side<'_, R, T>,
    b: Side<'_, R, T>,
    threshold: f64,
    out: Out<'_, R, T>,
) -> (usize, usize) {
    let cap = a.0.len() + b.0.len();
    let (i, j) = cut(keys, a.0, b.0, cap / 2);
    let m = i + j;
    let (oi1, oi2) = out.idx.split_at_mut(m);
    let (ov1, ov2) = out.vals.split_at_mut(m);
    let mut low = Backward::new(
        keys,
        (&a.0[..i], &a.1[..i]),
        (&b.0[..j], &b.1[..j]),
        threshold,
        Out {
            idx: oi1,
            vals: ov1,
        },
    );
    let mut high = Forward::new(
        keys,
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
fn cut<const R: usize, K: RowKey<R>>(
    keys: K,
    a: &[[i64; R]],
    b: &[[i64; R]],
    t: usize,
) -> (usize, usize) {
    let (na, nb) = (a.len(), b.len());
    let t = t.min(na + nb);
    let (mut lo, mut hi) = (t.saturating_sub(nb), t.min(na));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // `mid < hi <= min(t, na)` and `mid >= lo >= t - nb`, so `0 <= t - mid - 1 < nb`.
        if keys.key(&a[mid]) <= keys.key(&b[t - mid - 1]) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let (i, mut j) = (lo, t - lo);
    if i > 0 && j < nb && keys.key(&a[i - 1]) == keys.key(&b[j]) {
        j += 1;
    }
    (i, j)
}

/// The inputs and output of one merge, their lengths checked: the bounds every step of
/// [`Forward`] and [`Backward`] relies on.
struct Chain<'a, 'o, const R: usize, T, K> {
    keys: K,
    a: Side<'a, R, T>,
    b: Side<'a, R, T>,
    threshold: f64,
    out: Out<'o, R, T>,
}

impl<'a, 'o, const R: usize, T, K> Chain<'a, 'o, R, T, K> {
    fn new(
        keys: K,
        a: Side<'a, R, T>,
        b: Side<'a, R, T>,
        threshold: f64,
        out: Out<'o, R, T>,
    ) -> Self {
        let (na, nb) = (a.0.len(), b.0.len());
        // Invariants of every caller (the entry point checked the lengths, the splits keep
        // them); checked once per chain, as the steps' `unsafe` relies on them.
        assert!(
            a.1.len() == na && b.1.len() == nb,
            "rows and values of a chain"
        );
        assert!(
            out.idx.len() >= na + nb && out.vals.len() == out.idx.len(),
            "output slots of a chain"
        );
        Chain {
            keys,
            a,
            b,
            threshold,
            out,
        }
    }
}

/// A merge from the front into the start of its output (at least `a.len() + b.len()` slots).
struct Forward<'a, 'o, const R: usize, T, K> {
    c: Chain<'a, 'o, R, T, K>,
    /// Entries of `a` and `b` consumed, and slots written.
    i: usize,
    j: usize,
    o: usize,
}

impl<'a, 'o, const R: usize, T: Summand, K: RowKey<R>> Forward<'a, 'o, R, T, K> {
    fn new(
        keys: K,
        a: Side<'a, R, T>,
        b: Side<'a, R, T>,
        threshold: f64,
        out: Out<'o, R, T>,
    ) -> Self {
        Forward {
            c: Chain::new(keys, a, b, threshold, out),
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
            let (kx, ky) = (self.c.keys.key(&x), self.c.keys.key(&y));
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
struct Backward<'a, 'o, const R: usize, T, K> {
    c: Chain<'a, 'o, R, T, K>,
    /// Entries of `a` and `b` left, and the first slot written so far.
    i: usize,
    j: usize,
    o: usize,
}

impl<'a, 'o, const R: usize, T: Summand, K: RowKey<R>> Backward<'a, 'o, R, T, K> {
    fn new(
        keys: K,
        a: Side<'a, R, T>,
        b: Side<'a, R, T>,
        threshold: f64,
        out: Out<'o, R, T>,
    ) -> Self {
        let c = Chain::new(keys, a, b, threshold, out);
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
            let (kx, ky) = (self.c.keys.key(&x), self.c.keys.key(&y));
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

/// The plain merge of two entry lists of any rank (index rows compared axis by axis as
/// signed integers), summing equal indices and keeping a sum whose magnitude reaches
/// `threshold`: the reference of [`add`], and its path for rank 0 and ranks above
/// [`MAX_FAST_RANK`]. Returns the result's indices (flattened, `rank` per entry) and values.
/// Indices that are not `values.len()` rows of `rank` are [`KernelError::Argument`].
///
/// ```
/// use extype_kernels::sparse_merge::{Entries, add_reference};
/// let a = Entries { indices: &[0, 1, 2], values: &[1i32, 2, 3] };
/// let b = Entries { indices: &[1, 3], values: &[-2i32, 4] };
/// let (idx, vals) = add_reference(1, a, b, 1.0)?; // the sum 0 at [1] is dropped
/// assert_eq!((idx, vals), (vec![0, 2, 3], vec![1, 3, 4]));
/// # Ok::<(), extype_kernels::KernelError>(())
/// ```
pub fn add_reference<T: Summand>(
    rank: usize,
    a: Entries<'_, T>,
    b: Entries<'_, T>,
    threshold: f64,
) -> Result<(Vec<i64>, Vec<T>)> {
    for (e, arg) in [(&a, "argument 0"), (&b, "argument 1")] {
        if e.values.len().checked_mul(rank) != Some(e.indices.len()) {
            return Err(lengths(arg, rank, e));
        }
    }
    let (af, av, bf, bv) = (a.indices, a.values, b.indices, b.values);
    let (na, nb) = (av.len(), bv.len());
    let row = |k: usize| -> std::ops::Range<usize> { k * rank..(k + 1) * rank };
    let (mut idx, mut vals) = (Vec::new(), Vec::new());
    idx.try_reserve_exact((na + nb) * rank)
        .map_err(|_| refused::<i64>(OP, &[na + nb, rank]))?;
    vals.try_reserve_exact(na + nb)
        .map_err(|_| refused::<T>(OP, &[na + nb]))?;
    let (mut i, mut j) = (0, 0);
    while i < na && j < nb {
        match af[row(i)].cmp(&bf[row(j)]) {
            Ordering::Less => {
                idx.extend_from_slice(&af[row(i)]);
                vals.push(av[i]);
                i += 1;
            }
            Ordering::Greater => {
                idx.extend_from_slice(&bf[row(j)]);
                vals.push(bv[j]);
                j += 1;
            }
            Ordering::Equal => {
                let s = av[i].plus(bv[j]);
                if keep_sum(s, threshold) {
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
    Ok((idx, vals))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `n` entries of a dense shape `dims`, canonical (sorted, distinct) or not (repeats, any
    /// order), from `picks` (offsets into the dense shape) and `vals`.
    fn entries(dims: &[u64], picks: &[u64], canonical: bool) -> Vec<i64> {
        let size: u64 = dims.iter().product();
        let mut keys: Vec<u64> = picks.iter().map(|&k| k % size.max(1)).collect();
        if canonical {
            keys.sort_unstable();
            keys.dedup();
        }
        let mut idx = Vec::with_capacity(keys.len() * dims.len());
        for &k in &keys {
            let mut row = vec![0i64; dims.len()];
            let mut rest = k;
            for d in (0..dims.len()).rev() {
                row[d] = (rest % dims[d]) as i64;
                rest /= dims[d];
            }
            idx.extend(row);
        }
        idx
    }

    /// Values: small integers and their negatives (sums cancel to zero), NaN and ±inf mixed in.
    fn value(code: u8) -> f64 {
        match code % 12 {
            9 => f64::NAN,
            10 => f64::INFINITY,
            11 => f64::NEG_INFINITY,
            v => v as f64 - 4.0,
        }
    }

    /// Values equal, NaN equal to NaN.
    fn same(x: &[f64], y: &[f64]) -> bool {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()))
    }

    /// Every way [`add`] can merge (one core or two, chains or one pass; the keys the shape
    /// picks, and the wide keys) gives the reference's entries.
    fn check(dims: &[u64], a: (&[i64], &[f64]), b: (&[i64], &[f64]), canonical: bool) {
        let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let (a, b) = (
            Entries {
                indices: a.0,
                values: a.1,
            },
            Entries {
                indices: b.0,
                values: b.1,
            },
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for threshold in [0.0, 0.5, 2.5, f64::NAN] {
            let (want_i, want_v) = add_reference(shape.len(), a, b, threshold).unwrap();
            let ways = if canonical {
                &[(false, 1), (true, 1), (true, 2)][..]
            } else {
                &[(false, 1)][..]
            };
            for &(chains, cores) in ways {
                let got = pool
                    .install(|| add_on(&shape, a, b, threshold, chains, cores))
                    .unwrap();
                let what = format!(
                    "shape {shape:?}, threshold {threshold}, chains {chains}, cores {cores}"
                );
                assert_eq!(
                    got.0.iter().copied().collect::<Vec<_>>(),
                    want_i,
                    "{what}: indices"
                );
                assert!(
                    same(&got.1.to_vec(), &want_v),
                    "{what}: values {:?} vs {want_v:?}",
                    got.1
                );
                if (1..=MAX_FAST_RANK).contains(&shape.len()) {
                    let wide = pool
                        .install(|| wide_on(&shape, a, b, threshold, chains, cores))
                        .unwrap();
                    assert_eq!(wide.0, got.0, "{what}: wide keys, indices");
                    assert!(same(&wide.1.to_vec(), &want_v), "{what}: wide keys, values");
                }
            }
        }
    }

    /// The merge of ranks 1 to 4 with the wide keys, whatever the shape's size.
    fn wide_on(
        shape: &[usize],
        a: Entries<'_, f64>,
        b: Entries<'_, f64>,
        threshold: f64,
        canonical: bool,
        cores: usize,
    ) -> Result<(Array2<i64>, Array1<f64>)> {
        fn on<const R: usize>(
            a: Entries<'_, f64>,
            b: Entries<'_, f64>,
            threshold: f64,
            canonical: bool,
            cores: usize,
        ) -> Result<(Array2<i64>, Array1<f64>)>
        where
            Wide: RowKey<R>,
        {
            let (ra, rb) = (rows::<R, f64>(&a, "a")?, rows::<R, f64>(&b, "b")?);
            merge(
                Wide,
                (ra, a.values),
                (rb, b.values),
                threshold,
                canonical,
                cores,
            )
        }
        match shape.len() {
            1 => on::<1>(a, b, threshold, canonical, cores),
            2 => on::<2>(a, b, threshold, canonical, cores),
            3 => on::<3>(a, b, threshold, canonical, cores),
            _ => on::<4>(a, b, threshold, canonical, cores),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// The fast merge is the plain merge: ranks 0 to 5, either side empty, keys shared by
        /// both operands (sums cancelling to zero, thresholds, NaN and ±inf), canonical and
        /// unordered input with repeats.
        #[test]
        fn add_is_the_reference(
            dims in prop::collection::vec(1u64..6, 0..=5),
            pa in prop::collection::vec(any::<u64>(), 0..40),
            pb in prop::collection::vec(any::<u64>(), 0..40),
            codes in prop::collection::vec(any::<u8>(), 80),
            canonical in any::<bool>(),
        ) {
            let (ia, ib) = (entries(&dims, &pa, canonical), entries(&dims, &pb, canonical));
            let rank = dims.len().max(1);
            // Rank 0: every entry has the one (empty) index; canonical input has one at most.
            let count = |picks: &[u64], idx: &[i64]| match (dims.is_empty(), canonical) {
                (true, true) => picks.len().min(1),
                (true, false) => picks.len(),
                (false, _) => idx.len() / rank,
            };
            let (na, nb) = (count(&pa, &ia), count(&pb, &ib));
            let va: Vec<f64> = codes[..na].iter().map(|&c| value(c)).collect();
            let vb: Vec<f64> = codes[40..40 + nb].iter().map(|&c| value(c)).collect();
            check(&dims, (&ia, &va), (&ib, &vb), canonical);
        }

        /// Large canonical inputs (several chains and a two-core cut) merge exactly.
        #[test]
        fn large_inputs_are_the_reference(seed in any::<u64>(), rows in 1u64..200) {
            let dims = [rows, 37];
            let mut x = seed | 1;
            let mut next = || { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x };
            let pa: Vec<u64> = (0..3000).map(|_| next()).collect();
            let pb: Vec<u64> = (0..2000).map(|_| next()).collect();
            let (ia, ib) = (entries(&dims, &pa, true), entries(&dims, &pb, true));
            let va: Vec<f64> = (0..ia.len() / 2).map(|k| value(k as u8)).collect();
            let vb: Vec<f64> = (0..ib.len() / 2).map(|k| value((k * 7) as u8)).collect();
            check(&dims, (&ia, &va), (&ib, &vb), true);
        }
    }

    /// Both halves at every cut of small canonical lists give the whole merge: including cuts
    /// where the key at the cut is in both lists.
    #[test]
    fn every_cut_is_exact() {
        let dims = [4u64, 5];
        for round in 0..60u64 {
            let pa: Vec<u64> = (0..(round % 23)).map(|k| k * 7 + round).collect();
            let pb: Vec<u64> = (0..(round % 17)).map(|k| k * 3 + 2 * round).collect();
            let (fa, fb) = (entries(&dims, &pa, true), entries(&dims, &pb, true));
            let (ra, rb) = (fa.as_chunks::<2>().0, fb.as_chunks::<2>().0);
            let va: Vec<f64> = (0..ra.len()).map(|k| k as f64 - 3.0).collect();
            let vb: Vec<f64> = (0..rb.len()).map(|k| 3.0 - k as f64).collect();
            let a = Entries {
                indices: &fa,
                values: &va,
            };
            let b = Entries {
                indices: &fb,
                values: &vb,
            };
            let (want_i, want_v) = add_reference(2, a, b, 0.0).unwrap();
            let cap = ra.len() + rb.len();
            let keys = Linear::<2>::of(&[4, 5]).unwrap();
            for t in 0..=cap {
                let (i, j) = cut(keys, ra, rb, t);
                assert!(i <= ra.len() && j <= rb.len());
                if i > 0 && j < rb.len() {
                    assert!(ra[i - 1] < rb[j], "round {round}, t {t}");
                }
                if j > 0 && i < ra.len() {
                    assert!(rb[j - 1] < ra[i], "round {round}, t {t}");
                }
                let mut oi = vec![MaybeUninit::new([0i64; 2]); cap];
                let mut ov = vec![MaybeUninit::new(0.0f64); cap];
                let (oi1, oi2) = oi.split_at_mut(i + j);
                let (ov1, ov2) = ov.split_at_mut(i + j);
                let n1 = Backward::new(
                    keys,
                    (&ra[..i], &va[..i]),
                    (&rb[..j], &vb[..j]),
                    0.0,
                    Out {
                        idx: oi1,
                        vals: ov1,
                    },
                )
                .run();
                let n2 = Forward::new(
                    keys,
                    (&ra[i..], &va[i..]),
                    (&rb[j..], &vb[j..]),
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

    /// The keys: the row-major offset where the shape's size fits in `u64`, the wide keys
    /// where it does not; both in row-major order.
    #[test]
    fn keys_follow_row_major_order() {
        let linear = Linear::<3>::of(&[4, 5, 6]).unwrap();
        assert_eq!(linear.key(&[1, 2, 3]), 30 + 12 + 3);
        assert_eq!(linear.key(&[3, 4, 5]), 119);
        assert!(Linear::<2>::of(&[1 << 33, 1 << 30]).is_some());
        assert!(Linear::<2>::of(&[1 << 33, 1 << 31]).is_none());
        assert!(Linear::<1>::of(&[usize::MAX]).is_some());
        assert!(Wide.key(&[1i64, 0]) > Wide.key(&[0i64, i64::MAX]));
        // A shape too large for a linear key merges with the wide keys.
        let huge = [1usize << 40, 1 << 40];
        let a = Entries {
            indices: &[0, 5, (1 << 39), 0],
            values: &[1.0f32, 2.0],
        };
        let b = Entries {
            indices: &[0, 5, (1 << 40) - 1, (1 << 40) - 1],
            values: &[1.0f32, 4.0],
        };
        let (idx, vals) = add(&huge, a, b, 0.0, true).unwrap();
        assert_eq!(
            idx,
            ndarray::array![[0i64, 5], [1 << 39, 0], [(1 << 40) - 1, (1 << 40) - 1]]
        );
        assert_eq!(vals, ndarray::array![2.0f32, 2.0, 4.0]);
    }

    /// Indices that are not one row per value are an error naming the operand, never a panic.
    #[test]
    fn mismatched_lengths_are_errors() {
        let good = Entries {
            indices: &[0, 1, 1, 0],
            values: &[1.0f32, 2.0],
        };
        let short = Entries {
            indices: &[0, 1, 1],
            values: &[1.0f32, 2.0],
        };
        let extra = Entries {
            indices: &[0, 1, 1, 0],
            values: &[1.0f32, 2.0, 3.0],
        };
        for rank_shape in [&[2usize, 2][..], &[1, 2, 2, 1, 1]] {
            let (x, y) = if rank_shape.len() == 2 {
                (short, good)
            } else {
                (good, short)
            };
            let e = add(rank_shape, x, y, 0.0, true).unwrap_err();
            assert!(
                matches!(
                    e,
                    KernelError::Argument {
                        op: "sparse add",
                        ..
                    }
                ),
                "{e}"
            );
        }
        let e = add(&[2, 2], good, extra, 0.0, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "sparse add: argument 1: expected 6 indices (3 values, rank 2), found 4 indices"
        );
        let e = add_reference(2, short, good, 0.0).unwrap_err();
        assert!(e.to_string().contains("argument 0"), "{e}");
    }

    /// Out-of-bounds or unsorted input marked canonical is merged in some order, never a
    /// panic: the number of entries is still at most the inputs'.
    #[test]
    fn broken_promises_do_not_panic() {
        let a = Entries {
            indices: &[9, -3, 1, 1, 0, 0],
            values: &[1i32, 2, 3],
        };
        let b = Entries {
            indices: &[5, 0, -1, 7],
            values: &[1i32, 2],
        };
        for cores in [1, 2] {
            for canonical in [true, false] {
                let (idx, vals) = add_on(&[2, 2], a, b, 0.0, canonical, cores).unwrap();
                assert!(vals.len() <= 5 && idx.nrows() == vals.len());
            }
        }
    }

    /// The element types' sums and magnitudes: wrapping integers (a signed `MIN` has a
    /// negative magnitude), half floats rounded once.
    #[test]
    fn summands() {
        assert_eq!(i8::MAX.plus(1), i8::MIN);
        assert_eq!(i8::MIN.magnitude(), -128.0);
        assert_eq!(200u8.plus(100), 44);
        assert_eq!(
            half::f16::from_f32(1.0)
                .plus(half::f16::from_f32(2.0))
                .to_f32(),
            3.0
        );
        assert_eq!(half::bf16::from_f32(-2.5).magnitude(), 2.5);
        assert!(!keep_sum(f32::NAN, 0.0));
        let a = Entries {
            indices: &[0, 1],
            values: &[i16::MIN, 5],
        };
        let b = Entries {
            indices: &[0, 1],
            values: &[0i16, -5],
        };
        // |MIN + 0| wraps negative: dropped at threshold 0, as is nothing else but it.
        let (idx, vals) = add(&[2], a, b, 0.0, true).unwrap();
        assert_eq!(
            (idx.iter().copied().collect::<Vec<_>>(), vals.to_vec()),
            (vec![1], vec![0])
        );
    }
}

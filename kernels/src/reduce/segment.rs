//! Segment reductions over ragged row splits, as TensorFlow's `RaggedTensor` reductions over
//! the ragged axis: rows `row_splits[i]..row_splits[i + 1]` of `values` (along axis 0) reduce
//! to output row `i`, so an input of shape `[n, …]` gives `[row_splits.len() - 1, …]`.
//!
//! `row_splits` must start at 0, never decrease and end at `values.shape()[0]`; anything else
//! is a [`KernelError::RowSplits`]. Empty segments sum to 0, have NaN mean, and are an error
//! for max/min (NumPy: max of nothing is an error).

use ndarray::{ArrayBase, ArrayD, ArrayViewD, Axis, Data, Dimension, IxDyn, Slice};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};

use super::axes::AxesPlan;
use super::full::empty;
use super::tree::tree_serial;
use super::{MaxR, MinR, Reducer, SHORT, SumR};
use crate::elementwise::engine::{build_vec_chunked, or_alloc_error};
use crate::error::{KernelError, Result};
use crate::layout::check_output;
use crate::parallel::PAR_CHUNK_ELEMS;
use crate::scalar::Num;
use crate::simd::{Kernel, Simd, dispatch, prefetch};

/// Checks `row_splits` against `values` and returns them as `usize`.
pub fn validate_row_splits(
    op: &'static str,
    row_splits: &[i64],
    nrows: usize,
) -> Result<Vec<usize>> {
    check_row_splits(op, row_splits, nrows)?;
    Ok(row_splits.iter().map(|&s| s as usize).collect())
}

/// The ends of `row_splits` only: at least one split, the first 0, the last `nrows` (the
/// errors of [`check_row_splits`]).
fn check_ends(op: &'static str, row_splits: &[i64], nrows: usize) -> Result<()> {
    match (row_splits.first(), row_splits.last()) {
        (Some(0), Some(&last)) if last as u64 == nrows as u64 => Ok(()),
        _ => check_row_splits(op, row_splits, nrows),
    }
}

/// [`validate_row_splits`] without building the `usize` copy (the kernels read the checked
/// `i64`s directly: they are non-negative, so `as usize` is exact).
pub(crate) fn check_row_splits(op: &'static str, row_splits: &[i64], nrows: usize) -> Result<()> {
    let bad = |expected: String, found: String| KernelError::RowSplits {
        op,
        expected,
        found,
    };
    let Some(&first) = row_splits.first() else {
        return Err(bad("at least one split (0)".into(), "an empty list".into()));
    };
    if first != 0 {
        return Err(bad(
            "row_splits[0] == 0".into(),
            format!("row_splits[0] == {first}"),
        ));
    }
    // Branch-free scan first (vectorisable); locate the offending pair only on failure.
    if row_splits
        .windows(2)
        .fold(false, |bad, w| bad | (w[1] < w[0]))
    {
        let i = row_splits.windows(2).position(|w| w[1] < w[0]).unwrap_or(0) + 1;
        return Err(bad(
            "non-decreasing splits".into(),
            format!(
                "row_splits[{i}] == {} < row_splits[{}] == {}",
                row_splits[i],
                i - 1,
                row_splits[i - 1]
            ),
        ));
    }
    let last = row_splits[row_splits.len() - 1];
    if last as u64 != nrows as u64 {
        return Err(bad(
            format!("last split == number of rows ({nrows})"),
            format!("row_splits[{}] == {last}", row_splits.len() - 1),
        ));
    }
    Ok(())
}

/// Reduces every segment of a contiguous 1-D array straight into the output (`finish` maps
/// each partial result and segment length to an output): many segments per dispatch, groups
/// of segments in parallel when the input is large.
///
/// The splits are checked here, in the same pass: `None` when a row is not a range of `xs`
/// (a split decreases or lies outside `0..=xs.len()`); the caller then names the fault. Such a
/// row reads nothing. With `splits[0] == 0` and the last split `== xs.len()` (checked by the
/// caller), rows that are all ranges of `xs` are exactly valid splits.
fn flat_segments<T, R, O, F>(r: R, xs: &[T], splits: &[i64], finish: F) -> Option<Vec<O>>
where
    T: Copy + Sync,
    R: Reducer<T>,
    O: Send,
    F: Fn(R::Acc, usize) -> O + Copy + Sync,
{
    // Segments are short and so is their reduction, so the hardware's stream prefetcher alone
    // leaves DRAM latency exposed (measured at 64 Mi with 100-element segments: 8 GB/s against
    // 25 GB/s for a plain sum); fetch each cache line `AHEAD` bytes early.
    const AHEAD: usize = 4096;
    /// The distance of the grouped form (see there).
    const GROUP_AHEAD: usize = 2048;
    struct Segments<'a, T, R, O, F> {
        r: R,
        xs: &'a [T],
        splits: &'a [i64],
        dst: &'a mut [MaybeUninit<O>],
        finish: F,
    }
    impl<T: Copy, R: Reducer<T>, O, F: Fn(R::Acc, usize) -> O> Kernel for Segments<'_, T, R, O, F> {
        /// Whether every row was a range of `xs`.
        type Output = bool;
        #[inline(always)]
        fn run<S: Simd>(self) -> bool {
            let Segments {
                r,
                xs,
                splits,
                dst,
                finish,
            } = self;
            // Groups run several times faster than single rows, so the data must arrive
            // sooner, but not so early that it is evicted or crowds the fill buffers: 2 KiB
            // ahead (about two groups) measured best for rows of 0–32 `f32` (1, 2 and 4 KiB
            // tried, 1–2 KiB best, under load; see BENCHMARKS.md in the repository).
            let ahead = GROUP_AHEAD / size_of::<T>();
            let line = (64 / size_of::<T>()).max(1);
            let n = xs.len() as u64;
            let mut fetched = splits.first().map_or(0, |&s| (s as u64).min(n) as usize);
            let mut ok = true;
            // Plain loops, not `map`: a closure would not be reliably inlined into the
            // target-feature wrapper, and the leaf must be compiled inside it.
            let mut i = 0;
            // Groups of 16 short rows in one call where the reducer has a grouped form (each
            // row's result exactly its `short` one); else, and for a group with a long or
            // faulty row, row by row.
            while let Some(group) = splits.get(i..i + 17) {
                let Ok(group) = <&[i64; 17]>::try_from(group) else {
                    break;
                };
                let end = (group[16] as u64).min(n) as usize;
                while fetched < end + ahead {
                    prefetch(xs.as_ptr().wrapping_add(fetched));
                    fetched += line;
                }
                let dst = &mut dst[i..i + 16];
                match r.short16::<S>(xs, group) {
                    Some(accs) => {
                        for (k, (d, acc)) in dst.iter_mut().zip(accs).enumerate() {
                            d.write(finish(acc, (group[k + 1] - group[k]) as usize));
                        }
                    }
                    None => {
                        for (d, w) in dst.iter_mut().zip(group.windows(2)) {
                            ok &= one_row::<S, T, R, O, F>(r, xs, w, d, &finish, &mut fetched);
                        }
                    }
                }
                i += 16;
            }
            for (d, w) in dst[i..].iter_mut().zip(splits[i..].windows(2)) {
                ok &= one_row::<S, T, R, O, F>(r, xs, w, d, &finish, &mut fetched);
            }
            ok
        }
    }
    /// One row `w[0]..w[1]` into `d`, fetching ahead (`fetched`: the next line to fetch);
    /// `false` (and `d` given the identity's output) if the row is not a range of `xs`.
    #[inline(always)]
    fn one_row<S: Simd, T: Copy, R: Reducer<T>, O, F: Fn(R::Acc, usize) -> O>(
        r: R,
        xs: &[T],
        w: &[i64],
        d: &mut MaybeUninit<O>,
        finish: &F,
        fetched: &mut usize,
    ) -> bool {
        let (a, b) = (w[0], w[1]);
        if !(0 <= a && a <= b && b as u64 <= xs.len() as u64) {
            // Not a range of `xs`: the caller reports it; every output must be initialised
            // all the same.
            d.write(finish(r.identity(), 0));
            return false;
        }
        let (a, b) = (a as usize, b as usize);
        let (ahead, line) = (AHEAD / size_of::<T>(), (64 / size_of::<T>()).max(1));
        while *fetched < b + ahead {
            prefetch(xs.as_ptr().wrapping_add(*fetched));
            *fetched += line;
        }
        let seg = &xs[a..b];
        let acc = if seg.len() < SHORT {
            r.short::<S>(seg)
        } else {
            tree_serial::<S, T, R>(r, seg, None)
        };
        d.write(finish(acc, b - a));
        true
    }
    let nseg = splits.len() - 1;
    let ok = AtomicBool::new(true);
    // Parallel chunks of segments covering about PAR_CHUNK_ELEMS elements each on average
    // (a multiple of 16 segments, the groups of the grouped form).
    let per_chunk = (nseg * PAR_CHUNK_ELEMS / xs.len().max(1))
        .next_multiple_of(16)
        .clamp(1, nseg.max(1));
    // A reduction: split at the reductions' threshold (`build_vec_chunked` halves its bytes).
    let out = build_vec_chunked(nseg, per_chunk, 2 * size_of_val(xs), |start, dst| {
        let splits = &splits[start..=start + dst.len()];
        if !dispatch(Segments {
            r,
            xs,
            splits,
            dst,
            finish,
        }) {
            ok.store(false, Ordering::Relaxed);
        }
    });
    let out = or_alloc_error::<_, O>(out, nseg);
    ok.into_inner().then_some(out)
}

/// `empty_op`: `Some(op)` for reductions whose empty segments are an error (max, min).
fn segment_reduce<T, R, O, S, D>(
    op: &'static str,
    r: R,
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
    empty_op: Option<&'static str>,
    finish: impl Fn(R::Acc, usize) -> O + Copy + Sync,
) -> Result<ArrayD<O>>
where
    T: Num,
    R: Reducer<T>,
    O: Send,
    S: Data<Elem = T>,
    D: Dimension,
{
    let xs: ArrayViewD<'_, T> = values.view().into_dyn();
    if xs.ndim() == 0 {
        return Err(KernelError::Argument {
            op,
            arg: "argument 0",
            expected: "rank >= 1 (segments run along axis 0)".into(),
            found: "a rank-0 array".into(),
        });
    }
    let flat = xs.as_slice().filter(|_| xs.ndim() == 1);
    // The flat path of sum and mean checks each row in its own pass (see `flat_segments`):
    // only the ends here. Everything else checks the splits first.
    if flat.is_some() && empty_op.is_none() {
        check_ends(op, row_splits, xs.shape()[0])?;
    } else {
        check_row_splits(op, row_splits, xs.shape()[0])?;
    }
    if let Some(empty_op) = empty_op
        && row_splits.windows(2).fold(false, |e, w| e | (w[0] == w[1]))
    {
        let seg = row_splits
            .windows(2)
            .position(|w| w[0] == w[1])
            .unwrap_or(0);
        return Err(empty(empty_op, &format!(" in segment {seg}")));
    }
    let nseg = row_splits.len() - 1;
    let mut shape = xs.shape().to_vec();
    shape[0] = nseg;
    // The output, in the widest accumulator (8 bytes), must be allocatable.
    check_output::<u64>(op, &shape)?;
    if let Some(flat) = flat {
        let Some(out) = flat_segments(r, flat, row_splits, finish) else {
            // A row was not a range of the values: the full check names the first fault.
            check_row_splits(op, row_splits, xs.shape()[0])?;
            // Not reached: with both ends right, a row that is not a range of the values means
            // a decreasing split, which the check above reports.
            return Err(KernelError::RowSplits {
                op,
                expected: format!("rows within the {} values", xs.shape()[0]),
                found: "a row outside them".into(),
            });
        };
        return Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("one output per segment"));
    }
    let mut out = Vec::with_capacity(shape.iter().product());
    for w in row_splits.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        let sub = xs.slice_axis(Axis(0), Slice::from(a..b));
        let plan = AxesPlan::new(op, sub, None, &[0])?;
        for acc in plan.reduce(r).into_iter() {
            out.push(finish(acc, b - a));
        }
    }
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("one output per segment and inner index"))
}

/// Each segment folded with `combine`, in row order from `init` (which an empty segment gives):
/// the fold of element types and operations the vectorised reductions do not cover (a
/// wrapping product of `i8`, `any`/`all` of `bool`), elementwise over the inner axes. The
/// scalar reference of a segment reduction: one pass, rows in order.
///
/// ```
/// use extype_kernels::reduce::segment::segment_fold;
/// let x = ndarray::array![[true, false], [true, true], [false, false]];
/// let any = segment_fold("any", &x, &[0, 2, 2, 3], false, |a, b| a || b).unwrap();
/// assert_eq!(any, ndarray::array![[true, true], [false, false], [false, false]].into_dyn());
/// let prod = segment_fold("prod", &ndarray::array![3i8, 100, 2], &[0, 2, 3], 1, i8::wrapping_mul);
/// assert_eq!(prod.unwrap(), ndarray::array![44i8, 2].into_dyn());
/// ```
pub fn segment_fold<T: Copy, S: Data<Elem = T>, D: Dimension>(
    op: &'static str,
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
    init: T,
    combine: impl Fn(T, T) -> T,
) -> Result<ArrayD<T>> {
    let xs = values.view().into_dyn();
    let Some(&nrows) = xs.shape().first() else {
        return Err(KernelError::RowSplits {
            op,
            expected: "values of rank 1 or more".into(),
            found: "a rank-0 array".into(),
        });
    };
    check_row_splits(op, row_splits, nrows)?;
    let mut shape = vec![row_splits.len() - 1];
    shape.extend_from_slice(&xs.shape()[1..]);
    check_output::<T>(op, &shape)?;
    let mut out = ArrayD::from_elem(IxDyn(&shape), init);
    for (i, mut row) in out.axis_iter_mut(Axis(0)).enumerate() {
        // Checked above: the splits are non-decreasing and end at `nrows`.
        for j in row_splits[i] as usize..row_splits[i + 1] as usize {
            row.zip_mut_with(&xs.index_axis(Axis(0), j), |a, &b| *a = combine(*a, b));
        }
    }
    Ok(out)
}

/// Sum of each segment (0 for an empty segment).
pub fn segment_sum<T: Num, S: Data<Elem = T>, D: Dimension>(
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
) -> Result<ArrayD<T::Wide>> {
    segment_reduce("segment_sum", SumR, values, row_splits, None, |a, _| {
        T::sum_finish(a)
    })
}

/// Mean of each segment (NaN for an empty segment).
pub fn segment_mean<T: Num, S: Data<Elem = T>, D: Dimension>(
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
) -> Result<ArrayD<T::Real>> {
    segment_reduce("segment_mean", SumR, values, row_splits, None, |a, n| {
        T::mean_finish(a, n)
    })
}

/// Maximum of each segment; NaN propagates; an empty segment is an error.
pub fn segment_max<T: Num, S: Data<Elem = T>, D: Dimension>(
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
) -> Result<ArrayD<T>> {
    let op = "segment_max";
    segment_reduce(op, MaxR, values, row_splits, Some(op), |a, _| a)
}

/// Minimum of each segment; NaN propagates; an empty segment is an error.
pub fn segment_min<T: Num, S: Data<Elem = T>, D: Dimension>(
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
) -> Result<ArrayD<T>> {
    let op = "segment_min";
    segment_reduce(op, MinR, values, row_splits, Some(op), |a, _| a)
}

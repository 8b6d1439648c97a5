//! Segment reductions over ragged row splits, as TensorFlow's `RaggedTensor` reductions over
//! the ragged axis: rows `row_splits[i]..row_splits[i + 1]` of `values` (along axis 0) reduce
//! to output row `i`, so an input of shape `[n, …]` gives `[row_splits.len() - 1, …]`.
//!
//! `row_splits` must start at 0, never decrease and end at `values.shape()[0]`; anything else
//! is a [`KernelError::RowSplits`]. Empty segments sum to 0, have NaN mean, and are an error
//! for max/min (NumPy: max of nothing is an error).

use ndarray::{ArrayBase, ArrayD, ArrayViewD, Axis, Data, Dimension, IxDyn, Slice};
use rayon::prelude::*;

use super::axes::AxesPlan;
use super::full::empty;
use super::tree::tree_serial;
use super::{MaxR, MinR, Reducer, SumR};
use crate::element::Num;
use crate::error::{KernelError, Result};
use crate::parallel::{PAR_CHUNK_ELEMS, use_parallel};
use crate::simd::{Kernel, Simd, dispatch};

/// Checks `row_splits` against `values` and returns them as `usize`.
pub fn validate_row_splits(
    op: &'static str,
    row_splits: &[i64],
    nrows: usize,
) -> Result<Vec<usize>> {
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
    let mut out = Vec::with_capacity(row_splits.len());
    let mut prev = 0i64;
    for (i, &s) in row_splits.iter().enumerate() {
        if s < prev {
            return Err(bad(
                "non-decreasing splits".into(),
                format!("row_splits[{i}] == {s} < row_splits[{}] == {prev}", i - 1),
            ));
        }
        prev = s;
        out.push(s as usize);
    }
    if prev as u64 != nrows as u64 {
        return Err(bad(
            format!("last split == number of rows ({nrows})"),
            format!("row_splits[{}] == {prev}", row_splits.len() - 1),
        ));
    }
    Ok(out)
}

/// Reduces every segment of a contiguous 1-D array: many segments per dispatch, groups of
/// segments in parallel when the input is large.
fn flat_segments<T: Copy + Sync, R: Reducer<T>>(r: R, xs: &[T], splits: &[usize]) -> Vec<R::Acc> {
    struct Segments<'a, T, R> {
        r: R,
        xs: &'a [T],
        splits: &'a [usize],
    }
    impl<T: Copy, R: Reducer<T>> Kernel for Segments<'_, T, R> {
        type Output = Vec<R::Acc>;
        #[inline(always)]
        fn run<S: Simd>(self) -> Vec<R::Acc> {
            let Segments { r, xs, splits } = self;
            // A plain loop, not `map`: a closure would not be reliably inlined into the
            // target-feature wrapper, and the leaf must be compiled inside it.
            let mut out = Vec::with_capacity(splits.len().saturating_sub(1));
            for w in splits.windows(2) {
                out.push(tree_serial::<S, T, R>(r, &xs[w[0]..w[1]], None));
            }
            out
        }
    }
    // Group consecutive segments into tasks of at least PAR_CHUNK_ELEMS elements.
    let mut groups = Vec::new();
    let mut first = 0;
    for i in 1..splits.len() {
        if splits[i] - splits[first] >= PAR_CHUNK_ELEMS || i == splits.len() - 1 {
            groups.push((first, i));
            first = i;
        }
    }
    let run = |&(a, b): &(usize, usize)| {
        dispatch(Segments {
            r,
            xs,
            splits: &splits[a..=b],
        })
    };
    let parts: Vec<Vec<R::Acc>> = if groups.len() > 1 && use_parallel(size_of_val(xs)) {
        groups.par_iter().map(run).collect()
    } else {
        groups.iter().map(run).collect()
    };
    parts.into_iter().flatten().collect()
}

fn segment_reduce<T, R, O, S, D>(
    op: &'static str,
    r: R,
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
    finish: impl Fn(R::Acc, usize, usize) -> Result<O>,
) -> Result<ArrayD<O>>
where
    T: Num,
    R: Reducer<T>,
    S: Data<Elem = T>,
    D: Dimension,
{
    let xs: ArrayViewD<'_, T> = values.view().into_dyn();
    if xs.ndim() == 0 {
        return Err(KernelError::Argument {
            op,
            arg: "values",
            expected: "rank >= 1 (segments run along axis 0)".into(),
            found: "a rank-0 array".into(),
        });
    }
    let splits = validate_row_splits(op, row_splits, xs.shape()[0])?;
    let nseg = splits.len() - 1;
    let mut shape = xs.shape().to_vec();
    shape[0] = nseg;
    let mut out = Vec::with_capacity(shape.iter().product());
    if let Some(flat) = xs.as_slice().filter(|_| xs.ndim() == 1) {
        for (seg, (acc, w)) in flat_segments(r, flat, &splits)
            .into_iter()
            .zip(splits.windows(2))
            .enumerate()
        {
            out.push(finish(acc, w[1] - w[0], seg)?);
        }
        return Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("one output per segment"));
    }
    for (seg, w) in splits.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        let sub = xs.slice_axis(Axis(0), Slice::from(a..b));
        let plan = AxesPlan::new(op, sub, None, &[0])?;
        for acc in plan.reduce(r).into_iter() {
            out.push(finish(acc, b - a, seg)?);
        }
    }
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("one output per segment and inner index"))
}

/// Sum of each segment (0 for an empty segment).
pub fn segment_sum<T: Num, S: Data<Elem = T>, D: Dimension>(
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
) -> Result<ArrayD<T::Wide>> {
    segment_reduce("segment_sum", SumR, values, row_splits, |a, _, _| {
        Ok(T::sum_finish(a))
    })
}

/// Mean of each segment (NaN for an empty segment).
pub fn segment_mean<T: Num, S: Data<Elem = T>, D: Dimension>(
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
) -> Result<ArrayD<T::Real>> {
    segment_reduce("segment_mean", SumR, values, row_splits, |a, n, _| {
        Ok(T::mean_finish(a, n))
    })
}

/// Maximum of each segment; NaN propagates; an empty segment is an error.
pub fn segment_max<T: Num, S: Data<Elem = T>, D: Dimension>(
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
) -> Result<ArrayD<T>> {
    segment_reduce("segment_max", MaxR, values, row_splits, |a, n, seg| {
        if n == 0 {
            Err(empty("segment_max", &format!(" in segment {seg}")))
        } else {
            Ok(a)
        }
    })
}

/// Minimum of each segment; NaN propagates; an empty segment is an error.
pub fn segment_min<T: Num, S: Data<Elem = T>, D: Dimension>(
    values: &ArrayBase<S, D>,
    row_splits: &[i64],
) -> Result<ArrayD<T>> {
    segment_reduce("segment_min", MinR, values, row_splits, |a, n, seg| {
        if n == 0 {
            Err(empty("segment_min", &format!(" in segment {seg}")))
        } else {
            Ok(a)
        }
    })
}

//! Reductions: over all elements and over axes ([`full`]), masked ([`masked`]) and over ragged
//! segments ([`segment`]).
//!
//! Every reduction is a `Reducer` (crate-internal): an identity, a vectorised body for a contiguous leaf of at
//! most [`LEAF`] elements, a step for strided elements, and a combine. Leaves are combined by a
//! pairwise tree whose shape depends only on the number of leaves, so serial, parallel and
//! every SIMD path give bit-identical results.

pub mod axes;
pub mod full;
mod hooks;
pub(crate) mod lanes;
pub mod masked;
pub mod segment;
pub(crate) mod tree;

use crate::scalar::{Num, Scalar};
use crate::simd::Simd;

/// Elements per leaf of the pairwise tree. 4096 `f32` = 64 rows of the 64 virtual lanes: big
/// enough that the per-leaf horizontal fold costs little, small enough that each lane adds at
/// most 64 (f32) or 128 (f64) terms sequentially.
pub const LEAF: usize = 4096;

/// Segments shorter than this take the reducer's `short` path: for float sums, 16 lanes (element `i`
/// to lane `i % 16`, each lane sequential, then a pairwise fold), instead of a 64-lane leaf
/// whose fixed cost (tail, rotation, 6-level fold) dominates a 100-element segment.
pub const SHORT: usize = 256;

/// A reduction, split into the pieces the tree and the strided paths need.
pub(crate) trait Reducer<T>: Copy + Send + Sync {
    /// Partial result.
    type Acc: Copy + Send + Sync;
    /// The partial result of no elements.
    fn identity(self) -> Self::Acc;
    /// Reduces a contiguous run of at most [`LEAF`] elements (the vectorised body).
    fn leaf<S: Simd>(self, xs: &[T]) -> Self::Acc;
    /// Reduces the elements of a contiguous run where `mask` is true.
    fn leaf_masked<S: Simd>(self, xs: &[T], mask: &[bool]) -> Self::Acc;
    /// Reduces a short contiguous run (fewer than [`SHORT`] elements, e.g. one segment of a
    /// ragged batch) with a cheaper fixed algorithm, the same on every backend. Default: the
    /// leaf.
    #[inline(always)]
    fn short<S: Simd>(self, xs: &[T]) -> Self::Acc {
        self.leaf::<S>(xs)
    }
    /// [`short`](Reducer::short) of 16 consecutive rows at once, row `k` being
    /// `xs[splits[k]..splits[k + 1]]`, with the same result per row; `None` when there is no
    /// grouped form or a row is not a range of `xs` of at most 32 elements (the caller then
    /// reduces row by row). Default: `None`.
    #[inline(always)]
    fn short16<S: Simd>(self, xs: &[T], splits: &[i64; 17]) -> Option<[Self::Acc; 16]> {
        let _ = (xs, splits);
        None
    }
    /// Adds one element.
    fn step(self, acc: Self::Acc, x: T) -> Self::Acc;
    /// Combines two partial results (left then right).
    fn combine(self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
}

/// Sum (NumPy: integers widen to 64 bits and wrap).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SumR;
impl<T: Num> Reducer<T> for SumR {
    type Acc = T::SumAcc;
    #[inline(always)]
    fn identity(self) -> T::SumAcc {
        T::sum_identity()
    }
    #[inline(always)]
    fn leaf<S: Simd>(self, xs: &[T]) -> T::SumAcc {
        T::sum_leaf::<S>(xs)
    }
    #[inline(always)]
    fn leaf_masked<S: Simd>(self, xs: &[T], mask: &[bool]) -> T::SumAcc {
        T::sum_leaf_masked::<S>(xs, mask)
    }
    #[inline(always)]
    fn short<S: Simd>(self, xs: &[T]) -> T::SumAcc {
        T::sum_short::<S>(xs)
    }
    #[inline(always)]
    fn short16<S: Simd>(self, xs: &[T], splits: &[i64; 17]) -> Option<[T::SumAcc; 16]> {
        T::sum_short16::<S>(xs, splits)
    }
    #[inline(always)]
    fn step(self, acc: T::SumAcc, x: T) -> T::SumAcc {
        T::sum_step(acc, x)
    }
    #[inline(always)]
    fn combine(self, a: T::SumAcc, b: T::SumAcc) -> T::SumAcc {
        T::sum_combine(a, b)
    }
}

/// Product (in the widened type, wrapping for integers).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProdR;
impl<T: Num> Reducer<T> for ProdR {
    type Acc = T::Wide;
    #[inline(always)]
    fn identity(self) -> T::Wide {
        <T::Wide as Num>::ONE
    }
    #[inline(always)]
    fn leaf<S: Simd>(self, xs: &[T]) -> T::Wide {
        T::prod_leaf::<S>(xs)
    }
    #[inline(always)]
    fn leaf_masked<S: Simd>(self, xs: &[T], mask: &[bool]) -> T::Wide {
        xs.iter()
            .zip(mask)
            .fold(<Self as Reducer<T>>::identity(self), |a, (&x, &m)| {
                if m { a.mul_(x.widen()) } else { a }
            })
    }
    #[inline(always)]
    fn step(self, acc: T::Wide, x: T) -> T::Wide {
        acc.mul_(x.widen())
    }
    #[inline(always)]
    fn combine(self, a: T::Wide, b: T::Wide) -> T::Wide {
        a.mul_(b)
    }
}

/// Maximum; NaN propagates.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MaxR;
impl<T: Num> Reducer<T> for MaxR {
    type Acc = T;
    #[inline(always)]
    fn identity(self) -> T {
        T::LOWEST
    }
    #[inline(always)]
    fn leaf<S: Simd>(self, xs: &[T]) -> T {
        T::max_leaf::<S>(xs)
    }
    #[inline(always)]
    fn leaf_masked<S: Simd>(self, xs: &[T], mask: &[bool]) -> T {
        T::max_leaf_masked::<S>(xs, mask)
    }
    #[inline(always)]
    fn step(self, acc: T, x: T) -> T {
        T::max_step(acc, x)
    }
    #[inline(always)]
    fn combine(self, a: T, b: T) -> T {
        T::max_step(a, b)
    }
}

/// Minimum; NaN propagates.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MinR;
impl<T: Num> Reducer<T> for MinR {
    type Acc = T;
    #[inline(always)]
    fn identity(self) -> T {
        T::HIGHEST
    }
    #[inline(always)]
    fn leaf<S: Simd>(self, xs: &[T]) -> T {
        T::min_leaf::<S>(xs)
    }
    #[inline(always)]
    fn leaf_masked<S: Simd>(self, xs: &[T], mask: &[bool]) -> T {
        T::min_leaf_masked::<S>(xs, mask)
    }
    #[inline(always)]
    fn step(self, acc: T, x: T) -> T {
        T::min_step(acc, x)
    }
    #[inline(always)]
    fn combine(self, a: T, b: T) -> T {
        T::min_step(a, b)
    }
}

/// Number of non-zero elements (also `any` = count > 0, `all` = count == n).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CountNonzeroR;
impl<T: Scalar> Reducer<T> for CountNonzeroR {
    type Acc = usize;
    #[inline(always)]
    fn identity(self) -> usize {
        0
    }
    #[inline(always)]
    fn leaf<S: Simd>(self, xs: &[T]) -> usize {
        xs.iter().map(|x| x.is_nonzero() as usize).sum()
    }
    #[inline(always)]
    fn leaf_masked<S: Simd>(self, xs: &[T], mask: &[bool]) -> usize {
        xs.iter()
            .zip(mask)
            .map(|(x, &m)| (m && x.is_nonzero()) as usize)
            .sum()
    }
    #[inline(always)]
    fn step(self, acc: usize, x: T) -> usize {
        acc + x.is_nonzero() as usize
    }
    #[inline(always)]
    fn combine(self, a: usize, b: usize) -> usize {
        a + b
    }
}

/// Number of true mask elements (the values are ignored): the masked `count`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CountMaskR;
impl<T: Scalar> Reducer<T> for CountMaskR {
    type Acc = usize;
    #[inline(always)]
    fn identity(self) -> usize {
        0
    }
    #[inline(always)]
    fn leaf<S: Simd>(self, xs: &[T]) -> usize {
        xs.len()
    }
    #[inline(always)]
    fn leaf_masked<S: Simd>(self, _xs: &[T], mask: &[bool]) -> usize {
        mask.iter().map(|&m| m as usize).sum()
    }
    #[inline(always)]
    fn step(self, acc: usize, _x: T) -> usize {
        acc + 1
    }
    #[inline(always)]
    fn combine(self, a: usize, b: usize) -> usize {
        a + b
    }
}

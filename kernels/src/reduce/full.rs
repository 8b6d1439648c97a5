//! Reductions over every element of an array of any layout and rank.
//!
//! NumPy semantics: the sum of nothing is 0 and its mean NaN; max/min/argmax/argmin of nothing
//! are errors; NaN propagates through max/min and argmax/argmin return the first NaN; integer
//! sums and products widen like NumPy's (`i32 → i64`, `u8 → u64`) and wrap.

use ndarray::{ArrayBase, ArrayViewD, Data, Dimension};

use super::tree::{reduce_slice, reduce_view};
use super::{CountNonzeroR, LEAF, MaxR, MinR, ProdR, Reducer, SumR};
use crate::error::{KernelError, Result};
use crate::scalar::{Num, Scalar};
use crate::simd::Simd;

/// Reduces every element: contiguous arrays (any memory order) go straight to the slice
/// tree, skipping the dynamic-dimension view machinery (measurable on small inputs).
fn reduce_all<T: Copy + Sync, R: Reducer<T>, S: Data<Elem = T>, D: Dimension>(
    r: R,
    a: &ArrayBase<S, D>,
) -> R::Acc {
    match a.as_slice_memory_order() {
        Some(s) => reduce_slice(r, s, None),
        None => reduce_view(r, a.view().into_dyn(), None),
    }
}

/// Sum of all elements (accurate pairwise tree for floats; see the crate docs for the bound).
pub fn sum<T: Num, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> T::Wide {
    T::sum_finish(reduce_all(SumR, a))
}

/// Mean of all elements (NaN when empty; `f64` for integer input).
pub fn mean<T: Num, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> T::Real {
    T::mean_finish(reduce_all(SumR, a), a.len())
}

/// Product of all elements (1 when empty).
pub fn prod<T: Num, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> T::Wide {
    reduce_all(ProdR, a)
}

/// Maximum; NaN if any element is NaN; an error when empty.
pub fn max<T: Num, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> Result<T> {
    if a.is_empty() {
        return Err(empty("max", ""));
    }
    Ok(reduce_all(MaxR, a))
}

/// Minimum; NaN if any element is NaN; an error when empty.
pub fn min<T: Num, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> Result<T> {
    if a.is_empty() {
        return Err(empty("min", ""));
    }
    Ok(reduce_all(MinR, a))
}

/// Whether any element is non-zero (NaN counts as non-zero). A contiguous array (any memory
/// order) is scanned block by block and the scan stops at the first non-zero block.
pub fn any<T: Scalar, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> bool {
    match a.as_slice_memory_order() {
        Some(xs) => first_match(xs, |x: T| x.is_nonzero()).is_some(),
        None => count_nonzero(a) > 0,
    }
}

/// Whether every element is non-zero (true when empty). A contiguous array stops at the first
/// block holding a zero.
pub fn all<T: Scalar, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> bool {
    match a.as_slice_memory_order() {
        Some(xs) => first_match(xs, |x: T| !x.is_nonzero()).is_none(),
        None => count_nonzero(a) == a.len(),
    }
}

/// Number of non-zero elements.
pub fn count_nonzero<T: Scalar, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> usize {
    reduce_all(CountNonzeroR, a)
}

/// Flat index (C order of the logical shape) of the first maximum, or of the first NaN.
pub fn argmax<T: Num, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> Result<usize> {
    arg_extreme(a.view().into_dyn(), true).ok_or_else(|| empty("argmax", ""))
}

/// Flat index (C order of the logical shape) of the first minimum, or of the first NaN.
pub fn argmin<T: Num, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> Result<usize> {
    arg_extreme(a.view().into_dyn(), false).ok_or_else(|| empty("argmin", ""))
}

/// The first index where `hit` holds: whole blocks are tested with a branch-free `|` fold
/// (which LLVM vectorises; `position` exits early and is not vectorised), then the hit block
/// is searched.
fn first_match<T: Copy>(xs: &[T], hit: impl Fn(T) -> bool) -> Option<usize> {
    const BLOCK: usize = 64;
    for (b, block) in xs.chunks(BLOCK).enumerate() {
        if block.iter().fold(false, |any, &x| any | hit(x)) {
            return block.iter().position(|&x| hit(x)).map(|p| b * BLOCK + p);
        }
    }
    None
}

/// Per leaf, the max (`MAX`) or min and the leaf's start (element offset from `base`, the
/// address of the slice's first element); combining keeps the leftmost leaf holding the
/// extreme, or the first NaN, exactly as a left-to-right scan would. Contiguous slices only.
#[derive(Clone, Copy, Debug)]
struct ArgLeafR<const MAX: bool> {
    base: usize,
}

impl<T: Num, const MAX: bool> Reducer<T> for ArgLeafR<MAX> {
    type Acc = (T, usize);
    #[inline(always)]
    fn identity(self) -> (T, usize) {
        (if MAX { T::LOWEST } else { T::HIGHEST }, usize::MAX)
    }
    #[inline(always)]
    fn leaf<S: Simd>(self, xs: &[T]) -> (T, usize) {
        let m = if MAX {
            T::max_leaf::<S>(xs)
        } else {
            T::min_leaf::<S>(xs)
        };
        (m, (xs.as_ptr() as usize - self.base) / size_of::<T>())
    }
    fn leaf_masked<S: Simd>(self, _xs: &[T], _mask: &[bool]) -> (T, usize) {
        unreachable!("argmax/argmin reduce unmasked slices only")
    }
    fn step(self, _acc: (T, usize), _x: T) -> (T, usize) {
        unreachable!("argmax/argmin reduce contiguous slices only")
    }
    #[inline(always)]
    fn combine(self, a: (T, usize), b: (T, usize)) -> (T, usize) {
        let b_wins = a.1 == usize::MAX
            || (!a.0.is_nan_value()
                && b.1 != usize::MAX
                && (b.0.is_nan_value() || if MAX { b.0 > a.0 } else { b.0 < a.0 }));
        if b_wins { b } else { a }
    }
}

pub(crate) fn empty(op: &'static str, where_: &str) -> KernelError {
    KernelError::EmptyReduction {
        op,
        where_: where_.to_string(),
    }
}

/// First index of the max (`is_max`) or min in logical order; NaN wins at its first position.
/// `None` when empty.
pub(crate) fn arg_extreme<T: Num>(xs: ArrayViewD<'_, T>, is_max: bool) -> Option<usize> {
    if xs.is_empty() {
        return None;
    }
    if let Some(s) = xs.as_slice() {
        // One vectorised pass finds the extreme and the first leaf holding it; only that leaf
        // is scanned for the position.
        let base = s.as_ptr() as usize;
        let (m, start) = if is_max {
            reduce_slice(ArgLeafR::<true> { base }, s, None)
        } else {
            reduce_slice(ArgLeafR::<false> { base }, s, None)
        };
        let leaf = &s[start..(start + LEAF).min(s.len())];
        let pos = if m.is_nan_value() {
            first_match(leaf, |x| x.is_nan_value())
        } else {
            first_match(leaf, |x| x == m)
        };
        return pos.map(|p| start + p);
    }
    let mut iter = xs.iter().enumerate();
    let (_, &first) = iter.next()?;
    let (mut best, mut best_i) = (first, 0);
    if best.is_nan_value() {
        return Some(0);
    }
    for (i, &x) in iter {
        if x.is_nan_value() {
            return Some(i);
        }
        if (is_max && x > best) || (!is_max && x < best) {
            best = x;
            best_i = i;
        }
    }
    Some(best_i)
}

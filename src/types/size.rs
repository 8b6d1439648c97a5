//! Sizes and allocations of the tensors the library types build from a value's data or an op's
//! arguments (a dense shape, a `to_tensor` shape, a number of rows): checked before anything is
//! allocated, and allocated fallibly, so that a size the data claims becomes an error naming the
//! op, never an abort or an overflow.
//!
//! # Arithmetic on user-controlled values
//!
//! Every size, index, count and axis that comes from an op's argument (axes, shapes, starts,
//! sizes, ids, `nrows`, `uniform_row_length`) or from tensor data (row splits and lengths,
//! value row ids, sparse indices and dense shapes) is checked before it is used in arithmetic:
//! checked `i64`/`usize` operations, exact `i128`/`u128` where that is simplest, `try_from`
//! for casts, each failure an error naming the op, the argument and the bound; debug and release
//! builds therefore agree. Unchecked arithmetic remains only where a checked invariant bounds
//! it, and stays unchecked in hot loops:
//! - row splits (checked on construction and load: `0`, non-decreasing, ending at the number of
//!   rows below): differences, indices into the splits and the values, and offsets within them;
//! - sparse indices (`0 <= i < dim`) and dense shapes (non-zero sizes multiply to at most
//!   2^63 - 1, [`check_dims`](super::sparse::check_dims)): strides, row-major offsets and their
//!   inverses;
//! - the shape of an existing tensor (its non-zero sizes multiply to at most `isize::MAX`):
//!   products of its sizes and offsets within it; ranks and axes (a rank is at most a `Vec`'s
//!   length; a negative axis plus the rank cannot overflow);
//! - lengths of slices being merged, sorted or folded (`merge`; the kernels' `std_sort` and `eigen_fold` take them as slices).
//!
//! What no single value bounds is checked: sums over several values (row counts of items
//! stacked, concatenated or gathered, with repeats, see [`running_splits`], and entries of
//! several sparse values), products of an argument's sizes ([`dense_len`]), and repeated axes.

use crate::{Error, Result};

/// The number of elements of a dense tensor of `shape` with elements of `elem_bytes` bytes, when
/// it can exist: the product of its non-zero sizes fits `isize` (ndarray's bound on a shape)
/// and its bytes fit `isize::MAX`; otherwise an error of `op` naming the shape.
pub(crate) fn dense_len(op: &str, shape: &[usize], elem_bytes: usize) -> Result<usize> {
    let nonzero = shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize);
    let len = if shape.contains(&0) { Some(0) } else { nonzero };
    nonzero
        .and(len)
        .filter(|n| {
            n.checked_mul(elem_bytes.max(1))
                .is_some_and(|b| b <= isize::MAX as usize)
        })
        .ok_or_else(|| {
            Error::unsupported(
                op,
                format!(
                    "a dense tensor of shape {shape:?} is too large to exist (its element count \
                     or its bytes exceed isize::MAX)"
                ),
            )
        })
}

/// `n` copies of `fill`, or an error of `op` naming `what` when the allocator refuses the block
/// (a size taken from a value, such as a dense axis, must not abort the process).
pub(crate) fn try_filled<T: Clone>(op: &str, what: &str, n: usize, fill: T) -> Result<Vec<T>> {
    let mut out = try_reserved(op, what, n)?;
    out.resize(n, fill);
    Ok(out)
}

/// An empty vector with room for `n` elements, reserved fallibly: an error of `op` naming
/// `what` when the allocator refuses the block.
pub(crate) fn try_reserved<T>(op: &str, what: &str, n: usize) -> Result<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| {
        Error::unsupported(
            op,
            format!(
                "cannot allocate {what}: {n} elements of {} bytes",
                size_of::<T>()
            ),
        )
    })?;
    Ok(out)
}

/// Row splits over values counted in order: `0`, then the running totals of `counts` (each a
/// number of rows or entries of one value), when every total fits `i64` (a split's or an
/// index's type);
/// otherwise an error of `op` naming `arg` and the bound. Counts of several values may sum past
/// it, though each fits: a value may be passed many times, and flat values whose inner axes are
/// empty hold any number of rows in no memory.
pub(crate) fn running_splits(
    op: &str,
    arg: &str,
    counts: impl IntoIterator<Item = usize>,
) -> Result<Vec<i64>> {
    let counts = counts.into_iter();
    let mut splits = Vec::with_capacity(counts.size_hint().0.saturating_add(1));
    let mut total = 0i64;
    splits.push(total);
    for (k, n) in counts.enumerate() {
        total = i64::try_from(n)
            .ok()
            .and_then(|n| total.checked_add(n))
            .ok_or_else(|| {
                crate::Error::from(crate::DispatchError::Argument {
                    op: op.into(),
                    arg: arg.into(),
                    expected: "a total of at most i64::MAX (2^63 - 1)".into(),
                    found: format!("{total} before {arg}[{k}], which adds {n}"),
                })
            })?;
        splits.push(total);
    }
    Ok(splits)
}

//! Sizes and allocations of the tensors the library types build from a value's data or an op's
//! arguments (a dense shape, a `to_tensor` shape, a number of rows): checked before anything is
//! allocated, and allocated fallibly, so that a size the data claims becomes an error naming the
//! op, never an abort or an overflow.

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
    out.resize(n, fill);
    Ok(out)
}

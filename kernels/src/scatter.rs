//! `scatter`: a dense array from entries — index rows and their values — with every other
//! element a fill value (TensorFlow's `tf.sparse.to_dense`: entries written in order, so the
//! last of repeated indices wins; an index out of range is an error).
//!
//! The output is allocated filled ([`filled`]: zeroed pages from the
//! allocator, on huge pages when large), so the scatter's random writes are what costs: on 4
//! KiB pages each first write to a page is a fault. Entries in row-major order write
//! disjoint ranges of the output, so large sorted inputs are cut into pieces written on
//! several threads; the result does not depend on the cut.

use ndarray::{ArrayD, ArrayView1, ArrayView2, IxDyn};

use crate::error::{KernelError, Result};
use crate::filled::{ZeroBits, filled};
use crate::parallel::{join, use_parallel_output};

const OP: &str = "to_dense";

/// Entries below this count are written on one thread (a split costs more than it saves).
const PAR_MIN_ENTRIES: usize = 1 << 16;

/// The dense array of `shape` holding `values[k]` at index row `indices[k]` and `fill`
/// everywhere else. `sorted` says the rows are in strictly increasing row-major order (a
/// canonical sparse tensor): large inputs are then written on several threads. It is a hint:
/// rows out of order give the same result (entries written in order, the last of repeated
/// rows winning), only on one thread.
///
/// Errors: `indices` not `[values.len(), shape.len()]`, an index outside its axis
/// ([`KernelError::IndexOutOfBounds`], naming the entry and the axis), or an output too large
/// to allocate.
///
/// ```
/// use extype_kernels::scatter::scatter;
/// use ndarray::{array, ArrayD, IxDyn};
/// let dense = scatter(&[2, 3], 0.0f32, array![[0i64, 1], [1, 2]].view(), array![5.0f32, 7.0].view(), true)?;
/// assert_eq!(dense, ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![0.0, 5.0, 0.0, 0.0, 0.0, 7.0]).unwrap());
/// assert!(scatter(&[2], 0i32, array![[2i64]].view(), array![1].view(), false).is_err());
/// # Ok::<(), extype_kernels::KernelError>(())
/// ```
pub fn scatter<T: ZeroBits + Send + Sync>(
    shape: &[usize],
    fill: T,
    indices: ArrayView2<'_, i64>,
    values: ArrayView1<'_, T>,
    sorted: bool,
) -> Result<ArrayD<T>> {
    check_entries(shape, &indices, values.len())?;
    let n = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    let n = n.ok_or_else(|| crate::layout::refused::<T>(OP, shape))?;
    let mut out = filled(OP, n, fill)?;
    let rows = indices.as_standard_layout();
    let rows = rows.as_slice().expect("standard layout is contiguous");
    let values = values.as_standard_layout();
    let values = values.as_slice().expect("standard layout is contiguous");
    let entries = Entries {
        rows,
        values,
        shape,
        strides: row_major_strides(shape),
    };
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    let split = sorted && values.len() >= 2 * PAR_MIN_ENTRIES && use_parallel_output(bytes);
    if !split || !write_split(&entries, 0, values.len(), &mut out, 0)? {
        // The whole output: every offset of an index in range lands inside it.
        write_piece(&entries, 0, values.len(), &mut out, 0)?;
    }
    Ok(ArrayD::from_shape_vec(IxDyn(shape), out).expect("n elements"))
}

/// `indices` is `[nnz, rank]` for `nnz` values.
fn check_entries(shape: &[usize], indices: &ArrayView2<'_, i64>, nnz: usize) -> Result<()> {
    if indices.ncols() != shape.len() || indices.nrows() != nnz {
        return Err(KernelError::Argument {
            op: OP,
            arg: "indices",
            expected: format!("shape [{nnz}, {}] (one row per value)", shape.len()),
            found: format!("shape {:?}", indices.shape()),
        });
    }
    Ok(())
}

fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// The entries to write: index rows (row-major, `shape.len()` per entry) and values.
struct Entries<'a, T> {
    rows: &'a [i64],
    values: &'a [T],
    shape: &'a [usize],
    strides: Vec<usize>,
}

impl<T: Copy> Entries<'_, T> {
    /// The row-major offset of entry `k`, checked against each axis.
    #[inline]
    fn offset(&self, k: usize) -> Result<usize> {
        let rank = self.shape.len();
        let row = &self.rows[k * rank..(k + 1) * rank];
        let mut offset = 0usize;
        for (axis, ((&i, &size), &stride)) in
            row.iter().zip(self.shape).zip(&self.strides).enumerate()
        {
            match usize::try_from(i) {
                Ok(i) if i < size => offset += i * stride,
                _ => {
                    return Err(KernelError::IndexOutOfBounds {
                        op: OP,
                        index: i,
                        position: k,
                        axis,
                        size,
                    });
                }
            }
        }
        Ok(offset)
    }
}

/// Writes entries `lo..hi` (sorted) into `out` (the output from `base` on) in pieces on
/// rayon's threads, cutting the output at the first offset of the right half. `Ok(false)` when
/// the entries turn out not to be sorted (some piece reaches past its cut): the caller then
/// writes them all again in order, which overwrites every slot this wrote.
fn write_split<T: Copy + Send + Sync>(
    e: &Entries<'_, T>,
    lo: usize,
    hi: usize,
    out: &mut [T],
    base: usize,
) -> Result<bool> {
    let first = e.offset(lo)?;
    let last = e.offset(hi - 1)?;
    if first < base || last < first || last - base >= out.len() {
        return Ok(false);
    }
    if hi - lo < 2 * PAR_MIN_ENTRIES {
        return write_piece(e, lo, hi, out, base);
    }
    let mid = lo + (hi - lo) / 2;
    let cut = e.offset(mid)?;
    if cut < first || cut > last {
        return Ok(false);
    }
    let (left, right) = out.split_at_mut(cut - base);
    let (a, b) = join(
        || write_split(e, lo, mid, left, base),
        || write_split(e, mid, hi, right, cut),
    );
    Ok(a? && b?)
}

/// Writes entries `lo..hi`, in order, into `out`, the output from offset `base` on:
/// `Ok(false)` if an entry falls outside `out` (a piece of a split whose entries were not
/// sorted after all), an error if an index is out of range.
fn write_piece<T: Copy>(
    e: &Entries<'_, T>,
    lo: usize,
    hi: usize,
    out: &mut [T],
    base: usize,
) -> Result<bool> {
    let values = &e.values[lo..hi];
    // Rank 2 (the usual sparse matrix) unrolled: one multiply-add and two compares an entry.
    if let (&[s0, s1], &[d0, d1]) = (e.strides.as_slice(), e.shape) {
        for (k, (r, &v)) in e.rows[2 * lo..2 * hi]
            .chunks_exact(2)
            .zip(values)
            .enumerate()
        {
            // A negative index wraps to a huge `usize`: out of range too.
            let (i, j) = (r[0] as usize, r[1] as usize);
            if i >= d0 || j >= d1 {
                e.offset(lo + k)?; // the error, naming the entry and the axis
            }
            if !put(out, i * s0 + j * s1, base, v) {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    for (k, &v) in (lo..hi).zip(values) {
        if !put(out, e.offset(k)?, base, v) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Writes `v` at `offset` of the output, which `out` holds from `base` on: `false` (nothing
/// written) when `out` does not hold it.
#[inline]
fn put<T>(out: &mut [T], offset: usize, base: usize, v: T) -> bool {
    match offset.checked_sub(base).and_then(|o| out.get_mut(o)) {
        Some(slot) => {
            *slot = v;
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2};

    /// The reference: every entry written in order, one thread.
    fn reference(shape: &[usize], fill: f32, idx: &Array2<i64>, vals: &Array1<f32>) -> Vec<f32> {
        let strides = row_major_strides(shape);
        let n: usize = shape.iter().product();
        let mut out = vec![fill; n];
        for (row, &v) in idx.rows().into_iter().zip(vals) {
            let o: usize = row
                .iter()
                .zip(&strides)
                .map(|(&i, &s)| i as usize * s)
                .sum();
            out[o] = v;
        }
        out
    }

    fn entries(shape: &[usize], nnz: usize, seed: u64, sorted: bool) -> (Array2<i64>, Array1<f32>) {
        let n: usize = shape.iter().product();
        let strides = row_major_strides(shape);
        let mut state = seed;
        let mut offsets: Vec<usize> = (0..nnz)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) as usize % n.max(1)
            })
            .collect();
        if sorted {
            offsets.sort_unstable();
            offsets.dedup();
        }
        let mut idx = Array2::<i64>::zeros((offsets.len(), shape.len()));
        for (k, &o) in offsets.iter().enumerate() {
            let mut rest = o;
            for (d, &s) in strides.iter().enumerate() {
                idx[[k, d]] = (rest / s) as i64;
                rest %= s;
            }
        }
        let vals = Array1::from_iter((0..offsets.len()).map(|k| k as f32 + 0.5));
        (idx, vals)
    }

    /// Every rank, sorted or not, small and large enough to split, zero and non-zero fills,
    /// equals the in-order reference (repeated rows: the last wins).
    #[test]
    fn equals_the_in_order_reference() {
        let cases: &[(&[usize], usize)] = &[
            (&[7], 5),
            (&[4, 5], 12),
            (&[3, 4, 5], 30),
            (&[1024, 1024], 300_000),
            (&[64, 64, 64], 200_000),
        ];
        for &(shape, nnz) in cases {
            for sorted in [true, false] {
                for fill in [0.0f32, -1.0] {
                    let (idx, vals) = entries(shape, nnz, nnz as u64 + 3, sorted);
                    let got = scatter(shape, fill, idx.view(), vals.view(), sorted).unwrap();
                    assert_eq!(got.shape(), shape);
                    let want = reference(shape, fill, &idx, &vals);
                    assert_eq!(
                        got.as_slice().unwrap(),
                        want.as_slice(),
                        "{shape:?} sorted={sorted}"
                    );
                }
            }
        }
    }

    /// A wrong `sorted` hint gives the in-order result, not a wrong one.
    #[test]
    fn a_wrong_sorted_hint_is_only_slower() {
        let shape = [512, 512];
        let (idx, vals) = entries(&shape, 200_000, 9, false);
        let got = scatter(&shape, 0.0f32, idx.view(), vals.view(), true).unwrap();
        assert_eq!(
            got.as_slice().unwrap(),
            reference(&shape, 0.0, &idx, &vals).as_slice()
        );
    }

    /// Rank 0 (one entry with an empty index row), zero-size shapes and no entries.
    #[test]
    fn rank_zero_and_zero_size() {
        let idx = Array2::<i64>::zeros((1, 0));
        let got = scatter(&[], 0i32, idx.view(), ndarray::array![4].view(), true).unwrap();
        assert_eq!(got.shape(), [] as [usize; 0]);
        assert_eq!(got.iter().copied().collect::<Vec<_>>(), [4]);
        let none = Array2::<i64>::zeros((0, 2));
        let got = scatter(
            &[0, 3],
            1u8,
            none.view(),
            Array1::<u8>::zeros(0).view(),
            true,
        )
        .unwrap();
        assert_eq!(got.shape(), [0, 3]);
        let got = scatter(
            &[2, 2],
            7u8,
            none.view(),
            Array1::<u8>::zeros(0).view(),
            false,
        )
        .unwrap();
        assert!(got.iter().all(|&x| x == 7));
    }

    /// Bad entries are errors naming the entry and the axis, never a panic.
    #[test]
    fn bad_entries_are_errors() {
        let e = scatter(
            &[3, 4],
            0f32,
            ndarray::array![[0i64, 1], [1, 4]].view(),
            ndarray::array![1.0f32, 2.0].view(),
            true,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                KernelError::IndexOutOfBounds {
                    position: 1,
                    axis: 1,
                    index: 4,
                    size: 4,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = scatter(
            &[3],
            0f32,
            ndarray::array![[-1i64]].view(),
            ndarray::array![1.0f32].view(),
            false,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                KernelError::IndexOutOfBounds {
                    index: -1,
                    axis: 0,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = scatter(
            &[3],
            0f32,
            ndarray::array![[0i64, 0]].view(),
            ndarray::array![1.0f32].view(),
            false,
        )
        .unwrap_err();
        assert!(e.to_string().contains("indices"), "{e}");
        let e = scatter(
            &[3],
            0f32,
            ndarray::array![[0i64]].view(),
            ndarray::array![1.0f32, 2.0].view(),
            false,
        )
        .unwrap_err();
        assert!(e.to_string().contains("one row per value"), "{e}");
        assert!(
            scatter(
                &[usize::MAX, 4],
                0u8,
                Array2::<i64>::zeros((0, 2)).view(),
                Array1::<u8>::zeros(0).view(),
                true
            )
            .is_err()
        );
    }

    /// Out-of-range entries in a large sorted input are found by the split pieces too.
    #[test]
    fn bad_entries_in_a_split_are_errors() {
        let shape = [1024, 1024];
        let (mut idx, vals) = entries(&shape, 300_000, 5, true);
        let k = idx.nrows() - 7;
        idx[[k, 1]] = 5000;
        let e = scatter(&shape, 0.0f32, idx.view(), vals.view(), true).unwrap_err();
        assert!(
            matches!(
                e,
                KernelError::IndexOutOfBounds {
                    axis: 1,
                    index: 5000,
                    ..
                }
            ),
            "{e:?}"
        );
    }
}

//! `sparse_dense_matmul`: a sparse matrix, its entries grouped by output row, times a dense
//! matrix (the kernel of TensorFlow's `tf.sparse.sparse_dense_matmul` in extype's
//! `SparseTensor`).
//!
//! Output row `r` is `Σ values[e] * b[inner(e), :]` over the entries `e` of row `r`, in their
//! order, from zero (integers wrap). Each output row is accumulated in registers, a block of
//! [`BLOCK`] columns at a time (64 `f32` are four AVX-512 registers), over all its entries, and
//! stored once: no zero fill, no read-modify-write of the output. The rows of `b` the coming
//! entries read (random rows: memory-latency bound) are prefetched [`AHEAD`] entries early.
//! Large products split their rows across rayon's threads in chunks of about equal entries;
//! each output row is computed the same way whatever the split, so results never depend on the
//! number of threads.

use std::mem::MaybeUninit;

use ndarray::{Array2, ArrayView2};

use crate::error::{KernelError, Result};
use crate::layout::{check_output, refused};
use crate::parallel::{self, advise_huge_pages};
use crate::scalar::Num;
use crate::simd::{Kernel, Simd, dispatch, prefetch};

const OP: &str = "sparse_dense_matmul";

/// Columns of an output row accumulated in registers at a time.
pub const BLOCK: usize = 64;

/// How many entries ahead the rows of `b` are prefetched.
pub const AHEAD: usize = 16;

/// A sparse matrix with its entries grouped by output row.
#[derive(Clone, Copy, Debug)]
pub struct SparseRows<'a, T> {
    /// Row `r`'s entries are the positions `starts[r]..starts[r + 1]` (`n + 1` entries,
    /// non-decreasing).
    pub starts: &'a [usize],
    /// The entry at each position, or `None` for the identity (entries already grouped).
    pub order: Option<&'a [usize]>,
    /// The inner index of entry `e` (the row of `b` it reads) is
    /// `inner[e * inner_stride + inner_offset]`, in `0..k`.
    pub inner: &'a [i64],
    /// See [`inner`](Self::inner).
    pub inner_stride: usize,
    /// See [`inner`](Self::inner).
    pub inner_offset: usize,
    /// The value of each entry.
    pub values: &'a [T],
}

/// `a @ b`: `a` an `[n, k]` sparse matrix (`n = a.starts.len() - 1`), `b` a dense `[k, m]`
/// matrix; the result is `[n, m]`. Malformed `a` (starts not non-decreasing or past the
/// entries, an entry or inner index out of bounds) is an error, never a panic.
///
/// ```
/// use extype_kernels::spmm::{SparseRows, sparse_dense_matmul};
/// use ndarray::array;
/// // [[0, 2], [0, 0], [1, 0]] @ [[1, 2], [3, 4]]
/// let a = SparseRows {
///     starts: &[0, 1, 1, 2],
///     order: None,
///     inner: &[0, 1, 2, 0], // the (row, col) index rows; the inner index is the column
///     inner_stride: 2,
///     inner_offset: 1,
///     values: &[2.0f32, 1.0],
/// };
/// let c = sparse_dense_matmul(&a, &array![[1.0f32, 2.0], [3.0, 4.0]].view())?;
/// assert_eq!(c, array![[6.0f32, 8.0], [0.0, 0.0], [1.0, 2.0]]);
/// # Ok::<(), extype_kernels::KernelError>(())
/// ```
pub fn sparse_dense_matmul<T: Num>(
    a: &SparseRows<'_, T>,
    b: &ArrayView2<'_, T>,
) -> Result<Array2<T>> {
    let (k, m) = b.dim();
    let n = check_rows(a)?;
    check_output::<T>(OP, &[n, m])?;
    let b = b.as_standard_layout();
    let b = b.as_slice().expect("standard layout");
    let len = n * m;
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| refused::<T>(OP, &[n, m]))?;
    let spare = &mut out.spare_capacity_mut()[..len];
    advise_huge_pages(spare);
    let entries = a.starts[n];
    let bytes = (entries + n)
        .saturating_mul(m)
        .saturating_mul(size_of::<T>());
    let bad = if m == 0 || n == 0 {
        None
    } else if parallel::use_parallel(bytes) {
        // Chunks of about equal cost (an entry, or a row's store, one unit), several per
        // thread so that a busy core delays little.
        let chunks = (8 * rayon::current_num_threads()).min(n);
        let total = entries + n;
        let mut bounds: Vec<usize> = (0..=chunks)
            .map(|c| first_row(a.starts, total * c / chunks))
            .collect();
        bounds[0] = 0;
        bounds[chunks] = n;
        bounds.dedup();
        let mut items: Vec<Chunk<'_, T>> = Vec::with_capacity(bounds.len());
        let mut rest = spare;
        for w in bounds.windows(2) {
            let (chunk, tail) = rest.split_at_mut((w[1] - w[0]) * m);
            items.push((w[0], w[1], chunk, None));
            rest = tail;
        }
        parallel::for_each_mut(&mut items, &|_, (r0, r1, dst, bad)| {
            *bad = dispatch(Rows {
                a,
                b,
                k,
                m,
                rows: *r0..*r1,
                dst,
            });
        });
        items.iter().find_map(|it| it.3)
    } else {
        dispatch(Rows {
            a,
            b,
            k,
            m,
            rows: 0..n,
            dst: spare,
        })
    };
    if let Some((position, index, size)) = bad {
        return Err(KernelError::IndexOutOfBounds {
            op: OP,
            index,
            position,
            axis: 0,
            size,
        });
    }
    // SAFETY: every row of `0..n` was written (`m` elements each) by exactly one `Rows` run,
    // which writes each of its rows whole, also when it finds a bad entry.
    unsafe { out.set_len(len) };
    Ok(Array2::from_shape_vec((n, m), out).expect("n rows of m"))
}

/// The number of rows of `a` after checking its starts and inner-index layout.
fn check_rows<T>(a: &SparseRows<'_, T>) -> Result<usize> {
    let bad = |expected: String, found: String| KernelError::Argument {
        op: OP,
        arg: "a",
        expected,
        found,
    };
    let Some(n) = a.starts.len().checked_sub(1) else {
        return Err(bad("n + 1 row starts".into(), "none".into()));
    };
    if let Some(r) = (0..n).find(|&r| a.starts[r] > a.starts[r + 1]) {
        return Err(bad(
            "non-decreasing row starts".into(),
            format!(
                "starts[{}] = {} > starts[{}] = {}",
                r,
                a.starts[r],
                r + 1,
                a.starts[r + 1]
            ),
        ));
    }
    let entries = a.order.map_or(a.values.len(), <[usize]>::len);
    if a.starts[n] > entries {
        return Err(bad(
            format!("row starts within the {entries} entries"),
            format!("starts[{n}] = {}", a.starts[n]),
        ));
    }
    let nv = a.values.len();
    if nv > 0 {
        let last = (nv - 1)
            .checked_mul(a.inner_stride)
            .and_then(|x| x.checked_add(a.inner_offset));
        if last.is_none_or(|l| l >= a.inner.len()) {
            return Err(bad(
                format!("an inner index for each of the {nv} values"),
                format!(
                    "{} inner indices at stride {} offset {}",
                    a.inner.len(),
                    a.inner_stride,
                    a.inner_offset
                ),
            ));
        }
    }
    Ok(n)
}

/// The first row `r` with `starts[r] + r >= target` (`n` if none).
fn first_row(starts: &[usize], target: usize) -> usize {
    let n = starts.len() - 1;
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if starts[mid] + mid >= target {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Output rows `rows` of the product into `dst` (`rows.len() * m` slots).
struct Rows<'a, 'd, T> {
    a: &'a SparseRows<'a, T>,
    b: &'a [T],
    k: usize,
    m: usize,
    rows: std::ops::Range<usize>,
    dst: &'d mut [MaybeUninit<T>],
}

impl<T: Num> Kernel for Rows<'_, '_, T> {
    /// The first bad entry if any; its contribution is skipped.
    type Output = Option<Bad>;

    #[inline(always)]
    fn run<S: Simd>(self) -> Option<Bad> {
        let Rows {
            a,
            b,
            k,
            m,
            rows,
            dst,
        } = self;
        let mut bad = None;
        let r0 = rows.start;
        let last = a.starts[rows.end];
        // The entry at position `p` and its inner index (checked), or `None`.
        let entry = |p: usize| -> Option<(usize, usize)> {
            let e = match a.order {
                Some(order) => *order.get(p)?,
                None => p,
            };
            let c = *a
                .inner
                .get(e.checked_mul(a.inner_stride)?.checked_add(a.inner_offset)?)?;
            (e < a.values.len() && c >= 0 && (c as u64) < k as u64).then_some((e, c as usize))
        };
        let mut c0 = 0;
        while c0 < m {
            let w = BLOCK.min(m - c0);
            for r in rows.clone() {
                let (p0, p1) = (a.starts[r], a.starts[r + 1]);
                let out = &mut dst[(r - r0) * m + c0..][..w];
                if w == BLOCK {
                    let mut acc = [T::ZERO; BLOCK];
                    for p in p0..p1 {
                        fetch_ahead(a, b, m, c0, w, p + AHEAD, last);
                        let Some((e, c)) = entry(p) else {
                            bad = bad.or(Some(bad_entry(a, p, k)));
                            continue;
                        };
                        let v = a.values[e];
                        let row: &[T; BLOCK] = b[c * m + c0..][..BLOCK].try_into().expect("BLOCK");
                        for l in 0..BLOCK {
                            acc[l] = acc[l].add_(v.mul_(row[l]));
                        }
                    }
                    for (o, x) in out.iter_mut().zip(acc) {
                        o.write(x);
                    }
                } else {
                    let mut acc = [T::ZERO; BLOCK];
                    let acc = &mut acc[..w];
                    for p in p0..p1 {
                        fetch_ahead(a, b, m, c0, w, p + AHEAD, last);
                        let Some((e, c)) = entry(p) else {
                            bad = bad.or(Some(bad_entry(a, p, k)));
                            continue;
                        };
                        let v = a.values[e];
                        let row = &b[c * m + c0..][..w];
                        for (x, &y) in acc.iter_mut().zip(row) {
                            *x = x.add_(v.mul_(y));
                        }
                    }
                    for (o, &x) in out.iter_mut().zip(acc.iter()) {
                        o.write(x);
                    }
                }
            }
            c0 += w;
        }
        bad
    }
}

/// Prefetches the `w` columns from `c0` of the row of `b` that the entry at position `p`
/// reads (nothing past `last` or for a bad entry).
#[inline(always)]
fn fetch_ahead<T>(
    a: &SparseRows<'_, T>,
    b: &[T],
    m: usize,
    c0: usize,
    w: usize,
    p: usize,
    last: usize,
) {
    if p >= last {
        return;
    }
    let e = match a.order {
        Some(order) => match order.get(p) {
            Some(&e) => e,
            None => return,
        },
        None => p,
    };
    let Some(&c) = a
        .inner
        .get(e.wrapping_mul(a.inner_stride).wrapping_add(a.inner_offset))
    else {
        return;
    };
    let start = (c as usize).wrapping_mul(m).wrapping_add(c0);
    if let Some(row) = b.get(start..start.wrapping_add(w)) {
        // Every cache line the row touches, from the one holding its first byte.
        let base = row.as_ptr().cast::<u8>();
        let skew = base as usize % 64;
        let (first, end) = (base.wrapping_sub(skew), size_of_val(row) + skew);
        let mut off = 0;
        while off < end {
            prefetch(first.wrapping_add(off));
            off += 64;
        }
    }
}

/// What is wrong with the entry at position `p`: (position, the bad index, its bound): the
/// entry `order[p]` past the values, or its inner index outside `0..k` (cold).
#[cold]
fn bad_entry<T>(a: &SparseRows<'_, T>, p: usize, k: usize) -> Bad {
    let e = a.order.map_or(p, |o| o[p]);
    if e >= a.values.len() {
        return (p, e as i64, a.values.len());
    }
    (p, a.inner[e * a.inner_stride + a.inner_offset], k)
}

/// A bad entry: its position, the bad index and its bound.
type Bad = (usize, i64, usize);

/// A parallel chunk: its rows `start..end`, their output slots, and its first bad entry.
type Chunk<'d, T> = (usize, usize, &'d mut [MaybeUninit<T>], Option<Bad>);

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

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

    /// The product by the definition: every entry in position order adds into its row.
    fn reference(a: &SparseRows<'_, f32>, b: &Array2<f32>) -> Array2<f32> {
        let n = a.starts.len() - 1;
        let mut out = Array2::<f32>::zeros((n, b.ncols()));
        for r in 0..n {
            for p in a.starts[r]..a.starts[r + 1] {
                let e = a.order.map_or(p, |o| o[p]);
                let c = a.inner[e * a.inner_stride + a.inner_offset] as usize;
                for j in 0..b.ncols() {
                    out[[r, j]] += a.values[e] * b[[c, j]];
                }
            }
        }
        out
    }

    fn same(x: &Array2<f32>, y: &Array2<f32>) -> bool {
        x.shape() == y.shape()
            && x.iter()
                .zip(y)
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()))
    }

    /// Random products against the definition: empty rows, no entries, widths around the
    /// register block (0, 1, 63, 64, 65, 130), entries in order or through `order`, NaN and
    /// ±inf in `b` and the values; serial and split across two threads.
    #[test]
    fn matches_the_definition() {
        let mut rng = Rng(3);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for round in 0..120 {
            let (n, k) = (rng.below(40) as usize, 1 + rng.below(30) as usize);
            let m = [0, 1, 63, 64, 65, 130][round % 6];
            let nnz = if round % 11 == 0 {
                0
            } else {
                rng.below(200) as usize
            };
            let n = if nnz > 0 { n.max(1) } else { n };
            let special = |rng: &mut Rng| match rng.below(20) {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => f32::NEG_INFINITY,
                v => v as f32 - 9.0,
            };
            let mut rows: Vec<usize> = (0..nnz).map(|_| rng.below(n as u64) as usize).collect();
            let inner: Vec<i64> = (0..nnz)
                .flat_map(|_| [7, rng.below(k as u64) as i64])
                .collect();
            let values: Vec<f32> = (0..nnz).map(|_| special(&mut rng)).collect();
            let b = Array2::from_shape_fn((k, m), |_| special(&mut rng));
            let mut starts = vec![0usize; n + 1];
            for &r in &rows {
                starts[r + 1] += 1;
            }
            for r in 0..n {
                starts[r + 1] += starts[r];
            }
            // Grouped through `order` (entries in any order), or already grouped.
            let mut fill = starts.clone();
            let mut order = vec![0usize; nnz];
            for (e, &r) in rows.iter().enumerate() {
                order[fill[r]] = e;
                fill[r] += 1;
            }
            rows.sort_unstable();
            for use_order in [true, false] {
                let a = SparseRows {
                    starts: &starts,
                    order: use_order.then_some(&order[..]),
                    inner: &inner,
                    inner_stride: 2,
                    inner_offset: 1,
                    values: &values,
                };
                let want = reference(&a, &b);
                let got = sparse_dense_matmul(&a, &b.view()).unwrap();
                assert!(same(&got, &want), "round {round}: {got} vs {want}");
                parallel::set_parallel_min_bytes(1);
                let split = pool.install(|| sparse_dense_matmul(&a, &b.view()).unwrap());
                parallel::set_parallel_min_bytes(parallel::PAR_MIN_BYTES);
                assert!(same(&split, &want), "round {round} split");
            }
        }
    }

    /// Malformed input is an error naming what is wrong, never a panic.
    #[test]
    fn malformed_input_is_an_error() {
        let b = Array2::<f32>::ones((3, 2));
        let a =
            |starts: &'static [usize], order: Option<&'static [usize]>, inner: &'static [i64]| {
                sparse_dense_matmul(
                    &SparseRows {
                        starts,
                        order,
                        inner,
                        inner_stride: 1,
                        inner_offset: 0,
                        values: &[1.0f32, 2.0],
                    },
                    &b.view(),
                )
                .unwrap_err()
                .to_string()
            };
        let e = a(&[0, 2], None, &[0, 3]);
        assert!(
            e.contains("index 3 at position 1 is out of bounds for axis 0 of size 3"),
            "{e}"
        );
        let e = a(&[0, 2], None, &[-1, 0]);
        assert!(e.contains("index -1 at position 0 is out of bounds"), "{e}");
        let e = a(&[2, 1], None, &[0, 0]);
        assert!(e.contains("non-decreasing row starts"), "{e}");
        let e = a(&[0, 3], None, &[0, 0]);
        assert!(e.contains("row starts within the 2 entries"), "{e}");
        let e = a(&[0, 2], Some(&[0, 5]), &[0, 0]);
        assert!(
            e.contains("index 5 at position 1 is out of bounds for axis 0 of size 2"),
            "{e}"
        );
        let e = a(&[0, 1], None, &[0]);
        assert!(e.contains("an inner index for each of the 2 values"), "{e}");
        let e = a(&[], None, &[0, 0]);
        assert!(e.contains("n + 1 row starts"), "{e}");
    }
}

//! Boolean-mask compaction (`values[mask]` in NumPy, `tf.boolean_mask`).

use ndarray::{ArrayBase, ArrayD, Axis, Data, Dimension, IxDyn};

use crate::error::{KernelError, Result};
use crate::layout::{check_output, refused};
use crate::scalar::Scalar;
use std::mem::MaybeUninit;

use crate::parallel::{self, PAR_CHUNK_ELEMS, advise_huge_pages, use_parallel_output};
use crate::simd::{Kernel, Simd, dispatch};

/// Branch-free compaction of a contiguous run into `dst`, which has exactly one slot per true
/// mask element: every element is stored at the write cursor, which advances only when the
/// mask is true, so there is no unpredictable branch.
struct CompactInto<'a, T> {
    xs: &'a [T],
    mask: &'a [bool],
    dst: &'a mut [MaybeUninit<T>],
}

impl<T: Copy> Kernel for CompactInto<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run<S: Simd>(self) {
        let CompactInto { xs, mask, dst } = self;
        // Up to the last selected element only: before it, the cursor is below the number of
        // selected elements, so every store lands in `dst` (no test in the loop).
        let Some(last) = mask.iter().rposition(|&m| m) else {
            return;
        };
        let mut j = 0usize;
        for (&x, &m) in xs[..=last].iter().zip(&mask[..=last]) {
            dst[j].write(x);
            j += m as usize;
        }
    }
}

/// The number of true elements (vectorised inside the dispatch wrapper; compiled for the
/// baseline it ran at a fraction of the speed).
struct CountTrue<'a> {
    mask: &'a [bool],
}

impl Kernel for CountTrue<'_> {
    type Output = usize;
    #[inline(always)]
    fn run<S: Simd>(self) -> usize {
        let mut n = 0usize;
        for &m in self.mask {
            n += m as usize;
        }
        n
    }
}

/// `xs[mask]` for a contiguous run and same-length mask. Large inputs split in fixed chunks:
/// the chunks' counts (in parallel), their prefix sums, then each chunk compacts into its own
/// disjoint part of the output in parallel; the result does not depend on the split.
fn compact_slice<T: Copy + Send + Sync>(xs: &[T], mask: &[bool]) -> Vec<T> {
    let n = xs.len().min(mask.len());
    let (xs, mask) = (&xs[..n], &mask[..n]);
    let count = |mask: &[bool]| dispatch(CountTrue { mask });
    let bytes = n * (2 * size_of::<T>() + 1);
    let chunks: Vec<(&[T], &[bool], usize)> = if use_parallel_output(bytes) {
        let mut chunks: Vec<_> = xs
            .chunks(PAR_CHUNK_ELEMS)
            .zip(mask.chunks(PAR_CHUNK_ELEMS))
            .map(|(x, m)| (x, m, 0))
            .collect();
        parallel::for_each_mut(&mut chunks, &|_, chunk| chunk.2 = count(chunk.1));
        chunks
    } else {
        vec![(xs, mask, count(mask))]
    };
    let kept: usize = chunks.iter().map(|c| c.2).sum();
    let mut out: Vec<T> = Vec::with_capacity(kept);
    let mut rest = &mut out.spare_capacity_mut()[..kept];
    advise_huge_pages(rest);
    let mut parts = Vec::with_capacity(chunks.len());
    for &(x, m, c) in &chunks {
        let (dst, tail) = rest.split_at_mut(c);
        rest = tail;
        parts.push((x, m, dst));
    }
    let fill = |_: usize, part: &mut (&[T], &[bool], &mut [MaybeUninit<T>])| {
        let (xs, mask) = (part.0, part.1);
        dispatch(CompactInto {
            xs,
            mask,
            dst: &mut *part.2,
        })
    };
    if parts.len() > 1 {
        parallel::for_each_mut(&mut parts, &fill);
    } else {
        parts.iter_mut().for_each(|part| fill(0, part));
    }
    // SAFETY: the parts tile `0..kept`, and each part (of its chunk's count of true mask
    // elements) was fully written by `CompactInto`, whose cursor reaches every slot.
    unsafe { out.set_len(kept) };
    out
}

/// The elements of `values` where `mask` is true. `mask` covers the leading axes of `values`
/// (`mask.shape() == values.shape()[..mask.ndim()]`); the result has shape
/// `[selected, values.shape()[mask.ndim()..]…]`, in C order of the mask.
pub fn boolean_mask<T, S, D, SM, DM>(
    values: &ArrayBase<S, D>,
    mask: &ArrayBase<SM, DM>,
) -> Result<ArrayD<T>>
where
    T: Scalar,
    S: Data<Elem = T>,
    D: Dimension,
    SM: Data<Elem = bool>,
    DM: Dimension,
{
    let (xs, m) = (values.view().into_dyn(), mask.view().into_dyn());
    let k = m.ndim();
    if k > xs.ndim() || m.shape() != &xs.shape()[..k] {
        return Err(KernelError::Shape {
            op: "boolean_mask",
            arg: "argument 1".into(),
            expected: xs.shape()[..k.min(xs.ndim())].to_vec(),
            found: m.shape().to_vec(),
        });
    }
    let inner: Vec<usize> = xs.shape()[k..].to_vec();
    let inner_len: usize = inner.iter().product();
    let mut out: Vec<T> = Vec::new();
    if inner_len == 1 || inner.is_empty() {
        if let (Some(sx), Some(sm)) = (xs.as_slice(), m.as_slice()) {
            out = compact_slice(sx, sm);
        } else {
            for (&x, &keep) in xs.iter().zip(m.iter()) {
                if keep {
                    out.push(x);
                }
            }
        }
    } else {
        // Rows of `inner` elements: copy each selected row.
        let rows = xs
            .to_shape((m.len(), inner_len))
            .map_err(|_| KernelError::Argument {
                op: "boolean_mask",
                arg: "argument 0",
                expected: "a layout reshapeable to rows".into(),
                found: format!("strides {:?}", values.strides()),
            })?;
        let selected = m.iter().filter(|&&b| b).count();
        let mut shape = vec![selected];
        shape.extend_from_slice(&inner);
        check_output::<T>("boolean_mask", &shape)?;
        // Fits: checked above.
        out.try_reserve_exact(selected * inner_len)
            .map_err(|_| refused::<T>("boolean_mask", &shape))?;
        for (row, &keep) in rows.axis_iter(Axis(0)).zip(m.iter()) {
            if keep {
                match row.as_slice() {
                    Some(s) => out.extend_from_slice(s),
                    None => out.extend(row.iter().copied()),
                }
            }
        }
    }
    let mut shape = vec![out.len() / inner_len.max(1)];
    if inner_len == 0 {
        shape[0] = m.iter().filter(|&&b| b).count();
    }
    shape.extend_from_slice(&inner);
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("selected rows times row length"))
}

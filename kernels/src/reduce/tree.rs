//! The pairwise tree over leaves and the layout handling shared by every reduction.
//!
//! A slice of `n` elements has `ceil(n / LEAF)` leaves. The tree over them is fixed by that
//! count: the leaves split into power-of-two blocks following the binary digits of the count
//! (largest first), each block is a perfect binary tree, and the block results are combined
//! right to left. Parallel execution splits perfect blocks in halves, which are subtrees, so
//! serial and parallel results are bit-identical.

use ndarray::{ArrayView1, ArrayViewD, Axis, Zip};

use super::{LEAF, Reducer};
use crate::layout::normalize;
use crate::parallel::{self, use_parallel};
use crate::simd::{Kernel, Simd, dispatch};

/// A perfect block of leaves, reduced serially inside one dispatch (binary-counter pairwise).
struct BlockKernel<'a, T, R> {
    r: R,
    xs: &'a [T],
    mask: Option<&'a [bool]>,
}

impl<T: Copy, R: Reducer<T>> Kernel for BlockKernel<'_, T, R> {
    type Output = R::Acc;
    #[inline(always)]
    fn run<S: Simd>(self) -> R::Acc {
        tree_serial::<S, T, R>(self.r, self.xs, self.mask)
    }
}

/// The pairwise tree over the leaves of `xs`, serially, for backend `S`.
#[inline(always)]
pub(crate) fn tree_serial<S: Simd, T: Copy, R: Reducer<T>>(
    r: R,
    xs: &[T],
    mask: Option<&[bool]>,
) -> R::Acc {
    if xs.len() <= LEAF {
        return leaf::<S, T, R>(r, xs, mask, 0);
    }
    // Binary counter: stack[k] holds a perfect subtree of 2^level leaves; equal levels merge.
    let mut stack: [(u32, R::Acc); 64] = [(0, r.identity()); 64];
    let mut depth = 0usize;
    let mut start = 0;
    while start < xs.len() {
        let mut node = (0u32, leaf::<S, T, R>(r, xs, mask, start));
        while depth > 0 && stack[depth - 1].0 == node.0 {
            depth -= 1;
            node = (node.0 + 1, r.combine(stack[depth].1, node.1));
        }
        stack[depth] = node;
        depth += 1;
        start += LEAF;
    }
    let mut acc = stack[depth - 1].1;
    for k in (0..depth - 1).rev() {
        acc = r.combine(stack[k].1, acc);
    }
    acc
}

/// The leaf starting at `start`. A function, not a closure: closures are not reliably inlined
/// into the target-feature wrapper, and a leaf compiled outside it would not be vectorised.
#[inline(always)]
fn leaf<S: Simd, T: Copy, R: Reducer<T>>(
    r: R,
    xs: &[T],
    mask: Option<&[bool]>,
    start: usize,
) -> R::Acc {
    let end = (start + LEAF).min(xs.len());
    match mask {
        Some(m) => r.leaf_masked::<S>(&xs[start..end], &m[start..end]),
        None => r.leaf::<S>(&xs[start..end]),
    }
}

/// Reduces a perfect block (a power-of-two number of leaves, the last possibly partial),
/// halving across rayon workers while halves are large.
fn reduce_block<T: Copy + Sync, R: Reducer<T>>(
    r: R,
    xs: &[T],
    mask: Option<&[bool]>,
    leaves: usize,
) -> R::Acc {
    let bytes = size_of_val(xs);
    if leaves >= 2 && use_parallel(bytes) {
        let half = (leaves / 2) * LEAF;
        let (xl, xr) = xs.split_at(half.min(xs.len()));
        let (ml, mr) = match mask {
            Some(m) => {
                let (a, b) = m.split_at(half.min(m.len()));
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        let (a, b) = parallel::join(
            || reduce_block(r, xl, ml, leaves / 2),
            || reduce_block(r, xr, mr, leaves / 2),
        );
        return r.combine(a, b);
    }
    dispatch(BlockKernel { r, xs, mask })
}

/// Reduces a contiguous slice (and optional same-length mask) with the fixed pairwise tree.
pub(crate) fn reduce_slice<T: Copy + Sync, R: Reducer<T>>(
    r: R,
    xs: &[T],
    mask: Option<&[bool]>,
) -> R::Acc {
    if xs.len() <= LEAF {
        return dispatch(BlockKernel { r, xs, mask });
    }
    let leaves = xs.len().div_ceil(LEAF);
    let mut blocks = Vec::with_capacity(usize::BITS as usize);
    let mut start_leaf = 0;
    for bit in (0..usize::BITS).rev() {
        let size = 1usize << bit;
        if leaves & size != 0 {
            let start = start_leaf * LEAF;
            let end = ((start_leaf + size) * LEAF).min(xs.len());
            blocks.push((start, end, size));
            start_leaf += size;
        }
    }
    let results: Vec<R::Acc> = blocks
        .iter()
        .map(|&(s, e, size)| reduce_block(r, &xs[s..e], mask.map(|m| &m[s..e]), size))
        .collect();
    let mut acc = results[results.len() - 1];
    for &x in results[..results.len() - 1].iter().rev() {
        acc = r.combine(x, acc);
    }
    acc
}

/// Pairwise reduction of a strided 1-D lane (no vectorisation possible, but still pairwise).
fn reduce_strided<T: Copy, R: Reducer<T>>(
    r: R,
    xs: ArrayView1<'_, T>,
    mask: Option<ArrayView1<'_, bool>>,
) -> R::Acc {
    const SEQUENTIAL: usize = 256;
    if xs.len() <= SEQUENTIAL {
        let mut acc = r.identity();
        match mask {
            Some(m) => {
                for (&x, &keep) in xs.iter().zip(m.iter()) {
                    if keep {
                        acc = r.step(acc, x);
                    }
                }
            }
            None => {
                for &x in xs.iter() {
                    acc = r.step(acc, x);
                }
            }
        }
        return acc;
    }
    let mid = xs.len() / 2;
    let (xl, xr) = xs.split_at(Axis(0), mid);
    let (ml, mr) = match mask {
        Some(m) => {
            let (a, b) = m.split_at(Axis(0), mid);
            (Some(a), Some(b))
        }
        None => (None, None),
    };
    let a = reduce_strided(r, xl, ml);
    let b = reduce_strided(r, xr, mr);
    r.combine(a, b)
}

/// Reduces one 1-D lane: SIMD tree when both lane and mask are contiguous, else strided.
pub(crate) fn reduce_lane<T: Copy + Sync, R: Reducer<T>>(
    r: R,
    xs: ArrayView1<'_, T>,
    mask: Option<ArrayView1<'_, bool>>,
) -> R::Acc {
    match (xs.as_slice(), mask.as_ref().map(|m| m.as_slice())) {
        (Some(s), None) => reduce_slice(r, s, None),
        (Some(s), Some(Some(m))) => reduce_slice(r, s, Some(m)),
        _ => reduce_strided(r, xs, mask),
    }
}

/// Pairwise combine of partial results in order.
pub(crate) fn combine_all<T, R: Reducer<T>>(r: R, parts: &[R::Acc]) -> R::Acc {
    match parts.len() {
        0 => r.identity(),
        1 => parts[0],
        n => {
            let (a, b) = parts.split_at(n / 2);
            r.combine(combine_all::<T, R>(r, a), combine_all::<T, R>(r, b))
        }
    }
}

/// Reduces every element of a view of any layout (the mask, if any, has the same shape).
///
/// Contiguous views (in any memory order, including reversed axes) reduce as one slice in
/// memory order. Others reduce lane by lane along their smallest-stride axis, each lane
/// vectorised when its stride is 1, and the lane results are combined pairwise.
pub(crate) fn reduce_view<T: Copy + Sync, R: Reducer<T>>(
    r: R,
    xs: ArrayViewD<'_, T>,
    mask: Option<ArrayViewD<'_, bool>>,
) -> R::Acc {
    if xs.is_empty() {
        return r.identity();
    }
    // Fast paths without the (allocating) normalisation: contiguous in any memory order with
    // no mask, or values and mask both in standard layout.
    match &mask {
        None => {
            if let Some(s) = xs.as_slice_memory_order() {
                return reduce_slice(r, s, None);
            }
        }
        Some(m) => {
            if let (Some(s), Some(ms)) = (xs.as_slice(), m.as_slice()) {
                return reduce_slice(r, s, Some(ms));
            }
        }
    }
    let (xs, transform) = normalize(xs);
    let mask = mask.map(|m| transform.apply(m));
    match (xs.as_slice(), mask.as_ref().map(|m| m.as_slice())) {
        (Some(s), None) => return reduce_slice(r, s, None),
        (Some(s), Some(Some(m))) => return reduce_slice(r, s, Some(m)),
        _ => {}
    }
    if xs.ndim() == 0 {
        // A rank-0 view is always contiguous, so only a strided rank-0 mask can get here.
        let x = xs[[]];
        return match mask {
            Some(m) if !m[[]] => r.identity(),
            _ => r.step(r.identity(), x),
        };
    }
    let last = Axis(xs.ndim() - 1);
    let mut parts = Vec::new();
    match mask {
        Some(m) => Zip::from(xs.lanes(last))
            .and(m.lanes(last))
            .for_each(|x, m| parts.push(reduce_lane(r, x, Some(m)))),
        None => xs
            .lanes(last)
            .into_iter()
            .for_each(|x| parts.push(reduce_lane(r, x, None))),
    }
    combine_all::<T, R>(r, &parts)
}

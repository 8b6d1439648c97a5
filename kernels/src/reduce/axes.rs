//! Reductions over a set of axes, with `keepdims`, as NumPy's `a.sum(axis=(…), keepdims=…)`.
//!
//! Axes may be negative; out-of-range and repeated axes are errors. An empty axis set reduces
//! nothing (each output is the reduction of one element). Outputs are in standard layout.

use ndarray::{ArrayBase, ArrayD, ArrayViewD, Axis, Data, Dimension, IxDyn, Zip};

use super::full::{arg_extreme, empty};
use super::tree::{reduce_lane, reduce_view};
use super::{CountNonzeroR, MaxR, MinR, ProdR, Reducer, SumR};
use crate::error::Result;
use crate::layout::{check_output, normalize_axes};
use crate::scalar::{Num, Scalar};
use crate::simd::{Kernel, Simd, dispatch};

/// The arrays a reduction over `axes` works on: input (and mask) with kept axes first.
pub(crate) struct AxesPlan<'a, T> {
    /// Input with axes permuted to `[kept…, reduced…]`.
    pub(crate) xs: ArrayViewD<'a, T>,
    /// Mask permuted the same way.
    pub(crate) mask: Option<ArrayViewD<'a, bool>>,
    /// Sorted reduced axes (original numbering).
    pub(crate) axes: Vec<usize>,
    /// Shape of the output without keepdims.
    pub(crate) kept_shape: Vec<usize>,
    /// Elements reduced into each output.
    pub(crate) count: usize,
    /// The input as given, when it is standard layout and the reduced axes are the leading
    /// ones: then it is a `[count, outputs]` row-major matrix reduced over its rows.
    leading: Option<&'a [T]>,
}

impl<'a, T> AxesPlan<'a, T> {
    pub(crate) fn new(
        op: &'static str,
        xs: ArrayViewD<'a, T>,
        mask: Option<ArrayViewD<'a, bool>>,
        axes: &[isize],
    ) -> Result<Self> {
        let ndim = xs.ndim();
        let axes = normalize_axes(op, axes, ndim)?;
        let kept: Vec<usize> = (0..ndim).filter(|a| !axes.contains(a)).collect();
        let perm: Vec<usize> = kept.iter().chain(axes.iter()).copied().collect();
        let kept_shape: Vec<usize> = kept.iter().map(|&a| xs.shape()[a]).collect();
        // The output, in the widest accumulator (8 bytes), must be allocatable.
        check_output::<u64>(op, &kept_shape)?;
        let count = axes.iter().map(|&a| xs.shape()[a]).product();
        let is_leading =
            !axes.is_empty() && axes.len() < ndim && axes.iter().enumerate().all(|(i, &a)| a == i);
        let leading = if is_leading && mask.is_none() {
            xs.to_slice()
        } else {
            None
        };
        let xs = xs.permuted_axes(IxDyn(&perm));
        let mask = mask.map(|m| m.permuted_axes(IxDyn(&perm)));
        Ok(AxesPlan {
            xs,
            mask,
            axes,
            kept_shape,
            count,
            leading,
        })
    }

    /// Applies `f` to the sub-view (and sub-mask) of every output position.
    pub(crate) fn map<O>(
        &self,
        f: impl Fn(ArrayViewD<'_, T>, Option<ArrayViewD<'_, bool>>) -> O,
    ) -> ArrayD<O> {
        let k = self.kept_shape.len();
        ArrayD::from_shape_fn(IxDyn(&self.kept_shape), |idx| {
            let mut sub = self.xs.view();
            let mut msub = self.mask.as_ref().map(|m| m.view());
            for i in 0..k {
                sub = sub.index_axis_move(Axis(0), idx[i]);
                msub = msub.map(|m| m.index_axis_move(Axis(0), idx[i]));
            }
            f(sub, msub)
        })
    }

    /// Reduces with `r` into an array of partial results in the kept shape.
    pub(crate) fn reduce<R: Reducer<T>>(&self, r: R) -> ArrayD<R::Acc>
    where
        T: Copy + Sync,
    {
        let nd = self.xs.ndim();
        if let Some(rows) = self.leading {
            let width = self.kept_shape.iter().product();
            let accs = reduce_rows(r, rows, self.count, width);
            return ArrayD::from_shape_vec(IxDyn(&self.kept_shape), accs)
                .expect("one partial result per output");
        }
        if self.axes.len() == 1 {
            // One reduced axis (now last): reduce lane by lane, vectorised when contiguous.
            let last = Axis(nd - 1);
            return match &self.mask {
                None => Zip::from(self.xs.lanes(last)).map_collect(|x| reduce_lane(r, x, None)),
                Some(m) => Zip::from(self.xs.lanes(last))
                    .and(m.lanes(last))
                    .map_collect(|x, m| reduce_lane(r, x, Some(m))),
            };
        }
        self.map(|x, m| reduce_view(r, x, m))
    }

    /// Finishes partial results into the output, inserting length-1 axes for `keepdims`.
    pub(crate) fn finish<A, O>(
        &self,
        parts: ArrayD<A>,
        keepdims: bool,
        f: impl Fn(A) -> Result<O>,
    ) -> Result<ArrayD<O>> {
        let mut out = Vec::with_capacity(parts.len());
        // Iterate in logical (C) order so `out` is standard layout.
        for a in parts.into_iter() {
            out.push(f(a)?);
        }
        let out = ArrayD::from_shape_vec(IxDyn(&self.kept_shape), out)
            .expect("kept_shape has exactly parts.len() elements");
        Ok(self.keep_dims(out, keepdims))
    }

    /// Inserts length-1 axes at the reduced positions when `keepdims`.
    pub(crate) fn keep_dims<O>(&self, mut out: ArrayD<O>, keepdims: bool) -> ArrayD<O> {
        if keepdims {
            for &a in &self.axes {
                out.insert_axis_inplace(Axis(a));
            }
        }
        out
    }
}

/// Reduces the `rows` rows of a row-major `[rows, width]` matrix into `width` results: rows
/// are added elementwise into a row of accumulators (vectorised across columns), in blocks of
/// [`ROW_BLOCK`] rows combined by the same binary-counter pairwise tree as the leaves of a
/// full reduction, over column tiles that stay in cache.
fn reduce_rows<T: Copy + Sync, R: Reducer<T>>(
    r: R,
    xs: &[T],
    rows: usize,
    width: usize,
) -> Vec<R::Acc> {
    struct Rows<'a, T, R> {
        r: R,
        xs: &'a [T],
        rows: usize,
        width: usize,
    }
    impl<T: Copy, R: Reducer<T>> Kernel for Rows<'_, T, R> {
        type Output = Vec<R::Acc>;
        #[inline(always)]
        fn run<S: Simd>(self) -> Vec<R::Acc> {
            let Rows { r, xs, rows, width } = self;
            let mut out = Vec::with_capacity(width);
            let mut stack: Vec<(u32, Vec<R::Acc>)> = Vec::new();
            let mut col = 0;
            while col < width {
                let tile = COLUMN_TILE.min(width - col);
                stack.clear();
                let mut start = 0;
                while start < rows {
                    let mut acc = vec![r.identity(); tile];
                    for i in start..(start + ROW_BLOCK).min(rows) {
                        let row = &xs[i * width + col..i * width + col + tile];
                        for (a, &x) in acc.iter_mut().zip(row) {
                            *a = r.step(*a, x);
                        }
                    }
                    let mut node = (0u32, acc);
                    while stack.last().is_some_and(|top| top.0 == node.0) {
                        let (level, mut left) = stack.pop().expect("checked non-empty");
                        for (l, &x) in left.iter_mut().zip(&node.1) {
                            *l = r.combine(*l, x);
                        }
                        node = (level + 1, left);
                    }
                    stack.push(node);
                    start += ROW_BLOCK;
                }
                let mut acc = match stack.pop() {
                    Some((_, acc)) => acc,
                    None => vec![r.identity(); tile],
                };
                while let Some((_, mut left)) = stack.pop() {
                    for (l, &x) in left.iter_mut().zip(&acc) {
                        *l = r.combine(*l, x);
                    }
                    acc = left;
                }
                out.extend_from_slice(&acc);
                col += tile;
            }
            out
        }
    }
    dispatch(Rows { r, xs, rows, width })
}

/// Rows added sequentially before the pairwise tree takes over (bounds the sequential part
/// of the rounding error, like the rows of a leaf do).
const ROW_BLOCK: usize = 64;

/// Columns per tile of [`reduce_rows`]: 2048 accumulators stay in L1/L2 while rows stream.
const COLUMN_TILE: usize = 2048;

fn plan<'a, T, S: Data<Elem = T>, D: Dimension>(
    op: &'static str,
    a: &'a ArrayBase<S, D>,
    axes: &[isize],
) -> Result<AxesPlan<'a, T>> {
    AxesPlan::new(op, a.view().into_dyn(), None, axes)
}

/// Sum over `axes`.
pub fn sum_axes<T: Num, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<T::Wide>> {
    let p = plan("sum", a, axes)?;
    p.finish(p.reduce(SumR), keepdims, |s| Ok(T::sum_finish(s)))
}

/// Mean over `axes` (NaN where the reduced extent is 0).
pub fn mean_axes<T: Num, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<T::Real>> {
    let p = plan("mean", a, axes)?;
    let n = p.count;
    p.finish(p.reduce(SumR), keepdims, |s| Ok(T::mean_finish(s, n)))
}

/// Product over `axes`.
pub fn prod_axes<T: Num, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<T::Wide>> {
    let p = plan("prod", a, axes)?;
    p.finish(p.reduce(ProdR), keepdims, Ok)
}

/// Maximum over `axes`; an error when the reduced extent is 0.
pub fn max_axes<T: Num, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<T>> {
    let p = plan("max", a, axes)?;
    if p.count == 0 {
        return Err(empty("max", " (reduced axes have size 0)"));
    }
    p.finish(p.reduce(MaxR), keepdims, Ok)
}

/// Minimum over `axes`; an error when the reduced extent is 0.
pub fn min_axes<T: Num, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<T>> {
    let p = plan("min", a, axes)?;
    if p.count == 0 {
        return Err(empty("min", " (reduced axes have size 0)"));
    }
    p.finish(p.reduce(MinR), keepdims, Ok)
}

/// Whether any element over `axes` is non-zero.
pub fn any_axes<T: Scalar, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<bool>> {
    let p = plan("any", a, axes)?;
    if p.kept_shape.iter().product::<usize>() == 1 {
        // One output reduces every element: stop at the first non-zero.
        let out = ArrayD::from_elem(IxDyn(&p.kept_shape), super::full::any(a));
        return Ok(p.keep_dims(out, keepdims));
    }
    p.finish(p.reduce(CountNonzeroR), keepdims, |c| Ok(c > 0))
}

/// Whether every element over `axes` is non-zero.
pub fn all_axes<T: Scalar, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<bool>> {
    let p = plan("all", a, axes)?;
    if p.kept_shape.iter().product::<usize>() == 1 {
        // One output reduces every element: stop at the first zero.
        let out = ArrayD::from_elem(IxDyn(&p.kept_shape), super::full::all(a));
        return Ok(p.keep_dims(out, keepdims));
    }
    let n = p.count;
    p.finish(p.reduce(CountNonzeroR), keepdims, |c| Ok(c == n))
}

/// Number of non-zero elements over `axes`.
pub fn count_nonzero_axes<T: Scalar, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<usize>> {
    let p = plan("count_nonzero", a, axes)?;
    p.finish(p.reduce(CountNonzeroR), keepdims, Ok)
}

/// Index of the first maximum (or first NaN) over `axes`, as a flat C-order index into the
/// reduced axes' shape (for one axis: the index along it, as NumPy's `argmax(axis=…)`).
pub fn argmax_axes<T: Num, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<usize>> {
    arg_axes("argmax", a, axes, keepdims, true)
}

/// Index of the first minimum (or first NaN) over `axes`; see [`argmax_axes`].
pub fn argmin_axes<T: Num, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
) -> Result<ArrayD<usize>> {
    arg_axes("argmin", a, axes, keepdims, false)
}

fn arg_axes<T: Num, S: Data<Elem = T>, D: Dimension>(
    op: &'static str,
    a: &ArrayBase<S, D>,
    axes: &[isize],
    keepdims: bool,
    is_max: bool,
) -> Result<ArrayD<usize>> {
    let p = plan(op, a, axes)?;
    if p.count == 0 {
        return Err(empty(op, " (reduced axes have size 0)"));
    }
    let parts = p.map(|x, _| arg_extreme(x, is_max));
    p.finish(parts, keepdims, |i| i.ok_or_else(|| empty(op, "")))
}

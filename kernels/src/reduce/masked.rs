//! Masked reductions: reduce the values where a boolean mask is true, without compacting them.
//!
//! The mask has the values' shape or broadcasts to it (NumPy rules; the values never
//! broadcast to the mask). Masked-off elements are replaced by the reduction's identity inside
//! the vectorised leaf (`0` for sums, `-inf`/`+inf` for max/min), so a masked-off NaN is ignored.
//! Contiguous values with a contiguous mask take the SIMD path; other layouts go lane by lane.

use ndarray::{ArrayBase, ArrayD, ArrayViewD, Data, Dimension};

use super::axes::AxesPlan;
use super::full::empty;
use super::tree::{reduce_slice, reduce_view};
use super::{CountMaskR, MaxR, MinR, Reducer, SumR};
use crate::error::Result;
use crate::layout::broadcast_to;
use crate::scalar::{Num, Scalar};
use crate::simd::Simd;

/// Pairs a reducer with the count of masked-in elements (for mean, and emptiness of max/min),
/// computed only when `COUNT`.
#[derive(Clone, Copy, Debug)]
struct WithCount<R, const COUNT: bool>(R);

impl<T: Scalar, R: Reducer<T>, const COUNT: bool> Reducer<T> for WithCount<R, COUNT> {
    type Acc = (R::Acc, usize);
    #[inline(always)]
    fn identity(self) -> Self::Acc {
        (self.0.identity(), 0)
    }
    #[inline(always)]
    fn leaf<S: Simd>(self, xs: &[T]) -> Self::Acc {
        (self.0.leaf::<S>(xs), xs.len())
    }
    #[inline(always)]
    fn leaf_masked<S: Simd>(self, xs: &[T], mask: &[bool]) -> Self::Acc {
        // The count costs a second pass over the mask; only reductions that need it pay.
        let count = if COUNT {
            <CountMaskR as Reducer<T>>::leaf_masked::<S>(CountMaskR, xs, mask)
        } else {
            0
        };
        (self.0.leaf_masked::<S>(xs, mask), count)
    }
    #[inline(always)]
    fn step(self, acc: Self::Acc, x: T) -> Self::Acc {
        (self.0.step(acc.0, x), acc.1 + 1)
    }
    #[inline(always)]
    fn combine(self, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        (self.0.combine(a.0, b.0), a.1 + b.1)
    }
}

fn views<'a, T, S, D, SM, DM>(
    op: &'static str,
    values: &'a ArrayBase<S, D>,
    mask: &'a ArrayBase<SM, DM>,
) -> Result<(ArrayViewD<'a, T>, ArrayViewD<'a, bool>)>
where
    S: Data<Elem = T>,
    D: Dimension,
    SM: Data<Elem = bool>,
    DM: Dimension,
{
    let xs = values.view().into_dyn();
    let m = broadcast_to(op, "argument 1", &mask.view().into_dyn(), xs.shape())?;
    Ok((xs, m))
}

/// How a masked reduction learns its count of selected elements: `true` (counted alongside,
/// for means), `false` (not needed), or `lazy` (max/min: only "selects nothing" matters, and
/// that is possible only when the result is the identity, `-inf`/`+inf`, as masked-off lanes
/// read the identity and a selected NaN gives NaN; so the mask is counted only then, instead
/// of in a second pass over every leaf's mask).
macro_rules! count {
    (eager true) => {
        true
    };
    (eager false) => {
        false
    };
    (eager lazy) => {
        false
    };
    (axes lazy) => {
        true
    };
    (axes $c:tt) => {
        $c
    };
    (finish lazy, $acc:expr, $n:expr, $r:expr, $values:expr, $mask:expr) => {{
        let _ = $n; // not counted
        if $acc == <_ as Reducer<T>>::identity($r) {
            masked_count($values, $mask)?
        } else {
            1
        }
    }};
    (finish $c:tt, $acc:expr, $n:expr, $r:expr, $values:expr, $mask:expr) => {
        $n
    };
}

macro_rules! masked_pair {
    ($(#[$doc:meta])* $name:ident, $(#[$doc_axes:meta])* $name_axes:ident, $op:literal,
     $bound:ident, $out:ty, $r:expr, $count:tt, |$acc:ident, $n:ident| $finish:expr) => {
        $(#[$doc])*
        pub fn $name<T, S, D, SM, DM>(values: &ArrayBase<S, D>, mask: &ArrayBase<SM, DM>) -> Result<$out>
        where
            T: $bound,
            S: Data<Elem = T>,
            D: Dimension,
            SM: Data<Elem = bool>,
            DM: Dimension,
        {
            let ($acc, $n) = match (values.as_slice(), mask.as_slice()) {
                // Same-shape standard layouts: straight to the slice tree.
                (Some(xs), Some(m)) if values.shape() == mask.shape() => {
                    reduce_slice(WithCount::<_, { count!(eager $count) }>($r), xs, Some(m))
                }
                _ => {
                    let (xs, m) = views($op, values, mask)?;
                    reduce_view(WithCount::<_, { count!(eager $count) }>($r), xs, Some(m))
                }
            };
            let $n = count!(finish $count, $acc, $n, $r, values, mask);
            $finish
        }

        $(#[$doc_axes])*
        pub fn $name_axes<T, S, D, SM, DM>(
            values: &ArrayBase<S, D>,
            mask: &ArrayBase<SM, DM>,
            axes: &[isize],
            keepdims: bool,
        ) -> Result<ArrayD<$out>>
        where
            T: $bound,
            S: Data<Elem = T>,
            D: Dimension,
            SM: Data<Elem = bool>,
            DM: Dimension,
        {
            let (xs, m) = views($op, values, mask)?;
            let p = AxesPlan::new($op, xs, Some(m), axes)?;
            p.finish(p.reduce(WithCount::<_, { count!(axes $count) }>($r)), keepdims, |($acc, $n)| $finish)
        }
    };
}

masked_pair!(
    /// Sum of the values where `mask` is true (0 when none).
    masked_sum,
    /// Masked sum over `axes`.
    masked_sum_axes,
    "masked_sum", Num, T::Wide, SumR, false, |acc, _n| Ok(T::sum_finish(acc))
);
masked_pair!(
    /// Mean of the values where `mask` is true (NaN when none).
    masked_mean,
    /// Masked mean over `axes`.
    masked_mean_axes,
    "masked_mean", Num, T::Real, SumR, true, |acc, n| Ok(T::mean_finish(acc, n))
);
masked_pair!(
    /// Maximum of the values where `mask` is true; NaN propagates; an error when none.
    masked_max,
    /// Masked maximum over `axes`; an error where no element is selected.
    masked_max_axes,
    "masked_max", Num, T, MaxR, lazy,
    |acc, n| if n == 0 { Err(empty("masked_max", " (mask selects nothing)")) } else { Ok(acc) }
);
masked_pair!(
    /// Minimum of the values where `mask` is true; NaN propagates; an error when none.
    masked_min,
    /// Masked minimum over `axes`; an error where no element is selected.
    masked_min_axes,
    "masked_min", Num, T, MinR, lazy,
    |acc, n| if n == 0 { Err(empty("masked_min", " (mask selects nothing)")) } else { Ok(acc) }
);
masked_pair!(
    /// Number of true mask elements (after broadcasting the mask to the values' shape).
    masked_count,
    /// Masked count over `axes`.
    masked_count_axes,
    "masked_count", Scalar, usize, CountMaskR, true, |_acc, n| Ok(n)
);

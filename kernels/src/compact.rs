//! Boolean-mask compaction (`values[mask]` in NumPy, `tf.boolean_mask`).

use ndarray::{ArrayBase, ArrayD, Axis, Data, Dimension, IxDyn};

use crate::element::Element;
use crate::error::{KernelError, Result};
use crate::parallel::advise_huge_pages;
use crate::simd::{Kernel, Simd, dispatch};

/// Branch-free compaction of a contiguous run: every element is stored at the write cursor,
/// which advances only when the mask is true, so there is no unpredictable branch.
struct Compact<'a, T> {
    xs: &'a [T],
    mask: &'a [bool],
    out: &'a mut Vec<T>,
}

impl<T: Copy> Kernel for Compact<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run<S: Simd>(self) {
        let Compact { xs, mask, out } = self;
        let n = xs.len().min(mask.len());
        let kept: usize = mask[..n].iter().map(|&m| m as usize).sum();
        // One spare slot: the cursor may sit at `kept` while an unselected element is stored.
        out.reserve(kept + 1);
        let base = out.len();
        let dst = out.spare_capacity_mut();
        advise_huge_pages(dst);
        let mut j = 0usize;
        for (&x, &m) in xs[..n].iter().zip(&mask[..n]) {
            // `j <= kept < dst.len()` always: j counts selected elements seen so far.
            dst[j].write(x);
            j += m as usize;
        }
        // SAFETY: exactly `kept == j` elements at `base..base + j` were written (the slot at
        // `j` holds at most an unselected element, excluded by the length).
        unsafe { out.set_len(base + j) };
    }
}

/// The elements of `values` where `mask` is true. `mask` covers the leading axes of `values`
/// (`mask.shape() == values.shape()[..mask.ndim()]`); the result has shape
/// `[selected, values.shape()[mask.ndim()..]…]`, in C order of the mask.
pub fn boolean_mask<T, S, D, SM, DM>(
    values: &ArrayBase<S, D>,
    mask: &ArrayBase<SM, DM>,
) -> Result<ArrayD<T>>
where
    T: Element,
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
            arg: "mask".into(),
            expected: xs.shape()[..k.min(xs.ndim())].to_vec(),
            found: m.shape().to_vec(),
        });
    }
    let inner: Vec<usize> = xs.shape()[k..].to_vec();
    let inner_len: usize = inner.iter().product();
    let mut out: Vec<T> = Vec::new();
    if inner_len == 1 || inner.is_empty() {
        if let (Some(sx), Some(sm)) = (xs.as_slice(), m.as_slice()) {
            dispatch(Compact {
                xs: sx,
                mask: sm,
                out: &mut out,
            });
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
                arg: "values",
                expected: "a layout reshapeable to rows".into(),
                found: format!("strides {:?}", values.strides()),
            })?;
        let selected = m.iter().filter(|&&b| b).count();
        out.reserve(selected * inner_len);
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

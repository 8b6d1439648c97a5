//! `stack` (new axis) and `concat` (existing axis) of arrays of any layout into one
//! standard-layout array. Contiguous inputs joined along axis 0 are plain `memcpy`s.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};

use crate::element::Element;
use crate::error::{KernelError, Result};
use crate::layout::normalize_axis;

fn copy_into<T: Element>(
    dst: &mut ndarray::ArrayViewMutD<'_, std::mem::MaybeUninit<T>>,
    src: &ArrayViewD<'_, T>,
) {
    if let (Some(d), Some(s)) = (dst.as_slice_mut(), src.as_slice()) {
        for (d, &s) in d.iter_mut().zip(s) {
            d.write(s);
        }
    } else {
        src.assign_to(dst.view_mut());
    }
}

/// Joins `arrays` (all of one shape) along a new axis `axis` (`-ndim-1..=ndim`).
pub fn stack<T: Element>(axis: isize, arrays: &[ArrayViewD<'_, T>]) -> Result<ArrayD<T>> {
    const OP: &str = "stack";
    let Some(first) = arrays.first() else {
        return Err(KernelError::Argument {
            op: OP,
            arg: "arrays",
            expected: "at least one array".into(),
            found: "none".into(),
        });
    };
    let ax = normalize_axis(OP, axis, first.ndim() + 1)?;
    for (i, a) in arrays.iter().enumerate() {
        if a.shape() != first.shape() {
            return Err(KernelError::Shape {
                op: OP,
                arg: format!("arrays[{i}]"),
                expected: first.shape().to_vec(),
                found: a.shape().to_vec(),
            });
        }
    }
    let expanded: Vec<ArrayViewD<'_, T>> = arrays
        .iter()
        .map(|a| a.clone().insert_axis(Axis(ax)))
        .collect();
    join(OP, ax, &expanded)
}

/// Joins `arrays` along existing axis `axis`; all other axes must agree.
pub fn concat<T: Element>(axis: isize, arrays: &[ArrayViewD<'_, T>]) -> Result<ArrayD<T>> {
    const OP: &str = "concat";
    let Some(first) = arrays.first() else {
        return Err(KernelError::Argument {
            op: OP,
            arg: "arrays",
            expected: "at least one array".into(),
            found: "none".into(),
        });
    };
    if first.ndim() == 0 {
        return Err(KernelError::Argument {
            op: OP,
            arg: "arrays",
            expected: "arrays of rank >= 1".into(),
            found: "a rank-0 array".into(),
        });
    }
    let ax = normalize_axis(OP, axis, first.ndim())?;
    for (i, a) in arrays.iter().enumerate() {
        let same_rank = a.ndim() == first.ndim();
        if !same_rank
            || a.shape()
                .iter()
                .zip(first.shape())
                .enumerate()
                .any(|(k, (x, y))| k != ax && x != y)
        {
            let mut expected = first.shape().to_vec();
            if same_rank {
                expected[ax] = a.shape()[ax];
            }
            return Err(KernelError::Shape {
                op: OP,
                arg: format!("arrays[{i}]"),
                expected,
                found: a.shape().to_vec(),
            });
        }
    }
    join(OP, ax, arrays)
}

/// Concatenates shape-checked arrays along `ax`.
fn join<T: Element>(
    _op: &'static str,
    ax: usize,
    arrays: &[ArrayViewD<'_, T>],
) -> Result<ArrayD<T>> {
    let mut shape = arrays[0].shape().to_vec();
    shape[ax] = arrays.iter().map(|a| a.shape()[ax]).sum();
    let mut out = ArrayD::<T>::uninit(IxDyn(&shape));
    let mut start = 0;
    for a in arrays {
        let len = a.shape()[ax];
        let mut dst = out.slice_axis_mut(Axis(ax), Slice::from(start..start + len));
        copy_into(&mut dst, a);
        start += len;
    }
    // SAFETY: the slices `start..start + len` along `ax` tile `0..shape[ax]` exactly (shape[ax]
    // is the sum of the lengths), and each was fully written by `copy_into`, whose shapes
    // match because every other axis was checked equal.
    Ok(unsafe { out.assume_init() })
}

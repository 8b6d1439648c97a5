//! `stack` (new axis) and `concat` (existing axis) of arrays of any layout into one
//! standard-layout array. Contiguous inputs joined along axis 0 are plain `memcpy`s.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};

use crate::element::Element;
use crate::elementwise::engine::build_vec;
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
    if ax == 0 {
        // Standard-layout inputs stacked on a new leading axis are consecutive runs of the
        // output: skip building expanded views.
        let slices: Option<Vec<&[T]>> = arrays.iter().map(|a| a.as_slice()).collect();
        if let Some(slices) = slices {
            let mut shape = Vec::with_capacity(first.ndim() + 1);
            shape.push(arrays.len());
            shape.extend_from_slice(first.shape());
            let v = concat_flat(&slices);
            return Ok(
                ArrayD::from_shape_vec(IxDyn(&shape), v).expect("lengths add up to the shape")
            );
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

/// Concatenates contiguous runs into one `Vec`, copying chunks in parallel when large.
fn concat_flat<T: Element>(parts: &[&[T]]) -> Vec<T> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut starts = Vec::with_capacity(parts.len());
    let mut at = 0;
    for p in parts {
        starts.push(at);
        at += p.len();
    }
    build_vec(total, 2 * total * size_of::<T>(), |start, dst| {
        let end = start + dst.len();
        for (p, &s) in parts.iter().zip(&starts) {
            let (lo, hi) = (s.max(start), (s + p.len()).min(end));
            if lo < hi {
                let src = &p[lo - s..hi - s];
                let out = &mut dst[lo - start..hi - start];
                // SAFETY: `src` and `out` have the same length `hi - lo`; `out` is part of the
                // output's spare capacity, so the two cannot overlap. `MaybeUninit<T>` has
                // `T`'s layout, so copying `T`s into it is a plain byte copy.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        src.as_ptr(),
                        out.as_mut_ptr().cast::<T>(),
                        src.len(),
                    )
                };
            }
        }
    })
}

/// Concatenates shape-checked arrays along `ax`.
fn join<T: Element>(
    _op: &'static str,
    ax: usize,
    arrays: &[ArrayViewD<'_, T>],
) -> Result<ArrayD<T>> {
    let mut shape = arrays[0].shape().to_vec();
    shape[ax] = arrays.iter().map(|a| a.shape()[ax]).sum();
    // Along the leading axis, standard-layout inputs are consecutive runs of the output.
    let leading = arrays[0].shape()[..ax].iter().all(|&d| d == 1);
    if leading {
        let slices: Option<Vec<&[T]>> = arrays.iter().map(|a| a.as_slice()).collect();
        if let Some(slices) = slices {
            let v = concat_flat(&slices);
            return Ok(
                ArrayD::from_shape_vec(IxDyn(&shape), v).expect("lengths add up to the shape")
            );
        }
    }
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

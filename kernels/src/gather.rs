//! `gather`: take along an axis with bounds-checked indices (NumPy's `take(a, indices, axis)`,
//! negative indices counting from the end).

use ndarray::{ArrayBase, ArrayD, Axis, Data, Dimension, IxDyn};

use crate::error::{KernelError, Result};
use crate::layout::{check_output, normalize_axis};
use crate::scalar::Scalar;

/// Takes `indices` along `axis`: the output has `a`'s shape with that axis replaced by
/// `indices.len()`. Indices in `-n..n` are valid; anything else is an error.
pub fn gather<T: Scalar, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    indices: &[i64],
    axis: isize,
) -> Result<ArrayD<T>> {
    const OP: &str = "gather";
    let a = a.view().into_dyn();
    if a.ndim() == 0 {
        return Err(KernelError::Argument {
            op: OP,
            arg: "argument 0",
            expected: "rank >= 1".into(),
            found: "a rank-0 array".into(),
        });
    }
    let ax = normalize_axis(OP, axis, a.ndim())?;
    let n = a.shape()[ax];
    let mut resolved = Vec::with_capacity(indices.len());
    for (position, &index) in indices.iter().enumerate() {
        let i = if index < 0 { index + n as i64 } else { index };
        if i < 0 || i >= n as i64 {
            return Err(KernelError::IndexOutOfBounds {
                op: OP,
                index,
                position,
                axis: ax,
                size: n,
            });
        }
        resolved.push(i as usize);
    }
    let mut shape = a.shape().to_vec();
    shape[ax] = resolved.len();
    check_output::<T>(OP, &shape)?;
    let mut out = ArrayD::<T>::uninit(IxDyn(&shape));
    for (k, &i) in resolved.iter().enumerate() {
        let src = a.index_axis(Axis(ax), i);
        let mut dst = out.index_axis_mut(Axis(ax), k);
        match (dst.as_slice_mut(), src.as_slice()) {
            (Some(d), Some(s)) => {
                for (d, &s) in d.iter_mut().zip(s) {
                    d.write(s);
                }
            }
            _ => src.assign_to(dst.view_mut()),
        }
    }
    // SAFETY: every index `k` in `0..shape[ax]` along `ax` was written in full (each
    // sub-array has `src`'s shape, which is `a`'s shape without `ax`, as `dst`'s).
    Ok(unsafe { out.assume_init() })
}

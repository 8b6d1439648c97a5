//! Shape and stride helpers shared by the kernels: broadcasting, axis validation and the
//! "normalised view" that turns any contiguous layout (transposed, reversed) into a standard one.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, ShapeBuilder};

use crate::axis::{self, AxisError, Repeats};
use crate::error::{KernelError, Result};

/// Checks that an output of shape `dims` with elements of `T` can exist: its nonzero dims
/// multiply to at most `isize::MAX` (what any ndarray shape needs) and its byte size is at most
/// `isize::MAX`. Checked arithmetic throughout; nothing is allocated.
#[inline]
pub(crate) fn check_output<T>(op: &'static str, dims: &[usize]) -> Result<()> {
    check_wide::<T>(op, dims.iter().map(|&d| d as u128))
}

/// [`check_output`] for dims computed in `u128` (so that a sum or product of `usize`s that
/// overflows still has a shape to name).
pub(crate) fn check_wide<T>(
    op: &'static str,
    dims: impl Iterator<Item = u128> + Clone,
) -> Result<()> {
    let mut nonzero = 1u128;
    let mut empty = false;
    for d in dims.clone() {
        if d == 0 {
            empty = true;
        } else {
            nonzero = nonzero.saturating_mul(d);
        }
    }
    let limit = isize::MAX as u128;
    let bytes = if empty {
        0
    } else {
        nonzero.saturating_mul(size_of::<T>() as u128)
    };
    if nonzero > limit || bytes > limit {
        return Err(too_large::<T>(op, dims));
    }
    Ok(())
}

/// The error for an output of shape `dims` (dims may exceed `usize`) that cannot exist: its
/// byte size (or, when it is empty, the product of its nonzero dims) exceeds `isize::MAX`.
#[cold]
pub(crate) fn too_large<T>(
    op: &'static str,
    dims: impl Iterator<Item = u128> + Clone,
) -> KernelError {
    let elem_bytes = size_of::<T>();
    let nonzero = dims
        .clone()
        .filter(|&d| d != 0)
        .try_fold(1u128, |acc, d| acc.checked_mul(d));
    let (expected, found) = if dims.clone().any(|d| d == 0) {
        (
            format!(
                "nonzero dims whose product is at most {} (isize::MAX)",
                isize::MAX
            ),
            match nonzero {
                Some(n) => format!("a product of {n}"),
                None => format!("a product over {}", u128::MAX),
            },
        )
    } else {
        (
            format!("at most {} bytes (isize::MAX)", isize::MAX),
            match nonzero.and_then(|n| n.checked_mul(elem_bytes as u128)) {
                Some(b) => format!("{b} bytes"),
                None => format!("more than {} bytes", u128::MAX),
            },
        )
    };
    KernelError::TooLarge {
        op,
        shape: shape_text(dims),
        elem_bytes,
        expected,
        found,
    }
}

/// The error for an output of shape `dims` (whose size was checked) that the allocator refused.
#[cold]
pub(crate) fn refused<T>(op: &'static str, dims: &[usize]) -> KernelError {
    let elem_bytes = size_of::<T>();
    let bytes = dims
        .iter()
        .try_fold(elem_bytes as u128, |acc, &d| acc.checked_mul(d as u128));
    KernelError::TooLarge {
        op,
        shape: shape_text(dims.iter().map(|&d| d as u128)),
        elem_bytes,
        expected: "a size the allocator grants".into(),
        found: match bytes {
            Some(b) => format!("{b} bytes, refused"),
            None => format!("more than {} bytes", u128::MAX),
        },
    }
}

/// Shape text for errors: `[2, 3]`.
fn shape_text(dims: impl Iterator<Item = u128>) -> String {
    let text: Vec<String> = dims.map(|d| d.to_string()).collect();
    format!("[{}]", text.join(", "))
}

/// NumPy broadcast of several shapes. `names` label the arguments in errors.
pub(crate) fn broadcast_shapes(
    op: &'static str,
    shapes: &[(&str, &[usize])],
) -> Result<Vec<usize>> {
    let ndim = shapes.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; ndim];
    for (name, shape) in shapes {
        let before = out.clone();
        let offset = ndim - shape.len();
        for (i, &d) in shape.iter().enumerate() {
            let o = &mut out[offset + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                // Name the first argument that disagrees with the arguments before it, and
                // the shape those broadcast to.
                return Err(KernelError::Shape {
                    op,
                    arg: name.to_string(),
                    expected: before,
                    found: shape.to_vec(),
                });
            }
        }
    }
    Ok(out)
}

/// Broadcasts `view` to `shape` (zero strides), or a shape error naming `arg`.
pub(crate) fn broadcast_to<'a, T>(
    op: &'static str,
    arg: &str,
    view: &ArrayViewD<'a, T>,
    shape: &[usize],
) -> Result<ArrayViewD<'a, T>> {
    if view.shape() == shape {
        return Ok(view.clone());
    }
    // `broadcast` ties its result to `&view`, and `from_shape_ptr` (which can rebuild a view
    // for 'a) needs non-negative strides: flip negative axes, rebuild, flip them back.
    let mut flipped = view.clone();
    let mut inverted = Vec::new();
    for a in 0..flipped.ndim() {
        if flipped.strides()[a] < 0 {
            flipped.invert_axis(Axis(a));
            inverted.push(a);
        }
    }
    let strides: Vec<usize> = match flipped.broadcast(IxDyn(shape)) {
        Some(b) => b.strides().iter().map(|&s| s as usize).collect(),
        None => {
            return Err(KernelError::Shape {
                op,
                arg: arg.to_string(),
                expected: shape.to_vec(),
                found: view.shape().to_vec(),
            });
        }
    };
    // SAFETY: these are the (non-negative) strides `broadcast` computed for `flipped` and
    // `shape`, so every index of the new view maps to an element of `flipped`, whose data is
    // borrowed for 'a. Zero strides alias elements, which is fine for a read-only view.
    let mut out = unsafe {
        ArrayViewD::from_shape_ptr(IxDyn(shape).strides(IxDyn(&strides)), flipped.as_ptr())
    };
    let offset = shape.len() - view.ndim();
    for a in inverted {
        out.invert_axis(Axis(a + offset));
    }
    Ok(out)
}

/// Normalises an axis that may be negative ([`axis::checked`]).
pub(crate) fn normalize_axis(op: &'static str, axis: isize, ndim: usize) -> Result<usize> {
    axis::checked(axis, ndim).map_err(|e| axis_error(op, e))
}

/// Validates a set of (possibly negative) axes: in range and distinct ([`axis::selected`]).
/// Returns them sorted.
pub(crate) fn normalize_axes(op: &'static str, axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let flags =
        axis::selected(Some(axes), ndim, Repeats::Refused).map_err(|e| axis_error(op, e))?;
    Ok((0..ndim).filter(|&a| flags[a]).collect())
}

/// The kernels' words for an [`AxisError`].
#[cold]
fn axis_error(op: &'static str, e: AxisError) -> KernelError {
    match e {
        AxisError::OutOfRange { axis, rank } => KernelError::AxisOutOfRange {
            op,
            axis,
            ndim: rank,
        },
        AxisError::Repeated { index, .. } => KernelError::DuplicateAxis { op, axis: index },
    }
}

/// How a view was rearranged by [`normalize`]: undo it on a result of the same shape.
#[derive(Clone, Debug)]
pub(crate) struct Transform {
    perm: Vec<usize>,
    inverted: Vec<usize>,
}

impl Transform {
    /// Applies the same rearrangement to another view of the same shape.
    pub(crate) fn apply<'a, T>(&self, mut v: ArrayViewD<'a, T>) -> ArrayViewD<'a, T> {
        for &a in &self.inverted {
            v.invert_axis(Axis(a));
        }
        v.permuted_axes(IxDyn(&self.perm))
    }

    /// Maps a result computed on the normalised view back to the original axis order.
    pub(crate) fn undo<T>(&self, out: ArrayD<T>) -> ArrayD<T> {
        let mut inverse = vec![0usize; self.perm.len()];
        for (i, &p) in self.perm.iter().enumerate() {
            inverse[p] = i;
        }
        let mut out = out.permuted_axes(IxDyn(&inverse));
        for &a in &self.inverted {
            out.invert_axis(Axis(a));
        }
        out
    }
}

/// Reverses negative-stride axes and orders axes by decreasing stride, so that a view that is
/// contiguous in *any* memory order becomes standard (C) layout. Returns the view and how to
/// undo the rearrangement on a result.
pub(crate) fn normalize<'a, T>(mut v: ArrayViewD<'a, T>) -> (ArrayViewD<'a, T>, Transform) {
    let mut inverted = Vec::new();
    for a in 0..v.ndim() {
        if v.strides()[a] < 0 {
            v.invert_axis(Axis(a));
            inverted.push(a);
        }
    }
    let strides = v.strides().to_vec();
    let shape = v.shape().to_vec();
    let mut perm: Vec<usize> = (0..v.ndim()).collect();
    // Axes of length 1 carry no layout information; keep them in place relative to others by
    // treating their stride as "large" so they stay outermost.
    perm.sort_by_key(|&a| {
        std::cmp::Reverse(if shape[a] <= 1 {
            isize::MAX
        } else {
            strides[a]
        })
    });
    let v = v.permuted_axes(IxDyn(&perm));
    (v, Transform { perm, inverted })
}

//! Broadcasting of concrete shapes, with NumPy's rules.
//!
//! Shapes are aligned at their last axis; a missing leading axis counts as 1. At each axis the
//! sizes must all be equal, except that a 1 stretches to the others. So 0 combines only with 0 or 1,
//! and a rank-0 shape (`[]`) is the identity.

use smallvec::SmallVec;

use crate::dim::Dim;
use crate::error::{ArgRef, ShapeError};

/// Concrete sizes of a shape, stored inline up to rank 4 so the common case does not allocate.
pub type Sizes = SmallVec<[usize; 4]>;

/// Broadcasts any number of concrete shapes with NumPy's rules.
///
/// The error names the two conflicting arguments, the axis of each and their sizes.
///
/// ```
/// use extype_shape::broadcast_shapes;
/// let out = broadcast_shapes(&[&[8, 1, 6, 1], &[7, 1, 5]]).unwrap();
/// assert_eq!(out.as_slice(), &[8, 7, 6, 5]);
/// assert_eq!(broadcast_shapes(&[&[0], &[1]]).unwrap().as_slice(), &[0]);
/// let err = broadcast_shapes(&[&[3], &[4]]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "broadcast: argument 0 axis 0 has size 3 and argument 1 axis 0 has size 4; \
///      they must be equal or one must be 1"
/// );
/// ```
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Sizes, ShapeError> {
    broadcast_where(shapes, |_, _| true)
}

/// Broadcasts concrete shapes where only some axes may stretch from 1: `may_stretch(arg, axis)`
/// says whether argument `arg`'s size at its `axis` may broadcast. A size that may not must equal
/// the output's. Missing leading axes always broadcast.
pub(crate) fn broadcast_where(
    shapes: &[&[usize]],
    may_stretch: impl Fn(usize, usize) -> bool,
) -> Result<Sizes, ShapeError> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = Sizes::from_elem(1, rank);
    for from_end in 0..rank {
        // The first argument whose size here is not 1 fixes the output size.
        let mut fixed: Option<(usize, usize, usize)> = None; // (arg, axis, size)
        for (arg, shape) in shapes.iter().enumerate() {
            let Some(axis) = shape.len().checked_sub(from_end + 1) else {
                continue;
            };
            let size = shape[axis];
            if size == 1 {
                continue;
            }
            match fixed {
                None => fixed = Some((arg, axis, size)),
                Some((first, first_axis, first_size)) if first_size != size => {
                    return Err(ShapeError::Broadcast {
                        first,
                        first_axis,
                        first_size: Dim::Known(first_size),
                        second: arg,
                        second_axis: axis,
                        second_size: Dim::Known(size),
                    });
                }
                Some(_) => {}
            }
        }
        let Some((first, first_axis, size)) = fixed else {
            continue;
        };
        out[rank - 1 - from_end] = size;
        for (arg, shape) in shapes.iter().enumerate() {
            let Some(axis) = shape.len().checked_sub(from_end + 1) else {
                continue;
            };
            if shape[axis] == 1 && !may_stretch(arg, axis) {
                return Err(ShapeError::Mismatch {
                    op: "broadcast",
                    arg: ArgRef::Index(arg),
                    axis,
                    expected: format!(
                        "{size} (the size of argument {first} axis {first_axis}); under the \
                         Strict policy only a dim statically known to be 1 broadcasts"
                    ),
                    found: Dim::Known(1),
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(shapes: &[&[usize]]) -> Result<Vec<usize>, ShapeError> {
        broadcast_shapes(shapes).map(|s| s.to_vec())
    }

    // The examples of NumPy's broadcasting documentation.
    #[test]
    fn numpy_docs() {
        assert_eq!(b(&[&[256, 256, 3], &[3]]).unwrap(), [256, 256, 3]);
        assert_eq!(b(&[&[8, 1, 6, 1], &[7, 1, 5]]).unwrap(), [8, 7, 6, 5]);
        assert_eq!(b(&[&[5, 4], &[1]]).unwrap(), [5, 4]);
        assert_eq!(b(&[&[5, 4], &[4]]).unwrap(), [5, 4]);
        assert_eq!(b(&[&[15, 3, 5], &[15, 1, 5]]).unwrap(), [15, 3, 5]);
        assert_eq!(b(&[&[15, 3, 5], &[3, 5]]).unwrap(), [15, 3, 5]);
        assert_eq!(b(&[&[15, 3, 5], &[3, 1]]).unwrap(), [15, 3, 5]);
        assert!(b(&[&[3], &[4]]).is_err());
        assert!(b(&[&[2, 1], &[8, 4, 3]]).is_err());
    }

    #[test]
    fn zero_size_and_scalars() {
        assert_eq!(b(&[&[0], &[1]]).unwrap(), [0]);
        assert_eq!(b(&[&[1], &[0]]).unwrap(), [0]);
        assert_eq!(b(&[&[0], &[0]]).unwrap(), [0]);
        assert_eq!(b(&[&[2, 0], &[]]).unwrap(), [2, 0]);
        assert!(b(&[&[0], &[2]]).is_err());
        assert_eq!(b(&[&[], &[]]).unwrap(), Vec::<usize>::new());
        assert_eq!(b(&[]).unwrap(), Vec::<usize>::new());
        assert_eq!(b(&[&[4, 3]]).unwrap(), [4, 3]);
        assert_eq!(b(&[&[], &[1, 1]]).unwrap(), [1, 1]);
    }

    #[test]
    fn many_inputs_and_error_names_both() {
        assert_eq!(b(&[&[1, 3], &[2, 1], &[1]]).unwrap(), [2, 3]);
        let err = b(&[&[5, 1], &[1, 3], &[4, 1, 2]]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Broadcast {
                first: 1,
                first_axis: 1,
                first_size: Dim::Known(3),
                second: 2,
                second_axis: 2,
                second_size: Dim::Known(2),
            }
        );
        let err = b(&[&[5, 1], &[1, 1], &[4, 1, 1], &[7, 1]]).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "broadcast: argument 0 axis 0 has size 5 and argument 3 axis 0 has size 7"
            ),
            "{err}"
        );
    }

    #[test]
    fn restricted_stretching() {
        // Argument 1 may not stretch its axis 0.
        let err = broadcast_where(&[&[3], &[1]], |arg, _| arg != 1).unwrap_err();
        assert!(
            matches!(
                err,
                ShapeError::Mismatch {
                    arg: ArgRef::Index(1),
                    axis: 0,
                    ..
                }
            ),
            "{err}"
        );
        // Equal sizes and missing axes are fine.
        assert_eq!(
            broadcast_where(&[&[2, 3], &[3]], |_, _| false)
                .unwrap()
                .as_slice(),
            &[2, 3]
        );
        // All ones: nothing stretches.
        assert_eq!(
            broadcast_where(&[&[1], &[1]], |_, _| false)
                .unwrap()
                .as_slice(),
            &[1]
        );
    }
}

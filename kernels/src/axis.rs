//! Axes as callers name them: a negative axis counts from the end (`-1` is the last), as in
//! NumPy and TensorFlow. This is the one place an axis is normalised and a set of reduced axes
//! is read: the kernels, the op model of `extype-core` and the library types all call it, and
//! attach their own words (the op, the argument) to an [`AxisError`].

/// Why an axis or a set of axes does not fit a rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisError {
    /// `axis` (as given) is outside `-rank..rank`.
    OutOfRange {
        /// The axis as given.
        axis: isize,
        /// The rank it was read against.
        rank: usize,
    },
    /// The same axis was named twice (where [`Repeats::Refused`]).
    Repeated {
        /// The axis as given the second time.
        axis: isize,
        /// The axis it names (non-negative).
        index: usize,
    },
}

/// Whether a set of axes may name one axis twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeats {
    /// A repeat is an error (NumPy's and the dense ops' rule).
    Refused,
    /// A repeat is the same axis once (TensorFlow's reductions, `tf.sparse.reduce_sum`).
    Merged,
}

/// `axis` of an array of rank `rank` as an index (`None` when it is out of range).
///
/// ```
/// use extype_kernels::axis::normalize;
/// assert_eq!(normalize(-1, 3), Some(2));
/// assert_eq!(normalize(3, 3), None);
/// assert_eq!(normalize(isize::MIN, 3), None);
/// ```
#[inline]
pub fn normalize(axis: isize, rank: usize) -> Option<usize> {
    let index = if axis < 0 {
        rank.checked_sub(axis.unsigned_abs())?
    } else {
        axis as usize
    };
    (index < rank).then_some(index)
}

/// `axis` as an index, or the error saying why not.
#[inline]
pub fn checked(axis: isize, rank: usize) -> Result<usize, AxisError> {
    normalize(axis, rank).ok_or(AxisError::OutOfRange { axis, rank })
}

/// Which of the `rank` axes `axes` names (`None`: every axis), one flag per axis.
///
/// ```
/// use extype_kernels::axis::{AxisError, Repeats, selected};
/// assert_eq!(selected(Some(&[-1, 0]), 3, Repeats::Refused), Ok(vec![true, false, true]));
/// assert_eq!(selected(None, 2, Repeats::Refused), Ok(vec![true, true]));
/// assert_eq!(selected(Some(&[1, -1]), 2, Repeats::Merged), Ok(vec![false, true]));
/// assert_eq!(
///     selected(Some(&[1, -1]), 2, Repeats::Refused),
///     Err(AxisError::Repeated { axis: -1, index: 1 })
/// );
/// assert_eq!(
///     selected(Some(&[2]), 2, Repeats::Merged),
///     Err(AxisError::OutOfRange { axis: 2, rank: 2 })
/// );
/// ```
pub fn selected(
    axes: Option<&[isize]>,
    rank: usize,
    repeats: Repeats,
) -> Result<Vec<bool>, AxisError> {
    let Some(axes) = axes else {
        return Ok(vec![true; rank]);
    };
    let mut flags = vec![false; rank];
    for &axis in axes {
        let index = checked(axis, rank)?;
        if std::mem::replace(&mut flags[index], true) && repeats == Repeats::Refused {
            return Err(AxisError::Repeated { axis, index });
        }
    }
    Ok(flags)
}

/// The shape left when the axes flagged in `reduced` (one flag per dim of `shape`) are reduced:
/// dropped, or kept with size 1 when `keepdims`.
///
/// ```
/// use extype_kernels::axis::reduced_shape;
/// assert_eq!(reduced_shape(&[2, 3, 4], &[true, false, true], false), vec![3]);
/// assert_eq!(reduced_shape(&[2, 3, 4], &[true, false, true], true), vec![1, 3, 1]);
/// ```
pub fn reduced_shape<D: Copy + From<u8>>(shape: &[D], reduced: &[bool], keepdims: bool) -> Vec<D> {
    debug_assert_eq!(shape.len(), reduced.len());
    shape
        .iter()
        .zip(reduced)
        .filter_map(|(&d, &r)| match (r, keepdims) {
            (false, _) => Some(d),
            (true, true) => Some(D::from(1)),
            (true, false) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_every_axis_of_small_ranks() {
        for rank in 0..5usize {
            for axis in -8isize..8 {
                let r = rank as isize;
                let want = (-r..r)
                    .contains(&axis)
                    .then(|| axis.rem_euclid(r.max(1)) as usize);
                assert_eq!(normalize(axis, rank), want, "axis {axis} rank {rank}");
            }
        }
        assert_eq!(normalize(isize::MAX, usize::MAX), Some(isize::MAX as usize));
        assert_eq!(
            normalize(isize::MIN, usize::MAX),
            Some(usize::MAX - (1 << 63))
        );
    }
}

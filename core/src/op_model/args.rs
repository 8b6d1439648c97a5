//! [`OpArgs`]: the non-tensor arguments of an op (axes, keepdims, dtype, shape, …).
//!
//! They are not dispatched on (as in TensorFlow, `keepdims` is not checked for dispatch); group
//! handlers receive them bound into the op callable.

use smallvec::SmallVec;

use crate::dtype::DType;

/// The non-tensor arguments of an op call. Each op reads the fields it needs and ignores the
/// rest; [`OpArgs::default`] means "all axes, no keepdims, axis 0".
///
/// ```
/// use extype_core::ops::OpArgs;
/// let args = OpArgs::axes(&[0, -1]).keepdims(true);
/// assert_eq!(args.axes.as_deref(), Some(&[0isize, -1][..]));
/// assert!(args.keepdims);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct OpArgs {
    /// Reductions: the axes to reduce (negative counts from the end); `None` = all axes.
    pub axes: Option<SmallVec<[isize; 4]>>,
    /// Reductions: keep reduced axes with size 1.
    pub keepdims: bool,
    /// `concat`, `stack`, `gather`: the axis (negative counts from the end).
    pub axis: isize,
    /// `cast`: the target dtype.
    pub dtype: Option<DType>,
    /// `reshape`: the new shape; `tile`: the multiples.
    pub shape: Option<Vec<usize>>,
    /// `transpose`: the permutation (`None` reverses the axes).
    pub perm: Option<Vec<usize>>,
    /// `gather`: the indices (negative counts from the end); segment reductions: `row_splits`.
    pub indices: Option<Vec<i64>>,
}

impl OpArgs {
    /// No extra arguments.
    pub fn none() -> OpArgs {
        OpArgs::default()
    }

    /// Reduce over `axes`.
    pub fn axes(axes: &[isize]) -> OpArgs {
        OpArgs {
            axes: Some(SmallVec::from_slice(axes)),
            ..OpArgs::default()
        }
    }

    /// Reduce over `axes` if given, over all axes if `None`.
    pub fn maybe_axes(axes: Option<&[isize]>) -> OpArgs {
        OpArgs {
            axes: axes.map(SmallVec::from_slice),
            ..OpArgs::default()
        }
    }

    /// Sets `keepdims`.
    pub fn keepdims(mut self, keepdims: bool) -> OpArgs {
        self.keepdims = keepdims;
        self
    }

    /// Sets `axis`.
    pub fn with_axis(mut self, axis: isize) -> OpArgs {
        self.axis = axis;
        self
    }

    /// Sets `dtype`.
    pub fn with_dtype(mut self, dtype: DType) -> OpArgs {
        self.dtype = Some(dtype);
        self
    }

    /// Sets `shape` (reshape target or tile multiples).
    pub fn with_shape(mut self, shape: &[usize]) -> OpArgs {
        self.shape = Some(shape.to_vec());
        self
    }

    /// Sets `perm`.
    pub fn with_perm(mut self, perm: &[usize]) -> OpArgs {
        self.perm = Some(perm.to_vec());
        self
    }

    /// Sets `indices` (gather indices, or row splits of a segment reduction).
    pub fn with_indices(mut self, indices: &[i64]) -> OpArgs {
        self.indices = Some(indices.to_vec());
        self
    }
}

//! [`DenseArgs`]: the dense arguments of a kernel call — tensors (the kernels run on their shared
//! arrays, no view is built) or array views — and [`Views`], views of them borrowed or built.
//! Below [`Op`](super::op::Op), whose kernel entry points take them.

use smallvec::SmallVec;

use crate::dtype::DType;
use crate::tensor::{Tensor, TensorView};

/// The dense arguments of a kernel call: tensors (the kernels run on their shared arrays, no view
/// is built), or array views.
#[derive(Clone, Copy, Debug)]
pub enum DenseArgs<'a, 'b> {
    /// Every argument is a [`Tensor`].
    Tensors(&'b [&'a Tensor]),
    /// Views (arrays passed by reference, or a mix).
    Views(&'b [TensorView<'a>]),
}

impl<'a> DenseArgs<'a, '_> {
    /// The number of arguments.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            DenseArgs::Tensors(ts) => ts.len(),
            DenseArgs::Views(vs) => vs.len(),
        }
    }

    /// The dtype of argument `i`.
    #[inline]
    pub fn dtype(&self, i: usize) -> DType {
        match self {
            DenseArgs::Tensors(ts) => ts[i].dtype(),
            DenseArgs::Views(vs) => vs[i].dtype(),
        }
    }

    /// The shape of argument `i`.
    #[inline]
    pub fn shape(&self, i: usize) -> &[usize] {
        match self {
            DenseArgs::Tensors(ts) => ts[i].shape(),
            DenseArgs::Views(vs) => vs[i].shape(),
        }
    }

    /// The arguments as views (borrowed when they are views already).
    pub fn views(&self) -> Views<'a, '_> {
        match self {
            DenseArgs::Tensors(ts) => Views::Owned(ts.iter().map(|t| t.view()).collect()),
            DenseArgs::Views(vs) => Views::Borrowed(vs),
        }
    }

    /// The arguments as tensors (O(1) for tensors; views are copied).
    pub fn to_tensors(self) -> Vec<Tensor> {
        match self {
            DenseArgs::Tensors(ts) => ts.iter().map(|&t| t.clone()).collect(),
            DenseArgs::Views(vs) => vs.iter().map(TensorView::to_tensor).collect(),
        }
    }
}

/// Views of dense arguments, borrowed or built ([`DenseArgs::views`]).
// A short-lived stack value: the inline views are the point (no allocation per call).
#[allow(clippy::large_enum_variant)]
pub enum Views<'a, 'b> {
    /// The arguments were views.
    Borrowed(&'b [TensorView<'a>]),
    /// Views of tensors.
    Owned(SmallVec<[TensorView<'a>; 3]>),
}

impl<'a> std::ops::Deref for Views<'a, '_> {
    type Target = [TensorView<'a>];

    #[inline]
    fn deref(&self) -> &[TensorView<'a>] {
        match self {
            Views::Borrowed(vs) => vs,
            Views::Owned(vs) => vs,
        }
    }
}

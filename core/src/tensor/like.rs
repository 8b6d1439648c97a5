//! [`TensorLike`]: values and specs that behave like one tensor — a dtype and a (partial) shape.

use ndarray::{ArrayBase, Data, Dimension};

use super::{Element, Tensor, TensorSpec, TensorView};
use crate::dtype::DType;
use extype_shape::{Dim, Shape};

/// A value or spec that behaves like one tensor: it has a [`DType`] and a [`Shape`].
///
/// Dense values ([`Tensor`], [`TensorView`], ndarray arrays) and [`TensorSpec`] implement it
/// with their exact dtype and shape. An extension type opts in with
/// `#[extype(tensor_like = field)]` on its `#[derive(ExtensionType)]` (it shows that field's
/// dtype and shape, and so does its spec), or implements the trait by hand for it and its spec
/// and writes `#[extype(tensor_like)]` — a ragged type, whose ragged dimension is unknown
/// ([`Dim::Unknown`]), or a symbol where the type knows that two values share it. Through
/// [`Value::tensor_like`](crate::Value::tensor_like),
/// [`ValueSpec::tensor_like`](crate::ValueSpec::tensor_like) and
/// [`Operand::tensor_like`](crate::Operand::tensor_like) the same view is available without
/// knowing the type: `ops::shape`, [`ops::rank`](crate::ops::rank), spec inference and `Display`
/// use it.
///
/// ```
/// use extype_core::{DType, TensorLike, TensorSpec};
/// let a = ndarray::array![[1.0f32, 2.0], [3.0, 4.0]];
/// assert_eq!(TensorLike::dtype(&a), DType::F32);
/// assert_eq!(TensorLike::shape(&a).to_string(), "[2, 2]");
/// let spec: TensorSpec = "f32[?, 3]".parse().unwrap();
/// assert_eq!(TensorLike::rank(&spec), Some(2));
/// assert_eq!(spec.shape_dim(0), None); // not a known size
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not tensor-like",
    label = "`TensorLike` is not implemented for `{Self}`",
    note = "`#[extype(tensor_like = field)]` shows a field's dtype and shape; `#[extype(tensor_like)]` \
            alone needs hand-written `impl TensorLike` for the type and for its spec"
)]
pub trait TensorLike {
    /// The element type.
    fn dtype(&self) -> DType;

    /// The shape: exact for a value with a fixed shape, partial where the type only knows some
    /// of it (a ragged dimension is unknown).
    fn shape(&self) -> Shape;

    /// The number of dimensions, when known.
    fn rank(&self) -> Option<usize> {
        self.shape().rank()
    }

    /// The size of axis `axis`, when the shape knows it.
    fn shape_dim(&self, axis: usize) -> Option<usize> {
        match self.shape().dims()?.get(axis) {
            Some(Dim::Known(n)) => Some(*n),
            _ => None,
        }
    }

    /// The dtype and shape as a [`TensorSpec`] (what spec inference works on).
    fn tensor_like_spec(&self) -> TensorSpec {
        TensorSpec::new(self.shape(), self.dtype())
    }
}

impl TensorLike for Tensor {
    #[inline]
    fn dtype(&self) -> DType {
        Tensor::dtype(self)
    }
    fn shape(&self) -> Shape {
        Shape::known(Tensor::shape(self))
    }
    #[inline]
    fn rank(&self) -> Option<usize> {
        Some(self.ndim())
    }
}

impl TensorLike for TensorView<'_> {
    #[inline]
    fn dtype(&self) -> DType {
        TensorView::dtype(self)
    }
    fn shape(&self) -> Shape {
        Shape::known(TensorView::shape(self))
    }
    #[inline]
    fn rank(&self) -> Option<usize> {
        Some(TensorView::shape(self).len())
    }
}

impl<A: Element, S: Data<Elem = A>, D: Dimension> TensorLike for ArrayBase<S, D> {
    #[inline]
    fn dtype(&self) -> DType {
        A::DTYPE
    }
    fn shape(&self) -> Shape {
        Shape::known(ArrayBase::shape(self))
    }
    #[inline]
    fn rank(&self) -> Option<usize> {
        Some(self.ndim())
    }
}

impl TensorLike for TensorSpec {
    #[inline]
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn shape(&self) -> Shape {
        self.shape.clone()
    }
    fn tensor_like_spec(&self) -> TensorSpec {
        self.clone()
    }
}

/// `dtype[shape]`, the prefix `Display` gives a tensor-like value (`f32[2, ?]`).
pub(crate) fn fmt_head(like: &dyn TensorLike, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "{}{}", like.dtype(), like.shape())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_values_show_their_exact_shape() {
        let a = ndarray::Array3::<i64>::zeros((2, 0, 3));
        assert_eq!(TensorLike::dtype(&a), DType::I64);
        assert_eq!(TensorLike::shape(&a), Shape::known(&[2, 0, 3]));
        let t = Tensor::from(a.clone().into_dyn());
        assert_eq!(TensorLike::shape(&t), Shape::known(&[2, 0, 3]));
        assert_eq!(TensorLike::rank(&t.view()), Some(3));
        assert_eq!(t.shape_dim(1), Some(0));
        assert_eq!(t.shape_dim(3), None);
        let scalar = ndarray::arr0(true);
        assert_eq!(TensorLike::rank(&scalar), Some(0));
        assert_eq!(scalar.tensor_like_spec().to_string(), "bool[]");
    }

    #[test]
    fn specs_keep_partial_shapes() {
        let spec: TensorSpec = "f32[?, 3]".parse().unwrap();
        assert_eq!(spec.tensor_like_spec(), spec);
        assert_eq!(spec.shape_dim(0), None);
        assert_eq!(spec.shape_dim(1), Some(3));
        let unknown_rank = TensorSpec::new("*".parse().unwrap(), DType::F32);
        assert_eq!(unknown_rank.rank(), None);
    }
}

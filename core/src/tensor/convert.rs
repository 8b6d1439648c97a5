//! Conversions between [`Tensor`] and typed ndarray arrays. Moves, never silent copies, except
//! where documented (an `Array` out of a shared tensor must own its data).

use ndarray::{ArcArray, Array, ArrayView, Dimension, IxDyn};

use super::Element;
use super::view::TensorView;
use super::{Tensor, each_variant};
use crate::error::{Error, Result, TensorError};

#[cold]
#[inline(never)]
fn layout_error(e: ndarray::ShapeError) -> Error {
    TensorError::Layout {
        op: "into_array",
        message: e.to_string(),
    }
    .into()
}

#[cold]
#[inline(never)]
fn dtype_error<T: Element>(op: &'static str, found: &Tensor) -> TensorError {
    TensorError::DType {
        op,
        expected: T::DTYPE,
        found: found.dtype(),
    }
}

#[cold]
#[inline(never)]
fn rank_error<D: Dimension>(op: &'static str, shape: &[usize]) -> TensorError {
    TensorError::Rank {
        op,
        // `NDIM` is `None` only for `IxDyn`, which accepts every rank and never gets here.
        expected: D::NDIM.unwrap_or(shape.len()),
        found: shape.to_vec(),
    }
}

impl Tensor {
    /// Wraps a typed array; moves the buffer (no element copy).
    #[inline]
    pub fn from_array<T: Element, D: Dimension>(array: Array<T, D>) -> Tensor {
        T::into_tensor(array.into_dyn().into_shared())
    }

    /// Wraps a shared typed array; O(1).
    #[inline]
    pub fn from_arc_array<T: Element, D: Dimension>(array: ArcArray<T, D>) -> Tensor {
        T::into_tensor(array.into_dyn())
    }

    /// Converts into a typed array of static rank `D` (use `IxDyn` for any rank).
    ///
    /// Moves the data when this tensor is its only owner; copies it when the data is shared or
    /// external (an `Array` must own its buffer). Errors on a dtype or rank mismatch.
    #[inline]
    pub fn into_array<T: Element, D: Dimension>(self) -> Result<Array<T, D>> {
        // `try_into_owned_nocopy` skips the copy-on-write probe of `into_owned` when unique.
        Ok(
            match self.into_arc_array::<T, D>()?.try_into_owned_nocopy() {
                Ok(owned) => owned,
                Err(shared) => shared.into_owned(),
            },
        )
    }

    /// Converts into a shared typed array of static rank `D`; O(1), never copies — except a
    /// [`Tensor::External`], whose elements are copied into the array's own buffer.
    #[inline]
    pub fn into_arc_array<T: Element, D: Dimension>(self) -> Result<ArcArray<T, D>> {
        let array = match T::from_tensor(self) {
            Ok(array) => array,
            Err(tensor) => return Err(dtype_error::<T>("into_array", &tensor).into()),
        };
        if D::NDIM.is_some_and(|n| n != array.ndim()) {
            return Err(rank_error::<D>("into_array", array.shape()).into());
        }
        array.into_dimensionality::<D>().map_err(layout_error)
    }

    /// A typed view of static rank `D`. Errors on a dtype or rank mismatch.
    #[inline]
    pub fn as_array<T: Element, D: Dimension>(&self) -> Result<ArrayView<'_, T, D>> {
        self.view().into_array::<T, D>()
    }

    /// The one element of a rank-0 tensor, or of a tensor whose every axis has size 1
    /// (NumPy's and PyTorch's `item()`). Errors, naming the dtype and shape, when the dtype is
    /// not `T` or the tensor holds another number of elements.
    ///
    /// ```
    /// use extype_core::Tensor;
    /// use ndarray::{arr0, array};
    /// let sum = Tensor::from(arr0(6.5f32));
    /// assert_eq!(sum.item::<f32>()?, 6.5);
    /// assert_eq!(Tensor::from(array![[7i64]]).item::<i64>()?, 7);
    /// let err = Tensor::from(array![1i32, 2]).item::<i32>().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "item: expected a tensor of one element (rank 0, or every axis of size 1), found i32[2] (2 elements)"
    /// );
    /// assert!(sum.item::<f64>().is_err()); // dtype f32, not f64
    /// # Ok::<(), extype_core::Error>(())
    /// ```
    pub fn item<T: Element>(&self) -> Result<T> {
        const OP: &str = "item";
        if self.dtype() != T::DTYPE {
            return Err(dtype_error::<T>(OP, self).into());
        }
        let view = self.as_array::<T, IxDyn>()?;
        match view.first() {
            Some(x) if view.len() == 1 => Ok(*x),
            _ => Err(TensorError::NotOneElement {
                op: OP,
                dtype: self.dtype(),
                shape: self.shape().to_vec(),
                elements: view.len(),
            }
            .into()),
        }
    }

    /// The elements in row-major (C) order, whatever the tensor's layout (a transposed or
    /// sliced array, an external buffer): a new `Vec`, one copy. Errors when the dtype is not
    /// `T`.
    ///
    /// ```
    /// use extype_core::Tensor;
    /// use ndarray::array;
    /// let t = Tensor::from(array![[1u8, 2, 3], [4, 5, 6]]);
    /// assert_eq!(t.to_vec::<u8>()?, vec![1, 2, 3, 4, 5, 6]);
    /// // A transposed layout still reads in row-major order of its own shape [3, 2].
    /// let tt = Tensor::from(array![[1u8, 2, 3], [4, 5, 6]].reversed_axes());
    /// assert_eq!(tt.to_vec::<u8>()?, vec![1, 4, 2, 5, 3, 6]);
    /// assert!(t.to_vec::<i32>().is_err()); // dtype u8
    /// # Ok::<(), extype_core::Error>(())
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if self.dtype() != T::DTYPE {
            return Err(dtype_error::<T>("to_vec", self).into());
        }
        let view = self.as_array::<T, IxDyn>()?;
        Ok(match view.as_slice() {
            Some(slice) => slice.to_vec(),
            None => view.iter().copied().collect(),
        })
    }

    /// The shared array inside, if the dtype is `T`. Errors for a [`Tensor::External`], which
    /// holds no array (use [`Tensor::as_array`] for a view, or [`Tensor::into_arc_array`]).
    #[inline]
    pub fn as_arc_array<T: Element>(&self) -> Result<&ArcArray<T, IxDyn>> {
        T::tensor_array(self).ok_or_else(|| match self {
            Tensor::External(_) if self.dtype() == T::DTYPE => TensorError::Bytes {
                op: "as_arc_array",
                message: "the tensor views bytes owned elsewhere (a mapped file), not an \
                          ndarray array; use as_array for a view or into_arc_array for a copy"
                    .into(),
            }
            .into(),
            _ => dtype_error::<T>("as_arc_array", self).into(),
        })
    }
}

impl<T: Element, D: Dimension> From<Array<T, D>> for Tensor {
    #[inline]
    fn from(array: Array<T, D>) -> Self {
        Tensor::from_array(array)
    }
}

impl<T: Element, D: Dimension> From<ArcArray<T, D>> for Tensor {
    #[inline]
    fn from(array: ArcArray<T, D>) -> Self {
        Tensor::from_arc_array(array)
    }
}

/// [`TensorView`]'s conversions from and to typed views (here, beside [`Tensor`]'s, so that
/// `view.rs` needs nothing of [`Element`], which names both).
impl<'a> TensorView<'a> {
    /// Views a typed array view; O(1).
    #[inline]
    pub fn from_array<T: Element, D: Dimension>(view: ArrayView<'a, T, D>) -> Self {
        T::into_view(view.into_dyn())
    }

    /// Copies the viewed data into a new [`Tensor`] (the one explicit copy).
    pub fn to_tensor(&self) -> Tensor {
        each_variant!(TensorView, self, a => Element::into_tensor(a.to_shared()))
    }

    /// The typed view of static rank `D`. Errors on a dtype or rank mismatch.
    #[inline]
    pub fn into_array<T: Element, D: Dimension>(self) -> Result<ArrayView<'a, T, D>> {
        let found = self.dtype();
        let view = T::from_view(self).ok_or(TensorError::DType {
            op: "as_array",
            expected: T::DTYPE,
            found,
        })?;
        if let Some(rank) = D::NDIM.filter(|&n| n != view.ndim()) {
            return Err(TensorError::Rank {
                op: "as_array",
                expected: rank,
                found: view.shape().to_vec(),
            }
            .into());
        }
        view.into_dimensionality::<D>().map_err(|e| {
            TensorError::Layout {
                op: "as_array",
                message: e.to_string(),
            }
            .into()
        })
    }
}

impl<'a, T: Element, D: Dimension> From<ArrayView<'a, T, D>> for TensorView<'a> {
    #[inline]
    fn from(view: ArrayView<'a, T, D>) -> Self {
        TensorView::from_array(view)
    }
}

#[cfg(test)]
mod tests {
    use ndarray::{Array1, Array2, ArrayD, Ix1, Ix2, array};

    use super::*;
    use crate::dtype::DType;
    use crate::error::Error;

    #[test]
    fn item_reads_the_one_element_and_names_the_dtype_and_shape_otherwise() {
        assert!(Tensor::from(ndarray::arr0(true)).item::<bool>().unwrap());
        let half = half::bf16::from_f32(1.5);
        assert_eq!(
            Tensor::from(array![[[half]]]).item::<half::bf16>().unwrap(),
            half
        );
        let err = Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[0, 3])))
            .item::<f32>()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "item: expected a tensor of one element (rank 0, or every axis of size 1), found \
             f32[0, 3] (0 elements)"
        );
        assert!(matches!(
            &err,
            Error::Tensor(e) if matches!(**e, TensorError::NotOneElement { elements: 0, .. })
        ));
        let err = Tensor::from(ndarray::arr0(1u16)).item::<i16>().unwrap_err();
        assert_eq!(err.to_string(), "item: expected dtype i16, found u16");
    }

    #[test]
    fn to_vec_reads_row_major_whatever_the_layout() {
        let t = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[2, 3, 2]), |i| {
            (i[0] * 6 + i[1] * 2 + i[2]) as i32
        }));
        assert_eq!(t.to_vec::<i32>().unwrap(), (0..12).collect::<Vec<_>>());
        // A sliced, strided view: the elements it shows, in its own row-major order.
        let a = Array2::from_shape_fn((4, 4), |(r, c)| (r * 4 + c) as u64);
        let sliced = Tensor::from(a.slice(ndarray::s![1..;2, ..;3]).to_shared());
        assert_eq!(sliced.to_vec::<u64>().unwrap(), vec![4, 7, 12, 15]);
        let stepped = Tensor::from(a.into_shared().slice_move(ndarray::s![..;-1, 1]));
        assert_eq!(stepped.to_vec::<u64>().unwrap(), vec![13, 9, 5, 1]);
        assert_eq!(
            Tensor::from(ndarray::arr0(2.5f64)).to_vec::<f64>().unwrap(),
            vec![2.5]
        );
        let empty = Tensor::from(ArrayD::<i8>::zeros(IxDyn(&[3, 0])));
        assert!(empty.to_vec::<i8>().unwrap().is_empty());
        let err = t.to_vec::<i64>().unwrap_err();
        assert_eq!(err.to_string(), "to_vec: expected dtype i64, found i32");
    }

    #[test]
    fn round_trip_moves_the_buffer() {
        let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let ptr = a.as_ptr();
        let t = Tensor::from(a);
        assert!(t.is_unique());
        let back: Array2<f32> = t.into_array().unwrap();
        assert_eq!(back.as_ptr(), ptr, "unique tensor must move, not copy");
    }

    #[test]
    fn shared_tensor_copies_only_into_owned_array() {
        let t = Tensor::from(array![1i64, 2, 3]);
        let t2 = t.clone();
        assert!(!t.is_unique());
        let arc: ArcArray<i64, Ix1> = t2.clone().into_arc_array().unwrap();
        assert_eq!(arc.as_ptr(), t.as_arc_array::<i64>().unwrap().as_ptr());
        let owned: Array1<i64> = t2.into_array().unwrap();
        assert_ne!(owned.as_ptr(), t.as_arc_array::<i64>().unwrap().as_ptr());
        assert_eq!(owned, array![1, 2, 3]);
    }

    #[test]
    fn dtype_and_rank_mismatch_are_errors() {
        let t = Tensor::from(array![[true, false]]);
        assert_eq!(t.dtype(), DType::Bool);
        let err = t.clone().into_array::<f32, Ix2>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "into_array: expected dtype f32, found bool"
        );
        let err = t.clone().into_array::<bool, Ix1>().unwrap_err();
        assert!(matches!(err, Error::Tensor(_)));
        assert_eq!(
            err.to_string(),
            "into_array: expected rank 1, found shape [1, 2]"
        );
        let any: ArrayD<bool> = t.into_array().unwrap();
        assert_eq!(any.shape(), &[1, 2]);
    }

    #[test]
    fn typed_views() {
        let t = Tensor::from(array![[1u8, 2], [3, 4]]);
        let v = t.as_array::<u8, Ix2>().unwrap();
        assert_eq!(v[[1, 1]], 4);
        assert!(t.as_array::<u16, Ix2>().is_err());
        assert_eq!(t.len(), 4);
        assert!(!t.is_empty());
        assert_eq!(t.ndim(), 2);
    }
}

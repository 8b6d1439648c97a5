//! [`Element`]: the Rust scalar types of tensors, mapped to their [`DType`], and the glue that
//! wraps typed arrays and views into [`Tensor`] / [`TensorView`] and back.

use std::fmt;

use ndarray::{ArcArray, ArrayViewD, IxDyn};

use super::{Tensor, TensorView};
use crate::dtype::DType;

mod sealed {
    pub trait Sealed {}
}

/// A Rust scalar type that can be the element of a [`Tensor`]; maps it to its [`DType`].
///
/// Sealed: the set of element types is the set of [`DType`]s.
pub trait Element: Copy + Send + Sync + fmt::Debug + 'static + sealed::Sealed {
    /// The dtype of this scalar type.
    const DTYPE: DType;

    /// Wraps a shared array of this element type into a [`Tensor`].
    fn into_tensor(array: ArcArray<Self, IxDyn>) -> Tensor;

    /// Unwraps a [`Tensor`] of this element type; gives the tensor back on a dtype mismatch. A
    /// [`Tensor::External`] of this type is copied into a new array.
    fn from_tensor(tensor: Tensor) -> Result<ArcArray<Self, IxDyn>, Tensor>;

    /// Borrows the array inside a [`Tensor`] of this element type (`None` for another dtype or
    /// a [`Tensor::External`], which holds no array).
    fn tensor_array(tensor: &Tensor) -> Option<&ArcArray<Self, IxDyn>>;

    /// Wraps a view of this element type into a [`TensorView`].
    fn into_view(view: ArrayViewD<'_, Self>) -> TensorView<'_>;

    /// Unwraps a [`TensorView`] of this element type.
    fn from_view(view: TensorView<'_>) -> Option<ArrayViewD<'_, Self>>;
}

macro_rules! impl_element {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$variant;

            #[inline]
            fn into_tensor(array: ArcArray<Self, IxDyn>) -> Tensor {
                Tensor::$variant(array)
            }

            #[inline]
            fn from_tensor(tensor: Tensor) -> Result<ArcArray<Self, IxDyn>, Tensor> {
                match tensor {
                    Tensor::$variant(a) => Ok(a),
                    Tensor::External(e) if e.dtype() == DType::$variant => match e.view() {
                        TensorView::$variant(v) => Ok(v.to_shared()),
                        _ => unreachable!("an external tensor's view has its dtype"),
                    },
                    other => Err(other),
                }
            }

            #[inline]
            fn tensor_array(tensor: &Tensor) -> Option<&ArcArray<Self, IxDyn>> {
                match tensor {
                    Tensor::$variant(a) => Some(a),
                    _ => None,
                }
            }

            #[inline]
            fn into_view(view: ArrayViewD<'_, Self>) -> TensorView<'_> {
                TensorView::$variant(view)
            }

            #[inline]
            fn from_view(view: TensorView<'_>) -> Option<ArrayViewD<'_, Self>> {
                match view {
                    TensorView::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    )*};
}

impl_element!(
    bool => Bool,
    i8 => I8,
    i16 => I16,
    i32 => I32,
    i64 => I64,
    u8 => U8,
    u16 => U16,
    u32 => U32,
    u64 => U64,
    f32 => F32,
    f64 => F64,
    half::f16 => F16,
    half::bf16 => BF16,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_dtypes() {
        assert_eq!(<f32 as Element>::DTYPE, DType::F32);
        assert_eq!(<bool as Element>::DTYPE, DType::Bool);
        assert_eq!(DType::U16.size_of(), 2);
    }
}

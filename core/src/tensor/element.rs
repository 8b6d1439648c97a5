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

/// Runs `$body` with `$t` the Rust element type of `$dtype` (a [`DType`]), for every dtype:
/// the one place a dtype known at run time becomes a type parameter, for code generic over
/// [`Element`] that handles tensors of any dtype (moving, selecting, comparing elements).
/// The match is exhaustive, so a new dtype reaches every user at compile time.
///
/// ```
/// use extype_core::{Tensor, with_element};
/// use ndarray::{IxDyn, array};
///
/// /// The first element of any tensor, as text.
/// fn first(t: &Tensor) -> String {
///     with_element!(t.dtype(), T => {
///         let a = t.as_array::<T, IxDyn>().expect("the tensor's own dtype");
///         a.iter().next().map_or("none".to_string(), |x| format!("{x:?}"))
///     })
/// }
/// assert_eq!(first(&Tensor::from(array![2i32, 3].into_dyn())), "2");
/// assert_eq!(first(&Tensor::from(array![true].into_dyn())), "true");
/// ```
#[macro_export]
macro_rules! with_element {
    ($dtype:expr, $t:ident => $body:expr) => {
        match $dtype {
            $crate::dtype::DType::Bool => {
                type $t = bool;
                $body
            }
            $crate::dtype::DType::I8 => {
                type $t = i8;
                $body
            }
            $crate::dtype::DType::I16 => {
                type $t = i16;
                $body
            }
            $crate::dtype::DType::I32 => {
                type $t = i32;
                $body
            }
            $crate::dtype::DType::I64 => {
                type $t = i64;
                $body
            }
            $crate::dtype::DType::U8 => {
                type $t = u8;
                $body
            }
            $crate::dtype::DType::U16 => {
                type $t = u16;
                $body
            }
            $crate::dtype::DType::U32 => {
                type $t = u32;
                $body
            }
            $crate::dtype::DType::U64 => {
                type $t = u64;
                $body
            }
            $crate::dtype::DType::F32 => {
                type $t = f32;
                $body
            }
            $crate::dtype::DType::F64 => {
                type $t = f64;
                $body
            }
            $crate::dtype::DType::F16 => {
                type $t = $crate::half::f16;
                $body
            }
            $crate::dtype::DType::BF16 => {
                type $t = $crate::half::bf16;
                $body
            }
        }
    };
}

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

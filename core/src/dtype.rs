//! Element types of tensors: [`DType`] and the [`Element`] trait mapping Rust scalars to it.

use std::fmt;
use std::str::FromStr;

use ndarray::{ArcArray, ArrayViewD, IxDyn};

use crate::error::{Error, SpecError};
use crate::tensor::{Tensor, TensorView};

/// The element type of a tensor.
///
/// The text form (Display and FromStr agree) is the lowercase Rust name: `bool`, `i8` … `u64`,
/// `f32`, `f64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`
    Bool,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 11] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F32,
        DType::F64,
    ];

    /// The text name (`"f32"`), the same as the Rust scalar type.
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// Size of one element in bytes.
    pub const fn size_of(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 => 8,
        }
    }

    /// Whether this is `f32` or `f64`.
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DType::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| {
                SpecError::UnknownDType {
                    found: s.to_string(),
                }
                .into()
            })
    }
}

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

    /// Unwraps a [`Tensor`] of this element type; gives the tensor back on a dtype mismatch.
    fn from_tensor(tensor: Tensor) -> Result<ArcArray<Self, IxDyn>, Tensor>;

    /// Borrows the array inside a [`Tensor`] of this element type.
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
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(d.to_string().parse::<DType>().unwrap(), d);
        }
        let err = "f16".parse::<DType>().unwrap_err().to_string();
        assert!(err.contains("f16") && err.contains("f32"), "{err}");
    }

    #[test]
    fn element_dtypes() {
        assert_eq!(<f32 as Element>::DTYPE, DType::F32);
        assert_eq!(<bool as Element>::DTYPE, DType::Bool);
        assert_eq!(DType::U16.size_of(), 2);
    }
}

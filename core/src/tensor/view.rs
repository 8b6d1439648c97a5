//! [`TensorView`]: the borrowed twin of [`Tensor`](super::Tensor). Its conversions to and from
//! typed views are in `convert`, beside [`Element`](super::Element)'s other users.

use ndarray::ArrayViewD;

use super::each_variant;
use crate::dtype::DType;

/// A dtype-erased borrowed n-d array view. `to_components` hands these out: no data is copied.
#[derive(Clone, PartialEq)]
#[allow(missing_docs)] // one variant per DType, named like it
pub enum TensorView<'a> {
    Bool(ArrayViewD<'a, bool>),
    I8(ArrayViewD<'a, i8>),
    I16(ArrayViewD<'a, i16>),
    I32(ArrayViewD<'a, i32>),
    I64(ArrayViewD<'a, i64>),
    U8(ArrayViewD<'a, u8>),
    U16(ArrayViewD<'a, u16>),
    U32(ArrayViewD<'a, u32>),
    U64(ArrayViewD<'a, u64>),
    F32(ArrayViewD<'a, f32>),
    F64(ArrayViewD<'a, f64>),
    F16(ArrayViewD<'a, half::f16>),
    BF16(ArrayViewD<'a, half::bf16>),
}

impl<'a> TensorView<'a> {
    /// The element type.
    #[inline]
    pub fn dtype(&self) -> DType {
        match self {
            TensorView::Bool(_) => DType::Bool,
            TensorView::I8(_) => DType::I8,
            TensorView::I16(_) => DType::I16,
            TensorView::I32(_) => DType::I32,
            TensorView::I64(_) => DType::I64,
            TensorView::U8(_) => DType::U8,
            TensorView::U16(_) => DType::U16,
            TensorView::U32(_) => DType::U32,
            TensorView::U64(_) => DType::U64,
            TensorView::F32(_) => DType::F32,
            TensorView::F64(_) => DType::F64,
            TensorView::F16(_) => DType::F16,
            TensorView::BF16(_) => DType::BF16,
        }
    }

    /// The concrete shape.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        each_variant!(TensorView, self, a => a.shape())
    }
}

#[cfg(test)]
mod tests {
    use ndarray::{Ix1, Ix2, array};

    use super::*;

    #[test]
    fn views_borrow_and_copy_explicitly() {
        let a = array![[1i32, 2], [3, 4]];
        let v = TensorView::from(a.view());
        assert_eq!(v.dtype(), DType::I32);
        assert_eq!(v.shape(), &[2, 2]);
        let typed = v.clone().into_array::<i32, Ix2>().unwrap();
        assert_eq!(typed.as_ptr(), a.as_ptr());
        assert!(v.clone().into_array::<i32, Ix1>().is_err());
        assert!(v.clone().into_array::<f64, Ix2>().is_err());
        let t = v.to_tensor();
        assert_eq!(t.view(), v);
    }
}

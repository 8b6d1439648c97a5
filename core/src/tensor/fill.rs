//! [`Fill`]: the values every dtype has by role (zero, one, its lowest and highest values, the
//! finite ones among them), as rank-0 tensors: what a reduction starts from, what padding and
//! masked-out elements hold. One table, read by the op model (a reduction's identity is a
//! [`Fill`]) and by every library type.

use ndarray::arr0;

use super::Tensor;
use crate::dtype::DType;

/// A value every dtype has, named by its role.
///
/// ```
/// use extype_core::tensor::Fill;
/// use extype_core::{DType, Tensor};
/// assert_eq!(Fill::Lowest.scalar(DType::F32), Tensor::from(ndarray::arr0(f32::NEG_INFINITY).into_dyn()));
/// assert_eq!(Fill::LowestFinite.scalar(DType::F32), Tensor::from(ndarray::arr0(f32::MIN).into_dyn()));
/// assert_eq!(Fill::Lowest.scalar(DType::I8), Tensor::from(ndarray::arr0(i8::MIN).into_dyn()));
/// assert_eq!(Fill::One.scalar(DType::Bool), Tensor::from(ndarray::arr0(true).into_dyn()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fill {
    /// 0 (`false`).
    Zero,
    /// 1 (`true`).
    One,
    /// The lowest value: −∞ for floats, the minimum for integers, `false`.
    Lowest,
    /// The highest value: +∞ for floats, the maximum for integers, `true`.
    Highest,
    /// The lowest finite value (`f32::MIN`; the minimum for integers; `false`).
    LowestFinite,
    /// The highest finite value (`f32::MAX`; the maximum for integers; `true`).
    HighestFinite,
}

/// The values of one element type, by role.
trait Filled: Sized {
    const ROLES: [Self; 6];
}

macro_rules! filled {
    ($($t:ty => [$zero:expr, $one:expr, $lowest:expr, $highest:expr, $lowest_finite:expr, $highest_finite:expr]),* $(,)?) => {$(
        impl Filled for $t {
            const ROLES: [$t; 6] = [$zero, $one, $lowest, $highest, $lowest_finite, $highest_finite];
        }
    )*};
}

macro_rules! integers {
    ($($t:ty),*) => {
        filled!($($t => [0, 1, <$t>::MIN, <$t>::MAX, <$t>::MIN, <$t>::MAX]),*);
    };
}

integers!(i8, i16, i32, i64, u8, u16, u32, u64);
filled!(
    bool => [false, true, false, true, false, true],
    f32 => [0.0, 1.0, f32::NEG_INFINITY, f32::INFINITY, f32::MIN, f32::MAX],
    f64 => [0.0, 1.0, f64::NEG_INFINITY, f64::INFINITY, f64::MIN, f64::MAX],
    half::f16 => [
        half::f16::ZERO,
        half::f16::ONE,
        half::f16::NEG_INFINITY,
        half::f16::INFINITY,
        half::f16::MIN,
        half::f16::MAX
    ],
    half::bf16 => [
        half::bf16::ZERO,
        half::bf16::ONE,
        half::bf16::NEG_INFINITY,
        half::bf16::INFINITY,
        half::bf16::MIN,
        half::bf16::MAX
    ],
);

impl Fill {
    /// This value in `dtype`, as a rank-0 tensor.
    pub fn scalar(self, dtype: DType) -> Tensor {
        crate::with_element!(dtype, T => Tensor::from(arr0(<T as Filled>::ROLES[self as usize]).into_dyn()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dtype_has_every_role() {
        for dtype in DType::ALL {
            for fill in [
                Fill::Zero,
                Fill::One,
                Fill::Lowest,
                Fill::Highest,
                Fill::LowestFinite,
                Fill::HighestFinite,
            ] {
                let t = fill.scalar(dtype);
                assert_eq!((t.dtype(), t.shape()), (dtype, &[][..]), "{fill:?} {dtype}");
            }
        }
        let f = |fill: Fill| Fill::scalar(fill, DType::U16);
        assert_eq!(f(Fill::Highest), Tensor::from(arr0(u16::MAX).into_dyn()));
        assert_eq!(f(Fill::Zero), Tensor::from(arr0(0u16).into_dyn()));
    }
}

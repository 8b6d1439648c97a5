//! Compact text of tensors for people: the dtype and shape as a spec prints them, then the
//! leading elements in C order (`f32[2, 3] [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]`; past
//! [`SHOWN`] elements, `…`). ndarray's nested `Debug` remains available through `{:?}`.

use std::fmt;

use super::{Tensor, TensorView, each_variant};

/// How many leading elements `Display` shows.
pub const SHOWN: usize = 6;

impl fmt::Display for TensorView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:?} ", self.dtype(), self.shape())?;
        fmt_elements(self, f)
    }
}

/// Writes the leading elements of `view` in C order: `[0.0, 1.0, …]`.
pub(crate) fn fmt_elements(view: &TensorView<'_>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("[")?;
    let total: usize = view.shape().iter().product();
    each_variant!(TensorView, view, a => {
        for (i, x) in a.iter().take(SHOWN).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{x:?}")?;
        }
    });
    f.write_str(if total > SHOWN { ", …]" } else { "]" })
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.view(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{ArrayD, IxDyn, array};

    #[test]
    fn shows_dtype_shape_and_leading_elements() {
        let t = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[2, 3]), |i| {
            (i[0] * 3 + i[1]) as f32
        }));
        assert_eq!(t.to_string(), "f32[2, 3] [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]");
        let long = Tensor::from(array![1i64, 2, 3, 4, 5, 6, 7].into_dyn());
        assert_eq!(long.to_string(), "i64[7] [1, 2, 3, 4, 5, 6, …]");
        let scalar = Tensor::from(ArrayD::from_elem(IxDyn(&[]), true));
        assert_eq!(scalar.to_string(), "bool[] [true]");
        let empty = Tensor::from(ArrayD::<u8>::zeros(IxDyn(&[0, 4])));
        assert_eq!(empty.to_string(), "u8[0, 4] []");
        // A transposed view prints in its logical (C) order.
        let t = array![[1i32, 2], [3, 4]].reversed_axes().into_dyn();
        assert_eq!(Tensor::from(t).to_string(), "i32[2, 2] [1, 3, 2, 4]");
    }
}

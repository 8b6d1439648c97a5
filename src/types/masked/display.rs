//! `Display` of a [`MaskedTensor`]: its dtype and shape, then the values nested by axis with `_`
//! where masked out (`f32[2, 3] [[1.0, _, 3.0], [4.0, 5.0, _]]`); past six entries on an axis,
//! the first and last three around `…`.

use std::fmt;

use super::MaskedTensor;
use crate::ndarray::{ArrayViewD, Axis, IxDyn};
use crate::{DType, TensorLike};

/// Entries shown per axis before eliding the middle.
const EDGE: usize = 3;

impl fmt::Display for MaskedTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{} ", self.dtype(), TensorLike::shape(self))?;
        let Ok(mask) = self.mask.as_array::<bool, IxDyn>() else {
            return f.write_str("<invalid mask>");
        };
        macro_rules! nested {
            ($t:ty) => {
                match self.values.as_array::<$t, IxDyn>() {
                    Ok(values) => write_nested(values, mask, f),
                    Err(_) => f.write_str("<unreadable values>"),
                }
            };
        }
        match self.dtype() {
            DType::Bool => nested!(bool),
            DType::I8 => nested!(i8),
            DType::I16 => nested!(i16),
            DType::I32 => nested!(i32),
            DType::I64 => nested!(i64),
            DType::U8 => nested!(u8),
            DType::U16 => nested!(u16),
            DType::U32 => nested!(u32),
            DType::U64 => nested!(u64),
            DType::F32 => nested!(f32),
            DType::F64 => nested!(f64),
        }
    }
}

/// The values along the leading axis, each a nested list (or an element), `_` where masked.
fn write_nested<T: fmt::Debug>(
    values: ArrayViewD<'_, T>,
    mask: ArrayViewD<'_, bool>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    if values.ndim() == 0 {
        return match (values.first(), mask.first()) {
            (Some(v), Some(true)) => write!(f, "{v:?}"),
            _ => f.write_str("_"),
        };
    }
    let n = values.len_of(Axis(0));
    f.write_str("[")?;
    for i in 0..n {
        if n > 2 * EDGE && i == EDGE {
            f.write_str(", …")?;
        }
        if n > 2 * EDGE && (EDGE..n - EDGE).contains(&i) {
            continue;
        }
        if i > 0 {
            f.write_str(", ")?;
        }
        write_nested(
            values.index_axis(Axis(0), i),
            mask.index_axis(Axis(0), i),
            f,
        )?;
    }
    f.write_str("]")
}

//! `Display` of a [`MaskedTensor`]: its dtype and shape, then the values nested by axis with `_`
//! where masked out (`f32[2, 3] [[1.0, _, 3.0], [4.0, 5.0, _]]`); as NumPy prints arrays, whole
//! up to 1000 elements, summarised above (on each axis longer than six entries, the first and
//! last three around `...`). The nesting is core's, shared with every tensor's `Display`
//! ([`write_nested`]).

use std::fmt;

use super::MaskedTensor;
use crate::TensorLike;
use crate::ndarray::IxDyn;
use crate::tensor::write_nested;

impl fmt::Display for MaskedTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{} ", self.dtype(), TensorLike::shape(self))?;
        let Ok(mask) = self.mask.as_array::<bool, IxDyn>() else {
            return f.write_str("<invalid mask>");
        };
        write_nested(&self.values.view(), Some(mask), f)
    }
}

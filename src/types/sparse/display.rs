//! `Display` of a [`SparseTensor`]: its dtype and dense shape, the number of stored entries,
//! then the indices and the values (`f32[3, 4] nnz=2 indices [[0, 1], [2, 3]] values [1.0,
//! 5.0]`), each nested as core prints every tensor (whole up to 1000 elements; summarised above,
//! as NumPy: on each axis longer than six entries, the first and last three around `...`).

use std::fmt;

use super::SparseTensor;
use crate::TensorLike;
use crate::tensor::write_nested;

impl fmt::Display for SparseTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{} nnz={} indices ",
            self.dtype(),
            TensorLike::shape(self),
            self.nnz()
        )?;
        write_nested(&self.indices().view(), None, f)?;
        f.write_str(" values ")?;
        write_nested(&self.values().view(), None, f)
    }
}

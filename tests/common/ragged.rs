//! RaggedTensor: a *generic* derived type with a nested extension field, registered once per
//! instantiation.

use extype::{ExtensionType, Tensor};
use ndarray::ArcArray1;

/// Values of a ragged tensor: a dense tensor (rows on axis 0) or another ragged tensor.
pub trait RowCount {
    /// The number of rows.
    fn rows(&self) -> Option<usize>;
}

impl RowCount for Tensor {
    fn rows(&self) -> Option<usize> {
        self.shape().first().copied()
    }
}

impl<V: RowCount> RowCount for RaggedTensor<V> {
    fn rows(&self) -> Option<usize> {
        self.row_splits.len().checked_sub(1)
    }
}

/// A ragged tensor: row `i` is `values[row_splits[i]..row_splits[i + 1]]`.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(validate = Self::check_splits)]
pub struct RaggedTensor<V: RowCount = Tensor> {
    /// The flat values (or a nested ragged tensor).
    pub values: V,
    /// Row boundaries: starts at 0, non-decreasing, ends at the number of value rows.
    pub row_splits: ArcArray1<i64>,
}

impl<V: RowCount> RaggedTensor<V> {
    /// The validation.
    pub fn check_splits(&self) -> extype::Result<()> {
        let splits = &self.row_splits;
        if splits.first() != Some(&0) {
            return Err(extype::Error::invalid("row_splits must start with 0"));
        }
        if splits.iter().zip(splits.iter().skip(1)).any(|(a, b)| a > b) {
            return Err(extype::Error::invalid("row_splits must be non-decreasing"));
        }
        let last = splits[splits.len() - 1];
        match self.values.rows() {
            Some(rows) if usize::try_from(last) == Ok(rows) => Ok(()),
            rows => Err(extype::Error::invalid(format!(
                "row_splits ends at {last} but values have {rows:?} rows"
            ))),
        }
    }
}

extype::register!(RaggedTensor<Tensor>, "test.RaggedTensor");
extype::register!(RaggedTensor<RaggedTensor<Tensor>>, "test.RaggedTensor2");

//! MaskedTensor: two array fields of the same shape, checked by a validation function.

use extype::ExtensionType;
use ndarray::ArrayD;

/// A tensor of values with a boolean mask of the same shape.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.MaskedTensor", validate = check_same_shape)]
pub struct MaskedTensor {
    /// The values.
    pub values: ArrayD<f32>,
    /// `true` where a value is present.
    pub mask: ArrayD<bool>,
}

/// The validation: values and mask have the same shape.
pub fn check_same_shape(value: &MaskedTensor) -> extype::Result<()> {
    if value.values.shape() == value.mask.shape() {
        Ok(())
    } else {
        Err(extype::Error::invalid(format!(
            "values shape {:?} differs from mask shape {:?}",
            value.values.shape(),
            value.mask.shape()
        )))
    }
}

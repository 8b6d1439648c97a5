//! Batch: every kind of field the derive must handle — nested extension values in a `Vec`, a
//! `BTreeMap`, an `Option` of a tuple, and static fields (`String`, `f32`, `DType`).

use std::collections::BTreeMap;

use extype::{DType, ExtensionType, Tensor};
use ndarray::Array1;

use super::MaskedTensor;

/// A batch of masked tensors with attributes and static metadata.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.Batch", validate = Self::check)]
pub struct Batch {
    /// Nested extension values.
    pub children: Vec<MaskedTensor>,
    /// Tensors by name.
    pub attrs: BTreeMap<String, Array1<f32>>,
    /// An optional pair of tensors.
    pub weights: Option<(Array1<f64>, Tensor)>,
    /// Static data.
    pub label: String,
    /// Static data (a float).
    pub scale: f32,
    /// Static data (a dtype).
    pub kind: DType,
}

impl Batch {
    /// The validation: the scale is positive.
    pub fn check(&self) -> extype::Result<()> {
        if self.scale > 0.0 {
            Ok(())
        } else {
            Err(extype::Error::invalid(format!(
                "scale must be positive, found {}",
                self.scale
            )))
        }
    }
}

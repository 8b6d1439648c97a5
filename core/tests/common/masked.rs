//! MaskedTensor, implemented by hand on the public API: how a type that does not use
//! `#[derive(ExtensionType)]` implements [`TypeSpec`] and [`ExtensionType`] and registers itself.
//! It reuses the [`Field`] impls of its field types to check components and decode the spec, so
//! its errors read like a derived type's (`component mask: …`, `spec values: …`).
//!
//! Core's tests have no `extype` facade: each test crate root says
//! `extern crate extype_core as extype;` so that `::extype::…` resolves as it does in user crates
//! (`core/benches/dispatch.rs` and the facade's `benches/derived.rs` include this file too).

use std::collections::BTreeMap;

use ::extype::field::{Components, data_error};
use ::extype::{
    Error, ExtensionType, Field, FieldPath, Result, SpecError, SpecTree, Tensor, TensorSpec,
    TensorView, TypeSpec, registered_name,
};
use ndarray::ArrayD;

/// A tensor of values with a boolean mask of the same shape.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskedTensor {
    /// The values.
    pub values: ArrayD<f32>,
    /// `true` where a value is present.
    pub mask: ArrayD<bool>,
}

/// The validation: values and mask have the same shape.
pub fn check_same_shape(value: &MaskedTensor) -> Result<()> {
    if value.values.shape() == value.mask.shape() {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "values shape {:?} differs from mask shape {:?}",
            value.values.shape(),
            value.mask.shape()
        )))
    }
}

/// The spec of [`MaskedTensor`]: the spec of each field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MaskedTensorSpec {
    /// Spec of `values` (`f32`).
    pub values: TensorSpec,
    /// Spec of `mask` (`bool`).
    pub mask: TensorSpec,
}

/// The fields, in component order: their keys in the serialized spec and their paths.
const FIELDS: [&str; 2] = ["values", "mask"];

impl ExtensionType for MaskedTensor {
    type Spec = MaskedTensorSpec;
    const NAME: &'static str = "test.MaskedTensor";

    fn spec(&self) -> MaskedTensorSpec {
        MaskedTensorSpec {
            values: self.values.field_spec(),
            mask: self.mask.field_spec(),
        }
    }

    /// Moves the arrays into tensors: no copy.
    fn into_components(self) -> Vec<Tensor> {
        vec![Tensor::from(self.values), Tensor::from(self.mask)]
    }

    fn validate(&self) -> Result<()> {
        check_same_shape(self)
    }
}

impl TypeSpec for MaskedTensorSpec {
    type Value = MaskedTensor;

    fn component_specs(&self) -> Vec<TensorSpec> {
        vec![self.values.clone(), self.mask.clone()]
    }

    fn num_components(&self) -> usize {
        FIELDS.len()
    }

    fn component_paths(&self) -> Vec<String> {
        FIELDS.iter().map(|f| f.to_string()).collect()
    }

    fn to_components<'a>(&self, value: &'a MaskedTensor) -> Vec<TensorView<'a>> {
        vec![
            TensorView::from_array(value.values.view()),
            TensorView::from_array(value.mask.view()),
        ]
    }

    /// Checks the count, then each component against its field's spec (moving the data), then
    /// the validation.
    fn from_components(&self, components: Vec<Tensor>) -> Result<MaskedTensor> {
        if components.len() != FIELDS.len() {
            return Err(SpecError::ComponentCount {
                type_name: registered_name::<MaskedTensor>().to_string(),
                expected: FIELDS.len(),
                found: components.len(),
            }
            .into());
        }
        let root = FieldPath::Root;
        let mut components = Components::new(components);
        let value = MaskedTensor {
            values: <ArrayD<f32>>::from_components(
                &self.values,
                &root.field("values"),
                &mut components,
            )?,
            mask: <ArrayD<bool>>::from_components(
                &self.mask,
                &root.field("mask"),
                &mut components,
            )?,
        };
        match value.validate() {
            Ok(()) => Ok(value),
            Err(e) => Err(named_invalid(e)),
        }
    }

    fn serialize(&self) -> SpecTree {
        let fields = BTreeMap::from([
            (
                "values".to_string(),
                SpecTree::TensorSpec(self.values.clone()),
            ),
            ("mask".to_string(), SpecTree::TensorSpec(self.mask.clone())),
        ]);
        SpecTree::spec(
            registered_name::<MaskedTensor>(),
            SpecTree::Map(fields.into()),
        )
    }

    /// Checks the name and the field set, then decodes each field as its type does (`values`
    /// must be an `f32` tensor spec, `mask` a `bool` one).
    fn deserialize(value: &SpecTree) -> Result<Self> {
        let root = FieldPath::Root;
        let name = registered_name::<MaskedTensor>();
        let fields = match value {
            SpecTree::Spec(named) if named.name == name || named.name == MaskedTensor::NAME => {
                match &named.value {
                    SpecTree::Map(fields) => fields,
                    other => {
                        let expected = format!("a map of the fields of {name:?}");
                        return Err(data_error(&root, expected, other));
                    }
                }
            }
            other => return Err(data_error(&root, format!("spec {name:?}"), other)),
        };
        if let Some(extra) = fields.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(SpecError::Data {
                // The key comes from the input: quoted as a bounded excerpt.
                path: root
                    .key(&extra.chars().take(40).collect::<String>())
                    .to_string(),
                expected: format!("one of the fields {FIELDS:?} of {name:?}"),
                found: "an unknown field".into(),
            }
            .into());
        }
        let field = |key: &'static str| {
            fields.get(key).ok_or_else(|| -> Error {
                SpecError::Data {
                    path: root.field(key).to_string(),
                    expected: "a field".into(),
                    found: "nothing (missing field)".into(),
                }
                .into()
            })
        };
        Ok(MaskedTensorSpec {
            values: <ArrayD<f32>>::spec_from_value(field("values")?, &root.field("values"))?,
            mask: <ArrayD<bool>>::spec_from_value(field("mask")?, &root.field("mask"))?,
        })
    }

    fn is_compatible_with(&self, other: &Self) -> bool {
        self.values.is_compatible_with(&other.values) && self.mask.is_compatible_with(&other.mask)
    }

    fn most_specific_compatible(&self, other: &Self) -> Option<Self> {
        Some(MaskedTensorSpec {
            values: self.values.most_specific_compatible(&other.values)?,
            mask: self.mask.most_specific_compatible(&other.mask)?,
        })
    }
}

/// A validation failure, named after the type (`Error::invalid` leaves the name blank).
fn named_invalid(error: Error) -> Error {
    match error {
        Error::Spec(e) => match *e {
            SpecError::Invalid { path, message, .. } => SpecError::Invalid {
                type_name: registered_name::<MaskedTensor>().to_string(),
                path,
                message,
            }
            .into(),
            other => other.into(),
        },
        other => other,
    }
}

::extype::register!(MaskedTensor, "test.MaskedTensor");

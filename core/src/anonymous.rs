//! Anonymous extension values: spec data plus components of a type that is not linked into this
//! program (TF's `AnonymousExtensionType`), turned into a concrete type by
//! [`AnonymousExtension::reinterpret`].

use std::collections::BTreeMap;

use crate::error::{RegistryError, Result, SpecError};
use crate::field::{FieldPath, check_tensor, data_error};
use crate::spec_tree::SpecValue;
use crate::spec::{ExtensionType, TensorSpec, TypeSpec, registered_name};
use crate::tensor::{Tensor, TensorView};

/// The registered name of [`AnonymousExtension`]'s own spec.
pub const ANONYMOUS_NAME: &str = "extype.Anonymous";

/// An extension value whose type is known only by name: its serialized spec and its components.
#[derive(Clone, Debug)]
pub struct AnonymousExtension {
    /// The registered name of the original type (the name inside `spec`).
    pub name: String,
    /// The original type's serialized spec (a [`SpecValue::Spec`]).
    pub spec: SpecValue,
    /// The components, in the original type's component order.
    pub components: Vec<Tensor>,
}

/// The spec of an [`AnonymousExtension`]: the original serialized spec plus the exact specs of
/// the components. Serialized as the `extype.Anonymous` spec (fields `name`, `spec`,
/// `components`), so it round-trips.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AnonymousSpec {
    /// The registered name of the original type.
    pub name: String,
    /// The original type's serialized spec.
    pub spec: SpecValue,
    /// The specs of the components.
    pub component_specs: Vec<TensorSpec>,
}

impl AnonymousExtension {
    /// An anonymous value from a serialized registered spec and its components.
    pub fn new(spec: SpecValue, components: Vec<Tensor>) -> Result<Self> {
        let SpecValue::Spec(named) = &spec else {
            return Err(data_error(&FieldPath::Root, "a registered spec", &spec));
        };
        Ok(AnonymousExtension {
            name: named.name.clone(),
            spec,
            components,
        })
    }

    /// Turns this value into `T`: the names must agree, the spec must deserialize as `T`'s, and
    /// the components must fit it; `T`'s validation runs.
    pub fn reinterpret<T: ExtensionType>(self) -> Result<T> {
        let expected = registered_name::<T>();
        if self.name != expected && self.name != T::NAME {
            return Err(RegistryError::ReinterpretName {
                expected: expected.to_string(),
                expected_type: std::any::type_name::<T>().to_string(),
                found: self.name,
            }
            .into());
        }
        let spec = T::Spec::deserialize(&self.spec)?;
        let value = spec.from_components(self.components)?;
        // Hand-written specs may not validate in `from_components`; validating twice is cheap.
        value.validate()?;
        Ok(value)
    }
}

impl TypeSpec for AnonymousSpec {
    type Value = AnonymousExtension;

    fn component_specs(&self) -> Vec<TensorSpec> {
        self.component_specs.clone()
    }

    fn to_components<'a>(&self, value: &'a AnonymousExtension) -> Vec<TensorView<'a>> {
        value.components.iter().map(Tensor::view).collect()
    }

    fn from_components(&self, components: Vec<Tensor>) -> Result<AnonymousExtension> {
        if components.len() != self.component_specs.len() {
            return Err(SpecError::ComponentCount {
                type_name: self.name.clone(),
                expected: self.component_specs.len(),
                found: components.len(),
            }
            .into());
        }
        for (i, (spec, tensor)) in self.component_specs.iter().zip(&components).enumerate() {
            check_tensor(spec, tensor, &FieldPath::Root.index(i))?;
        }
        Ok(AnonymousExtension {
            name: self.name.clone(),
            spec: self.spec.clone(),
            components,
        })
    }

    fn serialize(&self) -> SpecValue {
        let fields = BTreeMap::from([
            ("name".to_string(), SpecValue::Str(self.name.clone())),
            ("spec".to_string(), self.spec.clone()),
            (
                "components".to_string(),
                SpecValue::List(
                    self.component_specs
                        .iter()
                        .cloned()
                        .map(SpecValue::TensorSpec)
                        .collect(),
                ),
            ),
        ]);
        SpecValue::spec(ANONYMOUS_NAME, SpecValue::Map(fields))
    }

    fn deserialize(value: &SpecValue) -> Result<Self> {
        let root = FieldPath::Root;
        let fields = crate::__private::StructFields::open_named(
            value,
            &root,
            ANONYMOUS_NAME,
            ANONYMOUS_NAME,
            &["name", "spec", "components"],
        )?;
        let name = match fields.get("name")? {
            SpecValue::Str(s) => s.clone(),
            other => return Err(data_error(&root.field("name"), "a string", other)),
        };
        let spec = fields.get("spec")?.clone();
        match &spec {
            SpecValue::Spec(named) if named.name == name => {}
            other => {
                return Err(data_error(
                    &root.field("spec"),
                    format!("a spec named {name:?}"),
                    other,
                ));
            }
        }
        let component_specs = <Vec<crate::Tensor> as crate::Field>::spec_from_value(
            fields.get("components")?,
            &root.field("components"),
        )?;
        Ok(AnonymousSpec {
            name,
            spec,
            component_specs,
        })
    }

    fn is_compatible_with(&self, other: &Self) -> bool {
        self.name == other.name
            && self.spec == other.spec
            && self.component_specs.len() == other.component_specs.len()
            && self
                .component_specs
                .iter()
                .zip(&other.component_specs)
                .all(|(a, b)| a.is_compatible_with(b))
    }

    fn most_specific_compatible(&self, other: &Self) -> Option<Self> {
        if self.name != other.name
            || self.spec != other.spec
            || self.component_specs.len() != other.component_specs.len()
        {
            return None;
        }
        let component_specs = self
            .component_specs
            .iter()
            .zip(&other.component_specs)
            .map(|(a, b)| a.most_specific_compatible(b))
            .collect::<Option<Vec<_>>>()?;
        Some(AnonymousSpec {
            name: self.name.clone(),
            spec: self.spec.clone(),
            component_specs,
        })
    }
}

impl ExtensionType for AnonymousExtension {
    type Spec = AnonymousSpec;
    const NAME: &'static str = ANONYMOUS_NAME;

    fn spec(&self) -> AnonymousSpec {
        AnonymousSpec {
            name: self.name.clone(),
            spec: self.spec.clone(),
            component_specs: self
                .components
                .iter()
                .map(TensorSpec::from_tensor)
                .collect(),
        }
    }

    fn into_components(self) -> Vec<Tensor> {
        self.components
    }

    fn dynamic_name(spec: &AnonymousSpec) -> Option<&str> {
        Some(&spec.name)
    }

    fn dynamic_value_name(&self) -> Option<&str> {
        Some(&self.name)
    }
}

crate::register!(AnonymousExtension, ANONYMOUS_NAME);

//! Anonymous extension values: spec data plus components of a type that is not linked into this
//! program (TF's `AnonymousExtensionType`), turned into a concrete type by
//! [`AnonymousExtension::reinterpret`] (or [`Value::reinterpret`], defined here too: it needs
//! the anonymous type, which sits with the registry, above the values).

use super::registry;
use crate::derived::StructFields;
use crate::error::{RegistryError, Result, SpecError};
use crate::field::{Field, FieldPath, check_tensor, data_error};
use crate::spec::seal::Seal;
use crate::spec::{ExtensionType, TypeSpec, Value, registered_name};
use crate::spec_tree::{Fields, SpecTree};
use crate::tensor::{Tensor, TensorSpec, TensorView};

/// The registered name of [`AnonymousExtension`]'s own spec.
pub const ANONYMOUS_NAME: &str = "extype.Anonymous";

/// An extension value whose type is known only by name: its serialized spec and its components.
#[derive(Clone, Debug)]
pub struct AnonymousExtension {
    /// The registered name of the original type (the name inside `spec`).
    pub name: String,
    /// The original type's serialized spec (a [`SpecTree::Spec`]).
    pub spec: SpecTree,
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
    pub spec: SpecTree,
    /// The specs of the components.
    pub component_specs: Vec<TensorSpec>,
}

impl AnonymousExtension {
    /// An anonymous value from a serialized registered spec and its components.
    pub fn new(spec: SpecTree, components: Vec<Tensor>) -> Result<Self> {
        let SpecTree::Spec(named) = &spec else {
            return Err(data_error(&FieldPath::Root, "a registered spec", &spec));
        };
        Ok(AnonymousExtension {
            name: named.name.clone(),
            spec,
            components,
        })
    }

    /// Turns this value into `T`: the names must agree, the spec must deserialize as `T`'s, and
    /// the components must fit it; `T`'s validation runs. A name registered by two types is the
    /// error naming both definitions (the value may be the other type's).
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
        registry().resolve(&self.name)?;
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

    fn serialize(&self) -> SpecTree {
        let fields = Fields::from([
            ("name".to_string(), SpecTree::Str(self.name.clone())),
            ("spec".to_string(), self.spec.clone()),
            (
                "components".to_string(),
                SpecTree::List(
                    self.component_specs
                        .iter()
                        .cloned()
                        .map(SpecTree::TensorSpec)
                        .collect(),
                ),
            ),
        ]);
        SpecTree::spec(ANONYMOUS_NAME, SpecTree::Map(fields))
    }

    fn deserialize(value: &SpecTree) -> Result<Self> {
        let root = FieldPath::Root;
        let fields = StructFields::open_named(
            value,
            &root,
            ANONYMOUS_NAME,
            ANONYMOUS_NAME,
            &["name", "spec", "components"],
        )?;
        let name = match fields.get("name")? {
            SpecTree::Str(s) => s.clone(),
            other => return Err(data_error(&root.field("name"), "a string", other)),
        };
        let spec = fields.get("spec")?.clone();
        match &spec {
            SpecTree::Spec(named) if named.name == name => {}
            other => {
                return Err(data_error(
                    &root.field("spec"),
                    format!("a spec named {name:?}"),
                    other,
                ));
            }
        }
        let component_specs = <Vec<Tensor> as Field>::spec_from_value(
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

    fn dynamic_name(spec: &AnonymousSpec, _: Seal) -> Option<&str> {
        Some(&spec.name)
    }

    fn dynamic_value_name(&self, _: Seal) -> Option<&str> {
        Some(&self.name)
    }
}

crate::register!(AnonymousExtension, ANONYMOUS_NAME);

impl Value {
    /// Like [`downcast`](Self::downcast), but also turns an anonymous value of `T`'s registered
    /// name into `T` (validating it).
    pub fn reinterpret<T: ExtensionType>(self) -> Result<T> {
        match &self {
            Value::Extension(e) if e.as_any().is::<AnonymousExtension>() => {
                let anonymous = self.downcast::<AnonymousExtension>()?;
                anonymous.reinterpret::<T>()
            }
            _ => self.downcast::<T>(),
        }
    }
}

// The tests of `Value` that need extension values: anonymous ones are the ones core has.
#[cfg(test)]
mod value_tests {
    use ndarray::array;

    use super::*;
    use crate::dtype::DType;
    use crate::spec::ValueSpec;

    fn anonymous(n: usize) -> AnonymousExtension {
        let components = vec![Tensor::from(ndarray::Array1::<f32>::zeros(n))];
        AnonymousExtension::new(SpecTree::spec("a.B", SpecTree::None), components).unwrap()
    }

    #[test]
    fn tensor_values() {
        let v = Value::from(Tensor::from(array![1i8]));
        assert_eq!(v.as_tensor().unwrap().dtype(), DType::I8);
        assert!(v.downcast_ref::<AnonymousExtension>().is_err());
        assert_eq!(v.clone().into_tensor().unwrap(), Tensor::from(array![1i8]));
        let ValueSpec::Tensor(spec) = v.spec() else {
            panic!()
        };
        assert_eq!(spec.to_string(), "i8[1]");
    }

    #[test]
    fn extension_values() {
        let v = Value::from_extension(anonymous(2));
        assert_eq!(v.type_name(), "a.B");
        let err = v.as_tensor().unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "as_tensor: expected Tensor, found a.B ({})",
                std::any::type_name::<AnonymousExtension>()
            )
        );
        let shared = v.clone();
        let taken = v.downcast::<AnonymousExtension>().unwrap();
        assert_eq!(taken.components.len(), 1);
        assert!(shared.downcast_ref::<AnonymousExtension>().is_ok());
    }

    #[test]
    fn value_specs() {
        let a = Value::from_extension(anonymous(2)).spec();
        let b = Value::from_extension(anonymous(3)).spec();
        let t = Value::from(Tensor::from(array![1.0f32, 2.0])).spec();
        assert_ne!(a, b);
        assert!(!a.is_compatible_with(&b));
        let joined = a.most_specific_compatible(&b).unwrap();
        assert!(joined.is_compatible_with(&a) && joined.is_compatible_with(&b));
        assert!(!a.is_compatible_with(&t));
        assert_eq!(a.most_specific_compatible(&t), None);
        let ValueSpec::Extension(spec) = joined else {
            panic!()
        };
        assert_eq!(spec.dyn_component_specs()[0].to_string(), "f32[!1]");
        assert_eq!(spec.dyn_component_paths(), ["0"]);
    }
}

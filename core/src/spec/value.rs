//! [`Value`]: a tensor or an extension value whose type is known only at run time.

pub use super::shared::SharedExtension;
use super::{AnySpec, ExtensionType};
use crate::error::{Error, Result, ValueError};
use crate::tensor::{Tensor, TensorSpec};

/// A tensor or an extension value (of any type, possibly anonymous). Clone is O(1).
///
/// ```
/// use extype_core::{Tensor, Value};
/// let v = Value::from(Tensor::from(ndarray::array![1i32, 2]));
/// assert!(v.as_tensor().is_ok());
/// assert_eq!(v.type_name(), "Tensor");
/// ```
#[derive(Clone, Debug)]
pub enum Value {
    /// A dense tensor.
    Tensor(Tensor),
    /// An extension value.
    Extension(SharedExtension),
}

/// Compact text for people: a tensor as `f32[2, 3] [0.0, 1.0, …]`; an extension value as its
/// spec, then each component's leading elements by field path
/// (`pkg.Masked { values: f32[3], mask: bool[3] } {values: [1.0, 2.0, 3.0], mask: [true, false, true]}`).
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Tensor(t) => std::fmt::Display::fmt(t, f),
            Value::Extension(e) => {
                let spec = e.any_spec();
                write!(f, "{spec} {{")?;
                let paths = spec.dyn_component_paths();
                for (i, (path, view)) in paths.iter().zip(e.component_views()).enumerate() {
                    f.write_str(if i == 0 { "" } else { ", " })?;
                    write!(f, "{path}: ")?;
                    crate::tensor::fmt_elements(&view, f)?;
                }
                f.write_str("}")
            }
        }
    }
}

/// Compact text of the spec: `f32[2, ?]`, or the extension spec's own text.
impl std::fmt::Display for ValueSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueSpec::Tensor(t) => std::fmt::Display::fmt(t, f),
            ValueSpec::Extension(e) => std::fmt::Display::fmt(&**e, f),
        }
    }
}

/// The spec of a [`Value`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueSpec {
    /// The spec of a dense tensor.
    Tensor(TensorSpec),
    /// The spec of an extension value.
    Extension(Box<dyn AnySpec>),
}

impl ValueSpec {
    /// Loose compatibility (tensor specs by shape/dtype, extension specs by their type's rule).
    pub fn is_compatible_with(&self, other: &ValueSpec) -> bool {
        match (self, other) {
            (ValueSpec::Tensor(a), ValueSpec::Tensor(b)) => a.is_compatible_with(b),
            (ValueSpec::Extension(a), ValueSpec::Extension(b)) => a.dyn_is_compatible_with(&**b),
            _ => false,
        }
    }

    /// The most specific spec compatible with both; `None` when none is.
    pub fn most_specific_compatible(&self, other: &ValueSpec) -> Option<ValueSpec> {
        match (self, other) {
            (ValueSpec::Tensor(a), ValueSpec::Tensor(b)) => {
                a.most_specific_compatible(b).map(ValueSpec::Tensor)
            }
            (ValueSpec::Extension(a), ValueSpec::Extension(b)) => a
                .dyn_most_specific_compatible(&**b)
                .map(ValueSpec::Extension),
            _ => None,
        }
    }
}

impl Value {
    /// Wraps an extension value.
    pub fn from_extension<T: ExtensionType>(value: T) -> Value {
        Value::Extension(SharedExtension::new(value))
    }

    /// `"Tensor"`, or the registered name of the extension type.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Tensor(_) => "Tensor",
            Value::Extension(e) => e.name(),
        }
    }

    /// The value's spec.
    pub fn spec(&self) -> ValueSpec {
        match self {
            Value::Tensor(t) => ValueSpec::Tensor(TensorSpec::from_tensor(t)),
            Value::Extension(e) => ValueSpec::Extension(e.any_spec()),
        }
    }

    /// The tensor, or an error naming what the value is.
    pub fn as_tensor(&self) -> Result<&Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            other => Err(other.mismatch("as_tensor", "Tensor")),
        }
    }

    /// The tensor, or an error naming what the value is.
    pub fn into_tensor(self) -> Result<Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            other => Err(other.mismatch("into_tensor", "Tensor")),
        }
    }

    /// Borrows the extension value as `T`, or errors naming the expected and actual types.
    pub fn downcast_ref<T: ExtensionType>(&self) -> Result<&T> {
        match self {
            Value::Extension(e) => e
                .as_any()
                .downcast_ref::<T>()
                .ok_or_else(|| self.mismatch("downcast_ref", std::any::type_name::<T>())),
            Value::Tensor(_) => Err(self.mismatch("downcast_ref", std::any::type_name::<T>())),
        }
    }

    /// Takes the extension value as `T` (moved out when this is the only reference, else
    /// cloned). An anonymous value is not reinterpreted: use [`Value::reinterpret`] (defined with
    /// the anonymous values, in the registry layer).
    pub fn downcast<T: ExtensionType>(self) -> Result<T> {
        match self {
            Value::Extension(e) if e.as_any().is::<T>() => {
                let not_t = || ValueError {
                    op: "downcast",
                    expected: std::any::type_name::<T>().into(),
                    found: "another type".into(),
                };
                match e.try_unwrap() {
                    Ok(owned) if owned.as_any().is::<T>() => {
                        let mut slot = std::mem::MaybeUninit::<T>::uninit();
                        // SAFETY: the value is a `T` (checked: `as_any` is the value itself, by
                        // the `AnyExtension` contract), and `move_into` writes it to the slot.
                        unsafe {
                            owned.move_into(slot.as_mut_ptr() as *mut u8);
                            Ok(slot.assume_init())
                        }
                    }
                    Ok(_) => Err(not_t().into()),
                    Err(shared) => match shared.as_any().downcast_ref::<T>() {
                        Some(value) => Ok(value.clone()),
                        None => Err(not_t().into()),
                    },
                }
            }
            other => Err(other.mismatch("downcast", std::any::type_name::<T>())),
        }
    }

    fn mismatch(&self, op: &'static str, expected: &str) -> Error {
        let found = match self {
            Value::Tensor(t) => format!("a tensor ({})", TensorSpec::from_tensor(t)),
            Value::Extension(e) => format!("{} ({})", e.name(), e.type_name()),
        };
        ValueError {
            op,
            expected: expected.to_string(),
            found,
        }
        .into()
    }
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Self {
        Value::Tensor(t)
    }
}

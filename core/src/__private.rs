//! The one door for generated code: everything `#[derive(ExtensionType)]` and the core macros
//! emit paths into. Not public API: names here may change with the macro crate.
//!
//! Generated code reaches it as `::extype::__private` (the facade re-exports core). The helpers
//! below carry the logic shared by every derived type, so the generated code stays a thin list of
//! per-field calls; see `core/tests/common/masked.rs` for exactly what it looks like.

use std::collections::BTreeMap;

pub use inventory;

pub use crate::derived;
pub use crate::derived::{Derived, DerivedSpec, FieldDesc, StructDesc};

pub use crate::contract::{ShapeContract, ShapedField};
pub use crate::dispatch::param::{
    GroupParam, HandlerParam, dispatch_indices, dispatched_count, dispatched_params,
};
pub use crate::dispatch::{
    BinaryOp, Call, DispatchEntry, Handled, IntoHandled, IntoInferred, ParamKind, ReductionOp,
    Target, UnaryOp,
};
pub use crate::dtype::{DType, Element};
pub use crate::error::{Error, Result, SpecError};
pub use crate::field::{Components, ExactFloat, Field, FieldPath, Sink, StaticValue, data_error};
pub use crate::ops;
pub use crate::ops::catalog;
pub use crate::ops::{AsOperand, Inferred, OpKind, Operand};
pub use crate::registry::{RegistryEntry, registered_name};
pub use crate::serial::{NamedSpec, SpecValue, write_struct};
pub use crate::shape::Shape;
pub use crate::spec::{ExtensionType, TensorSpec, TypeSpec};
pub use crate::tensor::{Tensor, TensorView};
pub use crate::value::{Value, ValueSpec};

/// [`TypeSpec::component_specs`] of a derived type.
#[inline]
pub fn component_specs<T: Field>(spec: &T::Spec) -> Vec<TensorSpec> {
    let mut out = Vec::with_capacity(T::num_components(spec));
    T::component_specs(spec, &FieldPath::Root, &mut out);
    out
}

/// [`TypeSpec::component_paths`] of a derived type.
pub fn component_paths<T: Field>(spec: &T::Spec) -> Vec<String> {
    let mut out = crate::field::PathSink::default();
    T::component_specs(spec, &FieldPath::Root, &mut out);
    paths_of(out)
}

// Not generic: the iterator chain is compiled once here, not once per derived type.
fn paths_of(sink: crate::field::PathSink<TensorSpec>) -> Vec<String> {
    sink.0.into_iter().map(|(path, _)| path).collect()
}

/// [`TypeSpec::to_components`] of a derived type.
#[inline]
pub fn to_components<T: Field>(value: &T, capacity: usize) -> Vec<TensorView<'_>> {
    let mut out = Vec::with_capacity(capacity);
    value.push_views(&FieldPath::Root, &mut out);
    out
}

/// [`ExtensionType::into_components`] of a derived type.
#[inline]
pub fn into_components<T: Field>(value: T, capacity: usize) -> Vec<Tensor> {
    let mut out = Vec::with_capacity(capacity);
    value.push_components(&FieldPath::Root, &mut out);
    out
}

/// [`TypeSpec::from_components`] of a derived type: checks the count, then rebuilds field by
/// field (each checks its components and the value's validation runs).
#[inline]
pub fn from_components<T: Field>(spec: &T::Spec, components: Vec<Tensor>) -> Result<T> {
    let expected = T::num_components(spec);
    if components.len() != expected {
        return Err(count_mismatch(
            std::any::type_name::<T>(),
            expected,
            components.len(),
        ));
    }
    let mut components = Components::new(components);
    T::from_components(spec, &FieldPath::Root, &mut components)
}

#[cold]
#[inline(never)]
fn count_mismatch(type_name: &str, expected: usize, found: usize) -> Error {
    SpecError::ComponentCount {
        type_name: type_name.to_string(),
        expected,
        found,
    }
    .into()
}

/// Runs the value's validation; a failure names the type and the field path.
#[inline]
pub fn validated<T: ExtensionType>(value: T, path: &FieldPath<'_>) -> Result<T> {
    match value.validate() {
        Ok(()) => Ok(value),
        Err(e) => Err(invalid(e, path, registered_name::<T>())),
    }
}

#[cold]
#[inline(never)]
pub(crate) fn invalid(error: Error, path: &FieldPath<'_>, type_name: &str) -> Error {
    let message = match error {
        Error::Spec(e) => match *e {
            SpecError::Invalid { message, .. } => message,
            other => other.to_string(),
        },
        other => other.to_string(),
    };
    SpecError::Invalid {
        type_name: type_name.to_string(),
        path: path.to_string(),
        message,
    }
    .into()
}

/// The serialized spec of a derived struct: its registered name around a map of its fields.
pub fn struct_spec_value<T: ExtensionType, const N: usize>(
    fields: [(&'static str, SpecValue); N],
) -> SpecValue {
    SpecValue::spec(
        registered_name::<T>(),
        SpecValue::Map(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        ),
    )
}

/// Reads the fields of a serialized derived struct, checking its name and its field set.
#[derive(Debug)]
pub struct StructFields<'a> {
    fields: &'a BTreeMap<String, SpecValue>,
    path: FieldPath<'a>,
}

impl<'a> StructFields<'a> {
    /// Opens the serialized spec of `T` (name = its registered name or `T::NAME`); the map must
    /// hold exactly the `expected` fields.
    pub fn open<T: ExtensionType>(
        value: &'a SpecValue,
        path: &'a FieldPath<'a>,
        expected: &[&'static str],
    ) -> Result<Self> {
        Self::open_named(value, path, registered_name::<T>(), T::NAME, expected)
    }

    /// [`open`](Self::open) with the accepted names given.
    pub fn open_named(
        value: &'a SpecValue,
        path: &'a FieldPath<'a>,
        name: &str,
        alias: &str,
        expected: &[&'static str],
    ) -> Result<Self> {
        let SpecValue::Spec(named) = value else {
            return Err(data_error(path, format!("spec {name:?}"), value));
        };
        if named.name != name && named.name != alias {
            return Err(data_error(path, format!("spec {name:?}"), value));
        }
        let SpecValue::Map(fields) = &named.value else {
            return Err(data_error(
                path,
                format!("a map of the fields of {name:?}"),
                &named.value,
            ));
        };
        crate::field::check_struct_keys(fields, path, name, expected)?;
        Ok(StructFields {
            fields,
            path: *path,
        })
    }

    /// The serialized spec of one field (its presence was checked by `open`).
    pub fn get(&self, field: &'static str) -> Result<&'a SpecValue> {
        self.fields.get(field).ok_or_else(|| {
            SpecError::Data {
                path: self.path.field(field).to_string(),
                expected: "a field".into(),
                found: "nothing (missing field)".into(),
            }
            .into()
        })
    }
}

//! What extype writes into `__metadata__`: the format name and version, and per value its
//! registered type name, its spec's versioned JSON and its component paths in order.

use std::collections::BTreeMap;

use crate::error::{IoError, Result};
use crate::registry::AnonymousExtension;
use crate::spec::{AnyExtension, ExtensionType, TypeSpec, Value};
use crate::tensor::{Tensor, TensorSpec, TensorView};

/// `__metadata__["format"]` of a file holding one value.
pub const FORMAT: &str = "extype";
/// `__metadata__["format"]` of a shard file holding several values.
pub const SHARD_FORMAT: &str = "extype-shard";
/// `__metadata__["format_version"]`.
pub const FORMAT_VERSION: &str = "1";
/// The type name a dense tensor is saved under.
pub const TENSOR_TYPE: &str = "Tensor";
/// The tensor name a dense tensor is saved under.
pub const TENSOR_NAME: &str = "tensor";

/// One value's description in a file: type name, spec JSON (a [`TensorSpec`]'s text for a
/// tensor) and the component paths, in component order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct Record {
    pub type_name: String,
    pub spec: String,
    pub components: Vec<String>,
}

impl Record {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "type": self.type_name,
            "spec": self.spec,
            "components": self.components,
        })
    }

    fn from_json(file: &str, at: &str, v: &serde_json::Value) -> Result<Record> {
        let bad = |m: String| IoError::at(file, "", format!("metadata {at}: {m}"));
        let text = |key: &str| -> Result<String> {
            v.get(key)
                .and_then(|s| s.as_str())
                .map(str::to_string)
                .ok_or_else(|| bad(format!("expected a string {key:?}")))
        };
        let components = v
            .get("components")
            .and_then(|c| c.as_array())
            .ok_or_else(|| bad("expected a list \"components\"".into()))?
            .iter()
            .map(|c| {
                c.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| bad("a component path is not a string".into()))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Record {
            type_name: text("type")?,
            spec: text("spec")?,
            components,
        })
    }

    /// The metadata of a file holding this one value.
    pub fn file_metadata(&self) -> Result<BTreeMap<String, String>> {
        let mut m = BTreeMap::new();
        m.insert("format".into(), FORMAT.into());
        m.insert("format_version".into(), FORMAT_VERSION.into());
        m.insert("type".into(), self.type_name.clone());
        m.insert("spec".into(), self.spec.clone());
        m.insert(
            "components".into(),
            serde_json::Value::from(self.components.clone()).to_string(),
        );
        Ok(m)
    }
}

/// The records a file's metadata describes: `None` for a file without extype metadata (written
/// by another program), else one record (a value file) or several (a shard).
pub(crate) fn records(
    file: &str,
    metadata: &BTreeMap<String, String>,
) -> Result<Option<(bool, Vec<Record>)>> {
    let Some(format) = metadata.get("format") else {
        return Ok(None);
    };
    let bad = |m: String| IoError::at(file, "", m);
    if format != FORMAT && format != SHARD_FORMAT {
        return Ok(None);
    }
    match metadata.get("format_version") {
        Some(v) if v == FORMAT_VERSION => {}
        other => {
            return Err(bad(format!(
                "metadata format_version: expected {FORMAT_VERSION:?}, found {other:?}"
            )));
        }
    }
    if format == FORMAT {
        let get = |key: &str| {
            metadata
                .get(key)
                .ok_or_else(|| bad(format!("metadata: missing {key:?}")))
        };
        let components: serde_json::Value = serde_json::from_str(get("components")?)
            .map_err(|e| bad(format!("metadata components: {e}")))?;
        let v = serde_json::json!({
            "type": get("type")?,
            "spec": get("spec")?,
            "components": components,
        });
        Ok(Some((false, vec![Record::from_json(file, "", &v)?])))
    } else {
        let text = metadata
            .get("records")
            .ok_or_else(|| bad("metadata: missing \"records\"".into()))?;
        let list: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("metadata records: {e}")))?;
        let list = list
            .as_array()
            .ok_or_else(|| bad("metadata records: expected a list".into()))?;
        let records = list
            .iter()
            .enumerate()
            .map(|(i, v)| Record::from_json(file, &format!("records[{i}]"), v))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some((true, records)))
    }
}

/// A value that [`save`](super::save) can write: any extension value, a [`Tensor`] or a
/// [`Value`]. Sealed in effect: its methods are internal.
pub trait Save {
    /// The value as a [`Value`] (O(1): the tensors are shared, not copied).
    fn to_value(&self) -> Value;

    #[doc(hidden)]
    fn __record(&self) -> Result<(Record, Vec<TensorView<'_>>)>;
}

impl<T: ExtensionType> Save for T {
    fn to_value(&self) -> Value {
        Value::from_extension(self.clone())
    }

    fn __record(&self) -> Result<(Record, Vec<TensorView<'_>>)> {
        if let Some(anon) = AnyExtension::as_any(self).downcast_ref::<AnonymousExtension>() {
            return anonymous_record(anon);
        }
        let spec = self.spec();
        let record = Record {
            type_name: AnyExtension::name(self).to_string(),
            spec: spec.serialize().to_json()?,
            components: spec.component_paths(),
        };
        Ok((record, spec.to_components(self)))
    }
}

impl Save for Tensor {
    fn to_value(&self) -> Value {
        Value::Tensor(self.clone())
    }

    fn __record(&self) -> Result<(Record, Vec<TensorView<'_>>)> {
        Ok((tensor_record(self), vec![self.view()]))
    }
}

/// An anonymous value saves under its original name and spec; its components are named by its
/// own paths (the original field paths are not known), matched by position when loaded.
fn anonymous_record(anon: &AnonymousExtension) -> Result<(Record, Vec<TensorView<'_>>)> {
    let record = Record {
        type_name: anon.name.clone(),
        spec: anon.spec.to_json()?,
        components: anon.spec().component_paths(),
    };
    Ok((record, anon.components.iter().map(Tensor::view).collect()))
}

fn tensor_record(t: &Tensor) -> Record {
    Record {
        type_name: TENSOR_TYPE.into(),
        spec: TensorSpec::from_tensor(t).to_string(),
        components: vec![TENSOR_NAME.into()],
    }
}

impl Save for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }

    fn __record(&self) -> Result<(Record, Vec<TensorView<'_>>)> {
        match self {
            Value::Tensor(t) => t.__record(),
            Value::Extension(e) => {
                if let Some(anon) = e.as_any().downcast_ref::<AnonymousExtension>() {
                    return anonymous_record(anon);
                }
                let spec = e.any_spec();
                let record = Record {
                    type_name: e.name().to_string(),
                    spec: spec.dyn_serialize().to_json()?,
                    components: spec.dyn_component_paths(),
                };
                Ok((record, e.component_views()))
            }
        }
    }
}

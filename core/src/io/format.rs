//! What extype writes into `__metadata__`: the format name and version, and per value its
//! registered type name, its spec's versioned JSON and its component paths in order.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use crate::derived::invalid;
use crate::error::{IoError, Result};
use crate::field::FieldPath;
use crate::registry::AnonymousExtension;
use crate::spec::{AnyExtension, ExtensionType, TypeSpec, Value};
use crate::spec_tree::SpecTree;
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
/// tensor) and the component paths, in component order. Read from a file, its strings borrow
/// the header's metadata where they can (a value file's `type` and `spec` always do).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[doc(hidden)]
pub struct Record<'a> {
    #[serde(rename = "type", borrow)]
    pub type_name: Cow<'a, str>,
    #[serde(borrow)]
    pub spec: Cow<'a, str>,
    #[serde(borrow)]
    pub components: Vec<Cow<'a, str>>,
}

impl Record<'_> {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "type": self.type_name,
            "spec": self.spec,
            "components": self.components,
        })
    }

    /// The metadata of a file holding this one value.
    pub fn file_metadata(&self) -> Result<BTreeMap<String, String>> {
        let mut m = BTreeMap::new();
        m.insert("format".into(), FORMAT.into());
        m.insert("format_version".into(), FORMAT_VERSION.into());
        m.insert("type".into(), self.type_name.to_string());
        m.insert("spec".into(), self.spec.to_string());
        m.insert(
            "components".into(),
            serde_json::Value::from(self.components.clone()).to_string(),
        );
        Ok(m)
    }

    /// Errors when a component path is listed twice (the value would silently lose one).
    fn check_unique(&self, file: &str, at: &str) -> Result<()> {
        let mut seen = HashSet::with_capacity(self.components.len());
        match self.components.iter().find(|c| !seen.insert(&***c)) {
            Some(twice) => Err(IoError::at(
                file,
                twice.as_ref(),
                format!(
                    "metadata{at}: {} lists the component {twice:?} twice",
                    self.type_name
                ),
            )),
            None => Ok(()),
        }
    }
}

/// What extype metadata a file carries.
pub(crate) enum Records<'a> {
    /// A file holding one value.
    Value(Record<'a>),
    /// A shard: several values, value `i`'s tensors named `i/PATH`.
    Shard(Vec<Record<'a>>),
}

/// A JSON list read with at most `limit` items (refused as soon as it is longer: no allocation
/// driven by the file beyond what the header's tensors already justify).
struct Bounded<T> {
    limit: usize,
    what: &'static str,
    item: std::marker::PhantomData<T>,
}

impl<'de, T: serde::Deserialize<'de>> serde::de::DeserializeSeed<'de> for Bounded<T> {
    type Value = Vec<T>;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Vec<T>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Bounded<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a list of at most {} {}", self.limit, self.what)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Vec<T>, A::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element::<T>()? {
            if out.len() == self.limit {
                return Err(serde::de::Error::custom(format!(
                    "more than {} {} (the file has too few tensors for them)",
                    self.limit, self.what
                )));
            }
            out.push(item);
        }
        Ok(out)
    }
}

/// Reads a JSON list of at most `limit` items from `text`.
fn bounded_list<'a, T: serde::Deserialize<'a>>(
    text: &'a str,
    limit: usize,
    what: &'static str,
) -> std::result::Result<Vec<T>, serde_json::Error> {
    use serde::de::DeserializeSeed as _;
    let mut de = serde_json::Deserializer::from_str(text);
    let list = Bounded {
        limit,
        what,
        item: std::marker::PhantomData,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(list)
}

/// The records a file's metadata describes: `None` for a file without extype metadata (written
/// by another program), else one record (a value file) or several (a shard). `tensors` is the
/// number of tensors in the file, which bounds the number of components (and of records) a
/// valid file lists. Components listed twice are an error naming the component.
pub(crate) fn records<'m>(
    file: &str,
    metadata: &'m BTreeMap<String, String>,
    tensors: usize,
) -> Result<Option<Records<'m>>> {
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
                .map(|s| Cow::Borrowed(s.as_str()))
                .ok_or_else(|| bad(format!("metadata: missing {key:?}")))
        };
        let text: &'m str = metadata
            .get("components")
            .ok_or_else(|| bad("metadata: missing \"components\"".into()))?;
        // Each component names a tensor: a list longer than the file's tensors (and a little
        // slack, so such a file gets the more telling error of a missing tensor) is refused
        // before it is built.
        let components = bounded_list(text, tensors + 64, "component paths")
            .map_err(|e| bad(format!("metadata components: {e}")))?;
        let record = Record {
            type_name: get("type")?,
            spec: get("spec")?,
            components,
        };
        record.check_unique(file, "")?;
        Ok(Some(Records::Value(record)))
    } else {
        let text = metadata
            .get("records")
            .ok_or_else(|| bad("metadata: missing \"records\"".into()))?;
        // A record lists its components; a value without components is possible, so allow
        // some records beyond the tensor count.
        let list: Vec<Record<'m>> = bounded_list(text, tensors + 64, "records")
            .map_err(|e| bad(format!("metadata records: {e}")))?;
        let total: usize = list.iter().map(|r| r.components.len()).sum();
        if total > tensors {
            return Err(bad(format!(
                "metadata records list {total} components, the file has {tensors} tensors"
            )));
        }
        for (i, r) in list.iter().enumerate() {
            r.check_unique(file, &format!(" records[{i}]"))?;
        }
        Ok(Some(Records::Shard(list)))
    }
}

/// A value that [`save`](super::save) can write: any extension value, a [`Tensor`] or a
/// [`Value`]. Sealed in effect: its methods are internal.
pub trait Save {
    /// The value as a [`Value`] (O(1): the tensors are shared, not copied).
    fn to_value(&self) -> Value;

    #[doc(hidden)]
    fn __record(&self) -> Result<(Record<'static>, Vec<TensorView<'_>>)>;

    /// The value's validation (what loading it will check: nested values, shape contract, the
    /// type's own `validate`), its error naming the type. Every writer runs it first, so a value
    /// built with a struct literal that breaks its type's rules never reaches a file.
    #[doc(hidden)]
    fn __validate(&self) -> Result<()>;
}

impl<T: ExtensionType> Save for T {
    fn to_value(&self) -> Value {
        Value::from_extension(self.clone())
    }

    fn __record(&self) -> Result<(Record<'static>, Vec<TensorView<'_>>)> {
        if let Some(anon) = AnyExtension::as_any(self).downcast_ref::<AnonymousExtension>() {
            return anonymous_record(anon);
        }
        let spec = self.spec();
        let record = extension_record(
            AnyExtension::name(self),
            &spec.serialize(),
            spec.component_paths(),
        )?;
        Ok((record, spec.to_components(self)))
    }

    fn __validate(&self) -> Result<()> {
        match self.validate() {
            Ok(()) => Ok(()),
            Err(e) => Err(invalid(e, &FieldPath::Root, AnyExtension::name(self))),
        }
    }
}

impl Save for Tensor {
    fn to_value(&self) -> Value {
        Value::Tensor(self.clone())
    }

    fn __record(&self) -> Result<(Record<'static>, Vec<TensorView<'_>>)> {
        Ok((tensor_record(self), vec![self.view()]))
    }

    fn __validate(&self) -> Result<()> {
        Ok(())
    }
}

/// An anonymous value saves under its original name and spec; its components are named by its
/// own paths (the original field paths are not known), matched by position when loaded.
fn anonymous_record(anon: &AnonymousExtension) -> Result<(Record<'static>, Vec<TensorView<'_>>)> {
    let record = extension_record(&anon.name, &anon.spec, anon.spec().component_paths())?;
    Ok((record, anon.components.iter().map(Tensor::view).collect()))
}

/// The record of an extension value: its registered name, its spec's JSON and its component
/// paths (the one place a value's record is built, for typed values, `Value`s and anonymous
/// values alike).
fn extension_record(name: &str, spec: &SpecTree, paths: Vec<String>) -> Result<Record<'static>> {
    Ok(Record {
        type_name: name.to_string().into(),
        spec: spec.to_json()?.into(),
        components: paths.into_iter().map(Cow::Owned).collect(),
    })
}

fn tensor_record(t: &Tensor) -> Record<'static> {
    Record {
        type_name: TENSOR_TYPE.into(),
        spec: TensorSpec::from_tensor(t).to_string().into(),
        components: vec![TENSOR_NAME.into()],
    }
}

impl Save for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }

    fn __record(&self) -> Result<(Record<'static>, Vec<TensorView<'_>>)> {
        match self {
            Value::Tensor(t) => t.__record(),
            Value::Extension(e) => {
                if let Some(anon) = e.as_any().downcast_ref::<AnonymousExtension>() {
                    return anonymous_record(anon);
                }
                let spec = e.any_spec();
                let record =
                    extension_record(e.name(), &spec.dyn_serialize(), spec.dyn_component_paths())?;
                Ok((record, e.component_views()))
            }
        }
    }

    fn __validate(&self) -> Result<()> {
        match self {
            Value::Tensor(_) => Ok(()),
            Value::Extension(e) => e
                .dyn_validate()
                .map_err(|err| invalid(err, &FieldPath::Root, e.name())),
        }
    }
}

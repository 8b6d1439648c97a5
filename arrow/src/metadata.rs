//! Extension metadata on Arrow fields: the keys, and the canonical `arrow.fixed_shape_tensor`
//! metadata exactly as the Arrow specification writes it.

use std::collections::HashMap;

use arrow_schema::Field;
use serde_json::Value as Json;

use crate::error::{Error, Result};

/// The field metadata key of an extension type's name.
pub const EXTENSION_NAME: &str = "ARROW:extension:name";
/// The field metadata key of an extension type's serialized parameters.
pub const EXTENSION_METADATA: &str = "ARROW:extension:metadata";
/// The canonical extension name of fixed-shape tensors.
pub const FIXED_SHAPE_TENSOR: &str = "arrow.fixed_shape_tensor";
/// The canonical extension name of variable-shape tensors (one tensor of its own shape per row:
/// a struct of `data`, a list of the elements, and `shape`, a fixed-size list of `int32`).
pub const VARIABLE_SHAPE_TENSOR: &str = "arrow.variable_shape_tensor";

/// The field metadata key on a component's child field whose Arrow validity bitmap is another
/// component (a derived type's `#[extype(validity_of = …)]`): its value is that component's
/// name, a sibling field of the same struct (`mask`). The component itself is not written; a
/// reader rebuilds it from the bitmap (no bitmap: every element valid), with or without the
/// type linked in.
pub const VALIDITY: &str = "extype:validity";

/// The field metadata key of a column in the list layout (a batch whose encoder declares
/// [`ListLayout`](extype_core::batch::ListLayout), such as a ragged tensor's): the column is
/// nested `LargeList`s, one level per splits component, and this key's value names the
/// components, `{"values":"flat_values","splits":["nested_row_splits[0]",…]}` (splits outermost
/// first), for readers that do not link the type.
pub const LIST_LAYOUT: &str = "extype:list_layout";

/// The parameters of an `arrow.fixed_shape_tensor` column, as its JSON metadata holds them:
/// `{"shape":[2,3]}`, with `"dim_names"` and `"permutation"` only when given. Keys that are
/// absent are never written as `null` (pyarrow rejects `null`).
///
/// Reading accepts what writers in use produce: the canonical `permutation` key and arrow-rs's
/// legacy `permutations`, and `null` for an absent key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedShapeTensor {
    /// The physical shape of each tensor (row-major).
    pub shape: Vec<usize>,
    /// Names of the dimensions, if given.
    pub dim_names: Option<Vec<String>>,
    /// The order of the physical dimensions: logical dimension `i` is physical dimension
    /// `permutation[i]`; `None` is the identity.
    pub permutation: Option<Vec<usize>>,
}

impl FixedShapeTensor {
    /// The JSON text of the metadata, keys in the specification's order, absent keys left out.
    ///
    /// ```
    /// use extype_arrow::FixedShapeTensor;
    /// let m = FixedShapeTensor { shape: vec![2, 3], dim_names: None, permutation: None };
    /// assert_eq!(m.to_json(), r#"{"shape":[2,3]}"#);
    /// ```
    pub fn to_json(&self) -> String {
        // Written by hand: serde_json's map sorts keys, the specification lists `shape` first.
        let list = |v: Json| v.to_string();
        let mut out = format!("{{\"shape\":{}", list(Json::from(self.shape.clone())));
        if let Some(names) = &self.dim_names {
            out.push_str(&format!(
                ",\"dim_names\":{}",
                list(Json::from(names.clone()))
            ));
        }
        if let Some(p) = &self.permutation {
            out.push_str(&format!(",\"permutation\":{}", list(Json::from(p.clone()))));
        }
        out.push('}');
        out
    }

    /// Parses the JSON metadata; `field` names the field in errors. Checks that `dim_names` has
    /// one name per dimension and that `permutation` is a permutation of the dimensions.
    ///
    /// ```
    /// use extype_arrow::FixedShapeTensor;
    /// // arrow-rs's legacy key and nulls are read too.
    /// let m = FixedShapeTensor::from_json(r#"{"shape":[3,2],"dim_names":null,"permutations":[1,0]}"#, "x")?;
    /// assert_eq!(m.permutation, Some(vec![1, 0]));
    /// # Ok::<(), extype_arrow::Error>(())
    /// ```
    pub fn from_json(text: &str, field: &str) -> Result<FixedShapeTensor> {
        let bad = |message: String| Error::Metadata {
            field: field.to_string(),
            message: format!("{FIXED_SHAPE_TENSOR} metadata {text:?}: {message}"),
        };
        let json: Json = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let Json::Object(map) = json else {
            return Err(bad("expected a JSON object".into()));
        };
        let dims = |key: &str| -> Result<Option<Vec<usize>>> {
            match map.get(key) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::Array(items)) => items
                    .iter()
                    .map(|v| {
                        v.as_u64()
                            .and_then(|d| usize::try_from(d).ok())
                            .ok_or_else(|| bad(format!("`{key}` holds {v}, not a size")))
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(Some),
                Some(other) => Err(bad(format!("`{key}` must be an array, found {other}"))),
            }
        };
        let shape = dims("shape")?.ok_or_else(|| bad("no `shape`".into()))?;
        let permutation = match dims("permutation")? {
            Some(p) => Some(p),
            None => dims("permutations")?,
        };
        let dim_names = match map.get("dim_names") {
            None | Some(Json::Null) => None,
            Some(Json::Array(items)) => Some(
                items
                    .iter()
                    .map(|v| {
                        v.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| bad(format!("`dim_names` holds {v}, not a string")))
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            Some(other) => return Err(bad(format!("`dim_names` must be an array, found {other}"))),
        };
        if let Some(names) = &dim_names
            && names.len() != shape.len()
        {
            return Err(bad(format!(
                "{} dim_names for {} dimensions",
                names.len(),
                shape.len()
            )));
        }
        if let Some(p) = &permutation {
            let mut seen = vec![false; shape.len()];
            let ok = p.len() == shape.len()
                && p.iter()
                    .all(|&i| i < seen.len() && !std::mem::replace(&mut seen[i], true));
            if !ok {
                return Err(bad(format!(
                    "permutation {p:?} is not a permutation of {} dimensions",
                    shape.len()
                )));
            }
        }
        Ok(FixedShapeTensor {
            shape,
            dim_names,
            permutation,
        })
    }

    /// The metadata of `field` when it is an `arrow.fixed_shape_tensor`; `None` for any other
    /// field. `path` names the field in errors.
    pub fn from_field(field: &Field, path: &str) -> Result<Option<FixedShapeTensor>> {
        let meta = field.metadata();
        if meta.get(EXTENSION_NAME).map(String::as_str) != Some(FIXED_SHAPE_TENSOR) {
            return Ok(None);
        }
        let text = meta
            .get(EXTENSION_METADATA)
            .ok_or_else(|| Error::Metadata {
                field: path.to_string(),
                message: format!("{FIXED_SHAPE_TENSOR} without {EXTENSION_METADATA}"),
            })?;
        FixedShapeTensor::from_json(text, path).map(Some)
    }

    /// The field metadata of a column of this type: its extension name and JSON.
    pub fn field_metadata(&self) -> HashMap<String, String> {
        HashMap::from([
            (EXTENSION_NAME.to_string(), FIXED_SHAPE_TENSOR.to_string()),
            (EXTENSION_METADATA.to_string(), self.to_json()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_absent_keys_as_absent_and_reads_every_form() {
        let m = FixedShapeTensor {
            shape: vec![2, 3],
            dim_names: Some(vec!["h".into(), "w".into()]),
            permutation: Some(vec![1, 0]),
        };
        let text = m.to_json();
        assert_eq!(
            text,
            r#"{"shape":[2,3],"dim_names":["h","w"],"permutation":[1,0]}"#
        );
        assert_eq!(FixedShapeTensor::from_json(&text, "x").unwrap(), m);
        let legacy = r#"{"shape":[2,3],"dim_names":null,"permutations":null}"#;
        let read = FixedShapeTensor::from_json(legacy, "x").unwrap();
        assert_eq!((read.dim_names, read.permutation), (None, None));
        assert!(!read.shape.is_empty());
        let legacy = r#"{"shape":[2,3],"permutations":[1,0]}"#;
        assert_eq!(
            FixedShapeTensor::from_json(legacy, "x")
                .unwrap()
                .permutation,
            Some(vec![1, 0])
        );
    }

    #[test]
    fn rejects_malformed_metadata_naming_the_field() {
        for (text, needle) in [
            (r#"{"dim_names":["a"]}"#, "no `shape`"),
            (
                r#"{"shape":[2],"dim_names":["a","b"]}"#,
                "2 dim_names for 1",
            ),
            (
                r#"{"shape":[2,3],"permutation":[0,0]}"#,
                "not a permutation",
            ),
            (
                r#"{"shape":[2,3],"permutation":[0,2]}"#,
                "not a permutation",
            ),
            (r#"{"shape":[-1]}"#, "not a size"),
            (r#"{"shape":"2"}"#, "must be an array"),
            ("[1]", "JSON object"),
            ("{", "EOF"),
        ] {
            let err = FixedShapeTensor::from_json(text, "col.values")
                .unwrap_err()
                .to_string();
            assert!(err.contains("col.values") && err.contains(needle), "{err}");
        }
    }
}

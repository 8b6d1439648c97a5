//! The stable JSON form of [`SpecTree`] (format version 1).
//!
//! A document is an object `{"extype_spec": 1, "spec": VALUE}`. A `VALUE` is:
//!
//! | SpecTree           | JSON                                                     |
//! |---------------------|----------------------------------------------------------|
//! | `None`              | `null`                                                   |
//! | `Bool(b)`           | `true` / `false`                                         |
//! | `Int(i)`            | an integer number (`-3`); 64-bit range                   |
//! | `Float(x)`          | a number with a fraction or exponent (`1.0`, `2.5e-8`); non-finite as `{"float": "nan" \| "inf" \| "-inf"}` |
//! | `Str(s)`            | a string                                                 |
//! | `DType(d)`          | `{"dtype": "f32"}`                                       |
//! | `Shape(s)`          | `{"shape": "[8, ?, !1, $n, $m!1]"}` (the shape text form: sizes, `?`, `!1`, symbols `$name` / `$name!1`; `"*"` is unknown rank) |
//! | `TensorSpec(t)`     | `{"tensor_spec": {"dtype": "f32", "shape": "[8, ?]"}}`   |
//! | `Spec(named)`       | `{"spec": "pkg.Name", "value": VALUE}` (a registered spec, named) |
//! | `List(items)`       | an array                                                 |
//! | `Tuple(items)`      | `{"tuple": [VALUE, …]}`                                  |
//! | `Map(entries)`      | `{"map": {"key": VALUE, …}}` (keys sorted)               |
//!
//! Objects must have exactly the keys shown. Reading never panics: malformed input, wrong kinds,
//! missing or unknown keys, unknown dtypes, negative or huge dims (above `isize::MAX`, which no
//! array can have) are errors whose path locates the problem (`$.spec.value.map.mask`).
//! Writing a shape with such a dim is an error too (one bound, [`extype_shape::MAX_DIM`], for
//! shape text, patterns and documents), so every document the library writes it reads back:
//! writing then reading gives back an equal value (NaN payloads are canonicalized). Symbols
//! (`$n`) are part of the shape text, so documents written before they existed read as before;
//! a malformed symbol (`$`, `$1n`, a name over 22 bytes) is an error at the shape's path.
//!
//! Depth is limited: a document nests at most [`MAX_NESTING`] JSON arrays and objects (the
//! deepest `serde_json` reads). Reading a deeper one, or writing a tree that would make one, is an
//! error naming the path where the limit is crossed — so whatever is written reads back, and
//! nothing recurses without bound.
//!
//! This is the tree codec only; typed specs go through [`crate::serial`] (`spec_to_json`,
//! `spec_from_json::<S>`, `any_spec_from_json` by registered name).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Number, Value as Json};

use super::{NamedSpec, SpecTree, short};
use crate::dtype::DType;
use crate::error::{JsonError, Result};
use crate::tensor::TensorSpec;
use extype_shape::{Dim, Shape};

/// The format version written into every document.
pub const FORMAT_VERSION: u64 = 1;

/// The key holding the format version in a document.
pub const FORMAT_KEY: &str = "extype_spec";

/// The deepest nesting of JSON arrays and objects in a document, the document object included:
/// `serde_json`'s own recursion limit when it reads text.
pub const MAX_NESTING: usize = 127;

impl SpecTree {
    /// The JSON document for this value (compact).
    pub fn to_json(&self) -> Result<String> {
        Ok(document(self)?.to_string())
    }

    /// The JSON document for this value, indented.
    pub fn to_json_pretty(&self) -> Result<String> {
        serde_json::to_string_pretty(&document(self)?).map_err(|e| {
            JsonError {
                path: "$".into(),
                message: e.to_string(),
            }
            .into()
        })
    }

    /// The JSON document for this value, as a `serde_json::Value` (what
    /// [`to_json`](Self::to_json) prints).
    pub fn to_json_document(&self) -> Result<Json> {
        document(self).map_err(Into::into)
    }

    /// Reads a JSON document written by [`to_json`](Self::to_json).
    pub fn from_json(text: &str) -> Result<SpecTree> {
        let json: Json = serde_json::from_str(text).map_err(|e| JsonError {
            path: "$".into(),
            message: format!("invalid JSON: {e}"),
        })?;
        SpecTree::from_json_document(&json)
    }

    /// Reads a JSON document already parsed into a `serde_json::Value` (the document of
    /// [`to_json_document`](Self::to_json_document)); the same checks as
    /// [`from_json`](Self::from_json).
    pub fn from_json_document(json: &Json) -> Result<SpecTree> {
        let path = JsonPath::Root;
        let Json::Object(object) = json else {
            return Err(error(
                &path,
                format!("expected a document object, found {}", kind(json)),
            )
            .into());
        };
        expect_keys(object, &[FORMAT_KEY, "spec"], &path)?;
        let version = &object[FORMAT_KEY];
        if version.as_u64() != Some(FORMAT_VERSION) {
            return Err(error(
                &path.key(FORMAT_KEY),
                format!("expected format version {FORMAT_VERSION}, found {version}"),
            )
            .into());
        }
        SpecTree::from_json_value(&object["spec"], &path.key("spec"))
    }

    /// This value as a `serde_json::Value` (the `VALUE` form, without the document wrapper).
    pub fn to_json_value(&self) -> Result<Json> {
        to_json_value(self, &JsonPath::Root).map_err(Into::into)
    }

    fn from_json_value(json: &Json, path: &JsonPath<'_>) -> Result<SpecTree> {
        from_json_value(json, path).map_err(Into::into)
    }
}

fn document(value: &SpecTree) -> std::result::Result<Json, JsonError> {
    let mut object = Map::new();
    object.insert(FORMAT_KEY.into(), Json::from(FORMAT_VERSION));
    object.insert(
        "spec".into(),
        to_json_value(value, &JsonPath::Root.key("spec"))?,
    );
    Ok(Json::Object(object))
}

/// A location in a JSON document, printed as `$.spec.value[2].map.mask`.
#[derive(Clone, Copy)]
enum JsonPath<'a> {
    Root,
    Key(&'a JsonPath<'a>, &'a str),
    Index(&'a JsonPath<'a>, usize),
}

impl<'a> JsonPath<'a> {
    fn key(&'a self, key: &'a str) -> JsonPath<'a> {
        JsonPath::Key(self, key)
    }

    fn index(&'a self, i: usize) -> JsonPath<'a> {
        JsonPath::Index(self, i)
    }

    /// How many arrays and objects enclose the value at this path.
    fn depth(&self) -> usize {
        match self {
            JsonPath::Root => 0,
            JsonPath::Key(parent, _) | JsonPath::Index(parent, _) => parent.depth() + 1,
        }
    }

    /// Errors when `levels` more arrays or objects opened at this path would nest deeper than
    /// [`MAX_NESTING`].
    fn check_nesting(&self, levels: usize) -> std::result::Result<(), JsonError> {
        if self.depth() + levels > MAX_NESTING {
            Err(error(
                self,
                format!("nested deeper than {MAX_NESTING} JSON arrays and objects"),
            ))
        } else {
            Ok(())
        }
    }

    fn render(&self, out: &mut String) {
        match self {
            JsonPath::Root => out.push('$'),
            JsonPath::Key(parent, key) => {
                parent.render(out);
                let plain =
                    !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if plain {
                    out.push('.');
                    out.push_str(&short(key));
                } else {
                    // Quoted like a JSON string, so any key is unambiguous.
                    let _ = write!(out, "[{}]", Json::from(&*short(key)));
                }
            }
            JsonPath::Index(parent, i) => {
                parent.render(out);
                let _ = write!(out, "[{i}]");
            }
        }
    }
}

fn error(path: &JsonPath<'_>, message: impl Into<String>) -> JsonError {
    let mut rendered = String::new();
    path.render(&mut rendered);
    JsonError {
        path: rendered,
        message: message.into(),
    }
}

fn kind(json: &Json) -> String {
    match json {
        Json::Null => "null".into(),
        Json::Bool(b) => format!("bool {b}"),
        Json::Number(n) => format!("number {n}"),
        Json::String(s) if s.len() <= 40 => format!("string {s:?}"),
        Json::String(_) => "a long string".into(),
        Json::Array(a) => format!("an array of {}", a.len()),
        Json::Object(o) => {
            let keys: Vec<_> = o.keys().take(4).map(|k| short(k)).collect();
            format!("an object with keys {keys:?}")
        }
    }
}

fn expect_keys(
    object: &Map<String, Json>,
    keys: &[&str],
    path: &JsonPath<'_>,
) -> std::result::Result<(), JsonError> {
    if let Some(missing) = keys.iter().find(|k| !object.contains_key(**k)) {
        return Err(error(
            path,
            format!("missing key {missing:?} (expected keys {keys:?})"),
        ));
    }
    if let Some(extra) = object.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(error(
            path,
            format!("unknown key {:?} (expected keys {keys:?})", short(extra)),
        ));
    }
    Ok(())
}

/// How many JSON arrays and objects the `VALUE` form of `value` opens around its own content.
fn levels(value: &SpecTree) -> usize {
    match value {
        SpecTree::None | SpecTree::Bool(_) | SpecTree::Int(_) | SpecTree::Str(_) => 0,
        SpecTree::Float(f) => usize::from(!f.is_finite()),
        SpecTree::DType(_) | SpecTree::Shape(_) | SpecTree::Spec(_) | SpecTree::List(_) => 1,
        SpecTree::TensorSpec(_) | SpecTree::Tuple(_) | SpecTree::Map(_) => 2,
    }
}

fn to_json_value(value: &SpecTree, path: &JsonPath<'_>) -> std::result::Result<Json, JsonError> {
    path.check_nesting(levels(value))?;
    let tagged = |tag: &str, inner: Json| {
        let mut object = Map::new();
        object.insert(tag.to_string(), inner);
        Json::Object(object)
    };
    Ok(match value {
        SpecTree::None => Json::Null,
        SpecTree::Bool(b) => Json::Bool(*b),
        SpecTree::Int(i) => {
            if let Ok(i) = i64::try_from(*i) {
                Json::from(i)
            } else if let Ok(u) = u64::try_from(*i) {
                Json::from(u)
            } else {
                return Err(error(path, format!("int {i} is outside the 64-bit range")));
            }
        }
        SpecTree::Float(f) => match Number::from_f64(*f) {
            Some(n) => Json::Number(n),
            None => {
                let text = if f.is_nan() {
                    "nan"
                } else if *f > 0.0 {
                    "inf"
                } else {
                    "-inf"
                };
                tagged("float", Json::from(text))
            }
        },
        SpecTree::Str(s) => Json::String(s.clone()),
        SpecTree::DType(d) => tagged("dtype", Json::from(d.name())),
        SpecTree::Shape(s) => {
            check_dims(s, &path.key("shape"))?;
            tagged("shape", Json::from(s.to_string()))
        }
        SpecTree::TensorSpec(t) => {
            check_dims(&t.shape, &path.key("tensor_spec").key("shape"))?;
            let mut object = Map::new();
            object.insert("dtype".into(), Json::from(t.dtype.name()));
            object.insert("shape".into(), Json::from(t.shape.to_string()));
            tagged("tensor_spec", Json::Object(object))
        }
        SpecTree::Spec(named) => {
            let mut object = Map::new();
            object.insert("spec".into(), Json::from(named.name.as_str()));
            object.insert(
                "value".into(),
                to_json_value(&named.value, &path.key("value"))?,
            );
            Json::Object(object)
        }
        SpecTree::List(items) => Json::Array(sequence(items, path)?),
        SpecTree::Tuple(items) => {
            let tuple_path = path.key("tuple");
            tagged("tuple", Json::Array(sequence(items, &tuple_path)?))
        }
        SpecTree::Map(entries) => {
            let map_path = path.key("map");
            let mut object = Map::new();
            for (k, v) in entries {
                object.insert(k.clone(), to_json_value(v, &map_path.key(k))?);
            }
            tagged("map", Json::Object(object))
        }
    })
}

fn sequence(items: &[SpecTree], path: &JsonPath<'_>) -> std::result::Result<Vec<Json>, JsonError> {
    items
        .iter()
        .enumerate()
        .map(|(i, v)| to_json_value(v, &path.index(i)))
        .collect()
}

fn from_json_value(json: &Json, path: &JsonPath<'_>) -> std::result::Result<SpecTree, JsonError> {
    if matches!(json, Json::Array(_) | Json::Object(_)) {
        path.check_nesting(1)?;
    }
    match json {
        Json::Null => Ok(SpecTree::None),
        Json::Bool(b) => Ok(SpecTree::Bool(*b)),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(SpecTree::Int(i128::from(i)))
            } else if let Some(u) = n.as_u64() {
                Ok(SpecTree::Int(i128::from(u)))
            } else if let Some(f) = n.as_f64() {
                Ok(SpecTree::Float(f))
            } else {
                Err(error(path, format!("unsupported number {n}")))
            }
        }
        Json::String(s) => Ok(SpecTree::Str(s.clone())),
        Json::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| from_json_value(v, &path.index(i)))
            .collect::<std::result::Result<_, _>>()
            .map(SpecTree::List),
        Json::Object(object) => from_json_object(object, path),
    }
}

fn from_json_object(
    object: &Map<String, Json>,
    path: &JsonPath<'_>,
) -> std::result::Result<SpecTree, JsonError> {
    let tag = if object.contains_key("spec") {
        "spec"
    } else if object.len() == 1 {
        object.keys().next().map_or("", String::as_str)
    } else {
        ""
    };
    match tag {
        "spec" => {
            expect_keys(object, &["spec", "value"], path)?;
            let name = string(&object["spec"], &path.key("spec"), "a registered type name")?;
            let value = from_json_value(&object["value"], &path.key("value"))?;
            Ok(SpecTree::Spec(Box::new(NamedSpec {
                name: name.to_string(),
                value,
            })))
        }
        "float" => {
            let inner = path.key("float");
            match string(&object["float"], &inner, "\"nan\", \"inf\" or \"-inf\"")? {
                "nan" => Ok(SpecTree::Float(f64::NAN)),
                "inf" => Ok(SpecTree::Float(f64::INFINITY)),
                "-inf" => Ok(SpecTree::Float(f64::NEG_INFINITY)),
                other => Err(error(
                    &inner,
                    format!(
                        "expected \"nan\", \"inf\" or \"-inf\", found {:?}",
                        short(other)
                    ),
                )),
            }
        }
        "dtype" => dtype(&object["dtype"], &path.key("dtype")).map(SpecTree::DType),
        "shape" => shape(&object["shape"], &path.key("shape")).map(SpecTree::Shape),
        "tensor_spec" => {
            let inner = path.key("tensor_spec");
            inner.check_nesting(1)?;
            let Json::Object(fields) = &object["tensor_spec"] else {
                return Err(error(
                    &inner,
                    format!("expected an object, found {}", kind(&object["tensor_spec"])),
                ));
            };
            expect_keys(fields, &["dtype", "shape"], &inner)?;
            Ok(SpecTree::TensorSpec(TensorSpec {
                dtype: dtype(&fields["dtype"], &inner.key("dtype"))?,
                shape: shape(&fields["shape"], &inner.key("shape"))?,
            }))
        }
        "tuple" => {
            let inner = path.key("tuple");
            inner.check_nesting(1)?;
            let Json::Array(items) = &object["tuple"] else {
                return Err(error(
                    &inner,
                    format!("expected an array, found {}", kind(&object["tuple"])),
                ));
            };
            items
                .iter()
                .enumerate()
                .map(|(i, v)| from_json_value(v, &inner.index(i)))
                .collect::<std::result::Result<_, _>>()
                .map(SpecTree::Tuple)
        }
        "map" => {
            let inner = path.key("map");
            inner.check_nesting(1)?;
            let Json::Object(entries) = &object["map"] else {
                return Err(error(
                    &inner,
                    format!("expected an object, found {}", kind(&object["map"])),
                ));
            };
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), from_json_value(v, &inner.key(k))?)))
                .collect::<std::result::Result<BTreeMap<_, _>, _>>()
                .map(SpecTree::Map)
        }
        _ => Err(error(
            path,
            format!(
                "expected an object tagged with one of \"spec\", \"float\", \"dtype\", \"shape\", \
                 \"tensor_spec\", \"tuple\", \"map\"; found {}",
                kind(&Json::Object(object.clone()))
            ),
        )),
    }
}

fn string<'j>(
    json: &'j Json,
    path: &JsonPath<'_>,
    expected: &str,
) -> std::result::Result<&'j str, JsonError> {
    json.as_str()
        .ok_or_else(|| error(path, format!("expected {expected}, found {}", kind(json))))
}

fn dtype(json: &Json, path: &JsonPath<'_>) -> std::result::Result<DType, JsonError> {
    let text = string(json, path, "a dtype name")?;
    text.parse::<DType>()
        .map_err(|e| error(path, e.to_string()))
}

/// The largest dim a spec may carry: no array has more than `isize::MAX` elements on an axis
/// (the one bound of shape text, patterns and JSON: [`extype_shape::MAX_DIM`]).
const MAX_DIM: usize = extype_shape::MAX_DIM;

/// Errors when `shape` has a dim larger than [`MAX_DIM`] (which no document may hold: the reader
/// would refuse it).
fn check_dims(shape: &Shape, path: &JsonPath<'_>) -> std::result::Result<(), JsonError> {
    if let Some(dims) = shape.dims()
        && let Some(axis) = dims
            .iter()
            .position(|d| matches!(d, Dim::Known(n) if *n > MAX_DIM))
    {
        return Err(error(
            path,
            format!(
                "dim {} at axis {axis} is larger than the maximum {MAX_DIM}",
                dims[axis]
            ),
        ));
    }
    Ok(())
}

fn shape(json: &Json, path: &JsonPath<'_>) -> std::result::Result<Shape, JsonError> {
    let text = string(json, path, "a shape like \"[8, ?, 3]\"")?;
    let shape: Shape = text
        .parse()
        .map_err(|e: crate::error::ShapeError| error(path, e.to_string()))?;
    check_dims(&shape, path)?;
    Ok(shape)
}

impl serde::Serialize for SpecTree {
    /// Serializes the `VALUE` form (see the module docs); errors on an int outside 64 bits.
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        to_json_value(self, &JsonPath::Root)
            .map_err(serde::ser::Error::custom)?
            .serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for SpecTree {
    /// Deserializes the `VALUE` form (see the module docs); errors carry the path.
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        let json = Json::deserialize(deserializer)?;
        from_json_value(&json, &JsonPath::Root).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SpecTree {
        SpecTree::spec(
            "test.Thing",
            SpecTree::Map(BTreeMap::from([
                ("flag".into(), SpecTree::Bool(true)),
                ("n".into(), SpecTree::Int(-3)),
                ("big".into(), SpecTree::Int(i128::from(u64::MAX))),
                ("x".into(), SpecTree::Float(1.0)),
                ("nan".into(), SpecTree::Float(f64::NAN)),
                ("inf".into(), SpecTree::Float(f64::NEG_INFINITY)),
                ("s".into(), SpecTree::Str("hi".into())),
                ("d".into(), SpecTree::DType(DType::U16)),
                (
                    "shape".into(),
                    SpecTree::Shape("[8, ?, !1]".parse().unwrap()),
                ),
                ("any".into(), SpecTree::Shape(Shape::unknown_rank())),
                (
                    "t".into(),
                    SpecTree::TensorSpec(TensorSpec::new("[2, ?]".parse().unwrap(), DType::F32)),
                ),
                (
                    "l".into(),
                    SpecTree::List(vec![SpecTree::None, SpecTree::Int(1)]),
                ),
                (
                    "tup".into(),
                    SpecTree::Tuple(vec![SpecTree::Str("a".into())]),
                ),
                ("odd key!".into(), SpecTree::Map(BTreeMap::new())),
            ])),
        )
    }

    #[test]
    fn round_trips_exactly() {
        let value = sample();
        let text = value.to_json().unwrap();
        assert_eq!(SpecTree::from_json(&text).unwrap(), value);
        assert_eq!(
            SpecTree::from_json(&value.to_json_pretty().unwrap()).unwrap(),
            value
        );
        let via_serde: SpecTree =
            serde_json::from_str(&serde_json::to_string(&value).unwrap()).unwrap();
        assert_eq!(via_serde, value);
    }

    #[test]
    fn documented_form() {
        let value = SpecTree::spec(
            "pkg.M",
            SpecTree::Map(BTreeMap::from([(
                "values".into(),
                SpecTree::TensorSpec(TensorSpec::new("[?, 3]".parse().unwrap(), DType::F32)),
            )])),
        );
        assert_eq!(
            value.to_json().unwrap(),
            r#"{"extype_spec":1,"spec":{"spec":"pkg.M","value":{"map":{"values":{"tensor_spec":{"dtype":"f32","shape":"[?, 3]"}}}}}}"#
        );
    }

    #[test]
    fn symbolic_dims() {
        let value = SpecTree::List(vec![
            SpecTree::Shape("[$n, 3, $m!1]".parse().unwrap()),
            SpecTree::TensorSpec(TensorSpec::new("[$n, ?]".parse().unwrap(), DType::F32)),
        ]);
        let text = value.to_json().unwrap();
        assert_eq!(
            text,
            r#"{"extype_spec":1,"spec":[{"shape":"[$n, 3, $m!1]"},{"tensor_spec":{"dtype":"f32","shape":"[$n, ?]"}}]}"#
        );
        assert_eq!(SpecTree::from_json(&text).unwrap(), value);
        // Documents without symbols read as before; malformed symbols are errors with a path.
        let old = r#"{"extype_spec":1,"spec":{"shape":"[8, ?, !1]"}}"#;
        assert_eq!(
            SpecTree::from_json(old).unwrap(),
            SpecTree::Shape("[8, ?, !1]".parse().unwrap())
        );
        let e = err(r#"{"extype_spec":1,"spec":{"shape":"[$1n]"}}"#);
        assert!(
            e.contains("$.spec.shape") && e.contains("a symbol name"),
            "{e}"
        );
        let long = "x".repeat(40);
        let e = err(&format!(
            r#"{{"extype_spec":1,"spec":{{"shape":"[${long}]"}}}}"#
        ));
        assert!(e.contains("at most 22 bytes"), "{e}");
    }

    fn err(text: &str) -> String {
        SpecTree::from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn errors_carry_the_path() {
        assert!(err("{").starts_with("spec json at $: invalid JSON"));
        assert_eq!(
            err(r#"{"extype_spec": 2, "spec": null}"#),
            "spec json at $.extype_spec: expected format version 1, found 2"
        );
        assert!(err(r#"{"spec": null}"#).contains("missing key \"extype_spec\""));
        assert_eq!(
            err(
                r#"{"extype_spec": 1, "spec": {"spec": "a.B", "value": {"map": {"m": {"dtype": "f16"}}}}}"#
            ),
            "spec json at $.spec.value.map.m.dtype: unknown dtype \"f16\"; known dtypes: bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64"
        );
        let negative = err(r#"{"extype_spec": 1, "spec": [1, {"shape": "[-1]"}]}"#);
        assert!(
            negative.starts_with("spec json at $.spec[1].shape: cannot parse shape"),
            "{negative}"
        );
        let huge = err(r#"{"extype_spec": 1, "spec": {"shape": "[99999999999999999999999]"}}"#);
        assert!(huge.starts_with("spec json at $.spec.shape:"), "{huge}");
        let big = err(r#"{"extype_spec": 1, "spec": {"shape": "[9223372036854775808]"}}"#);
        assert!(
            big.contains("a size of at most 9223372036854775807 (isize::MAX)"),
            "{big}"
        );
        let extra = err(
            r#"{"extype_spec": 1, "spec": {"tensor_spec": {"dtype": "f32", "shape": "*", "x": 1}}}"#,
        );
        assert_eq!(
            extra,
            "spec json at $.spec.tensor_spec: unknown key \"x\" (expected keys [\"dtype\", \"shape\"])"
        );
        assert!(err(r#"{"extype_spec": 1, "spec": {"what": 1}}"#).contains("tagged with one of"));
        assert!(
            err(r#"{"extype_spec": 1, "spec": {"map": {"a b": {"tuple": 3}}}}"#)
                .starts_with("spec json at $.spec.map[\"a b\"].tuple: expected an array")
        );
        assert!(
            err(r#"{"extype_spec": 1, "spec": {"spec": 5, "value": null}}"#)
                .starts_with("spec json at $.spec.spec: expected a registered type name")
        );
    }

    /// `depth` lists nested in each other around `null`.
    fn nested_lists(depth: usize) -> SpecTree {
        (0..depth).fold(SpecTree::None, |inner, _| SpecTree::List(vec![inner]))
    }

    #[test]
    fn depth_is_limited_the_same_way_both_ways() {
        // The document object is one level, each list one more.
        let deepest = nested_lists(MAX_NESTING - 1);
        let text = deepest.to_json().unwrap();
        assert_eq!(SpecTree::from_json(&text).unwrap(), deepest);
        let err = nested_lists(MAX_NESTING).to_json().unwrap_err().to_string();
        assert!(
            err.contains("nested deeper than 127 JSON arrays and objects"),
            "{err}"
        );
        // Text one level deeper is refused by the reader too, whoever wrote it.
        let deeper = text.replacen("\"spec\":", "\"spec\":[", 1) + "]";
        assert!(SpecTree::from_json(&deeper).is_err());
        // Tagged forms count their own levels: a map is two.
        let mut map = SpecTree::None;
        for _ in 0..(MAX_NESTING - 1) / 2 {
            map = SpecTree::Map(BTreeMap::from([("k".to_string(), map)]));
        }
        assert_eq!(SpecTree::from_json(&map.to_json().unwrap()).unwrap(), map);
        let over = SpecTree::Map(BTreeMap::from([("k".to_string(), map)]));
        assert!(over.to_json().is_err());
        // A tree read through serde from an already parsed value is held to the same limit.
        let json: Json = serde_json::from_str(&text).unwrap();
        let wrapped = Json::Array(vec![json["spec"].clone()]);
        let mut unbounded = wrapped;
        for _ in 0..4 {
            unbounded = Json::Array(vec![unbounded]);
        }
        let err = serde_json::from_value::<SpecTree>(unbounded)
            .unwrap_err()
            .to_string();
        assert!(err.contains("nested deeper than"), "{err}");
    }

    #[test]
    fn out_of_range_int_is_a_write_error() {
        let e = SpecTree::Int(i128::MAX).to_json().unwrap_err().to_string();
        assert!(e.contains("outside the 64-bit range"), "{e}");
    }
}

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
//! | `Spec(named)`       | `{"spec": "pkg.Name", "value": VALUE}` (a registered spec, named); `{"spec": …, "version": N, "value": …}` when written by version `N` ≥ 2 of its type (no `"version"` reads as 1) |
//! | `List(items)`       | an array                                                 |
//! | `Tuple(items)`      | `{"tuple": [VALUE, …]}`                                  |
//! | `Map(entries)`      | `{"map": {"key": VALUE, …}}` (keys sorted); when the entries' order is not the keys' (a struct's declaration order), `{"map": {…}, "order": ["key", …]}` naming each key once in that order |
//!
//! Objects must have exactly the keys shown. `"order"` is optional: without it a map's entries
//! read in the document's order (key order in documents written before `"order"` existed, which
//! read as before). With it a reader keeps a struct's declaration order for the text shown to
//! people (`extype inspect`, anonymous values); equality of trees ignores the order. Reading never panics: malformed input, wrong kinds,
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
//! Reading is one pass from the text (or any self-describing serde deserializer) straight into
//! the tree, without an intermediate JSON value, and is budgeted: every node, list slot, map
//! entry, string and shape dim is charged as it is read, and text whose tree would take more
//! than its own length plus [`READ_SLACK`] bytes of memory is an error before it is built (so
//! `[0,0,0,…]`, 2 bytes of text per 50-odd bytes of tree, cannot turn a file into gigabytes).
//!
//! This is the tree codec only; typed specs go through [`crate::serial`] (`spec_to_json`,
//! `spec_from_json::<S>`, `any_spec_from_json` by registered name).

use std::cell::{Cell, RefCell};
use std::fmt::Write as _;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use serde_json::{Map, Number, Value as Json};

use super::{Fields, NamedSpec, SpecTree, short};
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
        let text = document(self)?.to_string();
        // Whatever is written reads back: a tree whose reading the budget would refuse (many
        // tiny values) is refused here, before a file holds it.
        if let Err(e) = Self::from_json(&text) {
            return Err(JsonError {
                path: "$".into(),
                message: format!("this spec would not read back: {e}"),
            }
            .into());
        }
        Ok(text)
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
    ///
    /// The text is read in one pass straight into the tree (no intermediate JSON value), within
    /// a memory budget of the text's length plus [`READ_SLACK`] bytes: every node, list slot and
    /// string is charged as it is read, and a document whose tree would take more is an error
    /// before it is built. So a hostile document costs at most about its own size in memory.
    pub fn from_json(text: &str) -> Result<SpecTree> {
        Self::from_json_within(text, text.len().saturating_add(READ_SLACK))
    }

    /// [`from_json`](Self::from_json) with an explicit memory budget, in bytes, for the tree.
    fn from_json_within(text: &str, budget: usize) -> Result<SpecTree> {
        let reader = Reader::new(budget);
        let mut de = serde_json::Deserializer::from_str(text);
        let read = serde::de::DeserializeSeed::deserialize(Document(&reader), &mut de)
            .and_then(|tree| de.end().map(|()| tree));
        reader.finish(read, "invalid JSON: ").map_err(Into::into)
    }

    /// Reads a JSON document already parsed into a `serde_json::Value` (the document of
    /// [`to_json_document`](Self::to_json_document)); the same reader and checks as
    /// [`from_json`](Self::from_json) (the value is already in memory: no budget).
    pub fn from_json_document(json: &Json) -> Result<SpecTree> {
        let reader = Reader::new(usize::MAX);
        let read = serde::de::DeserializeSeed::deserialize(Document(&reader), json);
        reader.finish(read, "").map_err(Into::into)
    }

    /// This value as a `serde_json::Value` (the `VALUE` form, without the document wrapper).
    pub fn to_json_value(&self) -> Result<Json> {
        to_json_value(self, &JsonPath::Root).map_err(Into::into)
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
            if named.version != 1 {
                object.insert("version".into(), Json::from(named.version));
            }
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
            let mut outer = Map::new();
            outer.insert("map".into(), Json::Object(object));
            if !entries.is_in_key_order() {
                let order = entries.keys().map(|k| Json::from(k.as_str())).collect();
                outer.insert("order".into(), Json::Array(order));
            }
            Json::Object(outer)
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

fn dtype(text: &str, path: &JsonPath<'_>) -> std::result::Result<DType, JsonError> {
    text.parse::<DType>()
        .map_err(|e| error(path, e.to_string()))
}

/// The largest dim a spec may carry: no array has more than `isize::MAX` elements on an axis
/// (the one bound of shape text, patterns and JSON: [`extype_shape::MAX_DIM`]).
const MAX_DIM: usize = extype_shape::MAX_DIM;

/// Errors when `shape` has more than [`extype_shape::MAX_RANK`] dims or a dim larger than
/// [`MAX_DIM`] (which no document may hold: the reader would refuse it).
fn check_dims(shape: &Shape, path: &JsonPath<'_>) -> std::result::Result<(), JsonError> {
    if let Some(rank) = shape.rank()
        && rank > extype_shape::MAX_RANK
    {
        return Err(error(
            path,
            format!(
                "a shape of rank {rank}: at most {} dims (the largest rank)",
                extype_shape::MAX_RANK
            ),
        ));
    }
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

fn shape(text: &str, path: &JsonPath<'_>) -> std::result::Result<Shape, JsonError> {
    let shape: Shape = text
        .parse()
        .map_err(|e: crate::error::ShapeError| error(path, e.to_string()))?;
    check_dims(&shape, path)?;
    Ok(shape)
}

// ---- Reading: one pass from any self-describing deserializer straight into the tree ----

/// What a tree read from text may take beyond the text's length, in bytes of memory. Specs are
/// small (static metadata; data belongs in tensors), so this is some thousands of nodes: it
/// bounds what tiny tokens like `0,` (2 bytes of text, a node of tens of bytes) can amplify, so
/// that reading a file's spec costs at most about twice the file plus this constant. The
/// writer refuses a tree the reader would refuse ([`SpecTree::to_json`]).
pub const READ_SLACK: usize = 256 << 10;

/// The memory charged per node: the node, and as much again for the slack of the list it sits
/// in (a list grows by doubling) or the entry of the map it is a value of.
const NODE_COST: usize = 2 * std::mem::size_of::<SpecTree>();

/// The state of one read: the memory budget left, and the first failure (with its path; serde's
/// error carries only a message).
struct Reader {
    budget: usize,
    left: Cell<usize>,
    failure: RefCell<Option<JsonError>>,
}

impl Reader {
    fn new(budget: usize) -> Reader {
        Reader {
            budget,
            left: Cell::new(budget),
            failure: RefCell::new(None),
        }
    }

    /// Records `e` (the first failure wins) and gives the serde error that unwinds the read.
    fn fail<E: de::Error>(&self, e: JsonError) -> E {
        let message = e.to_string();
        let mut slot = self.failure.borrow_mut();
        if slot.is_none() {
            *slot = Some(e);
        }
        E::custom(message)
    }

    /// Takes `bytes` from the budget, or fails at `path`.
    fn charge<E: de::Error>(
        &self,
        bytes: usize,
        path: &JsonPath<'_>,
    ) -> std::result::Result<(), E> {
        match self.left.get().checked_sub(bytes) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(self.fail(error(
                path,
                format!(
                    "the document is too large: its tree would take more than {} bytes of memory",
                    self.budget
                ),
            ))),
        }
    }

    /// Parses shape text at `path`, charging its dims (at most one per comma, plus one, and no
    /// more than the largest rank: the parser refuses more by that bound) first.
    fn shape<E: de::Error>(
        &self,
        text: &str,
        path: &JsonPath<'_>,
    ) -> std::result::Result<Shape, E> {
        let commas = text.bytes().filter(|&b| b == b',').count();
        let dims = (commas + 1).min(extype_shape::MAX_RANK + 1);
        self.charge(dims.saturating_mul(std::mem::size_of::<Dim>()), path)?;
        shape(text, path).map_err(|e| self.fail(e))
    }

    fn nesting<E: de::Error>(&self, path: &JsonPath<'_>) -> std::result::Result<(), E> {
        path.check_nesting(1).map_err(|e| self.fail(e))
    }

    /// The result of a read: the recorded failure if any, else serde's (a syntax error).
    fn finish<T, E: std::fmt::Display>(
        self,
        read: std::result::Result<T, E>,
        prefix: &str,
    ) -> std::result::Result<T, JsonError> {
        match (read, self.failure.into_inner()) {
            (_, Some(e)) => Err(e),
            (Ok(t), None) => Ok(t),
            (Err(e), None) => Err(JsonError {
                path: "$".into(),
                message: format!("{prefix}{e}"),
            }),
        }
    }
}

fn str_kind(s: &str) -> String {
    if s.len() <= 40 {
        format!("string {s:?}")
    } else {
        "a long string".into()
    }
}

fn f64_kind(x: f64) -> String {
    Number::from_f64(x).map_or_else(|| "a number".into(), |n| format!("number {n}"))
}

/// Reads past an array, describing it.
fn seq_kind<'de, A: SeqAccess<'de>>(mut seq: A) -> std::result::Result<String, A::Error> {
    let mut n = 0usize;
    while seq.next_element::<de::IgnoredAny>()?.is_some() {
        n += 1;
    }
    Ok(format!("an array of {n}"))
}

/// Reads past the rest of an object (whose first keys are `keys`), describing it.
fn map_kind<'de, A: MapAccess<'de>>(
    mut keys: Vec<String>,
    mut map: A,
) -> std::result::Result<String, A::Error> {
    keys.truncate(4);
    while let Some(k) = map.next_key::<String>()? {
        map.next_value::<de::IgnoredAny>()?;
        if keys.len() < 4 {
            keys.push(short(&k).into_owned());
        }
    }
    Ok(format!("an object with keys {keys:?}"))
}

/// A visitor expecting one kind of JSON value: anything else is an error at its path saying
/// what was expected and what was found.
trait Expecting {
    fn reader(&self) -> &Reader;
    fn path(&self) -> &JsonPath<'_>;
    fn expected(&self) -> String;
    fn refuse<E: de::Error>(&self, found: String) -> E {
        self.reader().fail(error(
            self.path(),
            format!("expected {}, found {found}", self.expected()),
        ))
    }
}

/// The refusing `visit_*` methods of an [`Expecting`] visitor, for the kinds it does not take.
macro_rules! refuse {
    (scalars) => {
        fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
            Err(self.refuse("null".into()))
        }
        fn visit_bool<E: de::Error>(self, b: bool) -> std::result::Result<Self::Value, E> {
            Err(self.refuse(format!("bool {b}")))
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> std::result::Result<Self::Value, E> {
            Err(self.refuse(format!("number {n}")))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> std::result::Result<Self::Value, E> {
            Err(self.refuse(format!("number {n}")))
        }
        fn visit_f64<E: de::Error>(self, x: f64) -> std::result::Result<Self::Value, E> {
            Err(self.refuse(f64_kind(x)))
        }
    };
    (str) => {
        fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Self::Value, E> {
            Err(self.refuse(str_kind(s)))
        }
    };
    (seq) => {
        fn visit_seq<A: SeqAccess<'de>>(
            self,
            seq: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let found = seq_kind(seq)?;
            Err(self.refuse(found))
        }
    };
    (map) => {
        fn visit_map<A: MapAccess<'de>>(
            self,
            map: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let found = map_kind(Vec::new(), map)?;
            Err(self.refuse(found))
        }
    };
}

/// The document object: `{"extype_spec": 1, "spec": VALUE}`.
struct Document<'r>(&'r Reader);

impl<'de> DeserializeSeed<'de> for Document<'_> {
    type Value = SpecTree;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<SpecTree, D::Error> {
        d.deserialize_any(self)
    }
}

impl Expecting for Document<'_> {
    fn reader(&self) -> &Reader {
        self.0
    }
    fn path(&self) -> &JsonPath<'_> {
        &JsonPath::Root
    }
    fn expected(&self) -> String {
        "a document object".into()
    }
}

impl<'de> Visitor<'de> for Document<'_> {
    type Value = SpecTree;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a spec document object")
    }
    refuse!(scalars);
    refuse!(str);
    refuse!(seq);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<SpecTree, A::Error> {
        const KEYS: [&str; 2] = [FORMAT_KEY, "spec"];
        let r = self.0;
        let root = JsonPath::Root;
        let (mut version, mut spec) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                FORMAT_KEY if version.is_none() => version = Some(map.next_value_seed(Found)?),
                "spec" if spec.is_none() => {
                    spec = Some(map.next_value_seed(ValueSeed {
                        r,
                        path: &root.key("spec"),
                    })?);
                }
                FORMAT_KEY | "spec" => {
                    return Err(r.fail(error(&root, format!("key {key:?} appears twice"))));
                }
                other => {
                    return Err(r.fail(error(
                        &root,
                        format!("unknown key {:?} (expected keys {KEYS:?})", short(other)),
                    )));
                }
            }
        }
        let missing = |key: &str| {
            error(
                &root,
                format!("missing key {key:?} (expected keys {KEYS:?})"),
            )
        };
        let version = version.ok_or_else(|| r.fail(missing(FORMAT_KEY)))?;
        let spec = spec.ok_or_else(|| r.fail(missing("spec")))?;
        if version.as_u64() != Some(FORMAT_VERSION) {
            return Err(r.fail(error(
                &root.key(FORMAT_KEY),
                format!("expected format version {FORMAT_VERSION}, found {version}"),
            )));
        }
        Ok(spec)
    }
}

/// A scalar as found (for the format version), a container as a short description.
struct Found;

impl<'de> DeserializeSeed<'de> for Found {
    type Value = Json;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Found {
    type Value = Json;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> std::result::Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> std::result::Result<Json, E> {
        Ok(Json::from(n))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> std::result::Result<Json, E> {
        Ok(Json::from(n))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> std::result::Result<Json, E> {
        Ok(Number::from_f64(x).map_or(Json::Null, Json::Number))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Json, E> {
        Ok(Json::from(&*short(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Json, A::Error> {
        Ok(Json::from(seq_kind(seq)?))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Json, A::Error> {
        Ok(Json::from(map_kind(Vec::new(), map)?))
    }
}

/// A `VALUE` at `path`.
struct ValueSeed<'r, 'p> {
    r: &'r Reader,
    path: &'p JsonPath<'p>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_> {
    type Value = SpecTree;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<SpecTree, D::Error> {
        self.r.charge(NODE_COST, self.path)?;
        d.deserialize_any(self)
    }
}

const TAGS: &str = "\"spec\", \"float\", \"dtype\", \"shape\", \"tensor_spec\", \"tuple\", \"map\"";

impl<'de> Visitor<'de> for ValueSeed<'_, '_> {
    type Value = SpecTree;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a spec value")
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<SpecTree, E> {
        Ok(SpecTree::None)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> std::result::Result<SpecTree, E> {
        Ok(SpecTree::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> std::result::Result<SpecTree, E> {
        Ok(SpecTree::Int(i128::from(n)))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> std::result::Result<SpecTree, E> {
        Ok(SpecTree::Int(i128::from(n)))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> std::result::Result<SpecTree, E> {
        Ok(SpecTree::Float(x))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<SpecTree, E> {
        self.r.charge(s.len(), self.path)?;
        Ok(SpecTree::Str(s.to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<SpecTree, A::Error> {
        self.r.nesting(self.path)?;
        items(self.r, self.path, seq).map(SpecTree::List)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<SpecTree, A::Error> {
        let (r, path) = (self.r, self.path);
        r.nesting(path)?;
        let untagged = |keys: Vec<String>, map: A| -> std::result::Result<SpecTree, A::Error> {
            let found = map_kind(keys, map)?;
            Err(r.fail(error(
                path,
                format!("expected an object tagged with one of {TAGS}; found {found}"),
            )))
        };
        let Some(tag) = map.next_key::<String>()? else {
            return untagged(Vec::new(), map);
        };
        let text = |map: &mut A, inner: &JsonPath<'_>, expected: &str| {
            map.next_value_seed(Text {
                r,
                path: inner,
                expected,
            })
        };
        let value = match tag.as_str() {
            "spec" | "value" | "version" => return named(r, path, tag, map),
            "float" => {
                let inner = path.key("float");
                let expected = "\"nan\", \"inf\" or \"-inf\"";
                match text(&mut map, &inner, expected)?.as_str() {
                    "nan" => SpecTree::Float(f64::NAN),
                    "inf" => SpecTree::Float(f64::INFINITY),
                    "-inf" => SpecTree::Float(f64::NEG_INFINITY),
                    other => {
                        return Err(r.fail(error(
                            &inner,
                            format!("expected {expected}, found {:?}", short(other)),
                        )));
                    }
                }
            }
            "dtype" => {
                let inner = path.key("dtype");
                let name = text(&mut map, &inner, "a dtype name")?;
                SpecTree::DType(dtype(&name, &inner).map_err(|e| r.fail(e))?)
            }
            "shape" => {
                let inner = path.key("shape");
                let s = text(&mut map, &inner, "a shape like \"[8, ?, 3]\"")?;
                SpecTree::Shape(r.shape(&s, &inner)?)
            }
            "tensor_spec" => SpecTree::TensorSpec(map.next_value_seed(TensorSpecSeed {
                r,
                path: &path.key("tensor_spec"),
            })?),
            "tuple" => SpecTree::Tuple(map.next_value_seed(ListSeed {
                r,
                path: &path.key("tuple"),
            })?),
            "map" | "order" => return ordered_map(r, path, tag, map),
            _ => {
                map.next_value::<de::IgnoredAny>()?;
                return untagged(vec![short(&tag).into_owned()], map);
            }
        };
        match map.next_key::<String>()? {
            None => Ok(value),
            Some(next) => {
                map.next_value::<de::IgnoredAny>()?;
                untagged(vec![tag, short(&next).into_owned()], map)
            }
        }
    }
}

/// `{"map": {…}}` or `{"map": {…}, "order": [KEY, …]}` (either key first), after its first key
/// `first`: the entries, in the order `"order"` gives (a permutation of the keys), else in the
/// document's.
fn ordered_map<'de, A: MapAccess<'de>>(
    r: &Reader,
    path: &JsonPath<'_>,
    first: String,
    mut map: A,
) -> std::result::Result<SpecTree, A::Error> {
    let (mut entries, mut order) = (None, None);
    let mut key = Some(first);
    while let Some(k) = key {
        match k.as_str() {
            "map" if entries.is_none() => {
                entries = Some(map.next_value_seed(MapSeed {
                    r,
                    path: &path.key("map"),
                })?);
            }
            "order" if order.is_none() => {
                let inner = path.key("order");
                let items = map.next_value_seed(ListSeed { r, path: &inner })?;
                let mut keys = Vec::with_capacity(items.len());
                for (i, mut item) in items.into_iter().enumerate() {
                    match &mut item {
                        SpecTree::Str(s) => keys.push(std::mem::take(s)),
                        other => {
                            return Err(r.fail(error(
                                &inner.index(i),
                                format!("expected a key (a string), found {}", other.describe()),
                            )));
                        }
                    }
                }
                order = Some(keys);
            }
            _ => {
                map.next_value::<de::IgnoredAny>()?;
                let found = map_kind(vec![short(&k).into_owned()], map)?;
                return Err(r.fail(error(
                    path,
                    format!("expected an object with keys \"map\" and optionally \"order\"; found {found}"),
                )));
            }
        }
        key = map.next_key::<String>()?;
    }
    let Some(entries) = entries else {
        return Err(r.fail(error(path, "expected a key \"map\" beside \"order\"")));
    };
    match order {
        None => Ok(SpecTree::Map(entries)),
        Some(keys) => entries.reordered(&keys).map(SpecTree::Map).map_err(|k| {
            r.fail(error(
                &path.key("order"),
                format!(
                    "expected each key of the map once; {:?} is unknown, repeated or missing",
                    short(&k)
                ),
            ))
        }),
    }
}

/// The items of an array at `path`, each a `VALUE`.
fn items<'de, A: SeqAccess<'de>>(
    r: &Reader,
    path: &JsonPath<'_>,
    mut seq: A,
) -> std::result::Result<Vec<SpecTree>, A::Error> {
    let mut out = Vec::new();
    loop {
        let item = path.index(out.len());
        match seq.next_element_seed(ValueSeed { r, path: &item })? {
            Some(v) => out.push(v),
            None => return Ok(out),
        }
    }
}

/// `{"spec": NAME, "value": VALUE}`, after its first key `first`.
fn named<'de, A: MapAccess<'de>>(
    r: &Reader,
    path: &JsonPath<'_>,
    first: String,
    mut map: A,
) -> std::result::Result<SpecTree, A::Error> {
    const KEYS: [&str; 3] = ["spec", "version", "value"];
    let (mut name, mut value, mut version) = (None, None, None);
    let mut key = Some(first);
    while let Some(k) = key {
        match k.as_str() {
            "spec" if name.is_none() => {
                name = Some(map.next_value_seed(Text {
                    r,
                    path: &path.key("spec"),
                    expected: "a registered type name",
                })?);
            }
            "value" if value.is_none() => {
                value = Some(map.next_value_seed(ValueSeed {
                    r,
                    path: &path.key("value"),
                })?);
            }
            "version" if version.is_none() => {
                version = Some(map.next_value_seed(VersionSeed {
                    r,
                    path: &path.key("version"),
                })?);
            }
            "spec" | "value" | "version" => {
                return Err(r.fail(error(path, format!("key {k:?} appears twice"))));
            }
            other => {
                return Err(r.fail(error(
                    path,
                    format!("unknown key {:?} (expected keys {KEYS:?})", short(other)),
                )));
            }
        }
        key = map.next_key::<String>()?;
    }
    let missing = |key: &str| {
        r.fail(error(
            path,
            format!("missing key {key:?} (expected keys {KEYS:?})"),
        ))
    };
    let name = name.ok_or_else(|| missing("spec"))?;
    let value = value.ok_or_else(|| missing("value"))?;
    r.charge(std::mem::size_of::<NamedSpec>(), path)?;
    Ok(SpecTree::Spec(Box::new(NamedSpec {
        name,
        version: version.unwrap_or(1),
        value,
    })))
}

/// A type version at `path`: an integer from 1 to `u32::MAX` (anything else, a huge number, a
/// fraction, a string, is an error saying what was found).
struct VersionSeed<'r, 'p> {
    r: &'r Reader,
    path: &'p JsonPath<'p>,
}

impl<'de> DeserializeSeed<'de> for VersionSeed<'_, '_> {
    type Value = u32;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<u32, D::Error> {
        d.deserialize_any(self)
    }
}

impl VersionSeed<'_, '_> {
    fn refuse<E: de::Error>(&self, found: String) -> E {
        self.r.fail(error(
            self.path,
            format!(
                "expected a type version, an integer from 1 to {}; found {found}",
                u32::MAX
            ),
        ))
    }
}

impl<'de> Visitor<'de> for VersionSeed<'_, '_> {
    type Value = u32;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a type version (an integer from 1)")
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> std::result::Result<u32, E> {
        match u32::try_from(n) {
            Ok(v) if v >= 1 => Ok(v),
            _ => Err(self.refuse(format!("{n}"))),
        }
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> std::result::Result<u32, E> {
        match u64::try_from(n) {
            Ok(n) => self.visit_u64(n),
            Err(_) => Err(self.refuse(format!("{n}"))),
        }
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> std::result::Result<u32, E> {
        Err(self.refuse(f64_kind(x)))
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> std::result::Result<u32, E> {
        Err(self.refuse(format!("bool {b}")))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<u32, E> {
        Err(self.refuse(str_kind(s)))
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<u32, E> {
        Err(self.refuse("null".into()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<u32, A::Error> {
        let found = seq_kind(seq)?;
        Err(self.refuse(found))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<u32, A::Error> {
        let found = map_kind(Vec::new(), map)?;
        Err(self.refuse(found))
    }
}

/// A string at `path` (charged to the budget).
struct Text<'r, 'p, 'e> {
    r: &'r Reader,
    path: &'p JsonPath<'p>,
    expected: &'e str,
}

impl Expecting for Text<'_, '_, '_> {
    fn reader(&self) -> &Reader {
        self.r
    }
    fn path(&self) -> &JsonPath<'_> {
        self.path
    }
    fn expected(&self) -> String {
        self.expected.into()
    }
}

impl<'de> DeserializeSeed<'de> for Text<'_, '_, '_> {
    type Value = String;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Text<'_, '_, '_> {
    type Value = String;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.expected)
    }
    refuse!(scalars);
    refuse!(seq);
    refuse!(map);
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<String, E> {
        self.r.charge(s.len(), self.path)?;
        Ok(s.to_string())
    }
}

/// `{"dtype": NAME, "shape": TEXT}` at `path` (the `tensor_spec` key's).
struct TensorSpecSeed<'r, 'p> {
    r: &'r Reader,
    path: &'p JsonPath<'p>,
}

impl Expecting for TensorSpecSeed<'_, '_> {
    fn reader(&self) -> &Reader {
        self.r
    }
    fn path(&self) -> &JsonPath<'_> {
        self.path
    }
    fn expected(&self) -> String {
        "an object".into()
    }
}

impl<'de> DeserializeSeed<'de> for TensorSpecSeed<'_, '_> {
    type Value = TensorSpec;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<TensorSpec, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TensorSpecSeed<'_, '_> {
    type Value = TensorSpec;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a tensor spec object")
    }
    refuse!(scalars);
    refuse!(str);
    refuse!(seq);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<TensorSpec, A::Error> {
        const KEYS: [&str; 2] = ["dtype", "shape"];
        let (r, path) = (self.r, self.path);
        r.nesting(path)?;
        let (mut d, mut s) = (None, None);
        while let Some(k) = map.next_key::<String>()? {
            match k.as_str() {
                "dtype" if d.is_none() => {
                    let inner = path.key("dtype");
                    let name = map.next_value_seed(Text {
                        r,
                        path: &inner,
                        expected: "a dtype name",
                    })?;
                    d = Some(dtype(&name, &inner).map_err(|e| r.fail(e))?);
                }
                "shape" if s.is_none() => {
                    let inner = path.key("shape");
                    let text = map.next_value_seed(Text {
                        r,
                        path: &inner,
                        expected: "a shape like \"[8, ?, 3]\"",
                    })?;
                    s = Some(r.shape(&text, &inner)?);
                }
                "dtype" | "shape" => {
                    return Err(r.fail(error(path, format!("key {k:?} appears twice"))));
                }
                other => {
                    return Err(r.fail(error(
                        path,
                        format!("unknown key {:?} (expected keys {KEYS:?})", short(other)),
                    )));
                }
            }
        }
        let missing = |key: &str| {
            r.fail(error(
                path,
                format!("missing key {key:?} (expected keys {KEYS:?})"),
            ))
        };
        Ok(TensorSpec {
            dtype: d.ok_or_else(|| missing("dtype"))?,
            shape: s.ok_or_else(|| missing("shape"))?,
        })
    }
}

/// An array of `VALUE`s at `path` (the `tuple` key's).
struct ListSeed<'r, 'p> {
    r: &'r Reader,
    path: &'p JsonPath<'p>,
}

impl Expecting for ListSeed<'_, '_> {
    fn reader(&self) -> &Reader {
        self.r
    }
    fn path(&self) -> &JsonPath<'_> {
        self.path
    }
    fn expected(&self) -> String {
        "an array".into()
    }
}

impl<'de> DeserializeSeed<'de> for ListSeed<'_, '_> {
    type Value = Vec<SpecTree>;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Vec<SpecTree>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ListSeed<'_, '_> {
    type Value = Vec<SpecTree>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array")
    }
    refuse!(scalars);
    refuse!(str);
    refuse!(map);
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Vec<SpecTree>, A::Error> {
        self.r.nesting(self.path)?;
        items(self.r, self.path, seq)
    }
}

/// An object of `VALUE`s at `path` (the `map` key's).
struct MapSeed<'r, 'p> {
    r: &'r Reader,
    path: &'p JsonPath<'p>,
}

impl Expecting for MapSeed<'_, '_> {
    fn reader(&self) -> &Reader {
        self.r
    }
    fn path(&self) -> &JsonPath<'_> {
        self.path
    }
    fn expected(&self) -> String {
        "an object".into()
    }
}

impl<'de> DeserializeSeed<'de> for MapSeed<'_, '_> {
    type Value = Fields;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MapSeed<'_, '_> {
    type Value = Fields;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }
    refuse!(scalars);
    refuse!(str);
    refuse!(seq);
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let (r, path) = (self.r, self.path);
        r.nesting(path)?;
        let mut out = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            // The key, and a map entry's share of its tree node beyond the value's own charge
            // (with its slot in the map's sorted index).
            let share = 2 * std::mem::size_of::<String>() + std::mem::size_of::<usize>();
            r.charge(k.len() + share, path)?;
            let v = map.next_value_seed(ValueSeed {
                r,
                path: &path.key(&k),
            })?;
            out.push((k, v));
        }
        Ok(out.into_iter().collect())
    }
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
        let reader = Reader::new(usize::MAX);
        let read = DeserializeSeed::deserialize(
            ValueSeed {
                r: &reader,
                path: &JsonPath::Root,
            },
            deserializer,
        );
        match (read, reader.failure.into_inner()) {
            (_, Some(e)) => Err(de::Error::custom(e)),
            (read, None) => read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SpecTree {
        SpecTree::spec(
            "test.Thing",
            SpecTree::Map(Fields::from([
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
                ("odd key!".into(), SpecTree::Map(Fields::new())),
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
            SpecTree::Map(Fields::from([(
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
                r#"{"extype_spec": 1, "spec": {"spec": "a.B", "value": {"map": {"m": {"dtype": "f8"}}}}}"#
            ),
            "spec json at $.spec.value.map.m.dtype: unknown dtype \"f8\"; known dtypes: bool, i8, \
             i16, i32, i64, u8, u16, u32, u64, f32, f64, f16, bf16"
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
            map = SpecTree::Map(Fields::from([("k".to_string(), map)]));
        }
        assert_eq!(SpecTree::from_json(&map.to_json().unwrap()).unwrap(), map);
        let over = SpecTree::Map(Fields::from([("k".to_string(), map)]));
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
    fn reading_is_budgeted_by_the_text() {
        // A thousand small items: well within the slack.
        let small = format!(r#"{{"extype_spec":1,"spec":[{}0]}}"#, "0,".repeat(999));
        let tree = SpecTree::from_json(&small).unwrap();
        let SpecTree::List(items) = &tree else {
            panic!("a list")
        };
        assert_eq!(items.len(), 1000);
        // A million: 2 MB of text for a tree of tens of MB, refused while being read.
        let large = format!(
            r#"{{"extype_spec":1,"spec":[{}0]}}"#,
            "0,".repeat(1_000_000)
        );
        let e = SpecTree::from_json(&large).unwrap_err().to_string();
        assert!(e.contains("too large") && e.contains("$.spec["), "{e}");
        // Long strings cost their length: a tree about the size of its text reads.
        let long = "x".repeat(4 << 20);
        let strings = format!(r#"{{"extype_spec":1,"spec":["{long}","{long}"]}}"#);
        assert!(SpecTree::from_json(&strings).is_ok());
        // Shape dims: one bound, the largest rank, for the shape parser and this reader (a
        // million dims and 255 are refused by it, not by the budget; 254 read).
        for n in [1 << 20, extype_shape::MAX_RANK + 1] {
            let text = format!("[{}1]", "1,".repeat(n - 1));
            let parsed = text.parse::<Shape>().unwrap_err().to_string();
            assert!(parsed.contains("at most 254 dims"), "{parsed}");
            let doc = format!(r#"{{"extype_spec":1,"spec":{{"shape":"{text}"}}}}"#);
            let e = SpecTree::from_json(&doc).unwrap_err().to_string();
            assert!(
                e.contains("at most 254 dims") && e.contains("$.spec.shape"),
                "{e}"
            );
        }
        let text = format!("[{}1]", "1,".repeat(extype_shape::MAX_RANK - 1));
        let doc = format!(r#"{{"extype_spec":1,"spec":{{"shape":"{text}"}}}}"#);
        assert!(SpecTree::from_json(&doc).is_ok());
        // A tree of many tiny values that the reader's budget would refuse is not written.
        let zeros = SpecTree::List(vec![SpecTree::Int(0); 100_000]);
        let e = zeros.to_json().unwrap_err().to_string();
        assert!(
            e.contains("would not read back") && e.contains("too large"),
            "{e}"
        );
        // Writing a longer shape is refused too: every document written reads back.
        let long = Shape::known(&[1; extype_shape::MAX_RANK + 1]);
        let e = SpecTree::Shape(long).to_json().unwrap_err().to_string();
        assert!(e.contains("at most 254 dims"), "{e}");
    }

    #[test]
    fn out_of_range_int_is_a_write_error() {
        let e = SpecTree::Int(i128::MAX).to_json().unwrap_err().to_string();
        assert!(e.contains("outside the 64-bit range"), "{e}");
    }

    #[test]
    fn maps_keep_their_order_through_documents() {
        let fields = |keys: &[&str]| -> Fields {
            keys.iter()
                .map(|k| (k.to_string(), SpecTree::Int(k.len() as i128)))
                .collect()
        };
        let keys = |t: &SpecTree| match t {
            SpecTree::Map(f) => f.keys().cloned().collect::<Vec<_>>(),
            other => panic!("not a map: {other:?}"),
        };
        let declared = SpecTree::Map(fields(&["zeta", "alpha", "mid"]));
        let text = declared.to_json().unwrap();
        assert!(text.contains(r#""order":["zeta","alpha","mid"]"#), "{text}");
        let back = SpecTree::from_json(&text).unwrap();
        assert_eq!(keys(&back), ["zeta", "alpha", "mid"]);
        // A map already in key order is written as before, without "order".
        let sorted = SpecTree::Map(fields(&["alpha", "mid", "zeta"]));
        assert!(!sorted.to_json().unwrap().contains("order"));
        // Without "order", a map reads in the document's order: key order for documents
        // written before "order" existed (equal to the map in declaration order), the writer's
        // order for others (Python's `json.dumps` keeps a dict's).
        let old = SpecTree::from_json(&sorted.to_json().unwrap()).unwrap();
        assert_eq!(keys(&old), ["alpha", "mid", "zeta"]);
        assert_eq!(old, declared);
        let v = r#"{"map":{"zeta":{"dtype":"f32"},"alpha":null}}"#;
        let python = SpecTree::from_json(&format!(r#"{{"extype_spec":1,"spec":{v}}}"#)).unwrap();
        assert_eq!(keys(&python), ["zeta", "alpha"]);
        // "order" may come first; it must name each key once.
        let doc = |v: &str| SpecTree::from_json(&format!(r#"{{"extype_spec":1,"spec":{v}}}"#));
        let first = doc(r#"{"order":["b","a"],"map":{"a":1,"b":2}}"#).unwrap();
        assert_eq!(keys(&first), ["b", "a"]);
        for (bad, says) in [
            (
                r#"{"map":{"a":1,"b":2},"order":["b"]}"#,
                r#""a" is unknown, repeated or missing"#,
            ),
            (
                r#"{"map":{"a":1},"order":["a","a"]}"#,
                r#""a" is unknown, repeated or missing"#,
            ),
            (r#"{"map":{"a":1},"order":["c"]}"#, r#""c" is unknown"#),
            (
                r#"{"map":{"a":1},"order":[1]}"#,
                "expected a key (a string), found int 1",
            ),
            (
                r#"{"order":["a"]}"#,
                r#"expected a key "map" beside "order""#,
            ),
            (
                r#"{"map":{},"extra":1}"#,
                r#"optionally "order"; found an object with keys ["extra"]"#,
            ),
        ] {
            let err = doc(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}

//! Specs taken from a file: [`Statics`] (the static values a caller gives by path) and the
//! [`SpecSource`] over a header that [`load_components_inferred`](super::load_components_inferred)
//! builds a spec from.

use std::any::TypeId;
use std::collections::BTreeMap;

use super::header::Header;
use crate::error::{Result, SpecError};
use crate::field::StaticData;
use crate::spec::SpecSource;
use crate::spec_tree::SpecTree;
use crate::tensor::TensorSpec;

/// The static values of a type, by field path (`"vocab"`, `"inner.scale"`, `"items[1].name"`),
/// for [`load_components_inferred_with`](super::load_components_inferred_with): what a file
/// written by another program cannot say. Dtypes and shapes come from the file.
///
/// ```
/// use extype_core::io::Statics;
/// let statics = Statics::new().with("vocab", String::from("gpt2")).with("pad", 0i64);
/// assert_eq!(statics.len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Statics {
    values: BTreeMap<String, SpecTree>,
}

impl Statics {
    /// No static values (for a type without static fields).
    pub fn new() -> Self {
        Statics::default()
    }

    /// Gives `value` to the static field at `path` (any [`StaticData`]: numbers, `String`,
    /// `DType`, `Shape`, a type deriving `StaticValue`, `Vec`s and tuples of those). A value of
    /// the wrong type for the field is an error naming the path when the file is loaded.
    pub fn with<T: StaticData>(mut self, path: &str, value: T) -> Self {
        self.values
            .insert(path.to_string(), T::spec_to_value(&value.to_spec()));
        self
    }

    /// Gives the static field at `path` its value in serialized form.
    pub fn with_tree(mut self, path: &str, value: SpecTree) -> Self {
        self.values.insert(path.to_string(), value);
        self
    }

    /// The number of values given.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value is given.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// How the inferred loaders ([`load_components_inferred`](super::load_components_inferred) and
/// its kin) infer the static values of a type from the names of a file's tensors, for a type
/// whose statics a file says implicitly (a ragged tensor's partitions: one per
/// `nested_row_splits[i]` tensor). Registered with [`infer_statics!`](crate::infer_statics);
/// it runs for the value and for every value of the type nested in it (a field `tokens` gets
/// the names under `tokens.`, and its statics land under `tokens.`); the values the caller
/// gives win over inferred ones, path by path.
pub struct InferStatics {
    type_id: fn() -> TypeId,
    infer: fn(&[&str]) -> Statics,
}

impl InferStatics {
    /// The registration of `infer` for the type `T`: it receives the names of the tensors of
    /// the value (under the loader's prefix, which is removed), sorted, and returns the static
    /// values by path.
    pub const fn new<T: 'static>(infer: fn(&[&str]) -> Statics) -> Self {
        InferStatics {
            type_id: TypeId::of::<T>,
            infer,
        }
    }
}

inventory::collect!(InferStatics);

/// Registers how the inferred loaders infer the static values of a type from the names of a
/// file's tensors ([`InferStatics`]): `infer_statics!(MyType, my_fn)` with
/// `fn my_fn(names: &[&str]) -> Statics`.
#[macro_export]
macro_rules! infer_statics {
    ($t:ty, $infer:expr $(,)?) => {
        $crate::__private_v1::inventory::submit! {
            $crate::io::InferStatics::new::<$t>($infer)
        }
    };
}

/// A header's tensors and the caller's static values, as a [`SpecSource`].
pub(crate) struct FileSource<'h> {
    header: &'h Header,
    /// What the value's tensor names start with in the file (`""`, or `"encoder."`).
    prefix: &'h str,
    /// Every tensor name under `prefix`, without it, sorted (prefix queries are a range of it).
    names: Vec<&'h str>,
    statics: Statics,
}

impl<'h> FileSource<'h> {
    pub(crate) fn new(header: &'h Header, prefix: &'h str, statics: Statics) -> Self {
        let mut names: Vec<&str> = header
            .entries
            .iter()
            .filter_map(|e| e.name.strip_prefix(prefix))
            .collect();
        names.sort_unstable();
        FileSource {
            header,
            prefix,
            names,
            statics,
        }
    }

    /// The sorted names starting with `prefix`.
    fn starting_with(&self, prefix: &str) -> &[&'h str] {
        let from = self.names.partition_point(|n| *n < prefix);
        let len = self.names[from..].partition_point(|n| n.starts_with(prefix));
        &self.names[from..from + len]
    }

    /// An error naming the first static value no static field took (a misspelt path).
    pub(crate) fn finish(self, type_name: &str) -> Result<()> {
        match self.statics.values.into_keys().next() {
            None => Ok(()),
            Some(path) => Err(SpecError::Data {
                path: path.clone(),
                expected: format!("the path of a static field of {type_name}"),
                found: format!("a static value given for {path:?}, which no static field takes"),
            }
            .into()),
        }
    }
}

impl SpecSource for FileSource<'_> {
    fn tensor(&mut self, path: &str) -> Result<Option<TensorSpec>> {
        let Some(e) = self.header.entry(&format!("{}{path}", self.prefix)) else {
            return Ok(None);
        };
        match e.dtype.readable() {
            Ok(dtype) => Ok(Some(TensorSpec::from_shape_dtype(&e.shape, dtype))),
            Err(message) => Err(SpecError::Data {
                path: path.to_string(),
                expected: "a tensor of a dtype extype reads".into(),
                found: message,
            }
            .into()),
        }
    }

    fn has_under(&mut self, path: &str) -> bool {
        if path.is_empty() {
            return !self.names.is_empty();
        }
        self.names.binary_search(&path).is_ok()
            || !self.starting_with(&format!("{path}.")).is_empty()
            || !self.starting_with(&format!("{path}[")).is_empty()
    }

    fn keys_under(&mut self, path: &str) -> Vec<String> {
        let prefix = match path {
            "" => String::new(),
            p => format!("{p}."),
        };
        let mut keys: Vec<String> = self
            .starting_with(&prefix)
            .iter()
            .map(|n| {
                let rest = &n[prefix.len()..];
                rest[..rest.find(['.', '[']).unwrap_or(rest.len())].to_string()
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    fn take_static(&mut self, path: &str) -> Option<SpecTree> {
        self.statics.values.remove(path)
    }

    /// Runs the registered [`InferStatics`] of the type on the names of the tensors under
    /// `path` (relative to it), adding each value it infers where the caller gave none.
    fn derived_at(&mut self, type_id: TypeId, path: &str) {
        let mut hooks = inventory::iter::<InferStatics>
            .into_iter()
            .filter(|h| (h.type_id)() == type_id)
            .peekable();
        if hooks.peek().is_none() {
            return;
        }
        let prefix = match path {
            "" => String::new(),
            p => format!("{p}."),
        };
        let names: Vec<&str> = self
            .starting_with(&prefix)
            .iter()
            .map(|n| &n[prefix.len()..])
            .collect();
        for hook in hooks {
            for (p, value) in (hook.infer)(&names).values {
                self.statics
                    .values
                    .entry(format!("{prefix}{p}"))
                    .or_insert(value);
            }
        }
    }
}

//! The one error type of extype, with one variant per area.
//!
//! Messages name where the problem is (field path, op, argument, axis), what was expected and what
//! was found. Library code returns these instead of panicking on bad input.

use crate::dtype::{DType, ParseDTypeError};

use extype_shape::Shape;
pub use extype_shape::error::{ArgRef, ShapeError};

/// Result alias used throughout extype.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Any error extype reports.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A shape was malformed, incompatible, or failed a runtime check.
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// A tensor had the wrong dtype or rank for a typed access.
    #[error(transparent)]
    Tensor(Box<TensorError>),
    /// A spec, or components checked against a spec, were wrong.
    #[error(transparent)]
    Spec(Box<SpecError>),
    /// A serialized spec (JSON) was malformed.
    #[error(transparent)]
    Json(Box<JsonError>),
    /// The registry of extension types is inconsistent, or a name is unknown.
    #[error(transparent)]
    Registry(Box<RegistryError>),
    /// Two nested structures differ, or a flat list does not fit a structure.
    #[error(transparent)]
    Nest(Box<NestError>),
    /// A [`Value`](crate::Value) was not of the type asked for.
    #[error(transparent)]
    Value(Box<ValueError>),
    /// Op dispatch failed: no handler, a duplicate registration, bad op arguments, or a kernel
    /// error (see [`crate::ops`] and [`crate::dispatch`]).
    #[error(transparent)]
    Dispatch(Box<DispatchError>),
    /// A file could not be written or read, or its content is malformed or does not fit the
    /// type asked for (see [`crate::io`]).
    #[error(transparent)]
    Io(Box<IoError>),
    /// Values could not be stacked into a batch, or a batch could not be split into items (see
    /// [`crate::batch`]).
    #[error(transparent)]
    Batch(Box<BatchError>),
    /// Several independent errors found together, e.g. every conflict
    /// [`check()`](crate::check()) found; each on its own line.
    #[error("{} errors:\n{}", .0.len(), list_lines(.0))]
    Many(Box<Vec<Error>>),
}

fn list_lines(errors: &[Error]) -> String {
    let lines: Vec<String> = errors.iter().map(|e| format!("- {e}")).collect();
    lines.join("\n")
}

impl Error {
    /// All of `errors` as one: `None` for none, the error itself for one, [`Error::Many`] for
    /// several.
    pub fn all(mut errors: Vec<Error>) -> Option<Error> {
        match errors.len() {
            0 | 1 => errors.pop(),
            _ => Some(Error::Many(Box::new(errors))),
        }
    }

    /// A validation failure, for an [`ExtensionType::validate`](crate::ExtensionType::validate)
    /// to return; the type and field path are filled in where the value is rebuilt.
    pub fn invalid(message: impl Into<String>) -> Error {
        SpecError::Invalid {
            type_name: String::new(),
            path: String::new(),
            message: message.into(),
        }
        .into()
    }
}

macro_rules! boxed_from {
    ($($t:ident => $variant:ident),* $(,)?) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::$variant(Box::new(e))
            }
        }
    )*};
}

boxed_from!(
    TensorError => Tensor,
    SpecError => Spec,
    JsonError => Json,
    RegistryError => Registry,
    NestError => Nest,
    ValueError => Value,
    DispatchError => Dispatch,
    IoError => Io,
    BatchError => Batch,
);

impl From<ParseDTypeError> for SpecError {
    fn from(e: ParseDTypeError) -> Self {
        SpecError::UnknownDType { found: e.found }
    }
}

impl From<ParseDTypeError> for Error {
    fn from(e: ParseDTypeError) -> Self {
        SpecError::from(e).into()
    }
}

/// An error about a tensor's dtype or rank in a typed access or conversion.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TensorError {
    /// The tensor's dtype is not the one asked for.
    #[error("{op}: expected dtype {expected}, found {found}")]
    DType {
        /// The operation.
        op: &'static str,
        /// The dtype asked for.
        expected: DType,
        /// The tensor's dtype.
        found: DType,
    },
    /// The tensor's rank is not the static rank asked for.
    #[error("{op}: expected rank {expected}, found shape {found:?}")]
    Rank {
        /// The operation.
        op: &'static str,
        /// The rank asked for.
        expected: usize,
        /// The tensor's concrete shape.
        found: Vec<usize>,
    },
    /// Bytes given for a tensor do not hold its dtype and shape (length, alignment, bool
    /// values), or a tensor viewing such bytes cannot be used as asked.
    #[error("{op}: {message}")]
    Bytes {
        /// The operation.
        op: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A tensor of one element was asked for ([`Tensor::item`](crate::Tensor::item)), and the
    /// tensor has another number.
    #[error(
        "{op}: expected a tensor of one element (rank 0, or every axis of size 1), found \
         {dtype}{shape:?} ({elements} elements)"
    )]
    NotOneElement {
        /// The operation.
        op: &'static str,
        /// The tensor's dtype.
        dtype: DType,
        /// The tensor's concrete shape.
        shape: Vec<usize>,
        /// The number of elements it holds.
        elements: usize,
    },
    /// ndarray refused a shape (e.g. the data length does not match).
    #[error("{op}: {message}")]
    Layout {
        /// The operation.
        op: &'static str,
        /// ndarray's message.
        message: String,
    },
}

/// An error about a spec, or about components checked against a spec. `path` is the field path
/// (`values`, `children[1].mask`, `attrs.height`); empty means the value itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// A dtype name that is not one of [`DType::ALL`].
    #[error(
        "unknown dtype {found:?}; known dtypes: bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, \
         f64, f16, bf16"
    )]
    UnknownDType {
        /// The text found.
        found: String,
    },
    /// The number of components given to `from_components` is wrong.
    #[error("{type_name}: expected {expected} components, found {found}")]
    ComponentCount {
        /// The type being rebuilt.
        type_name: String,
        /// Components the spec describes.
        expected: usize,
        /// Components given.
        found: usize,
    },
    /// A component has the wrong dtype.
    #[error(
        "component {}: expected dtype {expected}, found {found}",
        show_path(path)
    )]
    ComponentDType {
        /// Field path of the component.
        path: String,
        /// Dtype from the spec.
        expected: DType,
        /// Dtype of the tensor given.
        found: DType,
    },
    /// A component's shape is not admitted by the spec.
    #[error(
        "component {}: shape {found:?} is not compatible with spec shape {expected}",
        show_path(path)
    )]
    ComponentShape {
        /// Field path of the component.
        path: String,
        /// Shape from the spec.
        expected: Box<Shape>,
        /// Concrete shape of the tensor given.
        found: Vec<usize>,
    },
    /// A spec value (deserialized spec data) has the wrong kind or content.
    #[error("spec {}: expected {expected}, found {found}", show_path(path))]
    Data {
        /// Field path inside the spec.
        path: String,
        /// What was expected.
        expected: String,
        /// What was found.
        found: String,
    },
    /// The value failed its type's validation.
    #[error("invalid value{}{}: {message}", of_type(type_name), at_path(path))]
    Invalid {
        /// The type whose validation failed.
        type_name: String,
        /// Field path of the value.
        path: String,
        /// The validation's message.
        message: String,
    },
    /// A stored spec or value of another version of its type could not be read as the current
    /// one: written by a newer version, or a migration or default failed.
    #[error("{type_name}: {message}")]
    Version {
        /// The type (its registered name).
        type_name: String,
        /// What went wrong, with the versions involved.
        message: String,
    },
    /// Two specs that had to be compatible are not.
    #[error("{op}: spec {left} is not compatible with {right}")]
    Incompatible {
        /// The operation.
        op: &'static str,
        /// The first spec (debug form).
        left: String,
        /// The second spec (debug form).
        right: String,
    },
}

/// ` of pkg.Foo`, or nothing for an error not yet placed in a type.
fn of_type(type_name: &str) -> String {
    if type_name.is_empty() {
        String::new()
    } else {
        format!(" of {type_name}")
    }
}

fn at_path(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" at {path}")
    }
}

fn show_path(path: &str) -> &str {
    if path.is_empty() { "<root>" } else { path }
}

/// A malformed JSON spec document. `path` locates the problem (`$.spec.fields.values.dtype`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("spec json at {path}: {message}")]
pub struct JsonError {
    /// Where in the document (`$` is the root).
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

/// An error about the registry of extension types.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two entries share a name.
    #[error(
        "extension type name {name:?} is registered twice: {first_type} at {first} and {second_type} at {second}"
    )]
    DuplicateName {
        /// The shared name.
        name: String,
        /// Rust type of the first entry.
        first_type: String,
        /// `file:line` of the first entry.
        first: String,
        /// Rust type of the second entry.
        second_type: String,
        /// `file:line` of the second entry.
        second: String,
    },
    /// An old name (`#[extype(aliases = [...])]`) of one type is the name or an old name of
    /// another: files under it could be either, so the name is broken (the rest of both types
    /// works).
    #[error(
        "extension type name {name:?} is claimed twice (as a registered name or an old name in \
         `extype(aliases)`): {first_type} at {first} and {second_type} at {second}"
    )]
    DuplicateAlias {
        /// The shared name.
        name: String,
        /// Rust type of the first entry.
        first_type: String,
        /// `file:line` of the first entry.
        first: String,
        /// Rust type of the second entry.
        second_type: String,
        /// `file:line` of the second entry.
        second: String,
    },
    /// One Rust type is registered under two names.
    #[error(
        "type {type_name} is registered under two names: {first_name:?} at {first} and {second_name:?} at {second}"
    )]
    DuplicateType {
        /// The Rust type.
        type_name: String,
        /// First name.
        first_name: String,
        /// `file:line` of the first entry.
        first: String,
        /// Second name.
        second_name: String,
        /// `file:line` of the second entry.
        second: String,
    },
    /// No entry has this name.
    #[error("no extension type is registered as {name:?}; registered: [{}]", known.join(", "))]
    UnknownName {
        /// The name asked for.
        name: String,
        /// Every registered name, sorted.
        known: Vec<String>,
    },
    /// The Rust type has no registry entry (e.g. a generic type without `register!`).
    #[error(
        "type {type_name} is not registered; a generic type needs one `register!` per concrete instantiation"
    )]
    NotRegistered {
        /// The Rust type.
        type_name: String,
    },
    /// A derived type's entry whose table cannot be reached: the type's derived impls do not
    /// apply (a program built with the derive's output has none such).
    #[error(
        "type {type_name}, registered as {name:?}, has no table to decode its specs with: its derived impls do not apply"
    )]
    NotDecodable {
        /// The registered name.
        name: String,
        /// The Rust type.
        type_name: String,
    },
    /// An anonymous value cannot be reinterpreted as the type asked for.
    #[error(
        "cannot reinterpret anonymous {found:?} as {expected_type} (registered as {expected:?})"
    )]
    ReinterpretName {
        /// Name of the type asked for.
        expected: String,
        /// Rust type asked for.
        expected_type: String,
        /// Name the anonymous value carries.
        found: String,
    },
}

/// An error about nested structures (`nest`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NestError {
    /// Two structures differ at `path`.
    #[error("structures differ at {}: {left} vs {right}", show_path(path))]
    Structure {
        /// Where they differ.
        path: String,
        /// What the first has there.
        left: String,
        /// What the second has there.
        right: String,
    },
    /// The flat list has the wrong number of leaves for the structure.
    #[error("pack_sequence_as: the structure has {expected} leaves, the flat list {found}")]
    Count {
        /// Leaves of the structure.
        expected: usize,
        /// Items in the flat list.
        found: usize,
    },
    /// A leaf of the flat list does not fit its place in the structure.
    #[error(
        "leaf {index} (at {}): expected {expected}, found {found}",
        show_path(path)
    )]
    Leaf {
        /// Index in the flat list.
        index: usize,
        /// Path of the place in the structure.
        path: String,
        /// What the place takes.
        expected: String,
        /// What the list holds.
        found: String,
    },
}

/// A [`Value`](crate::Value) was not of the kind or type asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{op}: expected {expected}, found {found}")]
pub struct ValueError {
    /// The operation.
    pub op: &'static str,
    /// The type or kind asked for.
    pub expected: String,
    /// The type or kind found.
    pub found: String,
}

/// An error about op dispatch ([`crate::ops`], [`crate::dispatch`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DispatchError {
    /// No handler took the call and the dense default does not apply.
    #[error(
        "{op}: no handler for arguments ({}); tried: {}",
        args.join(", "),
        if tried.is_empty() { "nothing".to_string() } else { tried.join("; ") }
    )]
    NoMatch {
        /// The op.
        op: String,
        /// The type of each argument.
        args: Vec<String>,
        /// Every candidate considered, with what it did (`declined`, `not applicable: …`).
        tried: Vec<String>,
    },
    /// Two handlers are registered for the same op and argument types.
    #[error(
        "two dispatch handlers for {target} with arguments ({}): {first} at {first_at} and \
         {second} at {second_at}",
        args.join(", ")
    )]
    Duplicate {
        /// The op or group.
        target: String,
        /// The argument types of the key.
        args: Vec<String>,
        /// The first handler's name.
        first: String,
        /// Its `file:line`.
        first_at: String,
        /// The second handler's name.
        second: String,
        /// Its `file:line`.
        second_at: String,
    },
    /// A registered handler does not fit its op (e.g. wrong number of arguments for a
    /// user-declared op).
    #[error("dispatch handler {handler} at {at} for {target}: {message}")]
    BadHandler {
        /// The op or group.
        target: String,
        /// The handler's name.
        handler: String,
        /// Its `file:line`.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// An op was called with the wrong number of arguments.
    #[error("{op}: expected {expected}, found {found}")]
    Arity {
        /// The op.
        op: String,
        /// The number (or range) expected, with its noun (`1 argument`, `at least 1 argument`).
        expected: String,
        /// The number given.
        found: usize,
    },
    /// An argument of an op is not acceptable (dtype, rank, value of an extra argument).
    #[error("{op}: {arg}: expected {expected}, found {found}")]
    Argument {
        /// The op.
        op: String,
        /// The argument (`argument 1`, `axes`, `dtype`).
        arg: String,
        /// What the op needs.
        expected: String,
        /// What it got.
        found: String,
    },
    /// A handler cannot do what was asked (e.g. `shape` of a ragged value); built with
    /// [`Error::unsupported`].
    #[error("{op}: {message}")]
    Unsupported {
        /// The op.
        op: String,
        /// Why not.
        message: String,
    },
    /// An op's output cannot be allocated: its size overflows, exceeds `isize::MAX` bytes (the
    /// largest allocation Rust permits), or the allocator refused it. Checked before anything
    /// proportional to the output is allocated.
    #[error("{op}: output of shape {shape} and dtype {dtype}: expected {expected}, found {found}")]
    OutputTooLarge {
        /// The op.
        op: String,
        /// The output shape, as text (`[1099511627776]`; dims may exceed `usize`).
        shape: String,
        /// The output dtype.
        dtype: DType,
        /// The bound the output had to meet.
        expected: String,
        /// The output's size.
        found: String,
    },
    /// A kernel failed (the message names the kernel's op and argument).
    #[error("{}", kernel_message(op, source))]
    Kernel {
        /// The op that ran the kernel.
        op: String,
        /// The kernel's error.
        source: extype_kernels::KernelError,
    },
    /// A dispatch handler (or its spec inference) returned an error: the op, the handler and
    /// where it is registered, then the handler's error. A call:
    /// `is_nan via masked_unary (src/lib.rs:100): into_array: expected dtype f32, found bool`;
    /// a spec inference: `add spec inference via masked_add (src/lib.rs:90): …`. Handlers that
    /// call ops reaching other handlers give a chain (`add via a (a.rs:1): neg via b (b.rs:2): …`);
    /// the same handler failing again on a nested call is named once. The handler's error is
    /// [`source`](std::error::Error::source); [`Error::without_context`] strips every such layer.
    #[error(
        "{op}{} via {handler} ({}): {source}",
        if *inference { " spec inference" } else { "" },
        source_location(file, *line)
    )]
    Handler {
        /// The op called (or whose spec was inferred).
        op: &'static str,
        /// The handler's function name.
        handler: &'static str,
        /// The source file of its registration (as `file!()` gave it; the message shows it
        /// relative to its crate).
        file: &'static str,
        /// The line of its registration.
        line: u32,
        /// Whether the error came from the handler's spec inference (`infer = …`) rather than a
        /// call.
        inference: bool,
        /// The handler's error.
        source: Box<Error>,
    },
}

impl Error {
    /// The error under the handler context dispatch adds ([`DispatchError::Handler`], every
    /// layer of it): what the innermost handler returned. `self` for any other error.
    ///
    /// ```
    /// use extype_core::error::{DispatchError, Error};
    /// let inner = Error::unsupported("neg", "not here");
    /// let wrapped: Error = DispatchError::Handler {
    ///     op: "neg", handler: "h", file: "a.rs", line: 1, inference: false,
    ///     source: Box::new(inner.clone()),
    /// }
    /// .into();
    /// assert_eq!(wrapped.to_string(), "neg via h (a.rs:1): neg: not here");
    /// assert_eq!(wrapped.without_context(), &inner);
    /// assert_eq!(std::error::Error::source(&wrapped).unwrap().to_string(), inner.to_string());
    /// ```
    pub fn without_context(&self) -> &Error {
        let mut e = self;
        while let Error::Dispatch(d) = e
            && let DispatchError::Handler { source, .. } = &**d
        {
            e = source;
        }
        e
    }
}

/// An error about a file ([`crate::io`]): the file, the tensor or field path inside it (empty
/// for the file as a whole), and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", file, if tensor.is_empty() { String::new() } else { format!(": tensor {tensor:?}") })]
pub struct IoError {
    /// The file (as given by the caller).
    pub file: String,
    /// The tensor name or field path inside the file; empty when the problem is the file itself.
    pub tensor: String,
    /// What is wrong: what was expected and what was found.
    pub message: String,
}

impl IoError {
    /// An error about `file` (and `tensor` inside it, or `""`), as an [`Error`].
    pub fn at(
        file: impl std::fmt::Display,
        tensor: impl Into<String>,
        message: impl Into<String>,
    ) -> Error {
        IoError {
            file: file.to_string(),
            tensor: tensor.into(),
            message: message.into(),
        }
        .into()
    }
}

/// A kernel's message as the op's: a kernel names its own op first (`select: …` for `where`),
/// which is replaced by the op the caller called.
fn kernel_message(op: &str, source: &extype_kernels::KernelError) -> String {
    let text = source.to_string();
    match text.split_once(": ") {
        Some((_, rest)) => format!("{op}: {rest}"),
        None => format!("{op}: {text}"),
    }
}

impl Error {
    /// The error a dispatch handler returns for a call it cannot serve (as opposed to declining,
    /// which lets the next candidate try): `op: message`.
    pub fn unsupported(op: impl Into<String>, message: impl Into<String>) -> Error {
        DispatchError::Unsupported {
            op: op.into(),
            message: message.into(),
        }
        .into()
    }

    /// The error for an argument of an op that is not what the op takes: `op: arg: expected
    /// …, found …` (what every op and library type says of a bad argument).
    ///
    /// ```
    /// use extype_core::Error;
    /// let e = Error::argument("take_rows", "indices", "row indices within 0..3", "7");
    /// assert_eq!(e.to_string(), "take_rows: indices: expected row indices within 0..3, found 7");
    /// ```
    pub fn argument(
        op: impl Into<String>,
        arg: impl Into<String>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Error {
        DispatchError::Argument {
            op: op.into(),
            arg: arg.into(),
            expected: expected.into(),
            found: found.into(),
        }
        .into()
    }

    /// A kernel's error raised while running `op` (the op the user called, which the message
    /// names; the kernel names its argument): what the dense path and every library type
    /// return for a failed kernel call.
    ///
    /// ```
    /// use extype_core::Error;
    /// use extype_kernels::KernelError;
    /// let source = KernelError::RowSplits {
    ///     op: "segment_fold",
    ///     expected: "non-decreasing splits".into(),
    ///     found: "[0, 3, 2]".into(),
    /// };
    /// let e = Error::kernel("reduce_prod", source);
    /// assert_eq!(
    ///     e.to_string(),
    ///     "reduce_prod: row_splits: expected non-decreasing splits, found [0, 3, 2]"
    /// );
    /// ```
    pub fn kernel(op: impl Into<String>, source: extype_kernels::KernelError) -> Error {
        DispatchError::Kernel {
            op: op.into(),
            source,
        }
        .into()
    }
}

/// `file:line` of a registration (a `#[dispatch]` handler, a registered type) for messages,
/// with `file` made crate-relative ([`crate_relative_path`]).
pub(crate) fn source_location(file: &str, line: u32) -> String {
    format!("{}:{line}", crate_relative_path(file))
}

/// `file` (what `file!()` gave) relative to its crate, for messages: `src/types/ragged/mod.rs`.
/// Cargo passes the files of a workspace's own crates relative to the workspace (kept as they
/// are), but those of every other crate (a registry or git dependency, a path dependency
/// outside the workspace) as absolute paths, which would print the user's home directory and
/// cargo's cache layout in every error naming a library's handler. An absolute path is cut
/// after the crate's directory: in cargo's registry (`…/registry/src/<index>/<crate>-<version>/`)
/// and git checkouts (`…/git/checkouts/<repo>/<rev>/`) by their layout, otherwise at the last
/// `src`, `tests`, `examples` or `benches` directory; with none, the file name alone.
pub(crate) fn crate_relative_path(file: &str) -> &str {
    let bytes = file.as_bytes();
    let absolute = file.starts_with(['/', '\\'])
        || (bytes.len() > 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
        || file.starts_with("..");
    if !absolute {
        return file;
    }
    // The same indices with one separator (both are one byte).
    let norm = file.replace('\\', "/");
    // After `skip` more components following `marker`, when the path has them.
    let after = |marker: &str, skip: usize| -> Option<usize> {
        let mut at = norm.rfind(marker)? + marker.len();
        for _ in 0..skip {
            at += norm[at..].find('/')? + 1;
        }
        Some(at)
    };
    let start = after("/registry/src/", 2)
        .or_else(|| after("/git/checkouts/", 2))
        .or_else(|| {
            ["/src/", "/tests/", "/examples/", "/benches/"]
                .iter()
                .filter_map(|dir| norm.rfind(dir).map(|i| i + 1))
                .max()
        })
        .or_else(|| norm.rfind('/').map(|i| i + 1));
    match start {
        Some(i) if i < file.len() => &file[i..],
        _ => file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_locations_are_crate_relative() {
        // A workspace's own files: as cargo gives them.
        assert_eq!(
            source_location("src/types/ragged/mod.rs", 12),
            "src/types/ragged/mod.rs:12"
        );
        assert_eq!(
            crate_relative_path("core/src/ops/mod.rs"),
            "core/src/ops/mod.rs"
        );
        // A registry dependency.
        assert_eq!(
            crate_relative_path(
                "/home/me/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/extype-0.1.0/src/types/ragged/elementwise.rs"
            ),
            "src/types/ragged/elementwise.rs"
        );
        // A git dependency (a workspace: the path inside the repository).
        assert_eq!(
            crate_relative_path(
                "/root/.cargo/git/checkouts/extype-1a2b3c/0f1e2d3/core/src/nest.rs"
            ),
            "core/src/nest.rs"
        );
        // A path dependency outside the workspace, on Unix and Windows.
        assert_eq!(
            crate_relative_path("/home/me/src/extype/src/types/sparse/mod.rs"),
            "src/types/sparse/mod.rs"
        );
        assert_eq!(
            crate_relative_path("C:\\Users\\me\\extype\\tests\\ops.rs"),
            "tests\\ops.rs"
        );
        assert_eq!(crate_relative_path("../extype/src/lib.rs"), "src/lib.rs");
        // In a handler's error.
        let e = DispatchError::Handler {
            op: "neg",
            handler: "h",
            file: "/home/me/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/lib-0.1.0/src/h.rs",
            line: 3,
            inference: false,
            source: Box::new(Error::unsupported("neg", "no")),
        };
        assert_eq!(e.to_string(), "neg via h (src/h.rs:3): neg: no");
        // No crate directory: the file name.
        assert_eq!(crate_relative_path("/tmp/gen.rs"), "gen.rs");
        assert_eq!(crate_relative_path("/"), "/");
    }

    #[test]
    fn dtype_parse_errors_keep_their_message() {
        let parse = "f8".parse::<DType>().unwrap_err();
        let error = Error::from(parse.clone());
        assert_eq!(error.to_string(), parse.to_string());
        assert_eq!(
            error.to_string(),
            "unknown dtype \"f8\"; known dtypes: bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, \
             f16, bf16"
        );
        assert!(matches!(error, Error::Spec(e) if matches!(*e, SpecError::UnknownDType { .. })));
    }
}

/// An error of batching ([`crate::batch`]): items that do not stack, a batch that does not
/// split. Paths name the field (`values`, `parts[1].mask`); indexes are item positions.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// A static field differs between two items.
    #[error(
        "{op}: static field {} differs between items: item 0 has {first}, item {index} has \
         {found}; static fields must be equal across a batch",
        show_path(path)
    )]
    Static {
        /// The operation (`stack`, `concat`).
        op: &'static str,
        /// The field path.
        path: String,
        /// The first item that differs from item 0.
        index: usize,
        /// Item 0's value.
        first: String,
        /// Item `index`'s value.
        found: String,
    },
    /// A component's dtype or shape differs between two items.
    #[error(
        "{op}: component {} of item {index} is {found}, item 0's is {first}; the items of a \
         batch must have components of one dtype and shape",
        show_path(path)
    )]
    Component {
        /// The operation.
        op: &'static str,
        /// The component's path.
        path: String,
        /// The item that differs from item 0.
        index: usize,
        /// Item 0's dtype and shape (`f32[3]`).
        first: String,
        /// Item `index`'s.
        found: String,
    },
    /// A container field has another structure in one item than in item 0 (`Some` vs `None`,
    /// another length, other keys).
    #[error(
        "{op}: field {} of item {index} is {found}, item 0's is {first}; {rule}",
        show_path(path)
    )]
    Structure {
        /// The operation.
        op: &'static str,
        /// The field path.
        path: String,
        /// The item that differs from item 0.
        index: usize,
        /// Item 0's structure (`Some`, `a list of 3`).
        first: String,
        /// Item `index`'s.
        found: String,
        /// What must hold.
        rule: &'static str,
    },
    /// A component of a batch has no leading axis to split.
    #[error(
        "{op}: {} has {found}, so it has no leading batch axis to unbatch",
        show_path(path)
    )]
    NoBatchAxis {
        /// The operation (`unstack`, `unbatched`).
        op: &'static str,
        /// The component's path.
        path: String,
        /// What it has instead (`shape [] (rank 0)`, `unknown rank`).
        found: String,
    },
    /// The items of an unbatched value cannot be allocated (a batch size far beyond memory:
    /// a zero-size batch of `2^40` items holds no data, yet its items would).
    #[error(
        "{op}: cannot allocate {n} items of {item_bytes} bytes each for {}",
        show_path(path)
    )]
    TooManyItems {
        /// The operation (`unstack`).
        op: &'static str,
        /// The field path (empty for the value).
        path: String,
        /// The batch size.
        n: usize,
        /// The size of one item.
        item_bytes: usize,
    },
    /// A component's leading axis differs from the batch size.
    #[error(
        "{op}: {} has {found} items on its leading axis, expected {expected} (the batch size)",
        show_path(path)
    )]
    Size {
        /// The operation.
        op: &'static str,
        /// The component's path.
        path: String,
        /// The batch size.
        expected: usize,
        /// The component's leading dimension.
        found: usize,
    },
    /// Bad arguments to a batching operation (nothing to stack, sizes that do not add up).
    #[error("{op}: expected {expected}, found {found}")]
    Argument {
        /// The operation.
        op: &'static str,
        /// What was expected.
        expected: String,
        /// What was found.
        found: String,
    },
    /// An item of an iterator failed.
    #[error("{op}: item {index}: {source}")]
    Item {
        /// The operation (`batched`, `unbatched`, `stack`, `unstack`).
        op: &'static str,
        /// The item's position in the input.
        index: usize,
        /// What went wrong.
        source: Box<Error>,
    },
    /// The function of `map_fn` (or `map_fn_par`) returned an error for an item.
    #[error("{op} over {type_name}, item {index}: {source}")]
    Map {
        /// The operation (`map_fn`, `map_fn_par`).
        op: &'static str,
        /// The type of the batch's items: its registered name (`pkg.Masked`), or its Rust name
        /// without module paths (`Tensor`).
        type_name: String,
        /// The item's position in the batch.
        index: usize,
        /// The function's error.
        source: Box<Error>,
    },
}

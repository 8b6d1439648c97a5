//! # extype
//!
//! Extension types for Rust: turn your own structs of ndarray tensors into values with a static
//! type specification ([`TypeSpec`]), zero-copy decomposition into tensor components, and a
//! registry for loading by name.
//!
//! This facade re-exports the runtime ([`extype_core`]) and the derive macro
//! ([`extype_macros`]). Run `cargo run --example tour` for a tour.
//!
//! ```
//! use extype::{ExtensionType, TypeSpec};
//! use ndarray::{ArrayD, IxDyn};
//!
//! #[derive(Clone, Debug, PartialEq, ExtensionType)]
//! #[extype(name = "my_pkg.MaskedTensor")]
//! pub struct MaskedTensor {
//!     #[extype(shape = "*dims")]
//!     pub values: ArrayD<f32>,
//!     #[extype(shape = "*dims")]
//!     pub mask: ArrayD<bool>,
//! }
//!
//! let m = MaskedTensor::try_new(
//!     ArrayD::zeros(IxDyn(&[2, 3])),
//!     ArrayD::from_elem(IxDyn(&[2, 3]), true),
//! )?;
//! let spec: MaskedTensorSpec = m.spec();
//! assert_eq!(spec.to_string(), "my_pkg.MaskedTensor { values: f32[2, 3], mask: bool[2, 3] }");
//! let rebuilt = spec.from_components(m.clone().into_components())?;
//! assert_eq!(rebuilt, m);
//! assert!(MaskedTensor::try_new(ArrayD::zeros(IxDyn(&[2])), ArrayD::from_elem(IxDyn(&[3]), true)).is_err());
//! # Ok::<(), extype::Error>(())
//! ```
//!
//! ## `#[derive(ExtensionType)]`
//!
//! On a struct with named fields, a tuple struct, or a generic struct. Every field type implements
//! [`Field`], which decides what the field contributes (the derive never looks at type names, so
//! aliases and generics work):
//!
//! | field type | spec | components |
//! |---|---|---|
//! | `Array<T, D>`, `ArcArray<T, D>` (any dimension), [`Tensor`] | [`TensorSpec`] (static rank from `D`) | one |
//! | a type deriving `ExtensionType` | its spec | its components, depth first |
//! | `Option<F>`, `Box<F>`, `Vec<F>`, `[F; N]`, tuples, `BTreeMap<String, F>` | the same container of specs (a `Vec`'s length and an `Option`'s presence are static) | in order; map entries by key |
//! | `bool`, integers, floats, `String`, [`DType`], types deriving [`StaticValue`](macro@StaticValue) or declared with [`static_field!`] | the value itself (static data; compatible only when equal) | none |
//! | [`Shape`], [`TensorSpec`] kept as static data | the value itself, compared loosely as in TensorFlow: compatible when the shapes are (and the dtypes equal), relaxed to their join (`[2]` and `[5]` to `[!1]`) | none |
//! | any [`StaticData`] (e.g. `Vec<f32>`, `[u32; 2]`), marked `#[extype(static)]` | the value itself (floats as [`ExactFloat`]; compatible only when equal) | none |
//! | any `Default` type, marked `#[extype(skip)]` | not in the spec; rebuilt as `Default::default()` | none |
//!
//! A `Vec` or array of plain numbers or bools (`Vec<f32>`, `[u32; 2]`) is a compile error, not
//! silently static data: it is tensor data more often than not (use `Array1<T>` / `ArrayD<T>`),
//! and when it really is metadata, `#[extype(static)]` says so (see [`SequenceItem`]).
//!
//! It generates `FooSpec` (public fields mirroring `Foo`, so partial specs can be written by
//! hand), `impl ExtensionType for Foo`, `impl TypeSpec for FooSpec` (with Clone, Debug, Eq, Hash,
//! Display, and serde's `Serialize` / `Deserialize` as exactly the JSON document of
//! [`serial::spec_to_json`] / [`serial::spec_from_json`]), `Foo::try_new(fields…)` (the checked
//! constructor), and a registry entry.
//!
//! Attributes on the struct, `#[extype(...)]`:
//! - `name = "pkg.Foo"`: the registered name (dotted identifiers). Default: the module path and
//!   the type name; set it for anything you persist. A generic type has no default entry:
//!   register each instantiation with [`register!`]`(Foo<f32>, "pkg.FooF32")`.
//! - `validate = path`: a `fn(&Foo) -> extype::Result<()>` run by `try_new`, when rebuilding from
//!   components, and when loading or reinterpreting a value.
//! - `batchable`: the default batch encoder — values stack into a batch of the same type whose
//!   tensor components gain a leading axis ([`batch::stack`], [`batch::unstack`], iterator
//!   adapters, [`batch::map_fn`]). Tensor fields must have dynamic rank (`ArrayD`,
//!   `ArcArray<_, IxDyn>`, [`Tensor`]): a fixed-rank field is a compile error on it. The rules for
//!   static, `Option`, `Vec` and map fields are in [`batch`](mod@batch).
//! - `tensor_like = field`: the value behaves like one tensor — it shows that field's dtype and
//!   shape, and so does its spec ([`TensorLike`], implemented for both). `ops::shape`,
//!   [`ops::rank`], spec inference and `Display` of a [`Value`] read it. `tensor_like` alone: the
//!   type and its spec implement [`TensorLike`] by hand (a ragged dimension is unknown).
//! - `batchable = Enc`: a custom encoder, `Enc: batch::BatchEncoder<Foo>` (a ragged tensor whose
//!   batch concatenates values and builds new row splits).
//! - `version = N` (an integer from 1; default 1): the type's version, written into its spec
//!   documents and so into every file (left out for version 1, so version-1 files are as they
//!   always were). A file or document of a newer version is an error naming both versions, the
//!   type and the file. See [`versioning`].
//! - `aliases = ["pkg.Old", …]`: names the type was registered under before; files and documents
//!   under them load as this type. An alias that is another type's name or alias is a conflict
//!   of that name alone, as a name registered twice is.
//! - `migrate(from = k, with = path)` (`k` below `version`; repeatable, once per `k`): a
//!   `fn(&mut versioning::Stored) -> extype::Result<()>` that rewrites a stored value of version
//!   `k` (its fields' specs and components, by name) into the layout of version `k + 1`;
//!   migrations chain (a version-1 file read by version 3 runs `from = 1`, then `from = 2`).
//!
//! Attributes on a field:
//! - `shape = "pattern"` (a tensor field): a shape contract ([`ShapePattern`]: sizes, names, `_`,
//!   `...`/`*name`, `#name`). The patterns of all fields unify jointly (a name means the same
//!   size, or the same segment of sizes, in every field); they are checked wherever `validate`
//!   runs, refine deserialized specs, and `FooSpec::refine_shapes` applies them to a hand-written
//!   spec. `_` and `...` bind nothing: each `...` is independent, so `"... n"` on two fields does
//!   not make their leading axes agree; a shared leading segment is named, `"*batch n"`. A name
//!   is a promise that fields share a size, so a name used only once in all the patterns (a typo
//!   such as `*dims` beside `*dim`, which would check nothing) is a compile error suggesting the
//!   closest name; a deliberate single use is written `_` (one dim) or `...` (any dims). A name
//!   repeated within one pattern (`"n n"`, a square matrix) is fine. A malformed or inconsistent
//!   pattern is a compile error too.
//! - `static`: the field's value is static spec data, whatever its type ([`StaticData`]: numbers,
//!   strings, static values, and `Vec`s, arrays, `Option`s and tuples of them); no components;
//!   two specs are compatible only when the values are equal.
//! - `skip`: the field is neither a component nor in the spec (`FooSpec` has no such field);
//!   `from_components` and loading rebuild it with `Default::default()` (a compile error if its
//!   type is not `Default`). `try_new` still takes it.
//! - `validity_of = field` (a `bool` tensor field): this field is the validity of `field`, a
//!   tensor field of the same shape — `true` where the element is valid, as a mask. Arrow
//!   export (`extype-arrow`) writes it as `field`'s validity bitmap, so engines that know
//!   nothing of extype skip the invalid elements themselves; [`TypeSpec::validity`] lists the
//!   declarations (nested types' with their paths). A field has one validity; naming no field,
//!   the field itself, another validity, or a `static`/`skip` field is a compile error. Dtype
//!   and shape are checked where the pair is used (an Arrow write); give the type a
//!   `shape = "*dims"` contract on both fields to check the shapes on every value.
//! - `alias = "old"` (repeatable): an old name of the field; a stored value without the field
//!   but with `old` loads it from there (components `old`, `old.x` become the field's). An alias
//!   that is a field's name, or claimed by two fields, is a compile error.
//! - `default` / `default = path` (on a type of version 2 or more: every field of a version-1
//!   type is as old as the type): fills the field when a stored value lacks it (after
//!   migrations and aliases): the field type's `Default`, or `path`, a
//!   `fn(&versioning::Stored) -> extype::Result<FieldType>` that may read the other fields (an
//!   all-true mask shaped like the values: `stored.tensor("values")?.shape()`). Validation and
//!   shape contracts run on the result.
//!
//! ## `#[derive(StaticValue)]`
//!
//! Static metadata of your own: an enum of unit variants (stored as the variant's name) or a
//! struct of static data (stored field by field) becomes a field type with one derive. The type
//! also derives `Clone, Debug, PartialEq, Eq, Hash`.
//!
//! ```
//! use extype::{ExtensionType, StaticValue, TypeSpec};
//! use ndarray::{ArrayD, IxDyn};
//!
//! #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, StaticValue)]
//! pub enum Interp { Linear, Nearest }
//!
//! #[derive(Clone, Debug, PartialEq, ExtensionType)]
//! #[extype(name = "my_pkg.Resampled")]
//! pub struct Resampled {
//!     pub values: ArrayD<f32>,
//!     pub interp: Interp,
//!     #[extype(static)]
//!     pub kernel: Vec<f32>,
//! }
//!
//! let r = Resampled { values: ArrayD::zeros(IxDyn(&[4])), interp: Interp::Nearest, kernel: vec![0.5, 0.5] };
//! let spec = r.spec();
//! assert_eq!(spec.interp, Interp::Nearest);
//! assert_eq!(spec.component_specs().len(), 1);
//! let json = serde_json::to_string(&spec).unwrap(); // the versioned document of `spec_to_json`
//! assert!(json.contains("\"Nearest\""));
//! ```
//!
//! ## Ops and dispatch
//!
//! [`ops`] holds the op catalog: `ops::add(&x, &y)` accepts tensors, ndarray arrays, extension
//! values and [`Value`]s. Dense inputs run on the SIMD kernels; for extension types,
//! `#[dispatch(Add)]` on a `fn(&MaskedTensor, &MaskedTensor) -> extype::Result<MaskedTensor>`
//! registers a handler, and `#[dispatch(unary_elementwise)]` / `binary_elementwise` /
//! `reduction` register group handlers that receive the op as a callable. The precedence rules
//! and the handler signatures are documented in [`dispatch`](mod@dispatch); `examples/masked_tensor.rs` is a
//! complete, tested MaskedTensor.
#![doc(test(attr(deny(warnings))))]
#![deny(clippy::undocumented_unsafe_blocks)]

// The library types below use the public derive and `#[dispatch]` as a user crate does: the
// generated code names `::extype::…`, which this makes resolve inside the facade itself.
extern crate self as extype;

pub mod types;

pub use extype_core::*;
pub use extype_macros::{ExtensionType, StaticValue, dispatch};

#[cfg(test)]
mod tests {
    /// Generated code names `::extype::__private_v1`; it must resolve through the facade, and
    /// the runtime must carry the version the macros write against.
    #[test]
    fn private_door_resolves() {
        let path = ::extype_core::__private_v1::FieldPath::Root;
        let _: &crate::__private_v1::FieldPath<'_> = &path;
        assert_eq!(crate::__private::VERSION, 1);
        const _: () = crate::__private::expect_version(1);
    }
}

/// The README's code, compiled and run as a doc test (warnings denied, as for every doc test of
/// this crate), so the README shows code that builds cleanly.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

//! The per-field trait [`Field`]: what `#[derive(ExtensionType)]` targets.
//!
//! Every field type of an extension type implements [`Field`]. It says which spec the field has
//! (an associated type: tensor → [`TensorSpec`], nested extension type → its spec, static data →
//! the value itself, containers → containers of specs), which tensor components it yields, how it
//! is rebuilt from components, and how its spec is serialized, compared and relaxed. The derive
//! never looks at a field's type name; it calls these functions field by field, in declaration
//! order, with the field's [`FieldPath`].
//!
//! Implemented here for: `Array<T, D>`, `ArcArray<T, D>`, [`Tensor`] (tensor fields); `Option`,
//! `Vec`, `Box`, `[F; N]`, tuples up to 6, `BTreeMap<String, F>` (containers); `bool`, integers,
//! `f32`/`f64` (spec [`ExactFloat`]), `String`, [`DType`](crate::DType),
//! [`Shape`](crate::Shape), [`TensorSpec`], `()` (static fields; shapes and tensor specs compare
//! and relax loosely, as in TensorFlow); `PhantomData` (markers of generic types); [`Static<T>`]
//! (a field marked `#[extype(static)]`: any [`StaticData`] kept in the spec). User static types
//! opt in with `#[derive(StaticValue)]`, or [`static_field!`](crate::static_field) after
//! implementing [`StaticValue`].
//! Extension types get their `Field` impl from the derive. A `Vec` or array field holds
//! [`SequenceItem`]s: every field type but plain numbers and `bool`, whose sequences are a
//! compile error that suggests a tensor or `#[extype(static)]`.
//!
//! ## What the derive emits for `struct Foo { a: A, b: B }`
//!
//! The field-by-field work is not generated: it lives once in `__private::derived`, over a table
//! of the struct, and every generated method is one call into it.
//!
//! ```text
//! pub struct FooSpec { pub a: <A as Field>::Spec, pub b: <B as Field>::Spec }
//! const _: () = {
//!     use ::extype::__private as __x;
//!     unsafe impl __x::Derived for Foo {
//!         const DESC: &StructDesc = &StructDesc { name, type_id, fields: &[
//!             FieldDesc { key: "a", value_offset: offset_of!(Foo, a), spec_offset: offset_of!(FooSpec, a),
//!                         ops: <A as __x::Field>::OPS, shape: None /* or the ShapedField accessors */ }, ..
//!         ], contract, types: &TypeFns::of::<Foo>(validates) };
//!     }
//!     impl Clone/Debug/PartialEq/Eq/Hash/Display for FooSpec   { one call each into __x::derived }
//!     impl __x::Field for Foo      { type Spec = FooSpec; /* ten one-line calls */ }
//!     unsafe impl __x::DerivedSpec for FooSpec { type Value = Foo; }   // TypeSpec: blanket impl
//!     impl __x::ExtensionType for Foo { type Spec = FooSpec; const NAME: &str = "pkg.Foo"; /* spec, into_components, validate */ }
//!     __x::inventory::submit! { __x::RegistryEntry::derived::<Foo>("pkg.Foo", file!(), line!()) }
//! };
//! ```
//!
//! Generic types: every impl bounds the field types that name a type parameter by `Field` (plus
//! the user's bounds), the `Field`/`ExtensionType` impls add `where Foo<T>: Clone`, the spec's std
//! traits are written out (a `#[derive(Eq)]` would demand `T: Eq`), and no inventory entry is
//! emitted (each instantiation is registered with [`register!`](crate::register)).
//!
//! The modules: [`FieldPath`] (where a field is), the component sinks and source ([`Sink`],
//! [`PathSink`], [`Components`]), the impls for tensor fields, static fields
//! ([`StaticValue`], [`ExactFloat`]) and containers, and the per-field-type table the derive's
//! struct tables point to ([`FieldOps`], reached as [`Field::OPS`]).

mod as_static;
pub mod batch;
mod components;
mod container;
mod path;
mod static_data;
mod table;
mod tensor;

pub use as_static::{Static, StaticData};
pub use batch::BatchField;
pub use components::{Components, PathSink, Sink, check_tensor};
pub use container::SequenceItem;
pub use path::FieldPath;
pub use static_data::{ExactFloat, StaticValue};
#[doc(hidden)]
pub use static_data::{
    static_struct_items, static_struct_to_value, static_tuple_items, static_variant_from_value,
    static_variant_to_value,
};
#[doc(hidden)]
pub use table::FieldOps;

use std::fmt;
use std::hash::Hash;

use crate::error::{Error, Result, SpecError};
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorSpec, TensorView};

/// An error for spec data of the wrong kind or content at `path`.
pub fn data_error(path: &FieldPath<'_>, expected: impl Into<String>, found: &SpecTree) -> Error {
    SpecError::Data {
        path: path.to_string(),
        expected: expected.into(),
        found: found.describe(),
    }
    .into()
}

/// A field type of an extension type. `#[derive(ExtensionType)]` calls these functions for each
/// field, in declaration order, passing the field's path (`&path.field("values")`).
///
/// Contract (what an implementation must guarantee, and what the derive relies on):
/// - `push_views`, `push_components` and `component_specs` yield the same number of items, in the
///   same order, and that number is `num_components(&self.field_spec())`.
/// - `from_components(&spec, ..)` consumes exactly `num_components(&spec)` components, checks
///   each one's dtype and shape against the spec (errors name the path), and moves the data.
/// - `spec_from_value(&spec_to_value(&s), ..) == s`.
/// - `spec_is_compatible` is symmetric; `spec_most_specific_compatible(a, b)` is compatible with
///   both, or `None` when no spec is (static data differs, dtypes differ, lengths differ).
///
/// An unsupported field type is a compile error that says what a field may be:
///
/// ```compile_fail
/// fn needs_field<F: extype_core::Field>() {}
/// needs_field::<std::rc::Rc<f32>>(); // `Rc<f32>` cannot be a field of an extension type
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an extension type",
    label = "unsupported field type",
    note = "a field may be a tensor (`Array<T, D>`, `ArcArray<T, D>`, `extype::Tensor`), a type deriving `ExtensionType`, static data (bool, integers, floats, `String`, `DType`, `Shape`, `TensorSpec`, or a type deriving `StaticValue`), or an `Option`, `Vec`, `Box`, array, tuple or `BTreeMap<String, _>` of fields; a field the spec should not hold is marked `#[extype(skip)]`",
    note = "an ndarray array must come from ndarray 0.17, the version extype is built on (re-exported as `extype::ndarray`): arrays of another ndarray version are other types"
)]
pub trait Field: Sized + Send + Sync + 'static {
    /// The spec of this field: `TensorSpec` for tensors, the nested spec for extension types, the
    /// value itself for static data, containers of specs for containers.
    type Spec: Clone + fmt::Debug + Eq + Hash + Send + Sync + 'static;

    /// The (exact) spec of this value.
    fn field_spec(&self) -> Self::Spec;

    /// How many tensor components a value of this spec has.
    fn num_components(spec: &Self::Spec) -> usize;

    /// Pushes the spec of each component, in component order.
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>);

    /// Pushes a borrowed view of each component (no copy).
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>);

    /// Moves each component out (no copy).
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>);

    /// Rebuilds a value from the next components, checked against `spec`; static data comes from
    /// the spec.
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self>;

    /// [`from_components`](Self::from_components), writing the value to `out` (what the tables
    /// of derived structs call). The default moves `from_components`'s result there; tensor
    /// fields copy the component straight from the list. Not meant to be overridden elsewhere.
    ///
    /// # Safety
    /// `out` is valid for writing one `Self`; on `Err` nothing is written.
    #[doc(hidden)]
    #[inline]
    unsafe fn from_components_into(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
        out: *mut Self,
    ) -> Result<()> {
        match Self::from_components(spec, path, components) {
            Ok(value) => {
                // SAFETY: the caller's contract.
                unsafe { out.write(value) };
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Serializes the spec.
    fn spec_to_value(spec: &Self::Spec) -> SpecTree;

    /// Deserializes a spec; errors name `path` and what was expected and found.
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec>;

    /// Loose, symmetric compatibility of two specs.
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool;

    /// The most specific spec compatible with both; `None` when there is none.
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec>;

    /// Writes the spec compactly for people (`f32[2, 3]`, `pkg.Inner { a: …, b: … }`), as
    /// `Display` of specs does: by default the text form of [`spec_to_value`](Self::spec_to_value);
    /// containers and derived types override it so nested fields print in declaration order.
    fn spec_fmt(spec: &Self::Spec, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&Self::spec_to_value(spec), f)
    }

    /// Checks the extension values nested in this field (their shape contracts and their own
    /// validation, recursively); an error names the path below `path`. Tensors and static data
    /// hold none.
    fn validate_nested(&self, path: &FieldPath<'_>) -> Result<()> {
        let _ = path;
        Ok(())
    }

    /// This type's functions behind untyped pointers, for the tables of derived structs (see
    /// `extype_core::__private::derived`). Not meant to be overridden.
    #[doc(hidden)]
    const OPS: &'static FieldOps = &FieldOps::of::<Self>();
}

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
//! Batching is not here: how field types stack into batches (`BatchField`, static values'
//! `StaticBatch`) lives in [`crate::batch`], above this module.
//!
//! ## What the derive emits for `struct Foo { a: A, b: B }`
//!
//! The field-by-field work is not generated: it lives once in `__private_v1::derived`, over a table
//! of the struct. `Field` and `ExtensionType` take their methods from that table (their provided
//! methods, through [`Field::STRUCT`] and `ExtensionType::VALUE`), and the spec's std traits are
//! one call each into it. Every impl is bounded by the field types (`where A: Field, B: Field`),
//! so an unsupported field type is one error, at the field: the bound fails where it is written
//! (rustc reports the identical error of every impl once), and nothing else names the type's
//! fields unbounded.
//!
//! ```text
//! pub struct FooSpec where A: Field, B: Field { pub a: <A as Field>::Spec, pub b: <B as Field>::Spec }
//! const _: () = {
//!     use ::extype::__private_v1 as __x;
//!     unsafe impl __x::Derived for Foo where A: Field, B: Field {
//!         const DESC: &StructDesc = &StructDesc { name, type_id, fields: &[
//!             FieldDesc { key: "a", value_offset: offset_of!(Foo, a), spec_offset: offset_of!(FooSpec, a),
//!                         ops: FieldOps::of::<A>(), shape: None /* or ShapeOps::of::<A>() */ }, ..
//!         ], skipped: &[/* SkippedDesc { value_offset, ops: SkipOps::of::<S>() } */], contract,
//!            types: &TypeFns::of::<Foo>(), validate: /* `validate = path`, erased */,
//!            validity: &[/* (mask, values) field indices, `validity_of = …` */],
//!            vouched: unsafe { Vouched::new() } };
//!     }
//!     impl Clone/Debug/PartialEq/Eq/Hash/Display/Serialize/Deserialize for FooSpec where .. { one call each }
//!     impl __x::Field for Foo where .. { type Spec = FooSpec; const STRUCT: Option<StructTable<Self>> = Some(unsafe { StructTable::new(DESC) }); }
//!     unsafe impl __x::DerivedSpec for FooSpec where .. { type Value = Foo; }   // TypeSpec: blanket impl
//!     impl __x::ExtensionType for Foo where .. { type Spec = FooSpec; const NAME = "pkg.Foo"; const VALUE: Option<ValueTable<Self>> = Some(unsafe { ValueTable::new(DESC) }); }
//!     fn __extype_desc() -> Option<&'static StructDesc> { (&Probe::<Foo>::NEW).derived_desc() }
//!     __x::inventory::submit! { __x::RegistryEntry::derived::<Foo>("pkg.Foo", file!(), line!(), __extype_desc) }
//! };
//! ```
//!
//! The `unsafe` code that walks the tables trusts them, so no safe code can point one at another
//! type (`tests/ui/soundness/`, one safe program per attempt, each a compile error): the tables
//! `STRUCT` and `VALUE` hold are typed by the type they describe ([`StructTable<T>`](StructTable),
//! made only by an `unsafe` constructor); each field type's table (`FieldOps`, `ShapeOps`,
//! `SkipOps`, and with `#[extype(batchable)]` `BatchOps`) is named by the derive for the field's
//! own type (`FieldOps::of::<A>()`, a constant of a private impl in core), not read from a trait
//! constant an impl could override; a `StructDesc` carries
//! `Vouched`, which only `unsafe` code makes; and the provided methods the tables call with raw
//! pointers (`from_components_into`, `BatchField::stacker`) take a parameter of a type no other
//! crate can name, so they cannot be overridden elsewhere.
//!
//! The registry entry is a `static`, which cannot carry the bounds, so it reaches the table
//! through a probe (`__private_v1::Probe`; method resolution picks the table when `Foo`'s impls
//! apply, and a fallback otherwise, which only a failed build ever sees).
//!
//! Generic types: the same bounds (with the user's own), the `Field`/`ExtensionType` impls add
//! `where Foo<T>: Clone`, the spec's std traits are written out (a `#[derive(Eq)]` would demand
//! `T: Eq`), and no inventory entry is emitted (each instantiation is registered with
//! [`register!`](crate::register)).
//!
//! The modules: [`FieldPath`] (where a field is), the component sinks and source ([`Sink`],
//! [`PathSink`], [`Components`]), the impls for tensor fields, static fields
//! ([`StaticValue`], [`ExactFloat`]) and containers, and the per-field-type table the derive's
//! struct tables point to ([`FieldOps`], written by the derive as `FieldOps::of::<A>()`).
//!
//! Files, bottom to top; each imports only files listed before it (no two import each other):
//! `path` → `components` → `struct_table` → this `mod.rs` ([`Field`], [`data_error`]) →
//! `table`, `container` → `tensor`, `static_data` ([`StaticValue`], `__static_field!`) →
//! `as_static` ([`StaticData`], [`Static`], `__static_data!`).

mod as_static;
mod components;
mod container;
pub mod path;
mod static_data;
mod struct_table;
mod table;
mod tensor;

pub use as_static::{Static, StaticData};
pub use components::{ComponentSpecs, Components, PathSink, Sink, ValiditySink, check_tensor};
pub use container::SequenceItem;
pub use path::FieldPath;
pub use static_data::{ExactFloat, StaticValue};
#[doc(hidden)]
pub use static_data::{
    static_struct_items, static_struct_to_value, static_tuple_items, static_variant_from_value,
    static_variant_to_value,
};
#[doc(hidden)]
pub use struct_table::{StructField, StructTable};
#[doc(hidden)]
pub use table::FieldOps;

use std::fmt;
use std::hash::Hash;
use std::mem::{ManuallyDrop, MaybeUninit};

use crate::error::{Error, Result, SpecError};
use crate::spec::SpecSource;
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
/// - `with_component_specs(&spec, ..)` consumes exactly `num_components(&spec)` component specs
///   and returns a spec whose `component_specs` are those, in that order (refined by the shape
///   contracts of derived types), or an error naming the path of one its type cannot hold.
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
///
/// The methods are provided for derived types only (they walk the type's table, named by the
/// derive in a hidden constant). Any other implementation writes every one of them; one it
/// leaves out is a compile error where it is used:
///
/// ```compile_fail,E0080
/// use extype_core::Field;
///
/// struct Mine;
/// impl Field for Mine {
///     type Spec = ();
/// }
///
/// fn main() {
///     // `Field` impls that do not come from `#[derive(ExtensionType)]` implement every method
///     let _ = <Mine as Field>::num_components(&());
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an extension type",
    label = "unsupported field type",
    note = "a field may be a tensor (`Array<T, D>`, `ArcArray<T, D>`, `extype::Tensor`), a type deriving `ExtensionType`, static data (bool, integers, floats, `String`, `DType`, `Shape`, `TensorSpec`, or a type deriving `StaticValue`), or an `Option`, `Vec`, `Box`, array, tuple or `BTreeMap<String, _>` of fields; a field the spec should not hold is marked `#[extype(skip)]`",
    note = "a map field is a `BTreeMap<String, _>`: for a `HashMap<String, V>`, write `BTreeMap<String, V>` (its sorted keys give the spec, the components and a file one order)",
    note = "an ndarray array must come from ndarray 0.17, the version extype is built on (re-exported as `extype::ndarray`): arrays of another ndarray version are other types"
)]
pub trait Field: Sized + Send + Sync + 'static {
    /// The spec of this field: `TensorSpec` for tensors, the nested spec for extension types, the
    /// value itself for static data, containers of specs for containers.
    type Spec: Clone + fmt::Debug + Eq + Hash + Send + Sync + 'static;

    /// The table of a type deriving `ExtensionType`, through which it takes every method below
    /// (its `Field` impl writes no method). `None`, the default, for every other field type,
    /// which implements each method without a default itself: one it leaves out is a compile
    /// error where that method is used. Typed by `Self`: no impl can borrow another type's
    /// table, and only the derive (vouching for it) builds one.
    #[doc(hidden)]
    const STRUCT: Option<StructTable<Self>> = None;

    /// The (exact) spec of this value.
    #[inline]
    fn field_spec(&self) -> Self::Spec {
        let mut out = MaybeUninit::<Self::Spec>::uninit();
        // SAFETY: the table describes `Self` and its spec (`StructTable::new`); it writes every
        // field of `out`.
        unsafe {
            table_of::<Self>().write_field_spec(erased(self), out.as_mut_ptr() as *mut u8);
            out.assume_init()
        }
    }

    /// How many tensor components a value of this spec has.
    #[inline]
    fn num_components(spec: &Self::Spec) -> usize {
        // SAFETY: as in `field_spec`.
        unsafe { table_of::<Self>().num_components(erased(spec)) }
    }

    /// Pushes the spec of each component, in component order.
    #[inline]
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        // SAFETY: as in `field_spec`.
        unsafe { table_of::<Self>().component_specs(erased(spec), path, out) }
    }

    /// Pushes a borrowed view of each component (no copy).
    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        // SAFETY: as in `field_spec`; `self` is borrowed for `'a`.
        unsafe { table_of::<Self>().push_views(erased(self), path, out) }
    }

    /// Moves each component out (no copy).
    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        let mut value = ManuallyDrop::new(self);
        // SAFETY: as in `field_spec`. Every field is moved out once, and the value is neither
        // used nor dropped afterwards (`ManuallyDrop`).
        unsafe {
            table_of::<Self>().push_components(&mut *value as *mut Self as *mut u8, path, out)
        }
    }

    /// Rebuilds a value from the next components, checked against `spec`; static data comes from
    /// the spec.
    #[inline]
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        let mut out = MaybeUninit::<Self>::uninit();
        // SAFETY: as in `field_spec`; on `Ok` the table wrote (and validated) the whole value.
        unsafe {
            let out_ptr = out.as_mut_ptr() as *mut u8;
            match table_of::<Self>().write_from_components(erased(spec), path, components, out_ptr)
            {
                Ok(()) => Ok(out.assume_init()),
                Err(e) => Err(e),
            }
        }
    }

    /// [`from_components`](Self::from_components), writing the value to `out` (what the tables
    /// of derived structs call). The default moves `from_components`'s result there; tensor
    /// fields copy the component straight from the list. Its last parameter is of a type only
    /// this crate can name (`Seal`), so it is neither overridden nor called elsewhere: the
    /// tables trust it to have written `out` when it returns `Ok`.
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
        _: Seal,
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

    /// `spec` with the spec of each of its components replaced by the next one of `specs`, in
    /// component order (the order of [`component_specs`](Self::component_specs)); static data,
    /// container lengths and map keys are kept. Tensor fields check the replacement against what
    /// their Rust type fixes (an `Array2<f32>` takes only `f32` specs of rank 2, and refines an
    /// unknown rank to 2); derived types refine the result with their shape contract. Errors
    /// name the path of the component below `path`.
    ///
    /// Provided for derived types (through their table) and for field types without components
    /// (the spec itself, cloned); containers and tensor fields implement it. Any other field
    /// type with components returns an error unless it implements it.
    #[inline]
    fn with_component_specs(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
    ) -> Result<Self::Spec> {
        match Self::STRUCT {
            Some(table) => {
                let mut out = MaybeUninit::<Self::Spec>::uninit();
                // SAFETY: the table describes `Self` and its spec (`StructTable::new`); on `Ok`
                // every field of `out` is written.
                unsafe {
                    let out_ptr = out.as_mut_ptr() as *mut u8;
                    match table
                        .get()
                        .write_with_component_specs(erased(spec), path, specs, out_ptr)
                    {
                        Ok(()) => Ok(out.assume_init()),
                        Err(e) => Err(e),
                    }
                }
            }
            None if Self::num_components(spec) == 0 => Ok(spec.clone()),
            None => Err(no_component_specs::<Self>(path)),
        }
    }

    /// The spec of this field read from `source` (see [`TypeSpec::from_source`]): tensor fields
    /// take the spec of the tensor named by `path` (checked against their Rust type, as in
    /// [`with_component_specs`](Self::with_component_specs)), containers find their entries
    /// under `path`, derived types build each field (refined by their shape contract).
    ///
    /// The default, for static data and derived types: a derived type walks its table; any other
    /// type takes the static value given for `path`, or the spec read from nothing
    /// ([`SpecTree::None`]: `()`, `PhantomData`) when none is given, or else is an error naming
    /// the path and asking for its value.
    ///
    /// [`TypeSpec::from_source`]: crate::spec::TypeSpec::from_source
    fn spec_from_source(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Result<Self::Spec> {
        match Self::STRUCT {
            Some(table) => {
                source.derived_at(std::any::TypeId::of::<Self>(), &path.to_string());
                let mut out = MaybeUninit::<Self::Spec>::uninit();
                // SAFETY: the table describes `Self` and its spec (`StructTable::new`); on `Ok`
                // every field of `out` is written.
                unsafe {
                    match table.get().write_spec_from_source(
                        path,
                        source,
                        out.as_mut_ptr() as *mut u8,
                    ) {
                        Ok(()) => Ok(out.assume_init()),
                        Err(e) => Err(e),
                    }
                }
            }
            None => match source.take_static(&path.to_string()) {
                Some(value) => Self::spec_from_value(&value, path),
                None => Self::spec_from_value(&SpecTree::None, path)
                    .map_err(|_| no_static_value::<Self>(path)),
            },
        }
    }

    /// The least specific spec the field's Rust type admits, when its type alone fixes one: an
    /// `ArrayD<bool>` is `bool[*]`, an `Array2<f32>` `f32[?, ?]`. What a spec document written
    /// before the field existed gives a field whose default is computed from data (see
    /// `versioning`); `None` (the default) for every other field type.
    fn unknown_spec() -> Option<Self::Spec> {
        None
    }

    /// Serializes the spec.
    #[inline]
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        // SAFETY: as in `field_spec`.
        unsafe { table_of::<Self>().spec_to_value(erased(spec)) }
    }

    /// Deserializes a spec; errors name `path` and what was expected and found.
    #[inline]
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        let mut out = MaybeUninit::<Self::Spec>::uninit();
        // SAFETY: as in `field_spec`; on `Ok` every field of `out` is written.
        unsafe {
            match table_of::<Self>().write_spec_from_value(value, path, out.as_mut_ptr() as _) {
                Ok(()) => Ok(out.assume_init()),
                Err(e) => Err(e),
            }
        }
    }

    /// Loose, symmetric compatibility of two specs.
    #[inline]
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        // SAFETY: as in `field_spec`.
        unsafe { table_of::<Self>().spec_is_compatible(erased(a), erased(b)) }
    }

    /// The most specific spec compatible with both; `None` when there is none.
    #[inline]
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        let mut out = MaybeUninit::<Self::Spec>::uninit();
        // SAFETY: as in `field_spec`; on `true` every field of `out` is written.
        unsafe {
            let table = table_of::<Self>();
            match table.write_most_specific_compatible(erased(a), erased(b), out.as_mut_ptr() as _)
            {
                true => Some(out.assume_init()),
                false => None,
            }
        }
    }

    /// Writes the spec compactly for people (`f32[2, 3]`, `pkg.Inner { a: …, b: … }`), as
    /// `Display` of specs does: by default the text form of [`spec_to_value`](Self::spec_to_value);
    /// containers override it, and derived types print through their table, so nested fields
    /// print in declaration order.
    #[inline]
    fn spec_fmt(spec: &Self::Spec, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match Self::STRUCT {
            // SAFETY: as in `field_spec`.
            Some(table) => unsafe { table.get().spec_fmt(erased(spec), f) },
            None => std::fmt::Display::fmt(&Self::spec_to_value(spec), f),
        }
    }

    /// Checks the extension values nested in this field (their shape contracts and their own
    /// validation, recursively); an error names the path below `path`. Tensors and static data
    /// hold none.
    #[inline]
    fn validate_nested(&self, path: &FieldPath<'_>) -> Result<()> {
        match Self::STRUCT {
            // SAFETY: as in `field_spec`.
            Some(table) => unsafe { table.get().validate_nested(erased(self), path) },
            None => Ok(()),
        }
    }
}

use crate::spec::seal::Seal;

/// The error of a field type with components that does not rebuild its spec from component
/// specs.
#[cold]
#[inline(never)]
fn no_component_specs<F>(path: &FieldPath<'_>) -> Error {
    SpecError::Data {
        path: path.to_string(),
        expected: "a field type that rebuilds its spec from component specs \
                   (`Field::with_component_specs`)"
            .into(),
        found: std::any::type_name::<F>().into(),
    }
    .into()
}

/// The error of a static field whose value a [`SpecSource`] does not give.
#[cold]
#[inline(never)]
fn no_static_value<F>(path: &FieldPath<'_>) -> Error {
    SpecError::Data {
        path: path.to_string(),
        expected: format!(
            "a static value for this field (a `{}`: give it by its path, `io::Statics::new().with(\"{path}\", …)`)",
            std::any::type_name::<F>()
        ),
        found: "none given".into(),
    }
    .into()
}

/// `r` as the untyped pointer the struct tables take.
#[inline(always)]
fn erased<T>(r: &T) -> *const u8 {
    r as *const T as *const u8
}

/// The table of `F`, a derived type. For any other field type this is a compile error (raised
/// where the provided method is instantiated): such a type implements every method of `Field`
/// itself.
#[inline(always)]
fn table_of<F: Field>() -> &'static dyn StructField {
    const {
        match F::STRUCT {
            Some(table) => table.get(),
            None => panic!(
                "a `Field` impl that does not come from `#[derive(ExtensionType)]` implements \
                 every method of `Field` (only derived types take them from their table)"
            ),
        }
    }
}

//! The `Field` methods of a derived struct, behind untyped pointers: [`StructField`], and the
//! [`StructTable`] a derived type's `Field` impl names instead of writing any method.
//!
//! Why: every generated method is a body the deriving crate type-checks, and every generated
//! impl carries one `Ty: Field` bound per field (that is what reports an unsupported field type
//! once, at the field). A derived type's `Field` impl is therefore only `type Spec` and
//! `const STRUCT`; the provided methods of [`Field`](super::Field) (in `mod.rs`, above this file)
//! walk the struct through its table, written once in `__private_v1::derived`.

use std::fmt;
use std::marker::PhantomData;

use super::{ComponentSpecs, Components, FieldPath, Sink};
use crate::error::Result;
use crate::spec::SpecSource;
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorSpec, TensorView};

/// What a derived struct can do as a field, over untyped pointers to a value of it, to its spec,
/// or to uninitialised memory for one (`out`). Implemented by the derive's struct tables
/// (`__private_v1::StructDesc`); not meant to be implemented elsewhere.
///
/// # Safety (of every method)
///
/// The table describes the struct and spec the pointers point to (what [`StructTable::new`]
/// requires); `out` is valid for a write of one spec (or value) and is initialised exactly when
/// the method reports success.
pub trait StructField: Sync {
    /// Writes the exact spec of the value at `value` to `out`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn write_field_spec(&self, value: *const u8, out: *mut u8);

    /// The number of components of a value of the spec at `spec`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn num_components(&self, spec: *const u8) -> usize;

    /// The component specs, in component order.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn component_specs(
        &self,
        spec: *const u8,
        path: &FieldPath<'_>,
        out: &mut dyn Sink<TensorSpec>,
    );

    /// Views of the components of the value at `value`, which outlives `'a`.
    ///
    /// # Safety
    /// See the trait; the value stays borrowed for `'a`.
    unsafe fn push_views<'a>(
        &self,
        value: *const u8,
        path: &FieldPath<'_>,
        out: &mut dyn Sink<TensorView<'a>>,
    );

    /// Moves the components out of the value at `value`, which is given up: the caller neither
    /// uses nor drops it afterwards.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn push_components(
        &self,
        value: *mut u8,
        path: &FieldPath<'_>,
        out: &mut dyn Sink<Tensor>,
    );

    /// Rebuilds a value at `out` from the components that follow, checked against the spec at
    /// `spec`, and validates it; on an error nothing is left at `out`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn write_from_components(
        &self,
        spec: *const u8,
        path: &FieldPath<'_>,
        components: &mut Components,
        out: *mut u8,
    ) -> Result<()>;

    /// Writes to `out` the spec at `spec` with its component specs replaced by the next ones of
    /// `specs` (each field in turn), refined with the shape contract; on an error nothing is
    /// left at `out`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn write_with_component_specs(
        &self,
        spec: *const u8,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
        out: *mut u8,
    ) -> Result<()>;

    /// Writes to `out` the spec read from `source` field by field, refined with the shape
    /// contract; on an error nothing is left at `out`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn write_spec_from_source(
        &self,
        path: &FieldPath<'_>,
        source: &mut dyn SpecSource,
        out: *mut u8,
    ) -> Result<()>;

    /// The serialized form of the spec at `spec`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn spec_to_value(&self, spec: *const u8) -> SpecTree;

    /// Reads a spec into `out` from its serialized form (refined with the shape contract).
    ///
    /// # Safety
    /// See the trait.
    unsafe fn write_spec_from_value(
        &self,
        value: &SpecTree,
        path: &FieldPath<'_>,
        out: *mut u8,
    ) -> Result<()>;

    /// Whether the specs at `a` and `b` are compatible.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn spec_is_compatible(&self, a: *const u8, b: *const u8) -> bool;

    /// Writes the most specific spec compatible with both to `out`; `false` (and nothing
    /// written) when there is none.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn write_most_specific_compatible(
        &self,
        a: *const u8,
        b: *const u8,
        out: *mut u8,
    ) -> bool;

    /// Writes the spec at `spec` for people, fields in declaration order.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn spec_fmt(&self, spec: *const u8, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// Validates the value at `value` (its nested values, its contract, its own checks); an
    /// error names the type and the path.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn validate_nested(&self, value: *const u8, path: &FieldPath<'_>) -> Result<()>;
}

/// The table a derived type's [`Field::STRUCT`](super::Field::STRUCT) holds: its
/// [`StructField`] operations, vouched for by the `unsafe` constructor.
///
/// Typed by the type it describes, so no `Field` impl can name another type's table: `STRUCT` is
/// an `Option<StructTable<Self>>`, and the only way to make one is [`StructTable::new`], whose
/// caller vouches for it (the derive, with the type's own `Derived::DESC`). A safe impl that
/// tries `const STRUCT: Option<StructTable<Self>> = <Other as Field>::STRUCT` is a type error
/// (`tests/ui/soundness/struct_table.rs`).
pub struct StructTable<T: ?Sized>(&'static dyn StructField, PhantomData<fn(T) -> T>);

impl<T: ?Sized> StructTable<T> {
    /// The table of `T`, whose `Field::STRUCT` this becomes.
    ///
    /// # Safety
    ///
    /// `table` describes `T` and its `Field::Spec` exactly (the derive passes the type's own
    /// `Derived::DESC`).
    pub const unsafe fn new(table: &'static dyn StructField) -> StructTable<T> {
        StructTable(table, PhantomData)
    }

    /// The operations (`const`: [`Field`](super::Field)'s provided methods read them in a
    /// constant).
    #[inline(always)]
    pub(super) const fn get(self) -> &'static dyn StructField {
        self.0
    }
}

// Written out: derived impls would ask `T: Clone` / `T: Debug`.
impl<T: ?Sized> Clone for StructTable<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for StructTable<T> {}

impl<T: ?Sized> fmt::Debug for StructTable<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StructTable")
    }
}

//! [`FieldOps`]: what one field type can do, behind untyped pointers — the per-field-type table
//! the tables of derived structs point to (one per field *type*, shared by every struct with such
//! a field; see `__private_v1::derived`). The derive writes `FieldOps::of::<A>()` for each field
//! type `A` into the struct's table itself: no trait constant names it, so no `Field` impl can
//! hand the struct tables another type's (`tests/ui/soundness/field_ops.rs`).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use super::{ComponentSpecs, Components, Field, FieldPath, Sink};
use crate::error::Result;
use crate::spec::SpecSource;
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorSpec, TensorView};

/// What one field type can do, with its value and spec behind untyped pointers.
///
/// Built by [`FieldOps::of`] (only ever for the field's own type); every pointer argument must point to a
/// live `F` (value side) or `F::Spec` (spec side), and every `out` pointer to writable, suitably
/// aligned, uninitialised memory for one.
pub struct FieldOps {
    pub(crate) field_spec: unsafe fn(*const u8, *mut u8),
    pub(crate) push_views:
        for<'a> unsafe fn(*const u8, &FieldPath<'_>, &mut dyn Sink<TensorView<'a>>),
    pub(crate) push_components: unsafe fn(*mut u8, &FieldPath<'_>, &mut dyn Sink<Tensor>),
    pub(crate) from_components:
        unsafe fn(*const u8, &FieldPath<'_>, &mut Components, *mut u8) -> Result<()>,
    pub(crate) drop_value: unsafe fn(*mut u8),
    pub(crate) validate_nested: unsafe fn(*const u8, &FieldPath<'_>) -> Result<()>,
    pub(crate) num_components: unsafe fn(*const u8) -> usize,
    pub(crate) component_specs: unsafe fn(*const u8, &FieldPath<'_>, &mut dyn Sink<TensorSpec>),
    pub(crate) with_component_specs:
        unsafe fn(*const u8, &FieldPath<'_>, &mut ComponentSpecs, *mut u8) -> Result<()>,
    pub(crate) spec_from_source:
        unsafe fn(&FieldPath<'_>, &mut dyn SpecSource, *mut u8) -> Result<()>,
    pub(crate) spec_to_value: unsafe fn(*const u8) -> SpecTree,
    pub(crate) spec_from_value: unsafe fn(&SpecTree, &FieldPath<'_>, *mut u8) -> Result<()>,
    pub(crate) spec_is_compatible: unsafe fn(*const u8, *const u8) -> bool,
    pub(crate) spec_most_specific_compatible: unsafe fn(*const u8, *const u8, *mut u8) -> bool,
    pub(crate) spec_clone: unsafe fn(*const u8, *mut u8),
    pub(crate) spec_eq: unsafe fn(*const u8, *const u8) -> bool,
    pub(crate) spec_hash: unsafe fn(*const u8, &mut dyn Hasher),
    pub(crate) spec_debug: unsafe fn(*const u8) -> *const dyn fmt::Debug,
    pub(crate) spec_fmt: unsafe fn(*const u8, &mut fmt::Formatter<'_>) -> fmt::Result,
    pub(crate) drop_spec: unsafe fn(*mut u8),
}

impl fmt::Debug for FieldOps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FieldOps")
    }
}

// Each function below is `F`'s `Field` method with its arguments read from, and its result
// written to, the pointers the caller vouches for (see `FieldOps`).
mod ops_of {
    use super::*;

    // SAFETY (all functions of this module): callers pass pointers as documented on `FieldOps`.
    pub unsafe fn field_spec<F: Field>(value: *const u8, out: *mut u8) {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe {
            out.cast::<F::Spec>()
                .write((*value.cast::<F>()).field_spec())
        }
    }
    pub unsafe fn push_views<'a, F: Field>(
        value: *const u8,
        path: &FieldPath<'_>,
        out: &mut dyn Sink<TensorView<'a>>,
    ) {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { (*value.cast::<F>()).push_views(path, out) }
    }
    pub unsafe fn push_components<F: Field>(
        value: *mut u8,
        path: &FieldPath<'_>,
        out: &mut dyn Sink<Tensor>,
    ) {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { value.cast::<F>().read().push_components(path, out) }
    }
    pub unsafe fn from_components<F: Field>(
        spec: *const u8,
        path: &FieldPath<'_>,
        components: &mut Components,
        out: *mut u8,
    ) -> Result<()> {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe {
            F::from_components_into(
                &*spec.cast::<F::Spec>(),
                path,
                components,
                out.cast::<F>(),
                crate::spec::seal::Seal,
            )
        }
    }
    pub unsafe fn validate_nested<F: Field>(value: *const u8, path: &FieldPath<'_>) -> Result<()> {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { (*value.cast::<F>()).validate_nested(path) }
    }
    pub unsafe fn drop_value<F: Field>(value: *mut u8) {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { value.cast::<F>().drop_in_place() }
    }
    pub unsafe fn num_components<F: Field>(spec: *const u8) -> usize {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        F::num_components(unsafe { &*spec.cast::<F::Spec>() })
    }
    pub unsafe fn component_specs<F: Field>(
        spec: *const u8,
        path: &FieldPath<'_>,
        out: &mut dyn Sink<TensorSpec>,
    ) {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        F::component_specs(unsafe { &*spec.cast::<F::Spec>() }, path, out)
    }
    pub unsafe fn with_component_specs<F: Field>(
        spec: *const u8,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
        out: *mut u8,
    ) -> Result<()> {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F::Spec`; `out` writable and uninitialised).
        let spec = F::with_component_specs(unsafe { &*spec.cast::<F::Spec>() }, path, specs)?;
        // SAFETY: as above.
        unsafe { out.cast::<F::Spec>().write(spec) };
        Ok(())
    }
    pub unsafe fn spec_from_source<F: Field>(
        path: &FieldPath<'_>,
        source: &mut dyn SpecSource,
        out: *mut u8,
    ) -> Result<()> {
        let spec = F::spec_from_source(path, source)?;
        // SAFETY: the pointers are as `FieldOps` documents (`out` writable and uninitialised).
        unsafe { out.cast::<F::Spec>().write(spec) };
        Ok(())
    }
    pub unsafe fn spec_to_value<F: Field>(spec: *const u8) -> SpecTree {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        F::spec_to_value(unsafe { &*spec.cast::<F::Spec>() })
    }
    pub unsafe fn spec_from_value<F: Field>(
        value: &SpecTree,
        path: &FieldPath<'_>,
        out: *mut u8,
    ) -> Result<()> {
        let spec = F::spec_from_value(value, path)?;
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { out.cast::<F::Spec>().write(spec) };
        Ok(())
    }
    pub unsafe fn spec_is_compatible<F: Field>(a: *const u8, b: *const u8) -> bool {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { F::spec_is_compatible(&*a.cast::<F::Spec>(), &*b.cast::<F::Spec>()) }
    }
    pub unsafe fn spec_most_specific_compatible<F: Field>(
        a: *const u8,
        b: *const u8,
        out: *mut u8,
    ) -> bool {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        let (a, b) = unsafe { (&*a.cast::<F::Spec>(), &*b.cast::<F::Spec>()) };
        match F::spec_most_specific_compatible(a, b) {
            Some(spec) => {
                // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
                unsafe { out.cast::<F::Spec>().write(spec) };
                true
            }
            None => false,
        }
    }
    pub unsafe fn spec_clone<F: Field>(spec: *const u8, out: *mut u8) {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe {
            out.cast::<F::Spec>()
                .write((*spec.cast::<F::Spec>()).clone())
        }
    }
    pub unsafe fn spec_eq<F: Field>(a: *const u8, b: *const u8) -> bool {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { *a.cast::<F::Spec>() == *b.cast::<F::Spec>() }
    }
    pub unsafe fn spec_hash<F: Field>(spec: *const u8, mut state: &mut dyn Hasher) {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { (*spec.cast::<F::Spec>()).hash(&mut state) }
    }
    pub unsafe fn spec_fmt<F: Field>(spec: *const u8, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        F::spec_fmt(unsafe { &*spec.cast::<F::Spec>() }, f)
    }
    pub fn spec_debug<F: Field>(spec: *const u8) -> *const dyn fmt::Debug {
        spec.cast::<F::Spec>() as *const dyn fmt::Debug
    }
    pub unsafe fn drop_spec<F: Field>(spec: *mut u8) {
        // SAFETY: the pointers are as `FieldOps` documents (a live `F` or `F::Spec`; `out` writable and uninitialised).
        unsafe { spec.cast::<F::Spec>().drop_in_place() }
    }
}

impl FieldOps {
    /// The table of field type `F`: a constant of its own, so one per type, shared by every
    /// struct with such a field.
    pub const fn of<F: Field>() -> &'static FieldOps {
        OpsOf::<F>::OPS
    }

    const fn build<F: Field>() -> FieldOps {
        FieldOps {
            field_spec: ops_of::field_spec::<F>,
            push_views: ops_of::push_views::<F>,
            push_components: ops_of::push_components::<F>,
            from_components: ops_of::from_components::<F>,
            drop_value: ops_of::drop_value::<F>,
            validate_nested: ops_of::validate_nested::<F>,
            num_components: ops_of::num_components::<F>,
            component_specs: ops_of::component_specs::<F>,
            with_component_specs: ops_of::with_component_specs::<F>,
            spec_from_source: ops_of::spec_from_source::<F>,
            spec_to_value: ops_of::spec_to_value::<F>,
            spec_from_value: ops_of::spec_from_value::<F>,
            spec_is_compatible: ops_of::spec_is_compatible::<F>,
            spec_most_specific_compatible: ops_of::spec_most_specific_compatible::<F>,
            spec_clone: ops_of::spec_clone::<F>,
            spec_eq: ops_of::spec_eq::<F>,
            spec_hash: ops_of::spec_hash::<F>,
            spec_debug: ops_of::spec_debug::<F>,
            spec_fmt: ops_of::spec_fmt::<F>,
            drop_spec: ops_of::drop_spec::<F>,
        }
    }
}

/// The table of `F` as an associated constant, evaluated once per type (an inherent constant of a
/// private type: nothing outside can override it).
struct OpsOf<F>(PhantomData<F>);

impl<F: Field> OpsOf<F> {
    const OPS: &'static FieldOps = &FieldOps::build::<F>();
}

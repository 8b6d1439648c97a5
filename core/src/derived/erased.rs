//! Derived specs and values behind `dyn AnySpec` / `dyn AnyExtension`, through their tables.
//!
//! The registry hands out specs it deserialized, and values it rebuilt, as trait objects. Boxing
//! a `FooSpec` as `Box<dyn AnySpec>` would compile the fifteen `AnySpec` methods (and the eight
//! `AnyExtension` ones for `Foo`) once per registered type, in the crate that derives it.
//! [`ErasedSpec`] and [`ErasedValue`] implement those traits once, for every derived type: they
//! own a `FooSpec` / `Foo` in an allocation of its own layout and reach it through the type's
//! [`StructDesc`]. Downcasting still sees the real type: `as_any` returns the `FooSpec` / `Foo`
//! itself, so `downcast_ref::<FooSpec>()` works on either representation, and the two compare
//! and hash alike.

use std::alloc::Layout;
use std::any::{Any, TypeId};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ptr::NonNull;

use super::{Derived, StructDesc, invalid};
use crate::error::Result;
use crate::field::{Field, FieldPath};
use crate::spec::ExtensionType;
use crate::spec::{AnyExtension, AnySpec, SharedExtension, Value};
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorLike, TensorSpec, TensorView};

/// What the erased boxes need of a derived value type `T` and its spec type, beyond the field
/// table. Built by [`TypeFns::of`].
pub struct TypeFns {
    value_layout: Layout,
    spec_layout: Layout,
    pub(crate) value_type_name: fn() -> &'static str,
    spec_type_id: TypeId,
    drop_value: unsafe fn(*mut u8),
    drop_spec: unsafe fn(*mut u8),
    value_as_any: unsafe fn(*const u8) -> *const dyn Any,
    spec_as_any: unsafe fn(*const u8) -> *const dyn Any,
    clone_value: unsafe fn(*const u8, *mut u8),
    value_tensor_like: unsafe fn(*const u8) -> Option<*const dyn TensorLike>,
    spec_tensor_like: unsafe fn(*const u8) -> Option<*const dyn TensorLike>,
}

impl fmt::Debug for TypeFns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TypeFns")
    }
}

// SAFETY (all functions of this module): each pointer points to a live `T` (or `T::Spec`), as
// the `TypeFns` of `T` is only used on memory its `StructDesc` describes.
mod fns_of {
    use super::*;

    /// `drop_in_place::<T>` as a function of an untyped pointer: no wrapper to compile per type.
    pub const fn drop_in_place<T>() -> unsafe fn(*mut u8) {
        let drop: unsafe fn(*mut T) = std::ptr::drop_in_place::<T>;
        // SAFETY: pointers to sized types are ABI-compatible (see the `fn` pointer docs, "ABI
        // compatibility"), and callers only pass pointers to a `T`.
        unsafe { std::mem::transmute::<unsafe fn(*mut T), unsafe fn(*mut u8)>(drop) }
    }
    pub fn as_any<T: Any>(p: *const u8) -> *const dyn Any {
        p as *const T as *const dyn Any
    }
    pub unsafe fn value_tensor_like<T: ExtensionType>(
        p: *const u8,
    ) -> Option<*const dyn TensorLike> {
        // SAFETY: callers pass `p` pointing to a live `T`.
        let value = unsafe { &*(p as *const T) };
        value
            .as_tensor_like()
            .map(|like| like as *const dyn TensorLike)
    }
    pub unsafe fn spec_tensor_like<T: ExtensionType>(
        p: *const u8,
    ) -> Option<*const dyn TensorLike> {
        // SAFETY: callers pass `p` pointing to a live `T::Spec`.
        let spec = unsafe { &*(p as *const T::Spec) };
        T::spec_as_tensor_like(spec).map(|like| like as *const dyn TensorLike)
    }
    pub unsafe fn clone_value<T: Clone>(p: *const u8, out: *mut u8) {
        // SAFETY: callers pass `p` pointing to a live `T` and `out` to writable memory for one `T`.
        unsafe { std::ptr::write(out as *mut T, (*(p as *const T)).clone()) }
    }
}

impl TypeFns {
    /// The functions of the derived type `T` and of its spec.
    pub const fn of<T: Derived + ExtensionType>() -> TypeFns {
        TypeFns {
            value_layout: Layout::new::<T>(),
            spec_layout: Layout::new::<<T as Field>::Spec>(),
            value_type_name: std::any::type_name::<T>,
            spec_type_id: TypeId::of::<<T as Field>::Spec>(),
            drop_value: fns_of::drop_in_place::<T>(),
            drop_spec: fns_of::drop_in_place::<<T as Field>::Spec>(),
            value_as_any: fns_of::as_any::<T>,
            spec_as_any: fns_of::as_any::<<T as Field>::Spec>,
            clone_value: fns_of::clone_value::<T>,
            value_tensor_like: fns_of::value_tensor_like::<T>,
            spec_tensor_like: fns_of::spec_tensor_like::<T>,
        }
    }

    /// Drops the value at `p`.
    ///
    /// # Safety
    /// `p` points to a live value of the type these functions are of, dropped here once.
    pub(crate) unsafe fn drop_value(&self, p: *mut u8) {
        // SAFETY: the caller's contract.
        unsafe { (self.drop_value)(p) }
    }
}

/// Memory for one value of `layout`, uninitialised: the global allocator's, or dangling for a
/// zero size (as `Box` does).
fn allocate(layout: Layout) -> NonNull<u8> {
    if layout.size() == 0 {
        // A dangling pointer with the layout's alignment, as `Box` uses for zero sizes.
        return NonNull::new(std::ptr::without_provenance_mut(layout.align()))
            .unwrap_or(NonNull::dangling());
    }
    // SAFETY: the size is non-zero.
    let p = unsafe { std::alloc::alloc(layout) };
    NonNull::new(p).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
}

/// Frees memory from [`allocate`] (its contents already dropped or moved out).
///
/// # Safety
/// `p` came from `allocate(layout)` and is not used afterwards.
unsafe fn deallocate(p: NonNull<u8>, layout: Layout) {
    if layout.size() != 0 {
        // SAFETY: allocated by the global allocator with this layout.
        unsafe { std::alloc::dealloc(p.as_ptr(), layout) }
    }
}

/// Frees the allocation if the initialiser fails or panics before it is owned.
struct Uninit {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Uninit {
    fn new(layout: Layout) -> Self {
        Uninit {
            ptr: allocate(layout),
            layout,
        }
    }

    /// Hands the (now initialised) memory over.
    fn finish(self) -> NonNull<u8> {
        let ptr = self.ptr;
        std::mem::forget(self);
        ptr
    }
}

impl Drop for Uninit {
    fn drop(&mut self) {
        // SAFETY: nothing was initialised (or it was moved out), and nobody else has the memory.
        unsafe { deallocate(self.ptr, self.layout) }
    }
}

/// A derived type's spec, owned behind its table: `dyn AnySpec` without per-type code.
pub struct ErasedSpec {
    desc: &'static StructDesc,
    ptr: NonNull<u8>,
}

// SAFETY: the pointee is a `Field::Spec`, which is `Send + Sync`, and is owned exclusively.
unsafe impl Send for ErasedSpec {}
// SAFETY: as above.
unsafe impl Sync for ErasedSpec {}

impl Drop for ErasedSpec {
    fn drop(&mut self) {
        // SAFETY: we own a live spec of `desc`'s type in an allocation of its layout.
        unsafe {
            (self.desc.types.drop_spec)(self.ptr.as_ptr());
            deallocate(self.ptr, self.desc.types.spec_layout);
        }
    }
}

impl ErasedSpec {
    /// Builds a spec with `init`, which must initialise the memory it is given (a spec of
    /// `desc`'s type) when it returns `true`, and leave nothing initialised when `false`.
    ///
    /// # Safety
    /// As stated for `init`.
    unsafe fn build(
        desc: &'static StructDesc,
        init: impl FnOnce(*mut u8) -> bool,
    ) -> Option<ErasedSpec> {
        let memory = Uninit::new(desc.types.spec_layout);
        if init(memory.ptr.as_ptr()) {
            Some(ErasedSpec {
                desc,
                ptr: memory.finish(),
            })
        } else {
            None
        }
    }

    /// Deserializes a spec of `desc`'s type (refined by its shape contract).
    pub fn deserialize(desc: &'static StructDesc, value: &SpecTree) -> Result<ErasedSpec> {
        let mut error = None;
        // SAFETY: `write_spec_from_value` initialises the spec exactly when it returns `Ok`.
        let spec = unsafe {
            ErasedSpec::build(desc, |out| {
                match super::write_spec_from_value(desc, value, &FieldPath::Root, out) {
                    Ok(()) => true,
                    Err(e) => {
                        error = Some(e);
                        false
                    }
                }
            })
        };
        match (spec, error) {
            (Some(spec), _) => Ok(spec),
            (None, Some(e)) => Err(e),
            (None, None) => unreachable!("a failed spec build records its error"),
        }
    }

    /// The spec of the value at `value` (a live value of `desc`'s type).
    ///
    /// # Safety
    /// `value` points to a live value described by `desc`.
    unsafe fn of_value(desc: &'static StructDesc, value: *const u8) -> ErasedSpec {
        // SAFETY: `write_field_spec` initialises every field.
        let spec = unsafe {
            ErasedSpec::build(desc, |out| {
                super::write_field_spec(desc, value, out);
                true
            })
        };
        spec.expect("a spec of a value is always built")
    }

    fn raw(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// The other spec's memory, when it is a spec of the same type.
    fn same_type(&self, other: &dyn AnySpec) -> Option<*const u8> {
        let any = other.as_any();
        (any.type_id() == self.desc.types.spec_type_id)
            .then_some(any as *const dyn Any as *const u8)
    }
}

impl AnySpec for ErasedSpec {
    fn dyn_tensor_like(&self) -> Option<&dyn TensorLike> {
        // SAFETY: `raw` is a live spec described by `desc`; the reference borrows `self`.
        unsafe { (self.desc.types.spec_tensor_like)(self.raw()).map(|p| &*p) }
    }
    fn as_any(&self) -> &dyn Any {
        // SAFETY: `raw` is a live spec of the type `spec_as_any` is for.
        unsafe { &*(self.desc.types.spec_as_any)(self.raw()) }
    }
    fn name(&self) -> &str {
        self.desc.registered_name()
    }
    fn value_type_name(&self) -> &'static str {
        (self.desc.types.value_type_name)()
    }
    fn value_type_id(&self) -> TypeId {
        self.desc.type_id
    }
    // SAFETY (the `unsafe` blocks below): `raw` is a live spec described by `desc`, and
    // `same_type` only returns specs of the same type.
    fn dyn_component_specs(&self) -> Vec<TensorSpec> {
        // SAFETY: `raw` is a live spec described by `desc`.
        unsafe { super::component_spec_list(self.desc, self.raw()) }
    }
    fn dyn_num_components(&self) -> usize {
        // SAFETY: `raw` is a live spec described by `desc`.
        unsafe { super::num_components(self.desc, self.raw()) }
    }
    fn dyn_component_paths(&self) -> Vec<String> {
        // SAFETY: `raw` is a live spec described by `desc`.
        unsafe { super::component_paths(self.desc, self.raw()) }
    }
    fn dyn_validity(&self) -> Vec<(String, String)> {
        // SAFETY: `raw` is a live spec described by `desc`.
        unsafe { super::validity(self.desc, self.raw()) }
    }
    fn dyn_serialize(&self) -> SpecTree {
        // SAFETY: `raw` is a live spec described by `desc`.
        unsafe { super::spec_to_value(self.desc, self.raw()) }
    }
    fn dyn_from_components(&self, components: Vec<Tensor>) -> Result<Value> {
        ErasedValue::from_components(self.desc, self.raw(), components)
            .map(|v| Value::Extension(SharedExtension::from_box(Box::new(v))))
    }
    fn dyn_eq(&self, other: &dyn AnySpec) -> bool {
        match self.same_type(other) {
            // SAFETY: `raw` is a live spec described by `desc`, and `same_type` only returns specs of the same type.
            Some(other) => unsafe { super::spec_eq(self.desc, self.raw(), other) },
            None => false,
        }
    }
    fn dyn_hash(&self, mut state: &mut dyn Hasher) {
        // As the blanket impl hashes a typed spec: its `TypeId`, then its fields.
        self.desc.types.spec_type_id.hash(&mut state);
        // SAFETY: `raw` is a live spec described by `desc`.
        unsafe { super::spec_hash(self.desc, self.raw(), state) }
    }
    fn dyn_is_compatible_with(&self, other: &dyn AnySpec) -> bool {
        match self.same_type(other) {
            // SAFETY: `raw` is a live spec described by `desc`, and `same_type` only returns specs of the same type.
            Some(other) => unsafe { super::spec_is_compatible(self.desc, self.raw(), other) },
            None => false,
        }
    }
    fn dyn_most_specific_compatible(&self, other: &dyn AnySpec) -> Option<Box<dyn AnySpec>> {
        let other = self.same_type(other)?;
        let (desc, this) = (self.desc, self.raw());
        // SAFETY: `this` and `other` are live specs described by `desc` (`raw`, `same_type`); `write_most_specific_compatible` initialises the spec exactly when it returns `true`.
        let spec = unsafe {
            ErasedSpec::build(desc, |out| {
                super::write_most_specific_compatible(desc, this, other, out)
            })
        };
        spec.map(|s| Box::new(s) as Box<dyn AnySpec>)
    }
    fn dyn_with_component_specs(&self, specs: Vec<TensorSpec>) -> Result<Box<dyn AnySpec>> {
        let (desc, this) = (self.desc, self.raw());
        let mut error = None;
        // SAFETY: `this` is a live spec described by `desc` (`raw`); `write_replaced_spec`
        // initialises the spec exactly when it returns `Ok`.
        let spec = unsafe {
            ErasedSpec::build(desc, |out| {
                match super::write_replaced_spec(desc, this, specs, out) {
                    Ok(()) => true,
                    Err(e) => {
                        error = Some(e);
                        false
                    }
                }
            })
        };
        match (spec, error) {
            (Some(spec), _) => Ok(Box::new(spec)),
            (None, Some(e)) => Err(e),
            (None, None) => unreachable!("a failed spec build records its error"),
        }
    }
    fn clone_box(&self) -> Box<dyn AnySpec> {
        let (desc, this) = (self.desc, self.raw());
        // SAFETY: `this` is a live spec described by `desc` (`raw`); `write_spec_clone` initialises every field.
        let spec = unsafe {
            ErasedSpec::build(desc, |out| {
                super::write_spec_clone(desc, this, out);
                true
            })
        };
        Box::new(spec.expect("a clone is always built"))
    }
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: `raw` is a live spec described by `desc`.
        unsafe { super::spec_debug(self.desc, self.raw(), f) }
    }
    fn fmt_display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: `raw` is a live spec described by `desc`.
        unsafe { super::spec_display(self.desc, self.raw(), f) }
    }
}

/// A derived type's value, owned behind its table: `dyn AnyExtension` without per-type code.
pub struct ErasedValue {
    desc: &'static StructDesc,
    ptr: NonNull<u8>,
}

// SAFETY: the pointee is an `ExtensionType`, which is `Send + Sync`, and is owned exclusively.
unsafe impl Send for ErasedValue {}
// SAFETY: as above.
unsafe impl Sync for ErasedValue {}

impl Drop for ErasedValue {
    fn drop(&mut self) {
        // SAFETY: we own a live value of `desc`'s type in an allocation of its layout.
        unsafe {
            (self.desc.types.drop_value)(self.ptr.as_ptr());
            deallocate(self.ptr, self.desc.types.value_layout);
        }
    }
}

impl ErasedValue {
    /// Rebuilds a value of `desc`'s type from exactly its components, checked against the spec
    /// at `spec`, then validates it (shape contract and the type's own `validate`).
    ///
    /// The spec must be a live spec described by `desc` (every caller holds one).
    fn from_components(
        desc: &'static StructDesc,
        spec: *const u8,
        components: Vec<Tensor>,
    ) -> Result<ErasedValue> {
        // SAFETY: `spec` is a live spec described by `desc` (see above).
        let mut components = unsafe { super::checked_components(desc, spec, components) }?;
        let memory = Uninit::new(desc.types.value_layout);
        let root = FieldPath::Root;
        // SAFETY: on `Ok` every field of the value is initialised.
        unsafe {
            super::write_from_components(desc, spec, &root, &mut components, memory.ptr.as_ptr())
        }?;
        let value = ErasedValue {
            desc,
            ptr: memory.finish(),
        };
        // The nested values were validated as they were rebuilt; what is left is the type's own
        // checks. SAFETY: the value is live; on error it is dropped with `value`.
        match unsafe { desc.check_own(value.ptr.as_ptr()) } {
            Ok(()) => Ok(value),
            Err(e) => Err(invalid(e, &root, desc.registered_name())),
        }
    }

    fn raw(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// Moves the value's fields out through `take`, then frees the memory without dropping.
    fn consume<R>(self, take: impl FnOnce(&'static StructDesc, *mut u8) -> R) -> R {
        let this = std::mem::ManuallyDrop::new(self);
        let memory = Uninit {
            ptr: this.ptr,
            layout: this.desc.types.value_layout,
        };
        // `take` moves every field out; `memory` then frees the allocation (also on a panic).
        take(this.desc, memory.ptr.as_ptr())
    }
}

// SAFETY: `as_any` is the value held (through its type's `TypeFns`), and `move_into` moves that
// value out.
unsafe impl AnyExtension for ErasedValue {
    fn dyn_tensor_like(&self) -> Option<&dyn TensorLike> {
        // SAFETY: `raw` is a live value described by `desc`; the reference borrows `self`.
        unsafe { (self.desc.types.value_tensor_like)(self.raw()).map(|p| &*p) }
    }
    fn as_any(&self) -> &dyn Any {
        // SAFETY: `raw` is a live value of the type `value_as_any` is for.
        unsafe { &*(self.desc.types.value_as_any)(self.raw()) }
    }
    unsafe fn move_into(self: Box<Self>, out: *mut u8) {
        let size = self.desc.types.value_layout.size();
        // SAFETY: `out` has room for a value of this type (the caller's contract); the bytes are
        // moved, and `consume` frees the allocation without dropping them.
        (*self).consume(|_, value| unsafe { std::ptr::copy_nonoverlapping(value, out, size) })
    }
    fn type_name(&self) -> &'static str {
        (self.desc.types.value_type_name)()
    }
    fn name(&self) -> &str {
        self.desc.registered_name()
    }
    fn any_spec(&self) -> Box<dyn AnySpec> {
        // SAFETY: `raw` is a live value described by `desc`.
        Box::new(unsafe { ErasedSpec::of_value(self.desc, self.raw()) })
    }
    fn component_views(&self) -> Vec<TensorView<'_>> {
        // SAFETY: as above; the views borrow `self`.
        unsafe { super::views(self.desc, self.raw()) }
    }
    fn clone_components(&self) -> Vec<Tensor> {
        let desc = self.desc;
        let copy = Uninit::new(desc.types.value_layout);
        // SAFETY: `clone_value` initialises `copy` from the live value; its fields are then
        // moved out once, and `copy` frees the memory without dropping anything.
        unsafe {
            (desc.types.clone_value)(self.raw(), copy.ptr.as_ptr());
            super::components_moved(desc, copy.ptr.as_ptr())
        }
    }
    fn into_components_boxed(self: Box<Self>) -> Vec<Tensor> {
        // SAFETY: `consume` hands over a live value described by `desc`, never used again.
        (*self).consume(|desc, value| unsafe { super::components_moved(desc, value) })
    }
    fn dyn_validate(&self) -> Result<()> {
        // SAFETY: `raw` is a live value described by `desc`.
        unsafe { self.desc.check_all(self.raw()) }
    }
}

impl fmt::Debug for ErasedValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self as &dyn AnyExtension, f)
    }
}

impl fmt::Debug for ErasedSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_debug(f)
    }
}

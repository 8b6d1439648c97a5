//! [`Value`], a tensor or an extension value whose type is known only at run time, and what it is
//! made of: [`SharedExtension`], the shared allocation an extension value lives in; the
//! object-safe traits [`AnyExtension`] (the value behind the `dyn`) and [`AnySpec`] (its spec);
//! and [`ValueSpec`].
//!
//! One file because these are one recursive type, not for convenience: a [`Value`] holds a
//! [`SharedExtension`], which derefs to a `dyn AnyExtension`, whose
//! [`any_spec`](AnyExtension::any_spec) is a `Box<dyn AnySpec>`, whose
//! [`dyn_from_components`](AnySpec::dyn_from_components) returns a [`Value`]. Each names the
//! next in its signature, so in separate files they would import each other around a circle.
//! What is not part of the knot lives around it: the blanket impls that make every
//! [`ExtensionType`] an [`AnyExtension`] and its spec an [`AnySpec`] (`any_spec.rs`, above this
//! file), and the per-thread block cache of [`SharedExtension`] (`spare.rs`, below).
//!
//! [`SharedExtension`] is not `Arc<dyn …>`: a handler's result is almost always the only
//! reference to its value when it is dropped, and `Arc` pays two atomic read-modify-writes for
//! that drop (the strong count, then the weak count it keeps for `Weak`). Here there is no weak
//! count, and a drop that finds the count at one frees the allocation after a plain load — into
//! a one-block cache per thread that the next value of the same layout reuses (`spare.rs`).

use std::alloc::{Layout, alloc, handle_alloc_error};
use std::any::{Any, TypeId};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering, fence};

use super::ExtensionType;
#[cfg(doc)]
use super::TypeSpec;
use super::spare;
use crate::error::{Error, Result, ValueError};
use crate::spec_tree::SpecTree;
use crate::tensor::{Element, Tensor, TensorLike, TensorSpec, TensorView};

/// A tensor or an extension value (of any type, possibly anonymous). Clone is O(1).
///
/// ```
/// use extype_core::{Tensor, Value};
/// let v = Value::from(Tensor::from(ndarray::array![1i32, 2]));
/// assert!(v.as_tensor().is_ok());
/// assert_eq!(v.type_name(), "Tensor");
/// ```
#[derive(Clone)]
pub enum Value {
    /// A dense tensor.
    Tensor(Tensor),
    /// An extension value.
    Extension(SharedExtension),
}

/// Text for people: a tensor as `f32[2, 3] [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]`; an extension
/// value as [`dyn AnyExtension`](AnyExtension) prints it: its spec, then each component nested
/// by shape, by field path
/// (`pkg.Masked { values: f32[3], mask: bool[3] } {values: [1.0, 2.0, 3.0], mask: [true, false, true]}`);
/// a tensor-like extension value starts with its dtype and shape
/// (`f32[3] pkg.Masked { … } {…}`). A component of more than 1000 elements prints summarised,
/// as NumPy does ([`write_nested`](crate::tensor::write_nested)).
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Tensor(t) => std::fmt::Display::fmt(t, f),
            Value::Extension(e) => std::fmt::Display::fmt(&**e, f),
        }
    }
}

/// As `Display`: the tensor's or extension value's text, not the internals that hold it.
///
/// ```
/// use extype_core::{Tensor, Value};
/// let v = Value::from(Tensor::from(ndarray::array![1i32, 2]));
/// assert_eq!(format!("{v:?}"), "i32[2] [1, 2]");
/// ```
impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// Compact text of the spec: `f32[2, ?]`, or the extension spec's own text.
impl std::fmt::Display for ValueSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueSpec::Tensor(t) => std::fmt::Display::fmt(t, f),
            ValueSpec::Extension(e) => std::fmt::Display::fmt(&**e, f),
        }
    }
}

/// The spec of a [`Value`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueSpec {
    /// The spec of a dense tensor.
    Tensor(TensorSpec),
    /// The spec of an extension value.
    Extension(Box<dyn AnySpec>),
}

impl ValueSpec {
    /// Loose compatibility (tensor specs by shape/dtype, extension specs by their type's rule).
    pub fn is_compatible_with(&self, other: &ValueSpec) -> bool {
        match (self, other) {
            (ValueSpec::Tensor(a), ValueSpec::Tensor(b)) => a.is_compatible_with(b),
            (ValueSpec::Extension(a), ValueSpec::Extension(b)) => a.dyn_is_compatible_with(&**b),
            _ => false,
        }
    }

    /// The most specific spec compatible with both; `None` when none is.
    pub fn most_specific_compatible(&self, other: &ValueSpec) -> Option<ValueSpec> {
        match (self, other) {
            (ValueSpec::Tensor(a), ValueSpec::Tensor(b)) => {
                a.most_specific_compatible(b).map(ValueSpec::Tensor)
            }
            (ValueSpec::Extension(a), ValueSpec::Extension(b)) => a
                .dyn_most_specific_compatible(&**b)
                .map(ValueSpec::Extension),
            _ => None,
        }
    }
}

impl Value {
    /// Wraps an extension value.
    pub fn from_extension<T: ExtensionType>(value: T) -> Value {
        Value::Extension(SharedExtension::new(value))
    }

    /// `"Tensor"`, or the registered name of the extension type.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Tensor(_) => "Tensor",
            Value::Extension(e) => e.name(),
        }
    }

    /// The value's spec.
    pub fn spec(&self) -> ValueSpec {
        match self {
            Value::Tensor(t) => ValueSpec::Tensor(TensorSpec::from_tensor(t)),
            Value::Extension(e) => ValueSpec::Extension(e.any_spec()),
        }
    }

    /// The tensor, or an error naming what the value is.
    pub fn as_tensor(&self) -> Result<&Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            other => Err(other.mismatch("as_tensor", "Tensor")),
        }
    }

    /// The one element of a dense result of one element ([`Tensor::item`]): an op's rank-0
    /// result read as a Rust scalar. Errors naming the value's type for an extension value,
    /// and the dtype and shape for a tensor of another dtype or size.
    ///
    /// ```
    /// use extype_core::{Tensor, Value};
    /// let v = Value::from(Tensor::from(ndarray::arr0(3.5f64)));
    /// assert_eq!(v.item::<f64>()?, 3.5);
    /// # Ok::<(), extype_core::Error>(())
    /// ```
    pub fn item<T: Element>(&self) -> Result<T> {
        match self {
            Value::Tensor(t) => t.item(),
            other => Err(other.mismatch("item", "Tensor")),
        }
    }

    /// The tensor, or an error naming what the value is.
    pub fn into_tensor(self) -> Result<Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            other => Err(other.mismatch("into_tensor", "Tensor")),
        }
    }

    /// Borrows the extension value as `T`, or errors naming the expected and actual types.
    pub fn downcast_ref<T: ExtensionType>(&self) -> Result<&T> {
        match self {
            Value::Extension(e) => e
                .as_any()
                .downcast_ref::<T>()
                .ok_or_else(|| self.mismatch("downcast_ref", std::any::type_name::<T>())),
            Value::Tensor(_) => Err(self.mismatch("downcast_ref", std::any::type_name::<T>())),
        }
    }

    /// Takes the extension value as `T` (moved out when this is the only reference, else
    /// cloned). An anonymous value is not reinterpreted: use [`Value::reinterpret`] (defined with
    /// the anonymous values, in the registry layer).
    pub fn downcast<T: ExtensionType>(self) -> Result<T> {
        match self {
            Value::Extension(e) if e.as_any().is::<T>() => match e.try_take::<T>() {
                Ok(value) => Ok(value),
                // Shared: a clone of the value.
                Err(shared) => match shared.as_any().downcast_ref::<T>() {
                    Some(value) => Ok(value.clone()),
                    None => Err(ValueError {
                        op: "downcast",
                        expected: std::any::type_name::<T>().into(),
                        found: "another type".into(),
                    }
                    .into()),
                },
            },
            other => Err(other.mismatch("downcast", std::any::type_name::<T>())),
        }
    }

    fn mismatch(&self, op: &'static str, expected: &str) -> Error {
        let found = match self {
            Value::Tensor(t) => format!("a tensor ({})", TensorSpec::from_tensor(t)),
            Value::Extension(e) => format!("{} ({})", e.name(), e.type_name()),
        };
        ValueError {
            op,
            expected: expected.to_string(),
            found,
        }
        .into()
    }
}

impl Value {
    /// The value as one tensor (its dtype and shape): a dense tensor itself, an extension value
    /// when its type is tensor-like ([`TensorLike`]); `None` otherwise.
    ///
    /// ```
    /// use extype_core::{DType, Tensor, Value};
    /// let v = Value::from(Tensor::from(ndarray::array![[1i32, 2]]));
    /// let like = v.tensor_like().unwrap();
    /// assert_eq!((like.dtype(), like.shape().to_string()), (DType::I32, "[1, 2]".to_string()));
    /// ```
    #[inline]
    pub fn tensor_like(&self) -> Option<&dyn TensorLike> {
        match self {
            Value::Tensor(t) => Some(t),
            Value::Extension(e) => e.dyn_tensor_like(),
        }
    }
}

impl ValueSpec {
    /// The spec as one tensor spec: a tensor spec itself, an extension spec when its type is
    /// tensor-like ([`TensorLike`]); `None` otherwise.
    #[inline]
    pub fn tensor_like(&self) -> Option<&dyn TensorLike> {
        match self {
            ValueSpec::Tensor(t) => Some(t),
            ValueSpec::Extension(e) => e.dyn_tensor_like(),
        }
    }
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Self {
        Value::Tensor(t)
    }
}

/// A spec of any extension type, behind `dyn`. Blanket-implemented for every spec of an
/// [`ExtensionType`]. Comparisons between specs of different types are `false`/`None`. Methods
/// are prefixed `dyn_` so they never clash with [`TypeSpec`]'s when both traits are in scope.
pub trait AnySpec: Send + Sync + 'static {
    /// As `Any`, to downcast to the concrete spec.
    fn as_any(&self) -> &dyn Any;
    /// The registered name of the value type.
    fn name(&self) -> &str;
    /// The Rust name of the value type.
    fn value_type_name(&self) -> &'static str;
    /// The `TypeId` of the value type.
    fn value_type_id(&self) -> TypeId;
    /// See [`TypeSpec::component_specs`].
    fn dyn_component_specs(&self) -> Vec<TensorSpec>;
    /// See [`TypeSpec::num_components`].
    fn dyn_num_components(&self) -> usize;
    /// See [`TypeSpec::component_paths`].
    fn dyn_component_paths(&self) -> Vec<String>;
    /// See [`TypeSpec::validity`]: `(mask path, values path)` pairs of
    /// [`dyn_component_paths`](Self::dyn_component_paths); the default (a type that implements
    /// this trait itself) declares none.
    fn dyn_validity(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// See [`TypeSpec::serialize`].
    fn dyn_serialize(&self) -> SpecTree;
    /// See [`TypeSpec::from_components`]; the value comes back as a [`Value`].
    fn dyn_from_components(&self, components: Vec<Tensor>) -> Result<Value>;
    /// Strict equality with a spec of any type.
    fn dyn_eq(&self, other: &dyn AnySpec) -> bool;
    /// Hashes like the concrete spec (plus its type).
    fn dyn_hash(&self, state: &mut dyn Hasher);
    /// See [`TypeSpec::is_compatible_with`]; `false` across types.
    fn dyn_is_compatible_with(&self, other: &dyn AnySpec) -> bool;
    /// See [`TypeSpec::most_specific_compatible`]; `None` across types.
    fn dyn_most_specific_compatible(&self, other: &dyn AnySpec) -> Option<Box<dyn AnySpec>>;
    /// See [`TypeSpec::with_component_specs`]; the default (a type that implements this trait
    /// itself) returns an error saying the type does not support it.
    fn dyn_with_component_specs(&self, specs: Vec<TensorSpec>) -> Result<Box<dyn AnySpec>> {
        let _ = specs;
        Err(crate::error::SpecError::Data {
            path: String::new(),
            expected: "a spec type that rebuilds itself from component specs".into(),
            found: self.value_type_name().into(),
        }
        .into())
    }
    /// A boxed clone.
    fn clone_box(&self) -> Box<dyn AnySpec>;
    /// Debug form of the concrete spec.
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Writes the spec compactly ([`TypeSpec::fmt_compact`]); `Display` of `dyn AnySpec`.
    fn fmt_display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// The spec as one tensor spec, when its type is tensor-like
    /// ([`ExtensionType::spec_as_tensor_like`]).
    fn dyn_tensor_like(&self) -> Option<&dyn TensorLike>;
}

impl fmt::Debug for dyn AnySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_debug(f)
    }
}

impl fmt::Display for dyn AnySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_display(f)
    }
}

impl Clone for Box<dyn AnySpec> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl PartialEq for dyn AnySpec {
    fn eq(&self, other: &Self) -> bool {
        self.dyn_eq(other)
    }
}

impl Eq for dyn AnySpec {}

impl Hash for dyn AnySpec {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.dyn_hash(state);
    }
}

/// An extension value of any type, behind `dyn`. Blanket-implemented for every
/// [`ExtensionType`].
///
/// # Safety
///
/// `as_any` returns the value itself (so `as_any().type_id()` is the type of the value), and
/// `move_into` writes that value to `out`: [`Value::downcast`] checks the first and then trusts
/// the second to have initialised its slot. An `unsafe trait` because a safe impl could lie
/// (`tests/ui/soundness/any_extension.rs`); the blanket impl is the one to use.
pub unsafe trait AnyExtension: Send + Sync + 'static {
    /// As `Any`, to downcast to the concrete type.
    fn as_any(&self) -> &dyn Any;
    /// Moves the value out of its box into `out`, and frees the box.
    ///
    /// # Safety
    /// `out` must be valid for writing one value of this type (`as_any().type_id()`): aligned,
    /// with room for it. The caller owns the value afterwards.
    unsafe fn move_into(self: Box<Self>, out: *mut u8);
    /// The Rust name of the type.
    fn type_name(&self) -> &'static str;
    /// The registered name of the type.
    fn name(&self) -> &str;
    /// The value's spec.
    fn any_spec(&self) -> Box<dyn AnySpec>;
    /// Borrowed views of the components (no copies).
    fn component_views(&self) -> Vec<TensorView<'_>>;
    /// The components of a clone of the value (O(1) per `Tensor`/`ArcArray` field; an `Array`
    /// field is copied by its `Clone`).
    fn clone_components(&self) -> Vec<Tensor>;
    /// The components, moved out.
    fn into_components_boxed(self: Box<Self>) -> Vec<Tensor>;
    /// The value as one tensor, when its type is tensor-like ([`ExtensionType::as_tensor_like`]).
    fn dyn_tensor_like(&self) -> Option<&dyn TensorLike>;
    /// The value's validation ([`ExtensionType::validate`]: nested values, shape contract, the
    /// type's own `validate`), as the type returns it (not yet placed in the type's name).
    fn dyn_validate(&self) -> Result<()>;
}

impl fmt::Debug for dyn AnyExtension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", self.name(), self.any_spec())
    }
}

/// Text for people of any extension value, derived or anonymous: its dtype and shape when
/// tensor-like, its spec, then each component nested by shape, by field path
/// (`pkg.Pair { a: i32[2], b: f64[] } {a: [1, 2], b: 4.0}`). A type may have its own `Display`
/// (the library's `MaskedTensor` does); this is the one every type has, reached through
/// [`display`](crate::spec::display) or [`Value`]'s `Display`.
impl fmt::Display for dyn AnyExtension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(like) = self.dyn_tensor_like() {
            crate::tensor::fmt_head(like, f)?;
            f.write_str(" ")?;
        }
        let spec = self.any_spec();
        write!(f, "{spec} {{")?;
        let paths = spec.dyn_component_paths();
        for (i, (path, view)) in paths.iter().zip(self.component_views()).enumerate() {
            f.write_str(if i == 0 { "" } else { ", " })?;
            write!(f, "{path}: ")?;
            crate::tensor::write_nested(&view, None, f)?;
        }
        f.write_str("}")
    }
}

/// An extension value of any type behind a shared pointer: what
/// [`Value::Extension`] holds. Derefs to
/// [`dyn AnyExtension`](AnyExtension); clone is O(1).
///
/// One allocation holds the reference count and the value, so wrapping a handler's result costs
/// one allocation, and usually not even that: each thread keeps the block of the last value it
/// freed for the next value of the same layout ([`release_spare`](Self::release_spare)).
/// Reference counting and dropping are code shared by all types (through the `dyn`); per type
/// there are only the slot's few methods.
///
/// The handle is one thin pointer, to the allocation's header; the `dyn` pointer to the whole
/// allocation is kept in the header. A result handed up through the dispatch layers is then one
/// word: a 16-byte (data, vtable) pair written by a handler as two 8-byte stores and read back
/// by its caller as one 16-byte load defeats the CPU's store forwarding, which cost several
/// nanoseconds per dispatched call (see BENCHMARKS.md in the repository, "Op dispatch").
pub struct SharedExtension(NonNull<Header>);

/// The start of every allocation: the number of [`SharedExtension`]s pointing at it, and the
/// allocation as the `dyn` pointer its value is reached through.
#[repr(C)]
struct Header {
    count: AtomicUsize,
    this: NonNull<Counted<dyn Shared>>,
}

/// The allocation: its header, and the value. `repr(C)`: the header is at offset 0, so a pointer
/// to the allocation is a pointer to its header.
#[repr(C)]
struct Counted<S: ?Sized> {
    header: Header,
    slot: S,
}

// SAFETY: the pointee's count is atomic and its slot is `Send + Sync` (a bound of `Shared`);
// the value is reached mutably only through `get_mut`, by the one owner. These are the
// conditions under which `Arc<dyn Shared>` is `Send` and `Sync`.
unsafe impl Send for SharedExtension {}
// SAFETY: as for `Send`.
unsafe impl Sync for SharedExtension {}

/// An extension value in its [`SharedExtension`] allocation, which a unique owner can move out.
struct Slot<T> {
    value: ManuallyDrop<T>,
    /// Whether `value` was moved out (then only the allocation is freed).
    taken: bool,
}

impl<T> Drop for Slot<T> {
    fn drop(&mut self) {
        if !self.taken {
            // SAFETY: `value` was not moved out, and is dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.value) }
        }
    }
}

/// The type-erased side of a [`Slot`].
trait Shared: Send + Sync {
    fn get(&self) -> &dyn AnyExtension;
    /// Moves the value out into a box.
    ///
    /// # Safety
    /// At most once per slot; afterwards the slot is only dropped.
    unsafe fn take_boxed(&mut self) -> Box<dyn AnyExtension>;
    /// Moves the value out to `out`, with no allocation.
    ///
    /// # Safety
    /// As for [`take_boxed`](Shared::take_boxed); and `out` is valid for writing one value of
    /// the slot's value type (the type of `get().as_any()`).
    unsafe fn take_into(&mut self, out: *mut u8);
    /// Moves the value out as its components.
    ///
    /// # Safety
    /// As for [`take_boxed`](Shared::take_boxed).
    unsafe fn take_components(&mut self) -> Vec<Tensor>;
}

impl<T: ExtensionType> Shared for Slot<T> {
    #[inline]
    fn get(&self) -> &dyn AnyExtension {
        &*self.value
    }

    unsafe fn take_boxed(&mut self) -> Box<dyn AnyExtension> {
        self.taken = true;
        // SAFETY: the caller takes the value at most once; `taken` keeps `drop` off it.
        Box::new(unsafe { ManuallyDrop::take(&mut self.value) })
    }

    unsafe fn take_into(&mut self, out: *mut u8) {
        self.taken = true;
        // SAFETY: the value is taken at most once (the caller's contract; `taken` keeps `drop`
        // off it), and `out` is valid for a `T` (the slot's value type).
        unsafe { std::ptr::write(out as *mut T, ManuallyDrop::take(&mut self.value)) }
    }

    unsafe fn take_components(&mut self) -> Vec<Tensor> {
        self.taken = true;
        // SAFETY: as in `take_boxed`.
        unsafe { ManuallyDrop::take(&mut self.value) }.into_components()
    }
}

impl Shared for Slot<Box<dyn AnyExtension>> {
    #[inline]
    fn get(&self) -> &dyn AnyExtension {
        &**self.value
    }

    unsafe fn take_boxed(&mut self) -> Box<dyn AnyExtension> {
        self.taken = true;
        // SAFETY: as for `Slot<T>`.
        unsafe { ManuallyDrop::take(&mut self.value) }
    }

    unsafe fn take_into(&mut self, out: *mut u8) {
        // SAFETY: forwarded from the caller; `move_into` writes the boxed value (of the type of
        // its `as_any`, which `get` returns) to `out` and frees the box.
        unsafe { self.take_boxed().move_into(out) }
    }

    unsafe fn take_components(&mut self) -> Vec<Tensor> {
        // SAFETY: forwarded from the caller.
        unsafe { self.take_boxed() }.into_components_boxed()
    }
}

impl SharedExtension {
    /// Wraps an extension value (one allocation).
    pub fn new<T: ExtensionType>(value: T) -> Self {
        Self::from_slot(Slot {
            value: ManuallyDrop::new(value),
            taken: false,
        })
    }

    /// Wraps a boxed extension value.
    pub fn from_box(value: Box<dyn AnyExtension>) -> Self {
        Self::from_slot(Slot {
            value: ManuallyDrop::new(value),
            taken: false,
        })
    }

    #[inline]
    fn from_slot<S: Shared + 'static>(slot: S) -> Self {
        let layout = Layout::new::<Counted<S>>();
        let raw = match spare::take(layout) {
            Some(reused) => reused.as_ptr(),
            // SAFETY: the layout is not zero-sized (it holds the count).
            None => unsafe { alloc(layout) },
        };
        let Some(raw) = NonNull::new(raw.cast::<Counted<S>>()) else {
            handle_alloc_error(layout)
        };
        let this: NonNull<Counted<dyn Shared>> = raw;
        // SAFETY: `raw` is a block of `Counted<S>`'s layout from the global allocator, fresh or
        // given up by a dropped value (`spare` hands a block out once); nothing else points at it.
        unsafe {
            raw.as_ptr().write(Counted {
                header: Header {
                    count: AtomicUsize::new(1),
                    this,
                },
                slot,
            })
        };
        SharedExtension(raw.cast::<Header>())
    }

    #[inline]
    fn header(&self) -> &Header {
        // SAFETY: the allocation lives while any `SharedExtension` points at it, and `self` does;
        // it starts with its initialised header (`Counted` is `repr(C)`).
        unsafe { self.0.as_ref() }
    }

    /// The whole allocation, as written by `from_slot`.
    #[inline]
    fn this(&self) -> NonNull<Counted<dyn Shared>> {
        self.header().this
    }

    /// The slot, if this is the only reference to it.
    #[inline]
    fn get_mut(&mut self) -> Option<&mut dyn Shared> {
        // Acquire: other owners' uses of the value (released by their drops) happen before ours.
        if self.header().count.load(Ordering::Acquire) != 1 {
            return None;
        }
        // SAFETY: the count is one, so `self` is the only pointer to the allocation, and no
        // other can appear while `self` is borrowed mutably (a clone needs a reference to one).
        Some(unsafe { &mut (*self.this().as_ptr()).slot })
    }

    /// The value, if this is the only reference to it.
    pub fn try_unwrap(mut self) -> std::result::Result<Box<dyn AnyExtension>, SharedExtension> {
        match self.get_mut() {
            // SAFETY: the only reference, consumed here: the slot is dropped right after.
            Some(slot) => Ok(unsafe { slot.take_boxed() }),
            None => Err(self),
        }
    }

    /// The value as a `T`, moved out with no allocation when this is the only reference and the
    /// value is a `T`; `Err(self)` otherwise.
    pub fn try_take<T: ExtensionType>(mut self) -> std::result::Result<T, SharedExtension> {
        if !self.as_any().is::<T>() {
            return Err(self);
        }
        match self.get_mut() {
            Some(slot) => {
                let mut out = std::mem::MaybeUninit::<T>::uninit();
                // SAFETY: the only reference, consumed here (the slot, marked taken, is dropped
                // right after); the value is a `T` (`as_any` is the value itself, by the
                // `AnyExtension` contract), so `out` is valid for it, and `take_into` writes it.
                unsafe {
                    slot.take_into(out.as_mut_ptr() as *mut u8);
                    Ok(out.assume_init())
                }
            }
            None => Err(self),
        }
    }

    /// The components: moved out when this is the only reference, else those of a clone.
    pub fn into_components(mut self) -> Vec<Tensor> {
        match self.get_mut() {
            // SAFETY: as in `try_unwrap`.
            Some(slot) => unsafe { slot.take_components() },
            None => self.clone_components(),
        }
    }

    /// Whether both point to the same value.
    pub fn ptr_eq(a: &SharedExtension, b: &SharedExtension) -> bool {
        a.0 == b.0
    }

    /// Frees the one block this thread keeps for the next value: dropping the last reference to
    /// a value keeps its allocation (the struct, not its tensors' buffers) for the next value of
    /// the same layout, because every op returns a fresh value and a loop of ops would otherwise
    /// pay a free and a malloc per call. The block is freed anyway when the thread ends; call
    /// this before counting a thread's live allocations (leak checks, tests).
    pub fn release_spare() {
        spare::release_this_thread();
    }

    /// How many `SharedExtension`s point at this value (a snapshot: others may change it).
    pub fn ref_count(&self) -> usize {
        self.header().count.load(Ordering::Relaxed)
    }
}

impl Clone for SharedExtension {
    #[inline]
    fn clone(&self) -> Self {
        // Relaxed, as in `Arc`: a new reference is made from an existing one, so the allocation
        // is alive, and no other memory needs ordering with the increment.
        let old = self.header().count.fetch_add(1, Ordering::Relaxed);
        // Counts near `usize::MAX` can only come from leaked clones; wrapping would free the
        // value while it is in use, so stop, as `Arc` does.
        if old > isize::MAX as usize {
            std::process::abort();
        }
        SharedExtension(self.0)
    }
}

impl Drop for SharedExtension {
    #[inline]
    fn drop(&mut self) {
        let count = &self.header().count;
        // A count of one is this reference alone: no other exists and none can appear, so no
        // read-modify-write is needed. Acquire: other owners' uses of the value (released by
        // their decrements) happen before the free.
        if count.load(Ordering::Acquire) != 1 {
            if count.fetch_sub(1, Ordering::Release) != 1 {
                return;
            }
            // The last reference after all (the others were dropped meanwhile).
            fence(Ordering::Acquire);
        }
        let raw = self.this().as_ptr();
        // SAFETY: this was the last reference, so nothing else can reach the allocation; it
        // holds an initialised `Counted` (written in `from_slot`), dropped once, here.
        let layout = unsafe {
            let layout = Layout::for_value(&*raw);
            std::ptr::drop_in_place(raw);
            layout
        };
        // SAFETY: the block came from the global allocator with this layout (`from_slot`), holds
        // no value any more, and this was its last reference; `raw` came from a `NonNull`.
        unsafe { spare::give(NonNull::new_unchecked(raw.cast::<u8>()), layout) };
    }
}

impl std::ops::Deref for SharedExtension {
    type Target = dyn AnyExtension;

    #[inline]
    fn deref(&self) -> &(dyn AnyExtension + 'static) {
        // SAFETY: as in `header`; the value is only reached mutably by a unique owner.
        unsafe { self.this().as_ref() }.slot.get()
    }
}

impl std::fmt::Debug for SharedExtension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

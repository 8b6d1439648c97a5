//! Object-safe twins of the spec traits, for values whose type is known only at run time.

use std::any::{Any, TypeId};
use std::fmt;
use std::hash::{Hash, Hasher};

use super::seal::Seal;
use super::value::Value;
use super::{ExtensionType, TensorSpec, TypeSpec, registered_name};
use crate::error::Result;
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorView};

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
    /// A boxed clone.
    fn clone_box(&self) -> Box<dyn AnySpec>;
    /// Debug form of the concrete spec.
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Writes the spec compactly ([`TypeSpec::fmt_compact`]); `Display` of `dyn AnySpec`.
    fn fmt_display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl<S> AnySpec for S
where
    S: TypeSpec,
    S::Value: ExtensionType<Spec = S>,
{
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn name(&self) -> &str {
        match <S::Value as ExtensionType>::dynamic_name(self, Seal) {
            Some(name) => name,
            None => registered_name::<S::Value>(),
        }
    }
    fn value_type_name(&self) -> &'static str {
        std::any::type_name::<S::Value>()
    }
    fn value_type_id(&self) -> TypeId {
        TypeId::of::<S::Value>()
    }
    fn dyn_component_specs(&self) -> Vec<TensorSpec> {
        TypeSpec::component_specs(self)
    }
    fn dyn_num_components(&self) -> usize {
        TypeSpec::num_components(self)
    }
    fn dyn_component_paths(&self) -> Vec<String> {
        TypeSpec::component_paths(self)
    }
    fn dyn_serialize(&self) -> SpecTree {
        TypeSpec::serialize(self)
    }
    // No closures or combinators below: each would be one more function compiled per type.
    fn dyn_from_components(&self, components: Vec<Tensor>) -> Result<Value> {
        match TypeSpec::from_components(self, components) {
            Ok(value) => Ok(Value::from_extension(value)),
            Err(e) => Err(e),
        }
    }
    fn dyn_eq(&self, other: &dyn AnySpec) -> bool {
        match other.as_any().downcast_ref::<S>() {
            Some(other) => PartialEq::eq(self, other),
            None => false,
        }
    }
    fn dyn_hash(&self, mut state: &mut dyn Hasher) {
        TypeId::of::<S>().hash(&mut state);
        self.hash(&mut state);
    }
    fn dyn_is_compatible_with(&self, other: &dyn AnySpec) -> bool {
        match other.as_any().downcast_ref::<S>() {
            Some(other) => TypeSpec::is_compatible_with(self, other),
            None => false,
        }
    }
    #[allow(clippy::manual_map)] // `map` would compile one more closure per type.
    fn dyn_most_specific_compatible(&self, other: &dyn AnySpec) -> Option<Box<dyn AnySpec>> {
        match other.as_any().downcast_ref::<S>() {
            Some(other) => match TypeSpec::most_specific_compatible(self, other) {
                Some(spec) => Some(Box::new(spec)),
                None => None,
            },
            None => None,
        }
    }
    fn clone_box(&self) -> Box<dyn AnySpec> {
        Box::new(self.clone())
    }
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
    fn fmt_display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_compact(f)
    }
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
}

// SAFETY: `as_any` is the value itself, and `move_into` writes it.
unsafe impl<T: ExtensionType> AnyExtension for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    unsafe fn move_into(self: Box<Self>, out: *mut u8) {
        // SAFETY: `out` is valid for a `T` (the caller's contract).
        unsafe { std::ptr::write(out as *mut T, *self) }
    }
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
    fn name(&self) -> &str {
        match self.dynamic_value_name(Seal) {
            Some(name) => name,
            None => registered_name::<T>(),
        }
    }
    fn any_spec(&self) -> Box<dyn AnySpec> {
        Box::new(self.spec())
    }
    fn component_views(&self) -> Vec<TensorView<'_>> {
        TypeSpec::to_components(&self.spec(), self)
    }
    fn clone_components(&self) -> Vec<Tensor> {
        self.clone().into_components()
    }
    fn into_components_boxed(self: Box<Self>) -> Vec<Tensor> {
        (*self).into_components()
    }
}

impl fmt::Debug for dyn AnyExtension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", self.name(), self.any_spec())
    }
}

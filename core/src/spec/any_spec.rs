//! The blanket impls of the object-safe spec traits: every spec of an [`ExtensionType`] is an
//! [`AnySpec`], and every [`ExtensionType`] an [`AnyExtension`]. The traits are declared in
//! `value.rs`, below this file, with the [`Value`] they hand out (they name each other).

use std::any::{Any, TypeId};
use std::fmt;
use std::hash::{Hash, Hasher};

use super::seal::Seal;
use super::type_spec::{ExtensionType, TypeSpec, registered_name};
use super::value::{AnyExtension, AnySpec, Value};
use crate::error::Result;
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorLike, TensorSpec, TensorView};

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
    fn dyn_validity(&self) -> Vec<(String, String)> {
        TypeSpec::validity(self)
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
    fn dyn_with_component_specs(&self, specs: Vec<TensorSpec>) -> Result<Box<dyn AnySpec>> {
        match TypeSpec::with_component_specs(self, specs) {
            Ok(spec) => Ok(Box::new(spec)),
            Err(e) => Err(e),
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
    fn dyn_tensor_like(&self) -> Option<&dyn TensorLike> {
        <S::Value as ExtensionType>::spec_as_tensor_like(self)
    }
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
    fn dyn_tensor_like(&self) -> Option<&dyn TensorLike> {
        ExtensionType::as_tensor_like(self)
    }
    fn dyn_validate(&self) -> Result<()> {
        ExtensionType::validate(self)
    }
}

/// Any extension value as text for people, whether or not its type implements `Display`: its
/// dtype and shape when tensor-like, its spec, then each component nested by shape, by field
/// path. The derive does not generate `Display` (a type keeps the freedom to write its own, as
/// the library's `MaskedTensor` does); this is the `Display` every type has, in the manner of
/// [`Path::display`](std::path::Path::display). No copy is made (an erased
/// [`Value`]'s `Display` prints the same).
///
/// ```text
/// let p = Pair { a: array![[1i32, 2], [3, 4]].into(), b: 4.0 };   // #[derive(ExtensionType)]
/// println!("{}", extype::display(&p));
/// // pkg.Pair { a: i32[2, 2], b: 4.0 } {a: [[1, 2], [3, 4]]}
/// ```
///
/// (The facade's `tests/display.rs` runs this.)
pub fn display<T: ExtensionType>(value: &T) -> &dyn AnyExtension {
    value
}

//! The [`TypeSpec`] and [`ExtensionType`] traits (TF's Extension Types RFC, in Rust).

use std::any::TypeId;
use std::fmt::Debug;
use std::hash::Hash;
use std::mem::{ManuallyDrop, MaybeUninit};

use super::TensorSpec;
use super::seal::Seal;
use super::value_table::{ValueOps, ValueTable};
use crate::error::Result;
use crate::names::registered_name_of;
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorLike, TensorView};

/// Where [`TypeSpec::from_source`] takes a spec's parts from: the specs of tensors named by
/// component path (`values`, `items[1].mask`, `table.key`), and the static values a caller gave
/// by path. `io::load_components_inferred` implements it over a file's header.
pub trait SpecSource {
    /// The spec (dtype, exact shape) of the tensor named `path`, if there is one; an error
    /// when there is one this source cannot describe (a dtype extype does not read).
    fn tensor(&mut self, path: &str) -> Result<Option<TensorSpec>>;

    /// Whether a tensor is named `path`, or its name starts with `path.` or `path[` (every
    /// tensor, for the empty root path).
    fn has_under(&mut self, path: &str) -> bool;

    /// The distinct names `k` of the tensors `path.k`, `path.k.…`, `path.k[…` (of every tensor's
    /// first segment, for the empty root path), sorted.
    fn keys_under(&mut self, path: &str) -> Vec<String>;

    /// Takes the static value given for `path`, if one was given.
    fn take_static(&mut self, path: &str) -> Option<SpecTree>;

    /// Called before the spec of a derived type (of `TypeId` `type_id`) at `path` is built
    /// from this source (the empty path: the root): a source may add static values it infers
    /// for that type, under `path`. The file source of `io` runs the type's registered
    /// `io::InferStatics` here. The default does nothing.
    fn derived_at(&mut self, type_id: TypeId, path: &str) {
        let _ = (type_id, path);
    }
}

/// The static type of an extension value, with TF's four jobs of a spec:
///
/// 1. store the value's static data (dtypes, partial shapes, non-tensor fields);
/// 2. serialize itself to a [`SpecTree`] and back;
/// 3. decompose a value into tensor components and rebuild it from them
///    ([`component_specs`](Self::component_specs) describes them);
/// 4. strict equality (`Eq`/`Hash`), loose [`is_compatible_with`](Self::is_compatible_with), and
///    relaxation ([`most_specific_compatible`](Self::most_specific_compatible)).
///
/// `#[derive(ExtensionType)]` implements it; hand-written impls must keep the component order of
/// [`ExtensionType::into_components`].
pub trait TypeSpec: Clone + Debug + Eq + Hash + Send + Sync + 'static {
    /// The value type this spec describes.
    type Value;

    /// The spec of each component, flat, in component order.
    fn component_specs(&self) -> Vec<TensorSpec>;

    /// The number of components (the length of [`component_specs`](Self::component_specs)).
    /// Derived specs answer without allocating.
    fn num_components(&self) -> usize {
        self.component_specs().len()
    }

    /// The path of each component (`values`, `children[1].mask`), in component order: its name in
    /// errors and on disk. The default numbers them (`0`, `1`, …); derived specs give field paths.
    fn component_paths(&self) -> Vec<String> {
        (0..self.component_specs().len())
            .map(|i| i.to_string())
            .collect()
    }

    /// The components declared as the validity of others, as `(mask path, values path)` pairs
    /// of [`component_paths`](Self::component_paths): the mask (a `bool` component of the
    /// values' shape, `true` = valid) says which elements of the values are valid. A derived
    /// type declares one with `#[extype(validity_of = values)]` on the mask field; the pairs
    /// of nested types come with their paths (`signal.mask`, `signal.values`). Arrow export
    /// writes the mask as the values' validity bitmap (`extype-arrow`). The default: none.
    fn validity(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Borrowed views of the value's components, in component order (no copies).
    fn to_components<'a>(&self, value: &'a Self::Value) -> Vec<TensorView<'a>>;

    /// Rebuilds a value from components, taking static data from `self`. Checks the count, and
    /// each component's dtype and shape against this spec; errors name the field path.
    #[allow(clippy::wrong_self_convention)] // the RFC's name; the spec supplies the static data
    fn from_components(&self, components: Vec<Tensor>) -> Result<Self::Value>;

    /// This spec with the spec of each component replaced by the one at the same position of
    /// `specs` (in component order, one per component), static data kept: the spec of a value
    /// whose tensors are those of this spec's values transformed one by one.
    ///
    /// Derived specs rebuild themselves field by field, through nested extension types and
    /// `Option`/`Vec`/array/map/tuple fields (container lengths and map keys are kept), check
    /// each replacement against what the field's Rust type fixes (an `Array2<f32>` field takes
    /// only `f32` specs of rank 2), and refine the result with the type's shape contract. Errors
    /// name the type (a count that is not [`num_components`](Self::num_components)) or the
    /// component's path. The default (hand-written specs) returns an error saying the type does
    /// not support it.
    fn with_component_specs(&self, specs: Vec<TensorSpec>) -> Result<Self> {
        let _ = specs;
        Err(crate::error::SpecError::Data {
            path: String::new(),
            expected: "a spec type that rebuilds itself from component specs \
                       (`TypeSpec::with_component_specs`; derived specs do)"
                .into(),
            found: std::any::type_name::<Self>().into(),
        }
        .into())
    }

    /// The spec of a value whose tensors are described by `source` (a file's tensors, named by
    /// component path) and whose static data is given there too: each tensor component takes
    /// the dtype and shape of the tensor at its path, each static field the value given for its
    /// path; an `Option` is `Some` when anything lies under its path, a `Vec` as long as the
    /// indices found there, a map has the keys found there. Checked as
    /// [`with_component_specs`](Self::with_component_specs) checks (dtypes and ranks against the
    /// field types, the shape contract); errors name the component's path.
    ///
    /// Derived specs implement it; the default (hand-written specs) returns an error saying the
    /// type does not support it.
    fn from_source(source: &mut dyn SpecSource) -> Result<Self> {
        let _ = source;
        Err(crate::error::SpecError::Data {
            path: String::new(),
            expected: "a spec type that builds itself from a file's tensors \
                       (`TypeSpec::from_source`; derived specs do)"
                .into(),
            found: std::any::type_name::<Self>().into(),
        }
        .into())
    }

    /// Serializes this spec (a registered spec is a [`SpecTree::Spec`] naming its type).
    fn serialize(&self) -> SpecTree;

    /// Deserializes a spec written by [`serialize`](Self::serialize).
    fn deserialize(value: &SpecTree) -> Result<Self>;

    /// Loose, symmetric compatibility: shapes compatible, dtypes and static data equal.
    fn is_compatible_with(&self, other: &Self) -> bool;

    /// Writes the spec compactly for people (`pkg.Masked { values: f32[2, 3], … }`): by default
    /// the text form of [`serialize`](Self::serialize); derived specs keep declaration order.
    fn fmt_compact(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.serialize(), f)
    }

    /// The most specific spec compatible with both (shapes relaxed); `None` when none is.
    fn most_specific_compatible(&self, other: &Self) -> Option<Self>;
}

/// The name `T` is registered under, or `T::NAME` when it is not registered (or the registry
/// failed to build). Never fails; the registry is built on first use.
#[inline]
pub fn registered_name<T: ExtensionType>() -> &'static str {
    registered_name_of(TypeId::of::<T>(), T::NAME)
}

/// A user type whose values are structs of tensors plus static data.
///
/// `#[derive(ExtensionType)]` implements it (plus [`Field`](crate::Field) so the type nests,
/// and a registry entry). Decomposition moves data; it never copies it.
pub trait ExtensionType: Clone + Send + Sync + 'static {
    /// The spec type (generated as `FooSpec`, public fields mirroring `Foo`).
    type Spec: TypeSpec<Value = Self>;

    /// The default registered name (`"pkg.Foo"`). The registry may hold another name for a
    /// concrete instantiation of a generic type; [`registered_name`](crate::registered_name)
    /// gives the name in use.
    const NAME: &'static str;

    /// The table of a type deriving `ExtensionType`, through which it takes `spec`,
    /// `into_components` and `validate` (its impl writes no method). `None`, the default, for
    /// every other type, which implements `spec` and `into_components` itself: leaving one out
    /// is a compile error where it is used. Typed by `Self`: no impl can borrow another type's
    /// table, and only the derive (vouching for it) builds one.
    #[doc(hidden)]
    const VALUE: Option<ValueTable<Self>> = None;

    /// The exact spec of this value.
    #[inline]
    fn spec(&self) -> Self::Spec {
        let mut out = MaybeUninit::<Self::Spec>::uninit();
        // SAFETY: the table describes `Self` and its spec (`ValueTable::new`); it writes every
        // field of `out`.
        unsafe {
            table_of::<Self>().write_spec(self as *const Self as *const u8, out.as_mut_ptr() as _);
            out.assume_init()
        }
    }

    /// Moves the components out, in component order (no copies).
    #[inline]
    fn into_components(self) -> Vec<Tensor> {
        let mut value = ManuallyDrop::new(self);
        // SAFETY: as in `spec`. Every field is moved out once, and the value is neither used
        // nor dropped afterwards (`ManuallyDrop`).
        unsafe { table_of::<Self>().components(&mut *value as *mut Self as *mut u8) }
    }

    /// Checks invariants the spec cannot express (the derive's `validate = path`, its shape
    /// contract and its nested values). Runs when a value is built with `try_new`, rebuilt from
    /// components, loaded, or reinterpreted.
    #[inline]
    fn validate(&self) -> Result<()> {
        match Self::VALUE {
            // SAFETY: as in `spec`.
            Some(table) => unsafe { table.get().validate(self as *const Self as *const u8) },
            None => Ok(()),
        }
    }

    /// This value as one tensor (its dtype and shape), when the type is tensor-like:
    /// `#[extype(tensor_like = field)]` or `#[extype(tensor_like)]` on the derive returns
    /// `Some(self)`. `None` (the default) for other types. Ops, spec inference and `Display` of a
    /// [`Value`](crate::Value) read it through [`Value::tensor_like`](crate::Value::tensor_like).
    #[inline]
    fn as_tensor_like(&self) -> Option<&dyn TensorLike> {
        None
    }

    /// The spec of a tensor-like type as one tensor spec (its dtype and partial shape); `None`
    /// (the default) when the type is not tensor-like. Set with
    /// [`as_tensor_like`](Self::as_tensor_like) by the same derive attribute.
    #[inline]
    fn spec_as_tensor_like(spec: &Self::Spec) -> Option<&dyn TensorLike> {
        let _ = spec;
        None
    }

    /// The name of a spec whose name is data (anonymous values); `None` for ordinary types,
    /// which use the registered name. Sealed (a parameter of a type no other crate can name):
    /// only this crate's anonymous values override it.
    #[doc(hidden)]
    fn dynamic_name(spec: &Self::Spec, _: Seal) -> Option<&str> {
        let _ = spec;
        None
    }

    /// The name of a value whose name is data (anonymous values); `None` for ordinary types.
    /// Sealed as [`dynamic_name`](Self::dynamic_name).
    #[doc(hidden)]
    fn dynamic_value_name(&self, _: Seal) -> Option<&str> {
        None
    }
}

/// The table of `T`, a derived type. For any other type this is a compile error (raised where
/// the provided method is instantiated): such a type implements `spec` and `into_components`
/// itself.
#[inline(always)]
fn table_of<T: ExtensionType>() -> &'static dyn ValueOps {
    const {
        match T::VALUE {
            Some(table) => table.get(),
            None => panic!(
                "an `ExtensionType` impl that does not come from `#[derive(ExtensionType)]` \
                 implements `spec` and `into_components`"
            ),
        }
    }
}

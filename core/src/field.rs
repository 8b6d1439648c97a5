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
//! `f32`/`f64` (spec [`ExactFloat`]), `String`, [`DType`], [`Shape`], `()` (static fields);
//! `PhantomData` (markers of generic types). User static
//! types opt in with [`static_field!`](crate::static_field) after implementing [`StaticValue`].
//! Extension types get their `Field` impl from the derive.
//!
//! ## What the derive emits for `struct Foo { a: A, b: B }`
//!
//! The field-by-field work is not generated: it lives once in [`crate::derived`], over a table
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
//! `core/tests/common/{masked,ragged,batch}.rs` implement the same traits by hand, field by field,
//! as a type that does not use the derive would.

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};

use ndarray::{ArcArray, Array, Dimension};

use crate::dtype::DType;
use crate::tensor::Element;
use crate::error::{Result, SpecError};
use crate::spec_tree::SpecValue;
use crate::shape::Shape;
use crate::spec::TensorSpec;
use crate::tensor::{Tensor, TensorView};

/// Where a field is inside a value: `values`, `children[1].mask`, `attrs.height`, `pair.0`.
///
/// A linked list on the stack: building a path costs nothing until an error formats it.
#[derive(Clone, Copy, Debug)]
pub enum FieldPath<'a> {
    /// The value itself.
    Root,
    /// A named struct field.
    Field(&'a FieldPath<'a>, &'static str),
    /// An element of a `Vec` or array: `[i]`.
    Index(&'a FieldPath<'a>, usize),
    /// An element of a tuple: `.i`.
    Tuple(&'a FieldPath<'a>, usize),
    /// An entry of a `BTreeMap<String, _>`: `.key`.
    Key(&'a FieldPath<'a>, &'a str),
}

impl<'a> FieldPath<'a> {
    /// The path of a named field below this one.
    #[inline]
    pub fn field(&'a self, name: &'static str) -> FieldPath<'a> {
        FieldPath::Field(self, name)
    }

    /// The path of element `i` of a sequence below this one.
    #[inline]
    pub fn index(&'a self, i: usize) -> FieldPath<'a> {
        FieldPath::Index(self, i)
    }

    /// The path of tuple element `i` below this one.
    #[inline]
    pub fn tuple(&'a self, i: usize) -> FieldPath<'a> {
        FieldPath::Tuple(self, i)
    }

    /// The path of map entry `key` below this one.
    #[inline]
    pub fn key(&'a self, key: &'a str) -> FieldPath<'a> {
        FieldPath::Key(self, key)
    }

    fn is_root(&self) -> bool {
        matches!(self, FieldPath::Root)
    }
}

impl fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldPath::Root => Ok(()),
            FieldPath::Field(parent, name) if parent.is_root() => f.write_str(name),
            FieldPath::Field(parent, name) => write!(f, "{parent}.{name}"),
            FieldPath::Key(parent, key) if parent.is_root() => f.write_str(key),
            FieldPath::Key(parent, key) => write!(f, "{parent}.{key}"),
            FieldPath::Index(parent, i) => write!(f, "{parent}[{i}]"),
            FieldPath::Tuple(parent, i) if parent.is_root() => write!(f, "{i}"),
            FieldPath::Tuple(parent, i) => write!(f, "{parent}.{i}"),
        }
    }
}

/// Where [`Field`] pushes what it yields (views, tensors, component specs), with each item's path.
///
/// `Vec<T>` ignores the paths (free: the path is never formatted); [`PathSink`] keeps them as text
/// (for naming components on disk).
pub trait Sink<T> {
    /// Accepts one item found at `path`.
    fn push(&mut self, path: &FieldPath<'_>, item: T);
}

impl<T> Sink<T> for Vec<T> {
    #[inline]
    fn push(&mut self, _path: &FieldPath<'_>, item: T) {
        Vec::push(self, item);
    }
}

/// A [`Sink`] that records each item with its path as text (`children[1].mask`).
#[derive(Debug, Clone, PartialEq)]
pub struct PathSink<T>(pub Vec<(String, T)>);

impl<T> Default for PathSink<T> {
    fn default() -> Self {
        PathSink(Vec::new())
    }
}

impl<T> Sink<T> for PathSink<T> {
    fn push(&mut self, path: &FieldPath<'_>, item: T) {
        self.0.push((path.to_string(), item));
    }
}

/// The components handed to [`Field::from_components`], consumed in order.
#[derive(Debug)]
pub struct Components {
    iter: std::vec::IntoIter<Tensor>,
}

impl Components {
    /// Wraps the flat component list.
    #[inline]
    pub fn new(components: Vec<Tensor>) -> Self {
        Components {
            iter: components.into_iter(),
        }
    }

    /// How many are left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.iter.len()
    }

    /// The next component, for the field at `path`; an error names the path when none is left.
    #[inline]
    pub fn next_for(&mut self, path: &FieldPath<'_>) -> Result<Tensor> {
        match self.iter.next() {
            Some(tensor) => Ok(tensor),
            None => Err(missing_component(path)),
        }
    }

    /// Like [`next_checked`](Self::next_checked), but checks the component where it lies and
    /// copies it straight to `out` (one move instead of several through `Result`s).
    ///
    /// # Safety
    /// `out` is valid for writing one `Tensor`; on `Err` nothing is written or consumed.
    #[inline]
    pub(crate) unsafe fn next_checked_into(
        &mut self,
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        out: *mut Tensor,
    ) -> Result<()> {
        let Some(next) = self.iter.as_slice().first() else {
            return Err(missing_component(path));
        };
        check_tensor(spec, next, path)?;
        // SAFETY: `next` is a live element of the list; it is copied to `out` (valid, by the
        // caller's contract) and then taken off the list and forgotten, so it is owned once.
        unsafe { std::ptr::copy_nonoverlapping(next, out, 1) };
        std::mem::forget(self.iter.next());
        Ok(())
    }

    /// The next component, checked against `spec` (dtype, and shape admitted by the spec).
    #[inline]
    pub fn next_checked(&mut self, spec: &TensorSpec, path: &FieldPath<'_>) -> Result<Tensor> {
        let tensor = self.next_for(path)?;
        check_tensor(spec, &tensor, path)?;
        Ok(tensor)
    }
}

// Error construction is kept out of line so the checks inline into the rebuild path: the hot path
// then moves each tensor once instead of through several large `Result`s.
#[cold]
#[inline(never)]
fn missing_component(path: &FieldPath<'_>) -> crate::Error {
    SpecError::Data {
        path: path.to_string(),
        expected: "a component".into(),
        found: "the end of the component list".into(),
    }
    .into()
}

#[cold]
#[inline(never)]
fn component_mismatch(spec: &TensorSpec, tensor: &Tensor, path: &FieldPath<'_>) -> crate::Error {
    if spec.dtype != tensor.dtype() {
        SpecError::ComponentDType {
            path: path.to_string(),
            expected: spec.dtype,
            found: tensor.dtype(),
        }
        .into()
    } else {
        SpecError::ComponentShape {
            path: path.to_string(),
            expected: Box::new(spec.shape.clone()),
            found: tensor.shape().to_vec(),
        }
        .into()
    }
}

/// Checks a component against its spec: dtype equal, shape admitted.
#[inline]
pub fn check_tensor(spec: &TensorSpec, tensor: &Tensor, path: &FieldPath<'_>) -> Result<()> {
    if spec.dtype == tensor.dtype() && spec.shape.admits(tensor.shape()) {
        Ok(())
    } else {
        Err(component_mismatch(spec, tensor, path))
    }
}

/// Checks that a serialized struct spec (`fields`, of the type named `name`) has exactly the
/// `expected` keys; errors name the missing or unknown field's path.
pub(crate) fn check_struct_keys(
    fields: &BTreeMap<String, SpecValue>,
    path: &FieldPath<'_>,
    name: &str,
    expected: &[&'static str],
) -> Result<()> {
    for field in expected {
        if !fields.contains_key(*field) {
            return Err(SpecError::Data {
                path: path.field(field).to_string(),
                expected: "a field".into(),
                found: "nothing (missing field)".into(),
            }
            .into());
        }
    }
    if let Some(extra) = fields.keys().find(|k| !expected.contains(&k.as_str())) {
        return Err(SpecError::Data {
            path: path.key(extra).to_string(),
            expected: format!("one of the fields {expected:?} of {name:?}"),
            found: "an unknown field".into(),
        }
        .into());
    }
    Ok(())
}

/// An error for spec data of the wrong kind or content at `path`.
pub fn data_error(
    path: &FieldPath<'_>,
    expected: impl Into<String>,
    found: &SpecValue,
) -> crate::Error {
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
    note = "a field may be a tensor (`Array<T, D>`, `ArcArray<T, D>`, `extype::Tensor`), a type deriving `ExtensionType`, static data (bool, integers, floats, `String`, `DType`, `Shape`, or a type declared with `extype::static_field!`), or an `Option`, `Vec`, `Box`, array, tuple or `BTreeMap<String, _>` of fields"
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
    fn spec_to_value(spec: &Self::Spec) -> SpecValue;

    /// Deserializes a spec; errors name `path` and what was expected and found.
    fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self::Spec>;

    /// Loose, symmetric compatibility of two specs.
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool;

    /// The most specific spec compatible with both; `None` when there is none.
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec>;

    /// This type's functions behind untyped pointers, for the tables of derived structs (see
    /// `extype_core::__private::derived`). Not meant to be overridden.
    #[doc(hidden)]
    const OPS: &'static crate::derived::FieldOps = &crate::derived::FieldOps::of::<Self>();
}

// ---------------------------------------------------------------------------------------------
// Tensor fields

fn tensor_spec_from_value(
    value: &SpecValue,
    path: &FieldPath<'_>,
    dtype: Option<DType>,
    rank: Option<usize>,
) -> Result<TensorSpec> {
    let SpecValue::TensorSpec(spec) = value else {
        return Err(data_error(path, "a tensor spec", value));
    };
    if let Some(dtype) = dtype.filter(|&d| d != spec.dtype) {
        return Err(data_error(
            path,
            format!("a tensor spec of dtype {dtype}"),
            &SpecValue::Str(format!("tensor spec {spec}")),
        ));
    }
    if let Some(rank) = rank.filter(|&r| spec.shape.rank().is_some_and(|s| s != r)) {
        return Err(data_error(
            path,
            format!("a tensor spec of rank {rank}"),
            &SpecValue::Str(format!("tensor spec {spec}")),
        ));
    }
    Ok(spec.clone())
}

#[inline]
fn rank_checked(
    spec: &TensorSpec,
    tensor: &Tensor,
    rank: Option<usize>,
    path: &FieldPath<'_>,
) -> Result<()> {
    check_tensor(spec, tensor, path)?;
    match rank {
        Some(rank) if rank != tensor.ndim() => Err(rank_mismatch(rank, tensor, path)),
        _ => Ok(()),
    }
}

#[cold]
#[inline(never)]
fn rank_mismatch(rank: usize, tensor: &Tensor, path: &FieldPath<'_>) -> crate::Error {
    SpecError::ComponentShape {
        path: path.to_string(),
        expected: Box::new(Shape::unknown(rank)),
        found: tensor.shape().to_vec(),
    }
    .into()
}

macro_rules! tensor_field_common {
    ($dtype:expr, $rank:expr) => {
        type Spec = TensorSpec;

        #[inline]
        fn num_components(_spec: &TensorSpec) -> usize {
            1
        }

        #[inline]
        fn component_specs(
            spec: &TensorSpec,
            path: &FieldPath<'_>,
            out: &mut dyn Sink<TensorSpec>,
        ) {
            out.push(path, spec.clone());
        }

        fn spec_to_value(spec: &TensorSpec) -> SpecValue {
            SpecValue::TensorSpec(spec.clone())
        }

        fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<TensorSpec> {
            tensor_spec_from_value(value, path, $dtype, $rank)
        }

        #[inline]
        fn spec_is_compatible(a: &TensorSpec, b: &TensorSpec) -> bool {
            a.is_compatible_with(b)
        }

        #[inline]
        fn spec_most_specific_compatible(a: &TensorSpec, b: &TensorSpec) -> Option<TensorSpec> {
            a.most_specific_compatible(b)
        }
    };
}

/// An owned array: its static rank `D` is part of what a spec must agree with.
impl<T: Element, D: Dimension + Send + Sync + 'static> Field for Array<T, D> {
    tensor_field_common!(Some(T::DTYPE), D::NDIM);

    #[inline]
    fn field_spec(&self) -> TensorSpec {
        TensorSpec::from_shape_dtype(self.shape(), T::DTYPE)
    }

    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        out.push(path, TensorView::from_array(self.view()));
    }

    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        out.push(path, Tensor::from_array(self));
    }

    #[inline]
    fn from_components(
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        let tensor = components.next_for(path)?;
        rank_checked(spec, &tensor, D::NDIM, path)?;
        // Moves when the tensor is uniquely owned (the usual case after `into_components`).
        tensor.into_array::<T, D>()
    }
}

/// A shared array: O(1) clone, never copied.
impl<T: Element, D: Dimension + Send + Sync + 'static> Field for ArcArray<T, D> {
    tensor_field_common!(Some(T::DTYPE), D::NDIM);

    #[inline]
    fn field_spec(&self) -> TensorSpec {
        TensorSpec::from_shape_dtype(self.shape(), T::DTYPE)
    }

    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        out.push(path, TensorView::from_array(self.view()));
    }

    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        out.push(path, Tensor::from_arc_array(self));
    }

    #[inline]
    fn from_components(
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        let tensor = components.next_for(path)?;
        rank_checked(spec, &tensor, D::NDIM, path)?;
        tensor.into_arc_array::<T, D>()
    }
}

/// A dtype-erased tensor: any dtype and rank, fixed by the spec.
impl Field for Tensor {
    tensor_field_common!(None, None);

    #[inline]
    fn field_spec(&self) -> TensorSpec {
        TensorSpec::from_tensor(self)
    }

    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        out.push(path, self.view());
    }

    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        out.push(path, self);
    }

    #[inline]
    fn from_components(
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        components.next_checked(spec, path)
    }

    #[inline]
    unsafe fn from_components_into(
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        components: &mut Components,
        out: *mut Self,
    ) -> Result<()> {
        // SAFETY: forwarded from the caller.
        unsafe { components.next_checked_into(spec, path, out) }
    }
}

// ---------------------------------------------------------------------------------------------
// Static fields

/// Static (non-tensor) data that can be a field: stored in the spec, compared by equality,
/// serialized to a [`SpecValue`]. Implement it, then declare the field type with
/// [`static_field!`](crate::static_field).
///
/// ```
/// use extype_core::{FieldPath, Result, SpecValue, StaticValue, field::data_error};
///
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// enum Interp { Linear, Nearest }
///
/// impl StaticValue for Interp {
///     fn to_spec_value(&self) -> SpecValue {
///         SpecValue::Str(match self { Interp::Linear => "linear", Interp::Nearest => "nearest" }.into())
///     }
///     fn from_spec_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self> {
///         match value {
///             SpecValue::Str(s) if s == "linear" => Ok(Interp::Linear),
///             SpecValue::Str(s) if s == "nearest" => Ok(Interp::Nearest),
///             other => Err(data_error(path, "\"linear\" or \"nearest\"", other)),
///         }
///     }
/// }
/// extype_core::static_field!(Interp);
/// ```
pub trait StaticValue: Clone + fmt::Debug + Eq + Hash + Send + Sync + 'static {
    /// Serializes the value.
    fn to_spec_value(&self) -> SpecValue;
    /// Deserializes the value; errors name `path`.
    fn from_spec_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self>;
}

/// Declares types implementing [`StaticValue`] as static fields: their spec is the value itself,
/// they have no components, and two specs are compatible only when equal.
#[macro_export]
macro_rules! static_field {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::__private::Field for $t {
            type Spec = $t;

            #[inline]
            fn field_spec(&self) -> $t {
                ::core::clone::Clone::clone(self)
            }

            #[inline]
            fn num_components(_spec: &$t) -> usize {
                0
            }

            #[inline]
            fn component_specs(
                _spec: &$t,
                _path: &$crate::__private::FieldPath<'_>,
                _out: &mut dyn $crate::__private::Sink<$crate::__private::TensorSpec>,
            ) {
            }

            #[inline]
            fn push_views<'a>(
                &'a self,
                _path: &$crate::__private::FieldPath<'_>,
                _out: &mut dyn $crate::__private::Sink<$crate::__private::TensorView<'a>>,
            ) {
            }

            #[inline]
            fn push_components(
                self,
                _path: &$crate::__private::FieldPath<'_>,
                _out: &mut dyn $crate::__private::Sink<$crate::__private::Tensor>,
            ) {
            }

            #[inline]
            fn from_components(
                spec: &$t,
                _path: &$crate::__private::FieldPath<'_>,
                _components: &mut $crate::__private::Components,
            ) -> $crate::__private::Result<$t> {
                ::core::result::Result::Ok(::core::clone::Clone::clone(spec))
            }

            fn spec_to_value(spec: &$t) -> $crate::__private::SpecValue {
                $crate::__private::StaticValue::to_spec_value(spec)
            }

            fn spec_from_value(
                value: &$crate::__private::SpecValue,
                path: &$crate::__private::FieldPath<'_>,
            ) -> $crate::__private::Result<$t> {
                <$t as $crate::__private::StaticValue>::from_spec_value(value, path)
            }

            #[inline]
            fn spec_is_compatible(a: &$t, b: &$t) -> bool {
                a == b
            }

            #[inline]
            fn spec_most_specific_compatible(a: &$t, b: &$t) -> ::core::option::Option<$t> {
                if a == b {
                    ::core::option::Option::Some(::core::clone::Clone::clone(a))
                } else {
                    ::core::option::Option::None
                }
            }
        }
    )*};
}

macro_rules! static_int {
    ($($t:ty),*) => {$(
        impl StaticValue for $t {
            fn to_spec_value(&self) -> SpecValue {
                SpecValue::Int(*self as i128)
            }
            fn from_spec_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self> {
                match value {
                    SpecValue::Int(i) => <$t>::try_from(*i).map_err(|_| {
                        data_error(path, concat!("an int in the range of ", stringify!($t)), value)
                    }),
                    other => Err(data_error(path, concat!("an int (", stringify!($t), ")"), other)),
                }
            }
        }
        static_field!($t);
    )*};
}

static_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl StaticValue for bool {
    fn to_spec_value(&self) -> SpecValue {
        SpecValue::Bool(*self)
    }
    fn from_spec_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecValue::Bool(b) => Ok(*b),
            other => Err(data_error(path, "a bool", other)),
        }
    }
}

impl StaticValue for String {
    fn to_spec_value(&self) -> SpecValue {
        SpecValue::Str(self.clone())
    }
    fn from_spec_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecValue::Str(s) => Ok(s.clone()),
            other => Err(data_error(path, "a string", other)),
        }
    }
}

impl StaticValue for DType {
    fn to_spec_value(&self) -> SpecValue {
        SpecValue::DType(*self)
    }
    fn from_spec_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecValue::DType(d) => Ok(*d),
            other => Err(data_error(path, "a dtype", other)),
        }
    }
}

impl StaticValue for Shape {
    fn to_spec_value(&self) -> SpecValue {
        SpecValue::Shape(self.clone())
    }
    fn from_spec_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecValue::Shape(s) => Ok(s.clone()),
            other => Err(data_error(path, "a shape", other)),
        }
    }
}

impl StaticValue for () {
    fn to_spec_value(&self) -> SpecValue {
        SpecValue::None
    }
    fn from_spec_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecValue::None => Ok(()),
            other => Err(data_error(path, "none", other)),
        }
    }
}

static_field!(bool, String, DType, Shape, ());

/// A marker for generic types (`struct Foo<T> { …, _t: PhantomData<T> }`): no components,
/// serialized as `none`, always compatible.
impl<T: Send + Sync + 'static> Field for std::marker::PhantomData<T> {
    type Spec = std::marker::PhantomData<T>;

    #[inline]
    fn field_spec(&self) -> Self::Spec {
        std::marker::PhantomData
    }
    #[inline]
    fn num_components(_spec: &Self::Spec) -> usize {
        0
    }
    #[inline]
    fn component_specs(_spec: &Self::Spec, _path: &FieldPath<'_>, _out: &mut dyn Sink<TensorSpec>) {
    }
    #[inline]
    fn push_views<'a>(&'a self, _path: &FieldPath<'_>, _out: &mut dyn Sink<TensorView<'a>>) {}
    #[inline]
    fn push_components(self, _path: &FieldPath<'_>, _out: &mut dyn Sink<Tensor>) {}
    #[inline]
    fn from_components(
        _spec: &Self::Spec,
        _path: &FieldPath<'_>,
        _components: &mut Components,
    ) -> Result<Self> {
        Ok(std::marker::PhantomData)
    }
    fn spec_to_value(_spec: &Self::Spec) -> SpecValue {
        SpecValue::None
    }
    fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self::Spec> {
        <()>::from_spec_value(value, path).map(|()| std::marker::PhantomData)
    }
    #[inline]
    fn spec_is_compatible(_a: &Self::Spec, _b: &Self::Spec) -> bool {
        true
    }
    #[inline]
    fn spec_most_specific_compatible(_a: &Self::Spec, _b: &Self::Spec) -> Option<Self::Spec> {
        Some(std::marker::PhantomData)
    }
}

/// The spec of a float field: the float itself, with strict equality and hashing by bits (so
/// specs stay `Eq + Hash`; `NaN` equals itself, `0.0 != -0.0`).
#[derive(Debug, Clone, Copy)]
pub struct ExactFloat<T>(pub T);

macro_rules! static_float {
    ($($t:ty),*) => {$(
        impl PartialEq for ExactFloat<$t> {
            fn eq(&self, other: &Self) -> bool {
                self.0.to_bits() == other.0.to_bits()
            }
        }
        impl Eq for ExactFloat<$t> {}
        impl Hash for ExactFloat<$t> {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.0.to_bits().hash(state);
            }
        }

        impl Field for $t {
            type Spec = ExactFloat<$t>;

            #[inline]
            fn field_spec(&self) -> Self::Spec {
                ExactFloat(*self)
            }
            #[inline]
            fn num_components(_spec: &Self::Spec) -> usize {
                0
            }
            #[inline]
            fn component_specs(_spec: &Self::Spec, _path: &FieldPath<'_>, _out: &mut dyn Sink<TensorSpec>) {}
            #[inline]
            fn push_views<'a>(&'a self, _path: &FieldPath<'_>, _out: &mut dyn Sink<TensorView<'a>>) {}
            #[inline]
            fn push_components(self, _path: &FieldPath<'_>, _out: &mut dyn Sink<Tensor>) {}
            #[inline]
            fn from_components(spec: &Self::Spec, _path: &FieldPath<'_>, _components: &mut Components) -> Result<Self> {
                Ok(spec.0)
            }
            fn spec_to_value(spec: &Self::Spec) -> SpecValue {
                SpecValue::Float(f64::from(spec.0))
            }
            fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self::Spec> {
                match value {
                    // Round trips exactly: an f32 widened to f64 narrows back to itself.
                    #[allow(clippy::cast_possible_truncation)]
                    SpecValue::Float(f) => Ok(ExactFloat(*f as $t)),
                    other => Err(data_error(path, concat!("a float (", stringify!($t), ")"), other)),
                }
            }
            #[inline]
            fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
                a == b
            }
            #[inline]
            fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
                (a == b).then_some(*a)
            }
        }
    )*};
}

static_float!(f32, f64);

// ---------------------------------------------------------------------------------------------
// Containers

/// `None` has no components; `Some` has its value's. Serialized as `none` or the inner spec, so
/// `Option<Option<_>>` (whose `Some(None)` would read back as `None`) is not a supported field.
impl<F: Field> Field for Option<F> {
    type Spec = Option<F::Spec>;

    #[inline]
    fn field_spec(&self) -> Self::Spec {
        self.as_ref().map(F::field_spec)
    }
    #[inline]
    fn num_components(spec: &Self::Spec) -> usize {
        spec.as_ref().map_or(0, F::num_components)
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        if let Some(s) = spec {
            F::component_specs(s, path, out);
        }
    }
    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        if let Some(v) = self {
            v.push_views(path, out);
        }
    }
    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        if let Some(v) = self {
            v.push_components(path, out);
        }
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        spec.as_ref()
            .map(|s| F::from_components(s, path, components))
            .transpose()
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecValue {
        spec.as_ref().map_or(SpecValue::None, F::spec_to_value)
    }
    fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self::Spec> {
        match value {
            SpecValue::None => Ok(None),
            other => F::spec_from_value(other, path).map(Some),
        }
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => F::spec_is_compatible(a, b),
            _ => false,
        }
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        match (a, b) {
            (None, None) => Some(None),
            (Some(a), Some(b)) => F::spec_most_specific_compatible(a, b).map(Some),
            _ => None,
        }
    }
}

/// The length is static spec data; elements are `[i]` in paths.
impl<F: Field> Field for Vec<F> {
    type Spec = Vec<F::Spec>;

    fn field_spec(&self) -> Self::Spec {
        self.iter().map(F::field_spec).collect()
    }
    fn num_components(spec: &Self::Spec) -> usize {
        spec.iter().map(F::num_components).sum()
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        for (i, s) in spec.iter().enumerate() {
            F::component_specs(s, &path.index(i), out);
        }
    }
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        for (i, v) in self.iter().enumerate() {
            v.push_views(&path.index(i), out);
        }
    }
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        for (i, v) in self.into_iter().enumerate() {
            v.push_components(&path.index(i), out);
        }
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        spec.iter()
            .enumerate()
            .map(|(i, s)| F::from_components(s, &path.index(i), components))
            .collect()
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecValue {
        SpecValue::List(spec.iter().map(F::spec_to_value).collect())
    }
    fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self::Spec> {
        match value {
            SpecValue::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| F::spec_from_value(v, &path.index(i)))
                .collect(),
            other => Err(data_error(path, "a list", other)),
        }
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(a, b)| F::spec_is_compatible(a, b))
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        if a.len() != b.len() {
            return None;
        }
        a.iter()
            .zip(b)
            .map(|(a, b)| F::spec_most_specific_compatible(a, b))
            .collect()
    }
}

/// The spec is the boxed inner spec (so recursive types have finite specs).
impl<F: Field> Field for Box<F> {
    type Spec = Box<F::Spec>;

    #[inline]
    fn field_spec(&self) -> Self::Spec {
        Box::new(F::field_spec(self))
    }
    #[inline]
    fn num_components(spec: &Self::Spec) -> usize {
        F::num_components(spec)
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        F::component_specs(spec, path, out);
    }
    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        F::push_views(self, path, out);
    }
    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        F::push_components(*self, path, out);
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        F::from_components(spec, path, components).map(Box::new)
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecValue {
        F::spec_to_value(spec)
    }
    fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self::Spec> {
        F::spec_from_value(value, path).map(Box::new)
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        F::spec_is_compatible(a, b)
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        F::spec_most_specific_compatible(a, b).map(Box::new)
    }
}

fn into_array<T, const N: usize>(items: Vec<T>) -> [T; N] {
    match items.try_into() {
        Ok(array) => array,
        // Every caller builds exactly N items from an `[_; N]`.
        Err(_) => unreachable!("built from an array of length N"),
    }
}

/// Fixed length `N`; serialized as a tuple; elements are `[i]` in paths.
impl<F: Field, const N: usize> Field for [F; N] {
    type Spec = [F::Spec; N];

    fn field_spec(&self) -> Self::Spec {
        std::array::from_fn(|i| self[i].field_spec())
    }
    fn num_components(spec: &Self::Spec) -> usize {
        spec.iter().map(F::num_components).sum()
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        for (i, s) in spec.iter().enumerate() {
            F::component_specs(s, &path.index(i), out);
        }
    }
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        for (i, v) in self.iter().enumerate() {
            v.push_views(&path.index(i), out);
        }
    }
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        for (i, v) in self.into_iter().enumerate() {
            v.push_components(&path.index(i), out);
        }
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        let items = spec
            .iter()
            .enumerate()
            .map(|(i, s)| F::from_components(s, &path.index(i), components))
            .collect::<Result<Vec<F>>>()?;
        Ok(into_array(items))
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecValue {
        SpecValue::Tuple(spec.iter().map(F::spec_to_value).collect())
    }
    fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self::Spec> {
        match value {
            SpecValue::Tuple(items) if items.len() == N => {
                let specs = items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| F::spec_from_value(v, &path.index(i)))
                    .collect::<Result<Vec<_>>>()?;
                Ok(into_array(specs))
            }
            other => Err(data_error(path, format!("a tuple of {N}"), other)),
        }
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        a.iter().zip(b).all(|(a, b)| F::spec_is_compatible(a, b))
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        let specs = a
            .iter()
            .zip(b)
            .map(|(a, b)| F::spec_most_specific_compatible(a, b))
            .collect::<Option<Vec<_>>>()?;
        Some(into_array(specs))
    }
}

/// Entries in key order; entries are `.key` in paths; the key set is static spec data.
impl<F: Field> Field for BTreeMap<String, F> {
    type Spec = BTreeMap<String, F::Spec>;

    fn field_spec(&self) -> Self::Spec {
        self.iter()
            .map(|(k, v)| (k.clone(), v.field_spec()))
            .collect()
    }
    fn num_components(spec: &Self::Spec) -> usize {
        spec.values().map(F::num_components).sum()
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        for (k, s) in spec {
            F::component_specs(s, &path.key(k), out);
        }
    }
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        for (k, v) in self {
            v.push_views(&path.key(k), out);
        }
    }
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        for (k, v) in self {
            v.push_components(&path.key(&k), out);
        }
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        spec.iter()
            .map(|(k, s)| Ok((k.clone(), F::from_components(s, &path.key(k), components)?)))
            .collect()
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecValue {
        SpecValue::Map(
            spec.iter()
                .map(|(k, s)| (k.clone(), F::spec_to_value(s)))
                .collect(),
        )
    }
    fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self::Spec> {
        match value {
            SpecValue::Map(entries) => entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), F::spec_from_value(v, &path.key(k))?)))
                .collect(),
            other => Err(data_error(path, "a map", other)),
        }
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|((ka, a), (kb, b))| ka == kb && F::spec_is_compatible(a, b))
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        if a.len() != b.len() {
            return None;
        }
        a.iter()
            .zip(b)
            .map(|((ka, a), (kb, b))| {
                (ka == kb)
                    .then(|| F::spec_most_specific_compatible(a, b))
                    .flatten()
                    .map(|s| (ka.clone(), s))
            })
            .collect()
    }
}

macro_rules! tuple_field {
    ($len:literal; $($name:ident $idx:tt),+) => {
        /// Serialized as a tuple; elements are `.i` in paths.
        impl<$($name: Field),+> Field for ($($name,)+) {
            type Spec = ($($name::Spec,)+);

            #[inline]
            fn field_spec(&self) -> Self::Spec {
                ($(self.$idx.field_spec(),)+)
            }
            #[inline]
            fn num_components(spec: &Self::Spec) -> usize {
                0 $(+ $name::num_components(&spec.$idx))+
            }
            fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
                $($name::component_specs(&spec.$idx, &path.tuple($idx), out);)+
            }
            #[inline]
            fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
                $(self.$idx.push_views(&path.tuple($idx), out);)+
            }
            #[inline]
            fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
                $(self.$idx.push_components(&path.tuple($idx), out);)+
            }
            fn from_components(spec: &Self::Spec, path: &FieldPath<'_>, components: &mut Components) -> Result<Self> {
                Ok(($($name::from_components(&spec.$idx, &path.tuple($idx), components)?,)+))
            }
            fn spec_to_value(spec: &Self::Spec) -> SpecValue {
                SpecValue::Tuple(vec![$($name::spec_to_value(&spec.$idx)),+])
            }
            fn spec_from_value(value: &SpecValue, path: &FieldPath<'_>) -> Result<Self::Spec> {
                match value {
                    SpecValue::Tuple(items) if items.len() == $len => {
                        Ok(($($name::spec_from_value(&items[$idx], &path.tuple($idx))?,)+))
                    }
                    other => Err(data_error(path, concat!("a tuple of ", $len), other)),
                }
            }
            fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
                true $(&& $name::spec_is_compatible(&a.$idx, &b.$idx))+
            }
            fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
                Some(($($name::spec_most_specific_compatible(&a.$idx, &b.$idx)?,)+))
            }
        }
    };
}

tuple_field!(1; A 0);
tuple_field!(2; A 0, B 1);
tuple_field!(3; A 0, B 1, C 2);
tuple_field!(4; A 0, B 1, C 2, D 3);
tuple_field!(5; A 0, B 1, C 2, D 3, E 4);
tuple_field!(6; A 0, B 1, C 2, D 3, E 4, G 5);

#[cfg(test)]
mod tests {
    use ndarray::{Array1, Array2, Ix2, array};

    use super::*;

    fn round_trip<F: Field + fmt::Debug + PartialEq + Clone>(value: F) {
        let spec = value.field_spec();
        let mut views = Vec::new();
        value.push_views(&FieldPath::Root, &mut views);
        let mut specs = Vec::new();
        F::component_specs(&spec, &FieldPath::Root, &mut specs);
        assert_eq!(views.len(), F::num_components(&spec));
        assert_eq!(specs.len(), views.len());
        for (s, v) in specs.iter().zip(&views) {
            assert!(s.admits_view(v));
        }
        let mut tensors = Vec::new();
        value
            .clone()
            .push_components(&FieldPath::Root, &mut tensors);
        let mut components = Components::new(tensors);
        let back = F::from_components(&spec, &FieldPath::Root, &mut components).unwrap();
        assert_eq!(components.remaining(), 0);
        assert_eq!(back, value);
        let serialized = F::spec_to_value(&spec);
        assert_eq!(
            F::spec_from_value(&serialized, &FieldPath::Root).unwrap(),
            spec
        );
        assert!(F::spec_is_compatible(&spec, &spec));
        assert_eq!(
            F::spec_most_specific_compatible(&spec, &spec),
            Some(spec.clone())
        );
    }

    #[test]
    fn containers_round_trip() {
        round_trip(array![1.0f32, 2.0]);
        round_trip(Some(array![[true]]));
        round_trip(None::<Array1<u8>>);
        round_trip(vec![array![1i32], array![2, 3]]);
        round_trip(Box::new(array![0.5f64]));
        round_trip([array![1u16], array![2u16]]);
        round_trip((array![1i8], 3u32, String::from("x"), 1.5f32));
        round_trip(
            [
                ("a".to_string(), array![1u64]),
                ("b".to_string(), array![2u64]),
            ]
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
        );
        round_trip((DType::F32, Shape::known(&[2, 3]), true, -4i64, 2.5f64));
        round_trip(((), std::marker::PhantomData::<fn() -> u8>, 7usize));
        let err = <()>::spec_from_value(&SpecValue::Bool(true), &FieldPath::Root.field("unit"));
        assert_eq!(
            err.unwrap_err().to_string(),
            "spec unit: expected none, found bool true"
        );
    }

    #[test]
    fn paths_format_like_the_design() {
        let root = FieldPath::Root;
        let children = root.field("children");
        let one = children.index(1);
        let mask = one.field("mask");
        assert_eq!(mask.to_string(), "children[1].mask");
        let attrs = root.field("attrs");
        assert_eq!(attrs.key("height").to_string(), "attrs.height");
        assert_eq!(root.field("pair").tuple(0).to_string(), "pair.0");
    }

    #[test]
    fn rebuild_errors_name_the_path() {
        let spec: Vec<TensorSpec> = vec![
            TensorSpec::new("[2]".parse().unwrap(), DType::F32),
            TensorSpec::new("[?, 3]".parse().unwrap(), DType::F32),
        ];
        type V = Vec<ndarray::ArrayD<f32>>;
        let root = FieldPath::Root;
        let path = root.field("children");
        let bad_dtype = vec![
            Tensor::from(array![1.0f32, 2.0]),
            Tensor::from(array![[1i32, 2, 3]]),
        ];
        let err = V::from_components(&spec, &path, &mut Components::new(bad_dtype)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "component children[1]: expected dtype f32, found i32"
        );
        let bad_shape = vec![
            Tensor::from(array![1.0f32, 2.0]),
            Tensor::from(array![[1.0f32, 2.0]]),
        ];
        let err = V::from_components(&spec, &path, &mut Components::new(bad_shape)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "component children[1]: shape [1, 2] is not compatible with spec shape [?, 3]"
        );
        let short = vec![Tensor::from(array![1.0f32, 2.0])];
        let err = V::from_components(&spec, &path, &mut Components::new(short)).unwrap_err();
        assert!(err.to_string().contains("children[1]"), "{err}");
    }

    #[test]
    fn static_rank_is_checked() {
        let spec = TensorSpec::new(Shape::unknown_rank(), DType::F32);
        let rank3 = vec![Tensor::from(ndarray::Array3::<f32>::zeros((1, 1, 1)))];
        let root = FieldPath::Root;
        let err =
            Array2::<f32>::from_components(&spec, &root.field("x"), &mut Components::new(rank3))
                .unwrap_err();
        assert!(err.to_string().contains("component x"), "{err}");
        let rank1 = SpecValue::TensorSpec(TensorSpec::new("[3]".parse().unwrap(), DType::F32));
        assert!(ndarray::ArcArray::<f32, Ix2>::spec_from_value(&rank1, &root).is_err());
        let wrong_dtype =
            SpecValue::TensorSpec(TensorSpec::new("[3, 3]".parse().unwrap(), DType::F64));
        let err = Array2::<f32>::spec_from_value(&wrong_dtype, &root.field("v")).unwrap_err();
        assert!(err.to_string().contains("dtype f32"), "{err}");
    }

    #[test]
    fn static_specs_are_compared_strictly() {
        assert!(!u32::spec_is_compatible(&3, &4));
        assert_eq!(u32::spec_most_specific_compatible(&3, &4), None);
        let err = u8::spec_from_value(&SpecValue::Int(300), &FieldPath::Root).unwrap_err();
        assert!(err.to_string().contains("range of u8"), "{err}");
        assert!(<Vec<u8>>::spec_most_specific_compatible(&vec![1], &vec![1, 2]).is_none());
    }
}

//! Static fields: data stored in the spec itself (bool, integers, floats as [`ExactFloat`],
//! `String`, [`DType`], [`Shape`], `()`, `PhantomData`, and user types declared with
//! [`static_field!`](crate::static_field) after implementing [`StaticValue`]). No components;
//! two specs are compatible only when equal — except shape-like data, as in TensorFlow: two
//! [`Shape`]s (or two [`TensorSpec`]s kept as static data) are compatible when their shapes are
//! (and dtypes equal), and relax to their join (`[2]` and `[5]` to `[!1]`, a size other than 1;
//! `[1]` and `[5]` to `[?]`; `[2]` and `[2, 3]` to unknown rank).

use std::fmt;
use std::hash::{Hash, Hasher};

use super::{Components, Field, FieldPath, data_error};
use crate::dtype::DType;
use crate::error::Result;
use crate::spec_tree::SpecTree;
use crate::tensor::TensorSpec;
use extype_shape::Shape;

/// Static (non-tensor) data that can be a field: stored in the spec, compared by equality,
/// serialized to a [`SpecTree`]. Implement it, then declare the field type with
/// [`static_field!`](crate::static_field), which also gives it the default batching (equal
/// across a batch; see [`StaticBatch`](crate::batch::StaticBatch) to batch it otherwise).
///
/// ```
/// use extype_core::{FieldPath, Result, SpecTree, StaticValue, field::data_error};
///
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// enum Interp { Linear, Nearest }
///
/// impl StaticValue for Interp {
///     fn to_spec_value(&self) -> SpecTree {
///         SpecTree::Str(match self { Interp::Linear => "linear", Interp::Nearest => "nearest" }.into())
///     }
///     fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
///         match value {
///             SpecTree::Str(s) if s == "linear" => Ok(Interp::Linear),
///             SpecTree::Str(s) if s == "nearest" => Ok(Interp::Nearest),
///             other => Err(data_error(path, "\"linear\" or \"nearest\"", other)),
///         }
///     }
/// }
/// extype_core::static_field!(Interp);
/// ```
pub trait StaticValue: Clone + fmt::Debug + Eq + Hash + Send + Sync + 'static {
    /// Serializes the value.
    fn to_spec_value(&self) -> SpecTree;
    /// Deserializes the value; errors name `path`.
    fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self>;
}

// Runtime of `#[derive(StaticValue)]`: the generated methods are one call each into these.

/// The spec value of a unit variant: its name. (What `#[derive(StaticValue)]` writes for enums.)
#[doc(hidden)]
pub fn static_variant_to_value(name: &'static str) -> SpecTree {
    SpecTree::Str(name.into())
}

/// The index in `variants` of the variant a spec value names; an error names `path`, the type
/// and the variants it has.
#[doc(hidden)]
pub fn static_variant_from_value(
    value: &SpecTree,
    path: &FieldPath<'_>,
    type_name: &str,
    variants: &[&str],
) -> Result<usize> {
    if let SpecTree::Str(name) = value
        && let Some(index) = variants.iter().position(|v| v == name)
    {
        return Ok(index);
    }
    let listed: Vec<String> = variants.iter().map(|v| format!("{v:?}")).collect();
    Err(data_error(
        path,
        format!("a variant of `{type_name}`: one of {}", listed.join(", ")),
        value,
    ))
}

/// A struct's fields as a spec value: a map by field name.
#[doc(hidden)]
pub fn static_struct_to_value(keys: &[&str], values: Vec<SpecTree>) -> SpecTree {
    SpecTree::Map(keys.iter().map(|k| (*k).to_string()).zip(values).collect())
}

/// The values of a struct's fields, in the order of `keys`, from a map holding exactly those
/// keys; an error names `path`, the type and its fields.
#[doc(hidden)]
pub fn static_struct_items<'v>(
    value: &'v SpecTree,
    path: &FieldPath<'_>,
    type_name: &str,
    keys: &[&str],
) -> Result<Vec<&'v SpecTree>> {
    if let SpecTree::Map(entries) = value
        && entries.len() == keys.len()
        && let Some(items) = keys
            .iter()
            .map(|k| entries.get(k))
            .collect::<Option<Vec<_>>>()
    {
        return Ok(items);
    }
    let listed: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    Err(data_error(
        path,
        format!(
            "a map of the fields of `{type_name}` ({})",
            if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join(", ")
            }
        ),
        value,
    ))
}

/// The values of a tuple struct's fields from a tuple of exactly `len`; an error names `path`
/// and the type.
#[doc(hidden)]
pub fn static_tuple_items<'v>(
    value: &'v SpecTree,
    path: &FieldPath<'_>,
    type_name: &str,
    len: usize,
) -> Result<Vec<&'v SpecTree>> {
    match value {
        SpecTree::Tuple(items) if items.len() == len => Ok(items.iter().collect()),
        other => Err(data_error(
            path,
            format!("a tuple of {len} (the fields of `{type_name}`)"),
            other,
        )),
    }
}

/// The `Field` methods of a field type without components (static data, markers): no component
/// specs, views or components. Expanded inside those `Field` impls; not meant to be called
/// directly.
#[doc(hidden)]
#[macro_export]
macro_rules! __no_components {
    () => {
        #[inline]
        fn num_components(_spec: &Self::Spec) -> usize {
            0
        }
        #[inline]
        fn component_specs(
            _spec: &Self::Spec,
            _path: &$crate::__private_v1::FieldPath<'_>,
            _out: &mut dyn $crate::__private_v1::Sink<$crate::__private_v1::TensorSpec>,
        ) {
        }
        #[inline]
        fn push_views<'a>(
            &'a self,
            _path: &$crate::__private_v1::FieldPath<'_>,
            _out: &mut dyn $crate::__private_v1::Sink<$crate::__private_v1::TensorView<'a>>,
        ) {
        }
        #[inline]
        fn push_components(
            self,
            _path: &$crate::__private_v1::FieldPath<'_>,
            _out: &mut dyn $crate::__private_v1::Sink<$crate::__private_v1::Tensor>,
        ) {
        }
    };
}

/// The [`Field`] side of a static field type implementing [`StaticValue`]: its spec is the value
/// itself, it has no components, and two specs are compatible only when equal. What
/// [`static_field!`](crate::static_field) expands to for fields (its [`StaticData`] side is
/// `__static_data!`, in `as_static.rs`, above this file; its batching side is in `batch`); not
/// meant to be called directly.
///
/// [`StaticData`]: super::StaticData
///
/// (The `@loose` form makes [`Shape`] and [`TensorSpec`] fields compare and relax loosely, as
/// TensorFlow does for `TensorShape` and `TensorSpec` fields; `@plain` declares numbers and
/// `bool`, which are not items of a `Vec` or array field.)
#[doc(hidden)]
#[macro_export]
macro_rules! __static_field {
    (@loose $t:ty, $compatible:expr, $join:expr) => {
        $crate::__static_field!(@field $t, $compatible, $join);
        impl $crate::__private_v1::SequenceItem for $t {}
    };
    // Plain numbers and `bool`: static fields, but not items of a `Vec` or array field.
    (@plain $($t:ty),*) => {$(
        $crate::__static_field!(
            @field $t,
            |a: &$t, b: &$t| a == b,
            |a: &$t, b: &$t| if a == b {
                ::core::option::Option::Some(::core::clone::Clone::clone(a))
            } else {
                ::core::option::Option::None
            }
        );
    )*};
    (@field $t:ty, $compatible:expr, $join:expr) => {
        impl $crate::__private_v1::Field for $t {
            type Spec = $t;

            #[inline]
            fn field_spec(&self) -> $t {
                ::core::clone::Clone::clone(self)
            }

            $crate::__no_components!();

            #[inline]
            fn from_components(
                spec: &$t,
                _path: &$crate::__private_v1::FieldPath<'_>,
                _components: &mut $crate::__private_v1::Components,
            ) -> $crate::__private_v1::Result<$t> {
                ::core::result::Result::Ok(::core::clone::Clone::clone(spec))
            }

            fn spec_to_value(spec: &$t) -> $crate::__private_v1::SpecTree {
                $crate::__private_v1::StaticValue::to_spec_value(spec)
            }

            fn spec_from_value(
                value: &$crate::__private_v1::SpecTree,
                path: &$crate::__private_v1::FieldPath<'_>,
            ) -> $crate::__private_v1::Result<$t> {
                <$t as $crate::__private_v1::StaticValue>::from_spec_value(value, path)
            }

            #[inline]
            fn spec_is_compatible(a: &$t, b: &$t) -> bool {
                let compatible: fn(&$t, &$t) -> bool = $compatible;
                compatible(a, b)
            }

            #[inline]
            fn spec_most_specific_compatible(a: &$t, b: &$t) -> ::core::option::Option<$t> {
                let join: fn(&$t, &$t) -> ::core::option::Option<$t> = $join;
                join(a, b)
            }
        }
    };
    ($($t:ty),* $(,)?) => {$(
        $crate::__static_field!(@plain $t);
        impl $crate::__private_v1::SequenceItem for $t {}
    )*};
}

macro_rules! static_int {
    ($($t:ty),*) => {$(
        impl StaticValue for $t {
            fn to_spec_value(&self) -> SpecTree {
                SpecTree::Int(*self as i128)
            }
            fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
                match value {
                    SpecTree::Int(i) => <$t>::try_from(*i).map_err(|_| {
                        data_error(path, concat!("an int in the range of ", stringify!($t)), value)
                    }),
                    other => Err(data_error(path, concat!("an int (", stringify!($t), ")"), other)),
                }
            }
        }
        __static_field!(@plain $t);
    )*};
}

static_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl StaticValue for bool {
    fn to_spec_value(&self) -> SpecTree {
        SpecTree::Bool(*self)
    }
    fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecTree::Bool(b) => Ok(*b),
            other => Err(data_error(path, "a bool", other)),
        }
    }
}

impl StaticValue for String {
    fn to_spec_value(&self) -> SpecTree {
        SpecTree::Str(self.clone())
    }
    fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecTree::Str(s) => Ok(s.clone()),
            other => Err(data_error(path, "a string", other)),
        }
    }
}

impl StaticValue for DType {
    fn to_spec_value(&self) -> SpecTree {
        SpecTree::DType(*self)
    }
    fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecTree::DType(d) => Ok(*d),
            other => Err(data_error(path, "a dtype", other)),
        }
    }
}

impl StaticValue for Shape {
    fn to_spec_value(&self) -> SpecTree {
        SpecTree::Shape(self.clone())
    }
    fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecTree::Shape(s) => Ok(s.clone()),
            other => Err(data_error(path, "a shape", other)),
        }
    }
}

impl StaticValue for () {
    fn to_spec_value(&self) -> SpecTree {
        SpecTree::None
    }
    fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecTree::None => Ok(()),
            other => Err(data_error(path, "none", other)),
        }
    }
}

__static_field!(@plain bool);
__static_field!(String, DType, ());

impl StaticValue for TensorSpec {
    fn to_spec_value(&self) -> SpecTree {
        SpecTree::TensorSpec(self.clone())
    }
    fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecTree::TensorSpec(t) => Ok(t.clone()),
            other => Err(data_error(path, "a tensor spec", other)),
        }
    }
}

// Shape-like static data compares and relaxes loosely, as TensorFlow's `TensorShape` and
// `TensorSpec` fields do: two shapes are compatible when some concrete shape fits both, and relax
// to their join (`[2]` and `[5]` give `[!1]`, `[1]` and `[5]` give `[?]`); a `TensorSpec`
// likewise, when the dtypes agree.
__static_field!(@loose Shape, Shape::is_compatible_with, |a: &Shape, b: &Shape| Some(
    a.most_specific_compatible(b)
));
__static_field!(@loose TensorSpec, TensorSpec::is_compatible_with, TensorSpec::most_specific_compatible);

/// A marker for generic types (`struct Foo<T> { …, _t: PhantomData<T> }`): no components,
/// serialized as `none`, always compatible.
impl<T: Send + Sync + 'static> super::SequenceItem for std::marker::PhantomData<T> {}

impl<T: Send + Sync + 'static> Field for std::marker::PhantomData<T> {
    type Spec = std::marker::PhantomData<T>;

    #[inline]
    fn field_spec(&self) -> Self::Spec {
        std::marker::PhantomData
    }
    crate::__no_components!();
    #[inline]
    fn from_components(
        _spec: &Self::Spec,
        _path: &FieldPath<'_>,
        _components: &mut Components,
    ) -> Result<Self> {
        Ok(std::marker::PhantomData)
    }
    fn spec_to_value(_spec: &Self::Spec) -> SpecTree {
        SpecTree::None
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
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
            crate::__no_components!();
            #[inline]
            fn from_components(spec: &Self::Spec, _path: &FieldPath<'_>, _components: &mut Components) -> Result<Self> {
                Ok(spec.0)
            }
            fn spec_to_value(spec: &Self::Spec) -> SpecTree {
                SpecTree::Float(f64::from(spec.0))
            }
            fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
                match value {
                    // Round trips exactly: an f32 (or half) widened to f64 narrows back to itself.
                    SpecTree::Float(f) => Ok(ExactFloat(<$t as Narrow>::narrow(*f))),
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

/// An `f64` to a static float type, rounded to nearest (exact for a value the type holds).
trait Narrow {
    fn narrow(f: f64) -> Self;
}

impl Narrow for f32 {
    #[allow(clippy::cast_possible_truncation)]
    fn narrow(f: f64) -> Self {
        f as f32
    }
}

impl Narrow for f64 {
    fn narrow(f: f64) -> Self {
        f
    }
}

impl Narrow for half::f16 {
    fn narrow(f: f64) -> Self {
        extype_kernels::cast::f16_from_f64(f)
    }
}

impl Narrow for half::bf16 {
    fn narrow(f: f64) -> Self {
        extype_kernels::cast::bf16_from_f64(f)
    }
}

static_float!(f32, f64, half::f16, half::bf16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_specs_are_compared_strictly() {
        assert!(!u32::spec_is_compatible(&3, &4));
        assert_eq!(u32::spec_most_specific_compatible(&3, &4), None);
        let err = u8::spec_from_value(&SpecTree::Int(300), &FieldPath::Root).unwrap_err();
        assert!(err.to_string().contains("range of u8"), "{err}");
        assert!(<Vec<String>>::spec_most_specific_compatible(&vec!["a".into()], &vec![]).is_none());
    }

    #[test]
    fn shape_like_static_data_relaxes_to_the_join() {
        let two: Shape = "[2]".parse().unwrap();
        let five: Shape = "[5]".parse().unwrap();
        assert!(!Shape::spec_is_compatible(&two, &five));
        assert!(Shape::spec_is_compatible(&two, &"[?]".parse().unwrap()));
        let joined = Shape::spec_most_specific_compatible(&two, &five).unwrap();
        assert_eq!(joined.to_string(), "[!1]");
        assert!(Shape::spec_is_compatible(&joined, &two));
        let one: Shape = "[1]".parse().unwrap();
        let with_one = Shape::spec_most_specific_compatible(&one, &five).unwrap();
        assert_eq!(with_one.to_string(), "[?]");
        let rank_two: Shape = "[2, 3]".parse().unwrap();
        let ranks = Shape::spec_most_specific_compatible(&two, &rank_two).unwrap();
        assert_eq!(ranks.to_string(), "*");
        let f = TensorSpec::new(two.clone(), DType::F32);
        let g = TensorSpec::new(five, DType::F32);
        assert_eq!(
            TensorSpec::spec_most_specific_compatible(&f, &g).map(|t| t.shape.to_string()),
            Some("[!1]".into())
        );
        let h = TensorSpec::new(two, DType::I32);
        assert!(!TensorSpec::spec_is_compatible(&f, &h));
        assert_eq!(TensorSpec::spec_most_specific_compatible(&f, &h), None);
    }
}

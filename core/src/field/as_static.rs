//! `#[extype(static)]`: a field whose value is kept in the spec as static data, whatever its type
//! would otherwise contribute — the explicit form for metadata such as a `Vec<f32>` of
//! coefficients, which as a plain field is refused (a `Vec` or array of plain numbers is tensor
//! data more often than not; see [`SequenceItem`](super::SequenceItem)).
//!
//! The derive describes such a field as [`Static<T>`] (`#[repr(transparent)]` over `T`): its spec
//! is [`StaticData::Spec`], it has no components, two specs are compatible only when equal, and
//! rebuilding takes the value from the spec. [`StaticData`] says which types can be static.

use std::fmt;
use std::hash::Hash;

use super::{Components, ExactFloat, Field, FieldPath, data_error};
use crate::error::Result;
use crate::spec_tree::SpecTree;

/// A type whose values can be kept in a spec by `#[extype(static)]`: every [`StaticValue`](super::StaticValue)
/// (bool, integers, `String`, `DType`, `Shape`, `TensorSpec`, types declared with
/// [`static_field!`](crate::static_field) or deriving `StaticValue`), `f32` / `f64` (kept as
/// [`ExactFloat`]), and `Vec`, arrays, `Option` and tuples (up to 4) of static data.
///
/// ```
/// use extype_core::field::StaticData;
///
/// let coefficients = vec![0.5f32, 0.25];
/// let spec = coefficients.to_spec();
/// assert_eq!(Vec::<f32>::from_spec(&spec), coefficients);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be static data of an extension type",
    label = "not static data",
    note = "static data (what `#[extype(static)]` keeps in the spec, and what the fields of a type deriving `StaticValue` are) is bool, integers, floats, `String`, `DType`, `Shape`, `TensorSpec`, types deriving `StaticValue` or declared with `extype::static_field!`, and `Vec`, arrays, `Option` and tuples of those",
    note = "a tensor or an extension value is made of components, so it is not static data (on a field marked `#[extype(static)]`, remove the attribute)"
)]
pub trait StaticData: Clone + fmt::Debug + Send + Sync + 'static {
    /// The form kept in the spec: the value itself for `Eq + Hash` data, [`ExactFloat`] for
    /// floats, containers of those for containers.
    type Spec: Clone + fmt::Debug + Eq + Hash + Send + Sync + 'static;
    /// The spec form of this value.
    fn to_spec(&self) -> Self::Spec;
    /// The value a spec holds.
    fn from_spec(spec: &Self::Spec) -> Self;
    /// Serializes the spec form.
    fn spec_to_value(spec: &Self::Spec) -> SpecTree;
    /// Deserializes the spec form; errors name `path`.
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec>;
}

/// Implements [`StaticData`] for [`StaticValue`](super::StaticValue) types (the spec is the
/// value itself). Used by [`static_field!`](crate::static_field) and for the built-in static
/// values below; not meant to be called directly.
#[doc(hidden)]
#[macro_export]
macro_rules! __static_data {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::__private_v1::StaticData for $t {
            type Spec = $t;
            #[inline]
            fn to_spec(&self) -> $t {
                ::core::clone::Clone::clone(self)
            }
            #[inline]
            fn from_spec(spec: &$t) -> $t {
                ::core::clone::Clone::clone(spec)
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
        }
    )*};
}

// The static values of `static_data.rs` (below this file), as static data.
__static_data!(
    bool,
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    String,
    crate::dtype::DType,
    (),
    extype_shape::Shape,
    crate::tensor::TensorSpec,
);

macro_rules! static_float_data {
    ($($t:ty),*) => {$(
        impl StaticData for $t {
            type Spec = ExactFloat<$t>;
            fn to_spec(&self) -> Self::Spec {
                ExactFloat(*self)
            }
            fn from_spec(spec: &Self::Spec) -> Self {
                spec.0
            }
            fn spec_to_value(spec: &Self::Spec) -> SpecTree {
                <$t as Field>::spec_to_value(spec)
            }
            fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
                <$t as Field>::spec_from_value(value, path)
            }
        }
    )*};
}

static_float_data!(f32, f64, half::f16, half::bf16);

/// Serialized as a list, like a `Vec` field.
impl<T: StaticData> StaticData for Vec<T> {
    type Spec = Vec<T::Spec>;
    fn to_spec(&self) -> Self::Spec {
        self.iter().map(T::to_spec).collect()
    }
    fn from_spec(spec: &Self::Spec) -> Self {
        spec.iter().map(T::from_spec).collect()
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        SpecTree::List(spec.iter().map(T::spec_to_value).collect())
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        super::container::list_from_value(value, path, T::spec_from_value)
    }
}

/// Serialized as a tuple of `N`, like an array field.
impl<T: StaticData, const N: usize> StaticData for [T; N] {
    type Spec = [T::Spec; N];
    fn to_spec(&self) -> Self::Spec {
        self.each_ref().map(T::to_spec)
    }
    fn from_spec(spec: &Self::Spec) -> Self {
        spec.each_ref().map(T::from_spec)
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        SpecTree::Tuple(spec.iter().map(T::spec_to_value).collect())
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        match value {
            SpecTree::Tuple(items) if items.len() == N => {
                let mut specs = Vec::with_capacity(N);
                for (i, v) in items.iter().enumerate() {
                    specs.push(T::spec_from_value(v, &path.index(i))?);
                }
                Ok(super::container::into_array(specs))
            }
            other => Err(data_error(path, format!("a tuple of {N}"), other)),
        }
    }
}

/// Serialized as `none` or the inner value, like an `Option` field.
impl<T: StaticData> StaticData for Option<T> {
    type Spec = Option<T::Spec>;
    fn to_spec(&self) -> Self::Spec {
        self.as_ref().map(T::to_spec)
    }
    fn from_spec(spec: &Self::Spec) -> Self {
        spec.as_ref().map(T::from_spec)
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        spec.as_ref().map_or(SpecTree::None, T::spec_to_value)
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        match value {
            SpecTree::None => Ok(None),
            other => T::spec_from_value(other, path).map(Some),
        }
    }
}

macro_rules! static_tuple_data {
    ($n:literal: $($name:ident $i:tt),+) => {
        /// Serialized as a tuple, like a tuple field.
        impl<$($name: StaticData),+> StaticData for ($($name,)+) {
            type Spec = ($($name::Spec,)+);
            fn to_spec(&self) -> Self::Spec {
                ($(self.$i.to_spec(),)+)
            }
            fn from_spec(spec: &Self::Spec) -> Self {
                ($($name::from_spec(&spec.$i),)+)
            }
            fn spec_to_value(spec: &Self::Spec) -> SpecTree {
                SpecTree::Tuple(vec![$($name::spec_to_value(&spec.$i)),+])
            }
            fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
                match value {
                    SpecTree::Tuple(items) if items.len() == $n => Ok((
                        $($name::spec_from_value(&items[$i], &path.tuple($i))?,)+
                    )),
                    other => Err(data_error(path, concat!("a tuple of ", $n), other)),
                }
            }
        }
    };
}

static_tuple_data!(1: A 0);
static_tuple_data!(2: A 0, B 1);
static_tuple_data!(3: A 0, B 1, C 2);
static_tuple_data!(4: A 0, B 1, C 2, D 3);

/// A field marked `#[extype(static)]`, as the derive describes it: `#[repr(transparent)]` over
/// the field's own type, whose value is kept in the spec ([`StaticData::Spec`]); no components;
/// two specs are compatible only when equal.
#[repr(transparent)]
#[derive(Clone, Debug)]
pub struct Static<T>(pub T);

impl<T: StaticData> Field for Static<T> {
    type Spec = T::Spec;

    #[inline]
    fn field_spec(&self) -> Self::Spec {
        self.0.to_spec()
    }
    crate::__no_components!();
    #[inline]
    fn from_components(
        spec: &Self::Spec,
        _path: &FieldPath<'_>,
        _components: &mut Components,
    ) -> Result<Self> {
        Ok(Static(T::from_spec(spec)))
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        T::spec_to_value(spec)
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        T::spec_from_value(value, path)
    }
    #[inline]
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        a == b
    }
    #[inline]
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        (a == b).then(|| a.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_containers_of_numbers_round_trip_and_compare_by_equality() {
        type Data = (Vec<f32>, [u8; 2], Option<i64>, String);
        let value = (vec![0.5f32, -0.0], [1u8, 2], Some(3i64), String::from("s"));
        let spec = Static(value.clone()).field_spec();
        let tree = <Static<Data>>::spec_to_value(&spec);
        let back = <Static<Data>>::spec_from_value(&tree, &FieldPath::Root).unwrap();
        assert_eq!(back, spec);
        assert_eq!(Data::from_spec(&back), value);
        let other = Static((vec![0.5f32, 0.0], [1u8, 2], Some(3i64), String::from("s")));
        // `-0.0` and `0.0` are different static data (compared by bits).
        assert!(!<Static<Data>>::spec_is_compatible(
            &spec,
            &other.field_spec()
        ));
        let err = <Static<[u8; 3]>>::spec_from_value(&tree, &FieldPath::Root).unwrap_err();
        assert!(err.to_string().contains("a tuple of 3"), "{err}");
    }
}

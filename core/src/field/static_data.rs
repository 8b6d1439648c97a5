//! Static fields: data stored in the spec itself (bool, integers, floats as [`ExactFloat`],
//! `String`, [`DType`], [`Shape`], `()`, `PhantomData`, and user types declared with
//! [`static_field!`](crate::static_field) after implementing [`StaticValue`]). No components;
//! two specs are compatible only when equal.

use std::fmt;
use std::hash::{Hash, Hasher};

use super::{Components, Field, FieldPath, Sink, data_error};
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::Shape;
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorSpec, TensorView};

/// Static (non-tensor) data that can be a field: stored in the spec, compared by equality,
/// serialized to a [`SpecTree`]. Implement it, then declare the field type with
/// [`static_field!`](crate::static_field).
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

    /// The value of this field in the spec of a batch of `n` items whose value is `self`
    /// (see [`crate::batch`]). By default `self`: static data is the same for every item.
    fn batched(&self, n: Option<usize>) -> Self {
        let _ = n;
        self.clone()
    }

    /// The value of this field in the spec of one item of a batch whose value is `self`. By
    /// default `self`.
    fn unbatched(&self, path: &FieldPath<'_>) -> Result<Self> {
        let _ = path;
        Ok(self.clone())
    }

    /// The value of this field in the batch of `items` (at least one). By default the items'
    /// values must be equal: an error names `path`, the first item that differs and both values.
    fn stack_static(items: &[&Self], path: &FieldPath<'_>) -> Result<Self> {
        super::batch::stack_equal(items, path)
    }

    /// The value of this field in each item of a batch of `n` whose value is `self`. By default
    /// `self`.
    fn unstack_static(&self, n: usize, path: &FieldPath<'_>) -> Result<Self> {
        let _ = (n, path);
        Ok(self.clone())
    }
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

            fn spec_to_value(spec: &$t) -> $crate::__private::SpecTree {
                $crate::__private::StaticValue::to_spec_value(spec)
            }

            fn spec_from_value(
                value: &$crate::__private::SpecTree,
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
        $crate::__batch_static_field!($t);
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
        static_field!($t);
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
    /// `[2]` → `[n, 2]`, as TensorFlow's default batch encoder does.
    fn batched(&self, n: Option<usize>) -> Self {
        super::batch::batched_shape(self, n)
    }
    /// `[n, 2]` → `[2]`; a shape of rank 0 has no batch dimension (an error).
    fn unbatched(&self, path: &FieldPath<'_>) -> Result<Self> {
        super::batch::unbatched_shape(self, path)
    }
    /// The items' shapes relaxed to the most specific shape compatible with all, with the
    /// batch size in front.
    fn stack_static(items: &[&Self], path: &FieldPath<'_>) -> Result<Self> {
        super::batch::shape_rules::stack(items, path)
    }
    fn unstack_static(&self, n: usize, path: &FieldPath<'_>) -> Result<Self> {
        super::batch::shape_rules::unstack(self, n, path)
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
            fn spec_to_value(spec: &Self::Spec) -> SpecTree {
                SpecTree::Float(f64::from(spec.0))
            }
            fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
                match value {
                    // Round trips exactly: an f32 widened to f64 narrows back to itself.
                    #[allow(clippy::cast_possible_truncation)]
                    SpecTree::Float(f) => Ok(ExactFloat(*f as $t)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_specs_are_compared_strictly() {
        assert!(!u32::spec_is_compatible(&3, &4));
        assert_eq!(u32::spec_most_specific_compatible(&3, &4), None);
        let err = u8::spec_from_value(&SpecTree::Int(300), &FieldPath::Root).unwrap_err();
        assert!(err.to_string().contains("range of u8"), "{err}");
        assert!(<Vec<u8>>::spec_most_specific_compatible(&vec![1], &vec![1, 2]).is_none());
    }
}

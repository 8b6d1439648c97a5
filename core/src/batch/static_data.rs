//! Static data in a batch: [`StaticBatch`], the batching side of a static value (equal across
//! the items by default; a [`Shape`] gains the batch dimension and relaxes, as TensorFlow's
//! default encoder has it), and the [`BatchField`] impls of static field types — static values
//! (through [`StaticBatch`]), floats (equal bit for bit), `PhantomData`, and `#[extype(static)]`
//! data ([`Static`]). [`static_field!`](crate::static_field), the door that declares a user's
//! static value a field, is defined here, since it implements both sides.

use extype_shape::{Dim, Shape};

use super::field::{
    BatchField, batched_shape, no_items, size_mismatch, static_mismatch, unbatched_shape,
};
use crate::dtype::DType;
use crate::error::Result;
use crate::field::{ExactFloat, FieldPath, Static, StaticData, StaticValue};
use crate::tensor::TensorSpec;

/// How a static value behaves in a batch: the batching side of a [`StaticValue`] field (see
/// [`crate::batch`] for the rules).
///
/// [`static_field!(T)`](crate::static_field) and `#[derive(StaticValue)]` implement it with the
/// provided methods: the value is the same for every item, and the batch keeps it. To batch a
/// static value otherwise, implement `StaticBatch` yourself and declare the type with
/// `static_field!(T; impl StaticBatch)`. [`Shape`] is the built-in example: a batch's shape gains
/// the batch size in front. The contract is [`BatchField`]'s: unstacking a stacked batch gives
/// the items back, and [`batched`](Self::batched) is the value in the batch of `n` items.
///
/// ```
/// use extype_core::batch::{self, StaticBatch};
/// use extype_core::field::data_error;
/// use extype_core::{FieldPath, Result, SpecTree, StaticValue};
///
/// /// The rank of the data a value describes: a batch has one axis more than its items.
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// struct Rank(u8);
///
/// impl StaticValue for Rank {
///     fn to_spec_value(&self) -> SpecTree {
///         SpecTree::Int(self.0.into())
///     }
///     fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
///         match value {
///             SpecTree::Int(r) => u8::try_from(*r).map(Rank).map_err(|_| data_error(path, "a rank", value)),
///             other => Err(data_error(path, "a rank", other)),
///         }
///     }
/// }
///
/// impl StaticBatch for Rank {
///     fn batched(&self, _n: Option<usize>) -> Self {
///         Rank(self.0 + 1)
///     }
///     fn unbatched(&self, path: &FieldPath<'_>) -> Result<Self> {
///         match self.0.checked_sub(1) {
///             Some(r) => Ok(Rank(r)),
///             None => Err(data_error(path, "a rank of at least 1", &SpecTree::Int(0))),
///         }
///     }
///     fn stack_static(items: &[&Self], path: &FieldPath<'_>) -> Result<Self> {
///         Ok(batch::stack_equal(items, path)?.batched(Some(items.len())))
///     }
///     fn unstack_static(&self, _n: usize, path: &FieldPath<'_>) -> Result<Self> {
///         self.unbatched(path)
///     }
/// }
/// extype_core::static_field!(Rank; impl StaticBatch);
///
/// let b = batch::stack(&[Rank(1), Rank(1)]).unwrap();
/// assert_eq!(b, Rank(2));
/// assert_eq!(batch::stack(&[Rank(1), Rank(2)]).unwrap_err().to_string().contains("item 1"), true);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `StaticBatch`",
    label = "no `StaticBatch` impl",
    note = "`static_field!({Self}; impl StaticBatch)` declares a type that implements `extype::batch::StaticBatch` itself: implement it (its methods have defaults), or write `static_field!({Self})` for the default batching (equal across a batch)"
)]
pub trait StaticBatch: StaticValue {
    /// The value of this field in the spec of a batch of `n` items whose value is `self`. By
    /// default `self`: static data is the same for every item.
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
    /// values must be equal ([`stack_equal`]): an error names `path`, the first item that
    /// differs and both values.
    fn stack_static(items: &[&Self], path: &FieldPath<'_>) -> Result<Self> {
        stack_equal(items, path)
    }

    /// The value of this field in each item of a batch of `n` whose value is `self`. By default
    /// `self`.
    fn unstack_static(&self, n: usize, path: &FieldPath<'_>) -> Result<Self> {
        let _ = (n, path);
        Ok(self.clone())
    }
}

/// Declares types implementing [`StaticValue`] as static fields: their spec is the value itself,
/// they have no components, and two specs are compatible only when equal. `static_field!(A, B)`
/// also implements [`StaticBatch`] for them with its provided methods (equal across a batch);
/// `static_field!(A; impl StaticBatch)` declares a type that implements [`StaticBatch`] itself.
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
#[macro_export]
macro_rules! static_field {
    ($t:ty; impl StaticBatch) => {
        $crate::__static_field!($t);
        $crate::__static_data!($t);
        $crate::__batch_static_field!($t);
    };
    ($($t:ty),* $(,)?) => {$(
        $crate::static_field!($t; impl StaticBatch);
        impl $crate::__private_v1::StaticBatch for $t {}
    )*};
}

/// Stacks static values that must be equal across items (the default of
/// [`StaticBatch::stack_static`]): item 0's value, or an error naming the path, the first item
/// that differs and both values.
pub fn stack_equal<T: Clone + PartialEq + std::fmt::Debug>(
    items: &[&T],
    path: &FieldPath<'_>,
) -> Result<T> {
    let Some(first) = items.first() else {
        return Err(no_items(path));
    };
    match items.iter().position(|x| x != first) {
        None => Ok((*first).clone()),
        Some(i) => Err(static_mismatch(path, i, first, items[i])),
    }
}

/// The `BatchField` impl of a static field type (what
/// [`static_field!`](crate::static_field) emits): what its [`StaticBatch`]
/// methods say.
#[doc(hidden)]
#[macro_export]
macro_rules! __batch_static_field {
    ($t:ty) => {
        // The bound is checked here, once (the methods below rely on it).
        impl $crate::__private_v1::BatchField for $t
        where
            $t: $crate::__private_v1::StaticBatch,
        {
            fn batched_spec(spec: &$t, n: ::core::option::Option<usize>) -> $t {
                $crate::__private_v1::StaticBatch::batched(spec, n)
            }
            fn unbatched_spec(
                spec: &$t,
                path: &$crate::__private_v1::FieldPath<'_>,
            ) -> $crate::__private_v1::Result<$t> {
                $crate::__private_v1::StaticBatch::unbatched(spec, path)
            }
            fn batch_len(
                &self,
                _path: &$crate::__private_v1::FieldPath<'_>,
            ) -> $crate::__private_v1::Result<::core::option::Option<usize>> {
                ::core::result::Result::Ok(::core::option::Option::None)
            }
            fn stack(
                items: &[&$t],
                path: &$crate::__private_v1::FieldPath<'_>,
            ) -> $crate::__private_v1::Result<$t> {
                <$t as $crate::__private_v1::StaticBatch>::stack_static(items, path)
            }
            fn unstack(
                self,
                n: usize,
                path: &$crate::__private_v1::FieldPath<'_>,
            ) -> $crate::__private_v1::Result<$crate::__private_v1::Vec<$t>> {
                $crate::__private_v1::unstack_static(&self, n, path)
            }
        }
    };
}

/// `n` copies of the item value of a static field's batch value (what the `BatchField` impl of
/// a static field calls).
#[doc(hidden)]
pub fn unstack_static<T: StaticBatch>(batch: &T, n: usize, path: &FieldPath<'_>) -> Result<Vec<T>> {
    let item = batch.unstack_static(n, path)?;
    Ok(vec![item; n])
}

/// The built-in static values other than [`Shape`]: equal across a batch.
macro_rules! static_batch {
    ($($t:ty),*) => {$(
        impl StaticBatch for $t {}
        crate::__batch_static_field!($t);
    )*};
}

static_batch!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
static_batch!(bool, String, DType, (), TensorSpec);

/// A static [`Shape`] is batched as TensorFlow's default encoder has it: the batch's shape is the
/// items' shapes relaxed to the most specific shape compatible with all, with the batch size in
/// front (`[2]` → `[n, 2]`); an item's is the batch's without it.
impl StaticBatch for Shape {
    /// `[2]` → `[n, 2]`.
    fn batched(&self, n: Option<usize>) -> Self {
        batched_shape(self, n)
    }
    /// `[n, 2]` → `[2]`; a shape of rank 0 has no batch dimension (an error).
    fn unbatched(&self, path: &FieldPath<'_>) -> Result<Self> {
        unbatched_shape(self, path)
    }
    /// The items' shapes relaxed to the most specific shape compatible with all, with the
    /// batch size in front.
    fn stack_static(items: &[&Self], path: &FieldPath<'_>) -> Result<Self> {
        let Some(first) = items.first() else {
            return Err(no_items(path));
        };
        let relaxed = items[1..]
            .iter()
            .fold((*first).clone(), |acc, s| acc.most_specific_compatible(s));
        Ok(batched_shape(&relaxed, Some(items.len())))
    }
    /// The batch's shape without its leading dimension, which must be `n` when known.
    fn unstack_static(&self, n: usize, path: &FieldPath<'_>) -> Result<Self> {
        match self.dims() {
            Some([Dim::Known(m), ..]) if *m != n => Err(size_mismatch(path, n, *m)),
            _ => unbatched_shape(self, path),
        }
    }
}

crate::__batch_static_field!(Shape);

/// Floats: static data compared bit for bit (as their spec, [`ExactFloat`], is).
macro_rules! float_batch {
    ($($t:ty),*) => {$(
        impl BatchField for $t {
            fn batched_spec(spec: &ExactFloat<$t>, _n: Option<usize>) -> ExactFloat<$t> {
                *spec
            }
            fn unbatched_spec(
                spec: &ExactFloat<$t>,
                _path: &FieldPath<'_>,
            ) -> Result<ExactFloat<$t>> {
                Ok(*spec)
            }
            fn batch_len(&self, _path: &FieldPath<'_>) -> Result<Option<usize>> {
                Ok(None)
            }
            fn stack(items: &[&$t], path: &FieldPath<'_>) -> Result<$t> {
                let first = items.first().map(|x| x.to_bits());
                match items.iter().position(|x| Some(x.to_bits()) != first) {
                    _ if items.is_empty() => Err(no_items(path)),
                    None => Ok(*items[0]),
                    Some(i) => Err(static_mismatch(path, i, items[0], items[i])),
                }
            }
            fn unstack(self, n: usize, _path: &FieldPath<'_>) -> Result<Vec<$t>> {
                Ok(vec![self; n])
            }
        }
    )*};
}

float_batch!(f32, f64, half::f16, half::bf16);

impl<T: Send + Sync + 'static> BatchField for std::marker::PhantomData<T> {
    fn batched_spec(spec: &Self, _n: Option<usize>) -> Self {
        *spec
    }
    fn unbatched_spec(spec: &Self, _path: &FieldPath<'_>) -> Result<Self> {
        Ok(*spec)
    }
    fn batch_len(&self, _path: &FieldPath<'_>) -> Result<Option<usize>> {
        Ok(None)
    }
    fn stack(_items: &[&Self], _path: &FieldPath<'_>) -> Result<Self> {
        Ok(std::marker::PhantomData)
    }
    fn unstack(self, n: usize, _path: &FieldPath<'_>) -> Result<Vec<Self>> {
        Ok(vec![std::marker::PhantomData; n])
    }
}

/// `#[extype(static)]` data: the same for every item (compared by spec form, as specs are), kept
/// once in the batch and copied into each item.
impl<T: StaticData> BatchField for Static<T> {
    fn batched_spec(spec: &T::Spec, _n: Option<usize>) -> T::Spec {
        spec.clone()
    }
    fn unbatched_spec(spec: &T::Spec, _path: &FieldPath<'_>) -> Result<T::Spec> {
        Ok(spec.clone())
    }
    fn batch_len(&self, _path: &FieldPath<'_>) -> Result<Option<usize>> {
        Ok(None)
    }
    fn stack(items: &[&Self], path: &FieldPath<'_>) -> Result<Self> {
        let specs: Vec<T::Spec> = items.iter().map(|s| s.0.to_spec()).collect();
        let refs: Vec<&T::Spec> = specs.iter().collect();
        stack_equal(&refs, path)?;
        Ok(Static(items[0].0.clone()))
    }
    fn unstack(self, n: usize, _path: &FieldPath<'_>) -> Result<Vec<Self>> {
        Ok(vec![self; n])
    }
}

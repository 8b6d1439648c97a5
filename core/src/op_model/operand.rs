//! [`Operand`]: one argument of an op, borrowed — a dense tensor (or array view), or an extension
//! value of any type — and the traits that make one from user values ([`AsOperand`]) and a result
//! from a handler's return value ([`IntoValue`]).

use std::any::TypeId;
use std::borrow::Cow;

use ndarray::{ArcArray, Array, ArrayBase, Data, Dimension};

use super::size::check_named;
use crate::error::{Error, Result};
use crate::registry::AnonymousExtension;
use crate::spec::value::{SharedExtension, Value, ValueSpec};
use crate::spec::{AnyExtension, ExtensionType, TensorSpec};
use crate::tensor::Element;
use crate::tensor::{Tensor, TensorLike, TensorView};

#[derive(Clone, Debug)]
enum Repr<'a> {
    Tensor(&'a Tensor),
    View(TensorView<'a>),
    /// The value; `Some(TypeId::of::<T>())` when the operand was made from a `&T` (so the value
    /// is a `T`, known without a dynamic call); its shared handle when it came as a [`Value`].
    Extension(
        &'a dyn AnyExtension,
        Option<TypeId>,
        Option<&'a SharedExtension>,
    ),
}

/// One argument of an op call, borrowed. Handlers whose signature takes `&Operand` accept an
/// argument of any type in that position (a wildcard); the others are matched by type.
///
/// ```
/// use extype_core::ops::{AsOperand, Operand};
/// use extype_core::Tensor;
/// let a = ndarray::array![1.0f32, 2.0];
/// let op: Operand<'_> = a.as_operand();
/// assert!(op.is_dense());
/// assert_eq!(op.type_name(), "Tensor");
/// assert_eq!(op.to_tensor().unwrap().shape(), &[2]);
/// ```
#[derive(Clone, Debug)]
pub struct Operand<'a>(Repr<'a>);

impl<'a> Operand<'a> {
    /// A dense tensor.
    #[inline]
    pub fn tensor(t: &'a Tensor) -> Self {
        Operand(Repr::Tensor(t))
    }

    /// A dense array view.
    #[inline]
    pub fn view(v: TensorView<'a>) -> Self {
        Operand(Repr::View(v))
    }

    /// An extension value.
    #[inline]
    pub fn extension(e: &'a dyn AnyExtension) -> Self {
        Operand(Repr::Extension(e, None, None))
    }

    /// A [`Value`] (keeps the shared handle, so [`to_value`](Self::to_value) is O(1)).
    #[inline]
    pub fn value(v: &'a Value) -> Self {
        match v {
            Value::Tensor(t) => Operand(Repr::Tensor(t)),
            Value::Extension(e) => Operand(Repr::Extension(&**e, None, Some(e))),
        }
    }

    /// The same argument, for a shorter lifetime.
    #[inline]
    pub fn reborrow(&self) -> Operand<'_> {
        Operand(match &self.0 {
            Repr::Tensor(t) => Repr::Tensor(t),
            Repr::View(v) => Repr::View(reborrow(v)),
            Repr::Extension(e, id, arc) => Repr::Extension(*e, *id, *arc),
        })
    }

    /// Whether the argument is a dense tensor (or array).
    #[inline]
    pub fn is_dense(&self) -> bool {
        !matches!(self.0, Repr::Extension(..))
    }

    /// The dispatch key of the argument: `TypeId::of::<Tensor>()` for dense arguments, the
    /// extension type's `TypeId` otherwise.
    #[inline]
    pub fn type_id(&self) -> TypeId {
        match &self.0 {
            Repr::Extension(_, Some(id), _) => *id,
            Repr::Extension(e, None, _) => e.as_any().type_id(),
            _ => TypeId::of::<Tensor>(),
        }
    }

    /// `"Tensor"`, or the registered name of the extension type.
    pub fn type_name(&self) -> &str {
        match &self.0 {
            Repr::Extension(e, ..) => e.name(),
            _ => "Tensor",
        }
    }

    /// The argument's description in errors: `Tensor(f32[2, 3])` or `pkg.Masked`.
    pub fn describe(&self) -> String {
        match &self.0 {
            Repr::Tensor(t) => format!("Tensor({})", TensorSpec::from_tensor(t)),
            Repr::View(v) => format!("Tensor({})", TensorSpec::from_view(v)),
            Repr::Extension(e, ..) => match e.as_any().downcast_ref::<AnonymousExtension>() {
                Some(anonymous) => format!(
                    "anonymous {} (a value of a type not linked into this program)",
                    anonymous.name
                ),
                None => e.name().to_string(),
            },
        }
    }

    /// The extension value as `T`, if it is one.
    #[inline]
    pub fn downcast_ref<T: ExtensionType>(&self) -> Option<&'a T> {
        match self.0 {
            Repr::Extension(e, Some(id), _) => (id == TypeId::of::<T>()).then(|| {
                let ptr: *const dyn AnyExtension = e;
                // SAFETY: the operand was made from a `&U` with `TypeId::of::<U>() == id`
                // (`AsOperand for U`), and `id` is `T`'s: the value is a `T`.
                unsafe { &*ptr.cast::<T>() }
            }),
            Repr::Extension(e, None, _) => e.as_any().downcast_ref::<T>(),
            _ => None,
        }
    }

    /// The extension value behind `dyn`, if it is one.
    #[inline]
    pub fn as_extension(&self) -> Option<&'a dyn AnyExtension> {
        match self.0 {
            Repr::Extension(e, ..) => Some(e),
            _ => None,
        }
    }

    /// The argument as a [`Tensor`], if it was passed as one (not as an array view or an
    /// extension value).
    #[inline]
    pub fn as_tensor(&self) -> Option<&'a Tensor> {
        match self.0 {
            Repr::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// A view of the dense argument (no copy), or `None` for an extension value.
    #[inline]
    pub fn as_view(&self) -> Option<TensorView<'a>> {
        match &self.0 {
            Repr::Tensor(t) => Some(t.view()),
            Repr::View(v) => Some(v.clone()),
            Repr::Extension(..) => None,
        }
    }

    /// The dense argument as a tensor: borrowed when it is a [`Tensor`], copied when it is an
    /// array view (the one copy a handler taking `&Tensor` may cost). `None` for an extension.
    /// The copy of a view too large to allocate panics; [`Operand::check_copy`] checks first.
    #[inline]
    pub fn to_tensor(&self) -> Option<Cow<'a, Tensor>> {
        match &self.0 {
            Repr::Tensor(t) => Some(Cow::Borrowed(*t)),
            Repr::View(v) => Some(Cow::Owned(v.to_tensor())),
            Repr::Extension(..) => None,
        }
    }

    /// Checks that the copy [`to_tensor`](Self::to_tensor) would make of an array view can be
    /// allocated (an error naming `op` otherwise); tensors and extension values need no copy.
    pub fn check_copy(&self, op: &str) -> Result<()> {
        match &self.0 {
            Repr::View(v) => check_named(op, v.shape(), v.dtype()),
            _ => Ok(()),
        }
    }

    /// The argument as a [`Value`]: O(1) for tensors and for values passed as [`Value`]; an
    /// extension value passed by reference is rebuilt from clones of its components (O(1) per
    /// `Tensor`/`ArcArray` field, a copy for `Array` fields); an array view is copied — an error
    /// when the copy cannot be allocated (a huge broadcast view), checked before allocating.
    pub fn to_value(&self) -> Result<Value> {
        match &self.0 {
            Repr::Tensor(t) => Ok(Value::Tensor((*t).clone())),
            Repr::View(v) => {
                check_named("to_value", v.shape(), v.dtype())?;
                Ok(Value::Tensor(v.to_tensor()))
            }
            Repr::Extension(_, _, Some(arc)) => Ok(Value::Extension(SharedExtension::clone(arc))),
            Repr::Extension(e, _, None) => e.any_spec().dyn_from_components(e.clone_components()),
        }
    }

    /// The argument as one tensor (its dtype and shape): a dense argument itself, an extension
    /// value when its type is tensor-like ([`TensorLike`]); `None` otherwise.
    #[inline]
    pub fn tensor_like(&self) -> Option<&dyn TensorLike> {
        match &self.0 {
            Repr::Tensor(t) => Some(*t),
            Repr::View(v) => Some(v),
            Repr::Extension(e, ..) => e.dyn_tensor_like(),
        }
    }

    /// The argument's spec.
    pub fn spec(&self) -> ValueSpec {
        match &self.0 {
            Repr::Tensor(t) => ValueSpec::Tensor(TensorSpec::from_tensor(t)),
            Repr::View(v) => ValueSpec::Tensor(TensorSpec::from_view(v)),
            Repr::Extension(e, ..) => ValueSpec::Extension(e.any_spec()),
        }
    }
}

/// Anything an op accepts as an argument: [`Tensor`], [`TensorView`], ndarray arrays and views of
/// any element type and rank, Rust scalars of every [`Element`] type (`bool`, `i8` … `u64`,
/// `f32`, `f64`, `half::f16`, `half::bf16`: a rank-0 tensor), [`Value`], [`Operand`], and every [`ExtensionType`].
///
/// ```
/// use extype_core::{Tensor, ops};
/// let x = ndarray::array![1.0f32, 2.0];
/// let y: Tensor = ops::add_as(&x, &2.0f32).unwrap(); // a scalar broadcasts
/// assert_eq!(y, Tensor::from(ndarray::array![3.0f32, 4.0].into_dyn()));
/// ```
pub trait AsOperand {
    /// Borrows `self` as an op argument (O(1), no copy).
    fn as_operand(&self) -> Operand<'_>;
}

impl<T: ExtensionType> AsOperand for T {
    #[inline]
    fn as_operand(&self) -> Operand<'_> {
        // The type is known here: no dynamic call for its `TypeId`.
        Operand(Repr::Extension(self, Some(TypeId::of::<T>()), None))
    }
}

impl AsOperand for Tensor {
    #[inline]
    fn as_operand(&self) -> Operand<'_> {
        Operand::tensor(self)
    }
}

/// A view of a view, for the shorter lifetime (`TensorView` is invariant in its lifetime).
#[inline]
pub(crate) fn reborrow<'s>(v: &'s TensorView<'_>) -> TensorView<'s> {
    crate::tensor::each_variant!(TensorView, v, a => Element::into_view(a.view()))
}

impl AsOperand for TensorView<'_> {
    #[inline]
    fn as_operand(&self) -> Operand<'_> {
        Operand::view(reborrow(self))
    }
}

impl AsOperand for Value {
    #[inline]
    fn as_operand(&self) -> Operand<'_> {
        Operand::value(self)
    }
}

impl AsOperand for Operand<'_> {
    #[inline]
    fn as_operand(&self) -> Operand<'_> {
        self.reborrow()
    }
}

impl<A: Element, S: Data<Elem = A>, D: Dimension> AsOperand for ArrayBase<S, D> {
    #[inline]
    fn as_operand(&self) -> Operand<'_> {
        Operand::view(TensorView::from_array(self.view()))
    }
}

macro_rules! scalar_operands {
    ($($t:ty),* $(,)?) => {$(
        /// A rank-0 tensor: a borrowed view of the scalar (no allocation).
        impl AsOperand for $t {
            #[inline]
            fn as_operand(&self) -> Operand<'_> {
                Operand::view(TensorView::from_array(ndarray::aview0(self)))
            }
        }
    )*};
}

scalar_operands!(
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    half::f16,
    half::bf16
);

/// What a handler may return: an extension value, a [`Tensor`] or a [`Value`].
pub trait IntoValue {
    /// Wraps `self` into a [`Value`].
    fn into_value(self) -> Value;

    /// The `TypeId` of every value `into_value` makes, when they are all of one type: the
    /// extension type's, or [`Tensor`]'s; `None` (the default) for [`Value`], which may hold
    /// any type. `#[dispatch]` reads it (through `IntoHandled::DEFAULT_INFER`) to give a handler
    /// without `infer = …` its default spec inference
    /// ([`infer::componentwise`](crate::ops::infer::componentwise),
    /// [`infer::on_tensor_like`](crate::ops::infer::on_tensor_like)).
    const RESULT_TYPE: Option<fn() -> TypeId> = None;
}

impl<T: ExtensionType> IntoValue for T {
    #[inline]
    fn into_value(self) -> Value {
        Value::from_extension(self)
    }
    const RESULT_TYPE: Option<fn() -> TypeId> = Some(TypeId::of::<T>);
}

impl IntoValue for Tensor {
    #[inline]
    fn into_value(self) -> Value {
        Value::Tensor(self)
    }
    const RESULT_TYPE: Option<fn() -> TypeId> = Some(TypeId::of::<Tensor>);
}

impl IntoValue for Value {
    #[inline]
    fn into_value(self) -> Value {
        self
    }
}

/// What a value can be taken out of an op's result as: [`Tensor`], [`Value`], an owned or shared
/// ndarray array ([`Array`], [`ArcArray`]: moved out of the result without a copy when it is
/// the only owner), or any [`ExtensionType`] (the typed variants `ops::*_as::<T>` use it).
pub trait FromValue: Sized {
    /// Takes `Self` out of `value`, or errors naming the expected and found types.
    fn from_value(value: Value) -> Result<Self>;
}

impl<T: ExtensionType> FromValue for T {
    fn from_value(value: Value) -> Result<Self> {
        value.downcast::<T>()
    }
}

impl FromValue for Tensor {
    fn from_value(value: Value) -> Result<Self> {
        value.into_tensor()
    }
}

impl FromValue for Value {
    fn from_value(value: Value) -> Result<Self> {
        Ok(value)
    }
}

/// An owned array out of a result tensor: the tensor's buffer moves into the array when the
/// tensor is its only owner (an op's fresh result is), else it is copied. An error names the
/// expected and found dtype or rank (`into_array: expected dtype f32, found bool`), or the
/// value's type when it is not a tensor.
///
/// ```
/// use extype_core::ops;
/// let x = ndarray::array![[1.0f32, -2.0]].into_dyn();
/// let y: ndarray::ArrayD<f32> = ops::abs_as(&x).unwrap();
/// assert_eq!(y, ndarray::array![[1.0f32, 2.0]].into_dyn());
/// let err = ops::is_nan_as::<ndarray::ArrayD<f32>>(&x).unwrap_err();
/// assert_eq!(err.to_string(), "into_array: expected dtype f32, found bool");
/// ```
impl<A: Element, D: Dimension> FromValue for Array<A, D> {
    #[inline]
    fn from_value(value: Value) -> Result<Self> {
        value.into_tensor()?.into_array()
    }
}

/// A shared array out of a result tensor: O(1), never a copy (except for a tensor viewing
/// external bytes). Errors as for [`Array`].
impl<A: Element, D: Dimension> FromValue for ArcArray<A, D> {
    #[inline]
    fn from_value(value: Value) -> Result<Self> {
        value.into_tensor()?.into_arc_array()
    }
}

/// The error for an argument that has the wrong dtype/kind for an op.
pub(crate) fn bad_argument(
    op: &str,
    arg: impl Into<String>,
    expected: impl Into<String>,
    found: impl Into<String>,
) -> Error {
    Error::argument(op, arg, expected, found)
}

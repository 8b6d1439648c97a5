//! How `#[dispatch]` reads a handler's parameters: **by trait**, as the derive reads fields, never
//! by the name of the type.
//!
//! Every parameter `x: &P` of a handler needs `P:` [`HandlerParam`]. The trait says how the
//! parameter is matched ([`HandlerParam::KIND`]: a [`ParamKind`] for a dispatched argument, `None`
//! for the call's extra arguments) and how the generated wrapper passes it to the handler
//! ([`with`](HandlerParam::with)):
//!
//! | `P`                               | `KIND`                         | matches                     |
//! |-----------------------------------|--------------------------------|-----------------------------|
//! | any [`ExtensionType`] (blanket)   | [`ParamKind::Extension`]       | exactly that type           |
//! | [`Tensor`]                        | [`ParamKind::Tensor`]          | any dense argument          |
//! | [`TensorView`]                    | [`ParamKind::Tensor`]          | any dense argument, in place |
//! | [`OrDense<T>`] (`T` extension)    | [`ParamKind::OrDense`]         | exactly `T`, or dense       |
//! | [`Value`], [`Operand`]            | [`ParamKind::Any`]             | any argument (a wildcard)   |
//! | `[&T]` (`T` extension), last      | [`ParamKind::Rest`]            | every remaining argument, each exactly `T` (one or more) |
//! | `[OrDense<T>]` (`T` extension), last | [`ParamKind::RestOrDense`]  | every remaining argument, each `T` or dense (one or more; not all arguments dense) |
//! | [`OpArgs`]                        | `None` (not dispatched on)     | the call's extra arguments  |
//!
//! The impls do not overlap: the trait and all these types are local to this crate and none of
//! them implements [`ExtensionType`] (no other crate may add such an impl). So `type T = Tensor;`
//! works, and a user extension type *named* `Value` or `Tensor` is matched exactly, as any other.
//!
//! The first parameter of a group handler is the op, `&P` with `P:` [`GroupParam`]
//! ([`UnaryOp`], [`BinaryOp`], [`ReductionOp`]).
//!
//! Since the macro cannot know which parameter is `&OpArgs`, the generated code computes, at
//! compile time, the dispatched parameters ([`dispatched_count`], [`dispatched_params`]) and each
//! parameter's position among them ([`dispatch_indices`]); it checks the count against the op's
//! arity in a `const` item (a clear compile error naming the op, its arity and the count).

use super::entry::{Call, Handled, ParamKind};
use super::group::{BinaryOp, ReductionOp, UnaryOp};
use extype_shape::signature::OpKind;

use crate::error::Result;
use crate::op_model::args::OpArgs;
use crate::op_model::operand::Operand;
use crate::spec::ExtensionType;
use crate::spec::value::Value;
use crate::tensor::{Tensor, TensorView};

/// A type a dispatch handler may take by shared reference, `x: &Self`; implemented for every
/// [`ExtensionType`], [`Tensor`], [`Value`], [`Operand`] and [`OpArgs`] (see the
/// [module docs](self)). `'a` is the lifetime of the call's arguments.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an argument of a dispatch handler",
    label = "not an extension type, `Tensor`, `Value`, `Operand` or `OpArgs`",
    note = "a dispatch handler takes `&T` for an extension type `T` (matched exactly), `&Tensor` \
            (any dense argument), `&Value` or `&Operand` (any argument), `&[&T]` last (the \
            remaining arguments of a variadic op; `&[OrDense<T>]` with dense ones mixed in), and \
            `&OpArgs` for the call's extra arguments",
    note = "the op of a group handler (`&UnaryOp`, `&BinaryOp`, `&ReductionOp`) comes first, in a \
            handler registered for its group, e.g. `#[dispatch(binary_elementwise)]`"
)]
pub trait HandlerParam<'a> {
    /// How the parameter is matched: the [`ParamKind`] of a dispatched argument, or `None` for
    /// a parameter that is not dispatched on ([`OpArgs`]).
    const KIND: Option<ParamKind>;

    /// Runs `f` on dispatched argument `index` of the call as `&Self` (`index` is ignored when
    /// [`KIND`](Self::KIND) is `None`). Declines ([`Handled::Declined`]) when the argument is
    /// missing or not of this type; returns the error when a conversion fails.
    fn with(
        call: &Call<'_>,
        args: &[Operand<'a>],
        index: usize,
        f: impl FnOnce(&Self) -> Result<Handled>,
    ) -> Result<Handled>;
}

// `do_not_recommend` on every impl: for a type that is none of these, the error is the trait's
// own message (not "`X: ExtensionType` is not satisfied"), without a list of impls.
#[diagnostic::do_not_recommend]
impl<'a, T: ExtensionType> HandlerParam<'a> for T {
    const KIND: Option<ParamKind> = Some(ParamKind::extension::<T>());

    #[inline]
    fn with(
        _: &Call<'_>,
        args: &[Operand<'a>],
        index: usize,
        f: impl FnOnce(&T) -> Result<Handled>,
    ) -> Result<Handled> {
        match args
            .get(index)
            .and_then(Operand::as_extension)
            .and_then(|e| e.as_any().downcast_ref::<T>())
        {
            Some(x) => f(x),
            None => Ok(Handled::Declined),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<'a> HandlerParam<'a> for Tensor {
    const KIND: Option<ParamKind> = Some(ParamKind::Tensor);

    /// Borrows a tensor argument; copies an array view into a tensor.
    #[inline]
    fn with(
        call: &Call<'_>,
        args: &[Operand<'a>],
        index: usize,
        f: impl FnOnce(&Tensor) -> Result<Handled>,
    ) -> Result<Handled> {
        if let Some(x) = args.get(index) {
            x.check_copy(call.op.name())?;
        }
        match args.get(index).and_then(Operand::to_tensor) {
            Some(x) => f(&x),
            None => Ok(Handled::Declined),
        }
    }
}

/// A dense argument as a view, without copying an array view into a tensor (a scalar or an
/// ndarray array passed by reference is read in place).
#[diagnostic::do_not_recommend]
impl<'a> HandlerParam<'a> for TensorView<'a> {
    const KIND: Option<ParamKind> = Some(ParamKind::Tensor);

    #[inline]
    fn with(
        _: &Call<'_>,
        args: &[Operand<'a>],
        index: usize,
        f: impl FnOnce(&TensorView<'a>) -> Result<Handled>,
    ) -> Result<Handled> {
        match args.get(index).and_then(Operand::as_view) {
            Some(view) => f(&view),
            None => Ok(Handled::Declined),
        }
    }
}

/// An argument of the extension type `T`, or a dense one (read in place, as a view): the
/// parameter of a handler that takes every mix of `T` and dense arguments — a masked tensor
/// plus a dense tensor, an array or a scalar, on either side — in one function. The table
/// registers it under each mix of keys, except all-dense (see [`ParamKind::OrDense`]).
/// (This example runs as `tests/dispatch_or_dense.rs` of the `extype` crate.)
///
/// ```ignore
/// use extype::{dispatch, BinaryOp, ExtensionType, OrDense, Result, Tensor};
///
/// #[derive(Clone, Debug, PartialEq, ExtensionType)]
/// #[extype(name = "doc.Scaled")]
/// pub struct Scaled { pub values: Tensor }
///
/// #[dispatch(binary_elementwise)]
/// fn scaled_binary(op: &BinaryOp, x: &OrDense<Scaled>, y: &OrDense<Scaled>) -> Result<Scaled> {
///     let values = op.apply_as(&x.values_or_dense(|s| &s.values), &y.values_or_dense(|s| &s.values))?;
///     Ok(Scaled { values })
/// }
///
/// let s = Scaled { values: Tensor::from(ndarray::array![1.0f32, 2.0].into_dyn()) };
/// let out: Scaled = extype::ops::mul_as(&s, &ndarray::array![10.0f32, 10.0])?;
/// assert_eq!(out.values, Tensor::from(ndarray::array![10.0f32, 20.0].into_dyn()));
/// let out: Scaled = extype::ops::mul_as(&ndarray::array![3.0f32, 3.0], &s)?;
/// assert_eq!(out.values, Tensor::from(ndarray::array![3.0f32, 6.0].into_dyn()));
/// // Two dense arguments stay with the dense kernels.
/// let dense: Tensor = extype::ops::mul_as(&ndarray::array![3.0f32], &ndarray::array![2.0f32])?;
/// assert_eq!(dense, Tensor::from(ndarray::array![6.0f32].into_dyn()));
/// # Ok::<(), extype::Error>(())
/// ```
#[derive(Debug, Clone)]
pub enum OrDense<'a, T> {
    /// The argument is a `T`.
    Ext(&'a T),
    /// The argument is dense (a tensor, an array or view, a scalar), read in place.
    Dense(TensorView<'a>),
}

impl<'a, T> OrDense<'a, T> {
    /// The `T`, if the argument is one.
    #[inline]
    pub fn ext(&self) -> Option<&'a T> {
        match self {
            OrDense::Ext(x) => Some(x),
            OrDense::Dense(_) => None,
        }
    }

    /// The dense argument, or `part` of the `T` (e.g. its values: a [`Tensor`], an ndarray
    /// array, any [`AsOperand`](crate::ops::AsOperand)), as an operand for `op.apply(…)` or
    /// `ops::*` (no copy).
    #[inline]
    pub fn values_or_dense<'s, P>(&'s self, part: impl FnOnce(&'s T) -> &'s P) -> Operand<'s>
    where
        P: crate::op_model::operand::AsOperand + ?Sized + 's,
    {
        match self {
            OrDense::Ext(x) => part(x).as_operand(),
            OrDense::Dense(view) => Operand::view(crate::op_model::operand::reborrow(view)),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<'a, T: ExtensionType> HandlerParam<'a> for OrDense<'a, T> {
    const KIND: Option<ParamKind> = Some(ParamKind::or_dense::<T>());

    #[inline]
    fn with(
        _: &Call<'_>,
        args: &[Operand<'a>],
        index: usize,
        f: impl FnOnce(&OrDense<'a, T>) -> Result<Handled>,
    ) -> Result<Handled> {
        let Some(x) = args.get(index) else {
            return Ok(Handled::Declined);
        };
        if let Some(view) = x.as_view() {
            return f(&OrDense::Dense(view));
        }
        match x.downcast_ref::<T>() {
            Some(ext) => f(&OrDense::Ext(ext)),
            None => Ok(Handled::Declined),
        }
    }
}

/// The remaining arguments of a variadic op's call (`concat`, `stack`), each of exactly the
/// extension type `T`: `xs: &[&T]`, the last dispatched parameter. One handler then takes any
/// number of operands, as TensorFlow's `tf.concat` of ragged tensors does.
#[diagnostic::do_not_recommend]
impl<'a, T: ExtensionType> HandlerParam<'a> for [&'a T] {
    const KIND: Option<ParamKind> = Some(ParamKind::rest::<T>());

    #[inline]
    fn with(
        _: &Call<'_>,
        args: &[Operand<'a>],
        index: usize,
        f: impl FnOnce(&[&'a T]) -> Result<Handled>,
    ) -> Result<Handled> {
        let rest = args.get(index..).unwrap_or_default();
        let items: Option<Vec<&'a T>> = rest.iter().map(Operand::downcast_ref::<T>).collect();
        match items {
            Some(items) if !items.is_empty() => f(&items),
            _ => Ok(Handled::Declined),
        }
    }
}

/// The remaining arguments of a variadic op's call, each of the extension type `T` or dense
/// (a tensor, an array, a view or a scalar, read in place), in any mix: `xs: &[OrDense<T>]`, the
/// last dispatched parameter. A call whose arguments are all dense never reaches it (the op's
/// dense default runs), so at least one argument of the call is a `T`. This is how a handler
/// takes TensorFlow's `tf.stack([masked, dense])`: one function for every mix and length.
///
/// ```text
/// #[dispatch(Stack)]
/// fn masked_stack(xs: &[OrDense<Masked>], args: &OpArgs) -> Result<Masked> { … }
/// ```
#[diagnostic::do_not_recommend]
impl<'a, T: ExtensionType> HandlerParam<'a> for [OrDense<'a, T>] {
    const KIND: Option<ParamKind> = Some(ParamKind::rest_or_dense::<T>());

    #[inline]
    fn with(
        _: &Call<'_>,
        args: &[Operand<'a>],
        index: usize,
        f: impl FnOnce(&[OrDense<'a, T>]) -> Result<Handled>,
    ) -> Result<Handled> {
        let rest = args.get(index..).unwrap_or_default();
        let items: Option<Vec<OrDense<'a, T>>> = rest
            .iter()
            .map(|x| match x.as_view() {
                Some(view) => Some(OrDense::Dense(view)),
                None => x.downcast_ref::<T>().map(OrDense::Ext),
            })
            .collect();
        match items {
            Some(items) if !items.is_empty() => f(&items),
            _ => Ok(Handled::Declined),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<'a> HandlerParam<'a> for Value {
    const KIND: Option<ParamKind> = Some(ParamKind::Any);

    /// See [`Operand::to_value`] for the cost.
    #[inline]
    fn with(
        _: &Call<'_>,
        args: &[Operand<'a>],
        index: usize,
        f: impl FnOnce(&Value) -> Result<Handled>,
    ) -> Result<Handled> {
        match args.get(index) {
            Some(x) => f(&x.to_value()?),
            None => Ok(Handled::Declined),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<'a> HandlerParam<'a> for Operand<'a> {
    const KIND: Option<ParamKind> = Some(ParamKind::Any);

    #[inline]
    fn with(
        _: &Call<'_>,
        args: &[Operand<'a>],
        index: usize,
        f: impl FnOnce(&Operand<'a>) -> Result<Handled>,
    ) -> Result<Handled> {
        match args.get(index) {
            Some(x) => f(x),
            None => Ok(Handled::Declined),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<'a> HandlerParam<'a> for OpArgs {
    const KIND: Option<ParamKind> = None;

    #[inline]
    fn with(
        call: &Call<'_>,
        _: &[Operand<'a>],
        _: usize,
        f: impl FnOnce(&OpArgs) -> Result<Handled>,
    ) -> Result<Handled> {
        f(call.args)
    }
}

/// The op argument of a group handler (its first parameter, `op: &Self`): [`UnaryOp`],
/// [`BinaryOp`] or [`ReductionOp`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the op of a group handler",
    label = "the first argument of a group handler is the op",
    note = "write `op: &UnaryOp` for `unary_elementwise`, `op: &BinaryOp` for \
            `binary_elementwise`, `op: &ReductionOp` for `reduction`"
)]
pub trait GroupParam<'a>: Sized {
    /// The group whose handlers take this op.
    const KIND: OpKind;

    /// Wraps the call being dispatched.
    fn new(call: &Call<'a>) -> Self;
}

macro_rules! group_param {
    ($($t:ident => $kind:ident),*) => {$(
        #[diagnostic::do_not_recommend]
        impl<'a> GroupParam<'a> for $t<'a> {
            const KIND: OpKind = OpKind::$kind;

            #[inline]
            fn new(call: &Call<'a>) -> Self {
                $t::new(call)
            }
        }
    )*};
}

group_param!(
    UnaryOp => UnaryElementwise,
    BinaryOp => BinaryElementwise,
    ReductionOp => Reduction
);

/// How many of a handler's parameters are dispatched (their [`HandlerParam::KIND`] is `Some`).
pub const fn dispatched_count(kinds: &[Option<ParamKind>]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < kinds.len() {
        if kinds[i].is_some() {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The dispatched parameters' kinds, in order (`N` is [`dispatched_count`]`(kinds)`).
pub const fn dispatched_params<const N: usize>(kinds: &[Option<ParamKind>]) -> [ParamKind; N] {
    let mut out = [ParamKind::Any; N];
    let mut n = 0;
    let mut i = 0;
    while i < kinds.len() {
        if let Some(kind) = kinds[i] {
            out[n] = kind;
            n += 1;
        }
        i += 1;
    }
    out
}

/// For each parameter, its position among the dispatched arguments (the number of dispatched
/// parameters before it); `P` is `kinds.len()`.
pub const fn dispatch_indices<const P: usize>(kinds: &[Option<ParamKind>]) -> [usize; P] {
    let mut out = [0; P];
    let mut n = 0;
    let mut i = 0;
    while i < P {
        out[i] = n;
        if kinds[i].is_some() {
            n += 1;
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_skip_the_extra_arguments() {
        const KINDS: &[Option<ParamKind>] = &[
            <Tensor as HandlerParam<'static>>::KIND,
            <OpArgs as HandlerParam<'static>>::KIND,
            <Value as HandlerParam<'static>>::KIND,
            <Operand<'static> as HandlerParam<'static>>::KIND,
        ];
        const N: usize = dispatched_count(KINDS);
        assert_eq!(N, 3);
        let params = dispatched_params::<N>(KINDS);
        assert_eq!(format!("{params:?}"), "[&Tensor, &Value, &Value]");
        assert_eq!(dispatch_indices::<4>(KINDS), [0, 1, 1, 2]);
        assert!(matches!(
            <BinaryOp<'static> as GroupParam<'static>>::KIND,
            OpKind::BinaryElementwise
        ));
    }
}

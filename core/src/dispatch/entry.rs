//! What one registration holds: [`DispatchEntry`], its [`Target`] and [`ParamKind`]s, and the
//! types a handler is called with ([`Call`]) and returns ([`Handled`]).

use std::any::TypeId;
use std::fmt;

use extype_shape::signature::OpKind;

use crate::error::Result;
use crate::op_model::args::OpArgs;
use crate::op_model::infer::{self, Inferred};
use crate::op_model::op::Op;
use crate::op_model::operand::{IntoValue, Operand};
use crate::spec::ExtensionType;
use crate::spec::value::{Value, ValueSpec};
use crate::tensor::Tensor;

/// What a handler is registered for: one op, or every op of a kind (a group handler).
#[derive(Debug, Clone, Copy)]
pub enum Target {
    /// One op (`#[dispatch(Add)]`, `#[dispatch(op = my_ops::SOFTPLUS)]`).
    Op(&'static Op),
    /// Every op of a kind (`#[dispatch(binary_elementwise)]`).
    Group(OpKind),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Op(op) => write!(f, "op {}", op.name()),
            Target::Group(kind) => write!(f, "group {kind}"),
        }
    }
}

/// The type a handler takes in one argument position, read from its signature.
#[derive(Clone, Copy)]
pub enum ParamKind {
    /// `&T` for an extension type `T`: matches arguments of exactly that type.
    Extension {
        /// `TypeId::of::<T>`.
        type_id: fn() -> TypeId,
        /// `type_name::<T>` (for errors).
        type_name: fn() -> &'static str,
    },
    /// `&Tensor` or `&TensorView`: matches every dense argument (tensor, array, view or scalar).
    Tensor,
    /// `&OrDense<T>`: matches an argument of exactly the extension type `T`, or a dense one. The
    /// table registers the handler under both keys in this position (every mix of `T` and dense
    /// arguments), except the one where every argument is dense, which stays with the op's
    /// dense default.
    OrDense {
        /// `TypeId::of::<T>`.
        type_id: fn() -> TypeId,
        /// `type_name::<T>` (for errors).
        type_name: fn() -> &'static str,
    },
    /// `&Value` or `&Operand`: matches an argument of any type (a wildcard).
    Any,
    /// `&[&T]` for an extension type `T`, the last dispatched parameter of a handler of a
    /// variadic op (`concat`, `stack`): matches one or more trailing arguments, each of exactly
    /// that type.
    Rest {
        /// `TypeId::of::<T>`.
        type_id: fn() -> TypeId,
        /// `type_name::<T>` (for errors).
        type_name: fn() -> &'static str,
    },
    /// `&[OrDense<T>]` for an extension type `T`, the last dispatched parameter of a handler of
    /// a variadic op: matches one or more trailing arguments, each of exactly that type or
    /// dense, in any mix, except a call whose arguments are all dense (that stays with the op's
    /// dense default), as [`OrDense`](Self::OrDense) does for one position.
    RestOrDense {
        /// `TypeId::of::<T>`.
        type_id: fn() -> TypeId,
        /// `type_name::<T>` (for errors).
        type_name: fn() -> &'static str,
    },
}

impl ParamKind {
    /// The kind for `&T`.
    pub const fn extension<T: ExtensionType>() -> ParamKind {
        ParamKind::Extension {
            type_id: TypeId::of::<T>,
            type_name: std::any::type_name::<T>,
        }
    }

    /// The kind for `&OrDense<T>`.
    pub const fn or_dense<T: ExtensionType>() -> ParamKind {
        ParamKind::OrDense {
            type_id: TypeId::of::<T>,
            type_name: std::any::type_name::<T>,
        }
    }

    /// The kind for `&[&T]`.
    pub const fn rest<T: ExtensionType>() -> ParamKind {
        ParamKind::Rest {
            type_id: TypeId::of::<T>,
            type_name: std::any::type_name::<T>,
        }
    }

    /// The kind for `&[OrDense<T>]`.
    pub const fn rest_or_dense<T: ExtensionType>() -> ParamKind {
        ParamKind::RestOrDense {
            type_id: TypeId::of::<T>,
            type_name: std::any::type_name::<T>,
        }
    }

    /// The `TypeId` an argument must have, or `None` for a wildcard. For
    /// [`OrDense`](Self::OrDense), the extension type's (its other key is the dense one,
    /// [`dense_alternative`](Self::dense_alternative)); for [`Rest`](Self::Rest) and
    /// [`RestOrDense`](Self::RestOrDense), the type of every argument from this position on
    /// (dense ones too, for the latter).
    pub fn type_id(&self) -> Option<TypeId> {
        match self {
            ParamKind::Extension { type_id, .. }
            | ParamKind::OrDense { type_id, .. }
            | ParamKind::Rest { type_id, .. }
            | ParamKind::RestOrDense { type_id, .. } => Some(type_id()),
            ParamKind::Tensor => Some(TypeId::of::<Tensor>()),
            ParamKind::Any => None,
        }
    }

    /// Whether the position also matches a dense argument besides [`type_id`](Self::type_id)
    /// (`&OrDense<T>`).
    pub fn dense_alternative(&self) -> bool {
        matches!(self, ParamKind::OrDense { .. })
    }

    /// The parameter type as written: `&pkg::Masked`, `&Tensor`, `&Value`.
    pub fn describe(&self) -> String {
        match self {
            ParamKind::Extension { type_name, .. } => format!("&{}", type_name()),
            ParamKind::OrDense { type_name, .. } => format!("&OrDense<{}>", type_name()),
            ParamKind::Tensor => "&Tensor".into(),
            ParamKind::Any => "&Value".into(),
            ParamKind::Rest { type_name, .. } => format!("&[&{}]", type_name()),
            ParamKind::RestOrDense { type_name, .. } => format!("&[OrDense<{}>]", type_name()),
        }
    }

    /// Whether the position takes every remaining argument (`&[&T]` or `&[OrDense<T>]`).
    pub fn is_rest(&self) -> bool {
        matches!(self, ParamKind::Rest { .. } | ParamKind::RestOrDense { .. })
    }

    /// Whether the position takes every remaining argument, dense ones too (`&[OrDense<T>]`).
    pub fn is_rest_or_dense(&self) -> bool {
        matches!(self, ParamKind::RestOrDense { .. })
    }
}

impl fmt::Debug for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// The op a handler is running and its non-tensor arguments.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The op called.
    pub op: &'static Op,
    /// Its extra arguments (axes, keepdims, dtype, …).
    pub args: &'a OpArgs,
}

/// What a handler did: produced the result, or declined (TensorFlow's `NotImplemented`), so that
/// the next candidate runs.
#[derive(Debug, Clone)]
pub enum Handled {
    /// The result.
    Done(Value),
    /// Not handled here; try the next candidate.
    Declined,
}

/// A registered handler, as the macro generates it: downcasts the arguments (already matched by
/// type) and wraps the result.
pub type HandlerFn = for<'c, 'a> fn(&Call<'c>, &[Operand<'a>]) -> Result<Handled>;

/// A handler's spec inference: the output spec for input specs (`#[dispatch(op, infer = f)]`);
/// `Ok(None)` declines (the next candidate's inference runs).
pub type InferFn = for<'c, 's> fn(&Call<'c>, &[&'s ValueSpec]) -> Result<Option<Inferred>>;

/// One registered handler. `#[dispatch]` submits one per function to `inventory`; tests may build
/// their own table from hand-made entries with [`DispatchTable::build`](super::DispatchTable::build).
#[derive(Debug)]
pub struct DispatchEntry {
    /// The op or group.
    pub target: Target,
    /// The parameter kind of each dispatched argument, in order.
    pub params: &'static [ParamKind],
    /// The wrapper that runs the user's function.
    pub handler: HandlerFn,
    /// The handler's spec inference, if it has one.
    pub infer: Option<InferFn>,
    /// Whether `infer` is the default its return type gives ([`IntoHandled::DEFAULT_INFER`]),
    /// not one written with `infer = …`: when it declines, the error still says the handler
    /// has no spec inference.
    pub infer_is_default: bool,
    /// The user's function name (for errors).
    pub name: &'static str,
    /// Source file of the registration.
    pub file: &'static str,
    /// Source line of the registration.
    pub line: u32,
}

impl DispatchEntry {
    /// An entry (a `const fn`, so it can be submitted to `inventory`).
    pub const fn new(
        target: Target,
        params: &'static [ParamKind],
        handler: HandlerFn,
        infer: Option<InferFn>,
        name: &'static str,
        file: &'static str,
        line: u32,
    ) -> DispatchEntry {
        DispatchEntry {
            target,
            params,
            handler,
            infer,
            infer_is_default: false,
            name,
            file,
            line,
        }
    }

    /// The entry with `infer` as its spec inference when it has none of its own: what
    /// `#[dispatch]` writes for a handler without `infer = …`, with its return type's
    /// [`IntoHandled::DEFAULT_INFER`].
    pub const fn with_default_infer(mut self, infer: Option<InferFn>) -> DispatchEntry {
        if self.infer.is_none() && infer.is_some() {
            self.infer = infer;
            self.infer_is_default = true;
        }
        self
    }

    /// `file:line`, the file relative to its crate (`src/handlers.rs:12`, never the absolute
    /// path cargo gives a dependency's files).
    pub fn location(&self) -> String {
        crate::error::source_location(self.file, self.line)
    }

    /// `name(&A, &B) at file:line`.
    pub fn describe(&self) -> String {
        let params: Vec<String> = self.params.iter().map(ParamKind::describe).collect();
        format!(
            "{}({}) at {}",
            self.name,
            params.join(", "),
            self.location()
        )
    }
}

inventory::collect!(DispatchEntry);

/// What a handler function may return: `Result<T>` (done) or `Result<Option<T>>` (`None`
/// declines), for `T` an extension type, [`Tensor`] or [`Value`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a return type a dispatch handler can have",
    label = "return `extype::Result<T>` or `extype::Result<Option<T>>` (None declines)",
    note = "T is an extension type, `Tensor` or `Value`"
)]
pub trait IntoHandled {
    /// Converts the handler's return value.
    fn into_handled(self) -> Result<Handled>;

    /// The spec inference a handler returning `Self` has without `infer = …`: for an extension
    /// type `T` ([`IntoValue::RESULT_TYPE`]), component-wise inference
    /// ([`infer::componentwise::<T>`](infer::componentwise)); for [`Tensor`], the
    /// op's dense inference on the inputs' tensor-like specs
    /// ([`infer::on_tensor_like`]); none for [`Value`].
    const DEFAULT_INFER: Option<InferFn> = None;
}

/// The default spec inference of a handler returning `T` (see [`IntoHandled::DEFAULT_INFER`]).
const fn default_infer<T: IntoValue>() -> Option<InferFn> {
    match T::RESULT_TYPE {
        Some(_) => Some(infer_by_result::<T>),
        None => None,
    }
}

fn infer_by_result<T: IntoValue>(
    call: &Call<'_>,
    specs: &[&ValueSpec],
) -> Result<Option<Inferred>> {
    match T::RESULT_TYPE {
        Some(result) => infer::by_result_type(result(), call.op, specs, call.args),
        None => Ok(None),
    }
}

impl<T: IntoValue> IntoHandled for Result<T> {
    const DEFAULT_INFER: Option<InferFn> = default_infer::<T>();
    #[inline]
    fn into_handled(self) -> Result<Handled> {
        match self {
            Ok(v) => Ok(Handled::Done(v.into_value())),
            Err(e) => Err(e),
        }
    }
}

impl<T: IntoValue> IntoHandled for Result<Option<T>> {
    const DEFAULT_INFER: Option<InferFn> = default_infer::<T>();
    #[inline]
    fn into_handled(self) -> Result<Handled> {
        self.map(|v| match v {
            Some(v) => Handled::Done(v.into_value()),
            None => Handled::Declined,
        })
    }
}

/// What a spec inference function may return: `Result<ValueSpec>` or `Result<Inferred>`, or
/// either in an `Option` (`Ok(None)` declines, like a handler).
pub trait IntoInferred {
    /// Converts the inference's return value.
    fn into_inferred(self) -> Result<Option<Inferred>>;
}

impl IntoInferred for Result<Inferred> {
    #[inline]
    fn into_inferred(self) -> Result<Option<Inferred>> {
        self.map(Some)
    }
}

impl IntoInferred for Result<ValueSpec> {
    #[inline]
    fn into_inferred(self) -> Result<Option<Inferred>> {
        self.map(|s| Some(Inferred::from(s)))
    }
}

impl IntoInferred for Result<Option<Inferred>> {
    #[inline]
    fn into_inferred(self) -> Result<Option<Inferred>> {
        self
    }
}

impl IntoInferred for Result<Option<ValueSpec>> {
    #[inline]
    fn into_inferred(self) -> Result<Option<Inferred>> {
        self.map(|s| s.map(Inferred::from))
    }
}

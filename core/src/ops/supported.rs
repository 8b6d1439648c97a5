//! [`supported`] and [`supported_for_spec`]: the ops that will run on a value, or on values of a
//! spec, read from the dispatch table without calling anything.

use std::any::TypeId;

use crate::dispatch::table;
use crate::error::Result;
use crate::op_model::Op;
use crate::op_model::operand::AsOperand;
use crate::registry::{AnonymousExtension, AnonymousSpec, registry};
use crate::spec::value::{AnySpec, ValueSpec};
use crate::spec::{ExtensionType, TypeSpec};
use crate::tensor::{Tensor, TensorLike, TensorSpec};

/// The ops that will run on `x`: catalog ops in catalog order, then the user-declared ops the
/// dispatch table has handlers for (by name).
///
/// An op is listed when a call with `x` in one or more argument positions and dense tensors in
/// the others (`stack` and `concat`: two values like `x`) has a candidate that matches by type —
/// an exact or wildcard handler, a group handler of the op's kind, the dense default when `x` is
/// dense and the op takes its dtype, or the op's fallback when it applies to `x`'s type
/// (`stack`/`concat`: the type is batchable; `shape`: it is tensor-like). For a dense `x`, the
/// dense default decides, and a handler adds an op only when it takes `&Tensor` somewhere. See
/// [`DispatchTable::supported`](crate::dispatch::DispatchTable::supported).
///
/// An anonymous value (or spec) of a type this program registered lists what that type does,
/// as a call dispatches it as that type; an error when it does not rebuild as one.
///
/// The list is of ops with a matching handler or fallback: a handler may still decline a call
/// at run time (`Result<Option<T>>`), and a wildcard handler (`&Operand`, `&Value`) matches
/// every type, so an op it serves is listed for every value. The extra arguments (axes, shapes,
/// indices) and the other operands still have to fit the op.
///
/// ```
/// use extype_core::ops::{self, catalog};
/// let x = ndarray::array![1i64, 2];
/// let ops = ops::supported(&x).unwrap();
/// assert!(ops.contains(&&catalog::ADD));
/// assert!(!ops.contains(&&catalog::EXP)); // exp takes floats only
/// ```
pub fn supported(x: &impl AsOperand) -> Result<Vec<&'static Op>> {
    let x = x.as_operand();
    // An anonymous value of a type this program registered is dispatched as that type (a call
    // rebuilds it): list what that type supports.
    let anonymous = x
        .as_extension()
        .and_then(|e| e.as_any().downcast_ref::<AnonymousExtension>());
    // (A name registered twice is the conflict's error.)
    if let Some(a) = anonymous
        && registry().resolve(&a.name)?.is_some()
    {
        return supported(&registry().rebuild(&a.spec, a.components.clone())?);
    }
    Ok(table()?.supported(x.type_id(), x.tensor_like()))
}

/// [`supported`] for the values of a spec: a [`ValueSpec`], a [`TensorSpec`], or the spec of any
/// extension type (every [`TypeSpec`]), through [`SupportedSpec`].
///
/// ```
/// use extype_core::ops::{self, catalog};
/// use extype_core::TensorSpec;
/// let spec: TensorSpec = "f32[?, 3]".parse().unwrap();
/// let ops = ops::supported_for_spec(&spec).unwrap();
/// assert!(ops.contains(&&catalog::EXP));
/// assert_eq!(ops.len(), catalog::ALL.len()); // every catalog op takes f32
/// ```
pub fn supported_for_spec(spec: &impl SupportedSpec) -> Result<Vec<&'static Op>> {
    // The spec of an anonymous value of a registered type: that type's spec.
    let anonymous = spec
        .as_any_spec()
        .and_then(|s| s.as_any().downcast_ref::<AnonymousSpec>());
    if let Some(a) = anonymous
        && registry().resolve(&a.name)?.is_some()
    {
        let real = registry().deserialize_spec(&a.spec)?;
        return Ok(table()?.supported(real.value_type_id(), real.dyn_tensor_like()));
    }
    Ok(table()?.supported(spec.dispatch_type_id(), spec.spec_tensor_like()))
}

/// A spec [`supported_for_spec`] takes: what it tells of its values without one.
pub trait SupportedSpec {
    /// The type its values are dispatched on: `TypeId::of::<Tensor>()` for a tensor spec, the
    /// extension type's otherwise.
    fn dispatch_type_id(&self) -> TypeId;

    /// Its dtype and shape, when its values are tensor-like ([`TensorLike`]).
    fn spec_tensor_like(&self) -> Option<&dyn TensorLike>;

    /// The extension spec behind `dyn` (`None` for a tensor spec).
    fn as_any_spec(&self) -> Option<&dyn AnySpec>;
}

impl SupportedSpec for ValueSpec {
    fn dispatch_type_id(&self) -> TypeId {
        match self {
            ValueSpec::Tensor(_) => TypeId::of::<Tensor>(),
            ValueSpec::Extension(s) => s.value_type_id(),
        }
    }

    fn spec_tensor_like(&self) -> Option<&dyn TensorLike> {
        self.tensor_like()
    }

    fn as_any_spec(&self) -> Option<&dyn AnySpec> {
        match self {
            ValueSpec::Tensor(_) => None,
            ValueSpec::Extension(s) => Some(&**s),
        }
    }
}

impl SupportedSpec for TensorSpec {
    fn dispatch_type_id(&self) -> TypeId {
        TypeId::of::<Tensor>()
    }

    fn spec_tensor_like(&self) -> Option<&dyn TensorLike> {
        Some(self)
    }

    fn as_any_spec(&self) -> Option<&dyn AnySpec> {
        None
    }
}

impl<S> SupportedSpec for S
where
    S: TypeSpec,
    S::Value: ExtensionType<Spec = S>,
{
    fn dispatch_type_id(&self) -> TypeId {
        TypeId::of::<S::Value>()
    }

    fn spec_tensor_like(&self) -> Option<&dyn TensorLike> {
        S::Value::spec_as_tensor_like(self)
    }

    fn as_any_spec(&self) -> Option<&dyn AnySpec> {
        Some(self)
    }
}

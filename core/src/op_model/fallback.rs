//! The catalog's fallbacks for extension values no handler takes ([`FallbackFn`]): what an op
//! runs, where its dense default runs, for a call whose arguments are not all dense. `stack` and
//! `concat` join extension values of one batchable type on axis 0 with their batch encoders
//! ([`batch::stack_values`], [`batch::concat_values`]), for any number of values. `shape` reads
//! a tensor-like extension value's shape ([`TensorLike`]), and infers from its spec's.

use std::any::TypeId;

use super::args::OpArgs;
use super::op::Op;
use super::operand::Operand;
use crate::batch;
use crate::error::DispatchError;
use crate::error::Result;
use crate::spec::value::{Value, ValueSpec};
use crate::tensor::Tensor;
use extype_shape::Dim;

#[cfg(doc)]
use super::op::FallbackFn;

/// `stack` (`STACK = true`) and `concat` (`STACK = false`) of extension values on axis 0 by
/// their batch encoder. `None` (the call's "no handler" error stands) unless the axis is 0 and
/// every argument is an extension value of a batchable type.
pub(crate) fn batch<const STACK: bool>(
    _: &Op,
    xs: &[Operand<'_>],
    args: &OpArgs,
) -> Option<Result<Value>> {
    if args.axis != 0 || xs.is_empty() || xs.iter().any(Operand::is_dense) {
        return None;
    }
    let values = match xs.iter().map(Operand::to_value).collect::<Result<Vec<_>>>() {
        Ok(values) => values,
        Err(e) => return Some(Err(e)),
    };
    if !values.iter().all(batch::is_batchable) {
        return None;
    }
    Some(if STACK {
        batch::stack_values(&values)
    } else {
        batch::concat_values(&values)
    })
}

/// Whether [`batch`] applies to values of the type `type_id`: the type is batchable
/// ([`batch::is_batchable_type`]).
pub(crate) fn is_batchable(type_id: TypeId, _tensor_like: bool) -> bool {
    batch::is_batchable_type(type_id)
}

/// Whether [`tensor_like_shape`] applies to values of a type: the type is tensor-like.
pub(crate) fn is_tensor_like(_type_id: TypeId, tensor_like: bool) -> bool {
    tensor_like
}

/// `shape` of a tensor-like extension value ([`TensorLike`]): its dims as an `i64` vector when
/// every one is known; an error naming the unknown dims otherwise (a ragged dimension has no
/// single size: register a `Shape` handler for such a type). `None` for a value that is not
/// tensor-like.
pub(crate) fn tensor_like_shape(op: &Op, xs: &[Operand<'_>], _: &OpArgs) -> Option<Result<Value>> {
    let [x] = xs else { return None };
    let shape = x.tensor_like()?.shape();
    let dims: Option<Vec<i64>> = shape.dims().and_then(|dims| {
        dims.iter()
            .map(|d| match d {
                Dim::Known(n) => i64::try_from(*n).ok(),
                _ => None,
            })
            .collect()
    });
    Some(match dims {
        Some(dims) => Ok(Value::Tensor(Tensor::from(ndarray::Array1::from(dims)))),
        None => Err(DispatchError::Argument {
            op: op.name().to_string(),
            arg: "argument 0".into(),
            expected: "a value whose every dimension is a known size (register a `Shape` handler \
                       for a type with ragged dimensions)"
                .into(),
            found: format!("{} of shape {shape}", x.type_name()),
        }
        .into()),
    })
}

/// The spec inference of [`tensor_like_shape`]: the op's dense inference on the specs' tensor-like
/// view (`i64[rank]` for `shape`). `None` when some spec is not tensor-like.
pub(crate) fn infer_tensor_like(
    op: &Op,
    specs: &[&ValueSpec],
    args: &OpArgs,
) -> Option<Result<ValueSpec>> {
    match super::infer::on_tensor_like(op, specs, args) {
        Ok(inferred) => inferred.map(|i| Ok(i.spec)),
        Err(e) => Some(Err(e)),
    }
}

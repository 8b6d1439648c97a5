//! The catalog's fallbacks for extension values no handler takes ([`FallbackFn`]): what an op
//! runs, where its dense default runs, for a call whose arguments are not all dense. `stack` and
//! `concat` join extension values of one batchable type on axis 0 with their batch encoders
//! ([`batch::stack_values`], [`batch::concat_values`]), and values of one tensor-like type
//! whose components all have the shape it shows (a masked tensor's values and mask) on any axis,
//! component by component; for any number of values. `shape` reads a tensor-like extension
//! value's shape ([`TensorLike`]), and infers from its spec's.

use std::any::TypeId;

use super::args::OpArgs;
use super::bodies;
use super::dense_args::DenseArgs;
use super::op::Op;
use super::operand::{Operand, reborrow};
use crate::batch;
use crate::error::DispatchError;
use crate::error::Result;
use crate::spec::TensorSpec;
use crate::spec::value::{AnyExtension, Value, ValueSpec};
use crate::tensor::{Tensor, TensorView};
use extype_shape::{Dim, Shape};

#[cfg(doc)]
use super::op::FallbackFn;

/// `stack` (`STACK = true`) and `concat` (`STACK = false`) of extension values: on axis 0 by
/// their batch encoder when their type is batchable ([`batch`]); otherwise component by
/// component when they are of one tensor-like type whose components all have the shape it shows
/// ([`by_component`]). `None` (the call's "no handler" error stands) when neither applies.
pub(crate) fn join<const STACK: bool>(
    op: &Op,
    xs: &[Operand<'_>],
    args: &OpArgs,
) -> Option<Result<Value>> {
    batch::<STACK>(op, xs, args).or_else(|| by_component::<STACK>(op, xs, args))
}

/// Whether [`join`] applies to values of a type: batchable, or tensor-like (whether a value's
/// components all have its shape is known only from the value).
pub(crate) fn joins(type_id: TypeId, tensor_like: bool) -> bool {
    tensor_like || batch::is_batchable_type(type_id)
}

/// `stack` / `concat` of values of one tensor-like type whose components all have the shape it
/// shows (each component holds one entry per element: a masked tensor's values and mask), on
/// any axis: each component joined by the dense op, the spec rebuilt from the joined components'
/// specs ([`AnySpec::dyn_with_component_specs`](crate::spec::AnySpec::dyn_with_component_specs)).
/// The values' static data must be equal (an error naming both specs otherwise). `None` when
/// the arguments are not such values.
fn by_component<const STACK: bool>(
    op: &Op,
    xs: &[Operand<'_>],
    args: &OpArgs,
) -> Option<Result<Value>> {
    let values: Option<Vec<&dyn AnyExtension>> = xs.iter().map(Operand::as_extension).collect();
    let values = values?;
    let type_id = values.first()?.as_any().type_id();
    let mut components: Vec<Vec<TensorView<'_>>> = Vec::with_capacity(values.len());
    for value in &values {
        let shape = value.dyn_tensor_like()?.shape();
        let views = value.component_views();
        if value.as_any().type_id() != type_id
            || views.iter().any(|v| Shape::known(v.shape()) != shape)
        {
            return None;
        }
        components.push(views);
    }
    let count = components[0].len();
    let joined = (0..count)
        .map(|i| {
            let views: Vec<TensorView<'_>> = components.iter().map(|c| reborrow(&c[i])).collect();
            bodies::join::<STACK>(op, DenseArgs::Views(&views), args)
        })
        .collect::<Result<Vec<Tensor>>>();
    Some(joined.and_then(|joined| {
        let specs: Vec<TensorSpec> = joined.iter().map(TensorSpec::from_tensor).collect();
        let spec = values[0]
            .any_spec()
            .dyn_with_component_specs(specs.clone())?;
        for value in &values[1..] {
            let other = value.any_spec().dyn_with_component_specs(specs.clone())?;
            if !other.dyn_eq(&*spec) {
                return Err(DispatchError::Argument {
                    op: op.name().to_string(),
                    arg: "the values".into(),
                    expected: format!(
                        "values whose static data are equal ({})",
                        values[0].any_spec()
                    ),
                    found: value.any_spec().to_string(),
                }
                .into());
            }
        }
        spec.dyn_from_components(joined)
    }))
}

/// `stack` (`STACK = true`) and `concat` (`STACK = false`) of extension values on axis 0 by
/// their batch encoder. `None` unless the axis is 0 and every argument is an extension value of
/// a batchable type.
fn batch<const STACK: bool>(_: &Op, xs: &[Operand<'_>], args: &OpArgs) -> Option<Result<Value>> {
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

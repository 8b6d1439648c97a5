//! The catalog's fallbacks for extension values no handler takes ([`FallbackFn`]): what an op
//! runs, where its dense default runs, for a call whose arguments are not all dense. `stack` and
//! `concat` join extension values of one batchable type on axis 0 with their batch encoders
//! ([`batch::stack_values`], [`batch::concat_values`]), for any number of values.

use super::args::OpArgs;
use super::op::Op;
use super::operand::Operand;
use crate::batch;
use crate::error::Result;
use crate::spec::value::Value;

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

//! Spec inference of the ragged handlers: the flat values' spec goes through the op's dense
//! inference, the partitions' specs are kept (and must be compatible between ragged operands),
//! so a chain of ops is checked on specs before any data exists.

use super::{RaggedTensorSpec, arg_error};
use crate::dispatch::Call;
use crate::ops;
use crate::{Dim, Result, Shape, TensorLike, TensorSpec, ValueSpec};

/// The ragged spec of operand `spec`, if it is one.
pub(crate) fn ragged(spec: &ValueSpec) -> Option<&RaggedTensorSpec> {
    match spec {
        ValueSpec::Extension(e) => e.as_any().downcast_ref::<RaggedTensorSpec>(),
        ValueSpec::Tensor(_) => None,
    }
}

/// A ragged spec as a `ValueSpec`.
pub(crate) fn value(spec: RaggedTensorSpec) -> ValueSpec {
    ValueSpec::Extension(Box::new(spec))
}

/// The dense output spec of `op` on one dense spec.
fn dense(call: &Call<'_>, specs: &[TensorSpec]) -> Result<TensorSpec> {
    let specs: Vec<ValueSpec> = specs.iter().cloned().map(ValueSpec::Tensor).collect();
    let refs: Vec<&ValueSpec> = specs.iter().collect();
    let out = ops::infer_spec(call.op, &refs, call.args)?;
    match out.spec {
        ValueSpec::Tensor(t) => Ok(t),
        other => Err(arg_error(
            call.op.name(),
            "result",
            "a dense spec",
            other.to_string(),
        )),
    }
}

/// Unary ops, `cast`, `zeros_like`, `ones_like`: the op on the flat values' spec.
pub(crate) fn unary(call: &Call<'_>, specs: &[&ValueSpec]) -> Result<Option<ValueSpec>> {
    let Some(x) = specs.first().and_then(|s| ragged(s)) else {
        return Ok(None);
    };
    let flat = dense(call, std::slice::from_ref(&x.flat_values))?;
    Ok(Some(value(x.with_flat_values(flat))))
}

/// Binary ops, comparisons, `where`: ragged operands' partitions must be compatible; dense
/// operands broadcast per row (leading axis 1 or `nrows`, ragged axes 1).
pub(crate) fn elementwise(call: &Call<'_>, specs: &[&ValueSpec]) -> Result<Option<ValueSpec>> {
    let Some(base) = specs.iter().find_map(|s| ragged(s)) else {
        return Ok(None);
    };
    let op = call.op.name();
    // A hand-written spec may give the flat values rank 0 (invalid): count it as 1.
    let rank = base.ragged_rank() + base.flat_values.shape.rank().unwrap_or(1).max(1);
    let mut flats = Vec::with_capacity(specs.len());
    let mut out = base.clone();
    for (i, spec) in specs.iter().enumerate() {
        match (ragged(spec), spec) {
            (Some(r), _) => {
                let partitions_fit = r.ragged_rank() == base.ragged_rank()
                    && r.uniform_row_lengths == base.uniform_row_lengths
                    && r.nested_row_splits
                        .iter()
                        .zip(&base.nested_row_splits)
                        .all(|(a, b)| a.is_compatible_with(b));
                if !partitions_fit {
                    return Err(arg_error(
                        op,
                        &format!("argument {i}"),
                        format!(
                            "a ragged tensor with the partitions of shape {}",
                            TensorLike::shape(base)
                        ),
                        format!("ragged shape {}", TensorLike::shape(r)),
                    ));
                }
                // Keep what either operand knows about the partitions.
                for (o, s) in out.nested_row_splits.iter_mut().zip(&r.nested_row_splits) {
                    if let Some(m) = o.most_specific_compatible(s)
                        && m.is_at_least_as_specific_as(o)
                    {
                        *o = m;
                    } else if s.is_at_least_as_specific_as(o) {
                        *o = s.clone();
                    }
                }
                flats.push(r.flat_values.clone());
            }
            (None, ValueSpec::Tensor(t)) => flats.push(per_row(op, base, rank, t, i)?),
            (None, _) => return Ok(None),
        }
    }
    let flat = dense(call, &flats)?;
    Ok(Some(value(out.with_flat_values(flat))))
}

/// A dense operand's spec as it broadcasts against the flat values: `[?, inner…]`.
fn per_row(
    op: &str,
    base: &RaggedTensorSpec,
    rank: usize,
    t: &TensorSpec,
    index: usize,
) -> Result<TensorSpec> {
    let Some(dims) = t.shape.dims() else {
        return Ok(TensorSpec::new(Shape::unknown_rank(), t.dtype));
    };
    let rr = base.ragged_rank();
    let refuse = || {
        arg_error(
            op,
            &format!("argument {index}"),
            format!(
                "a dense shape that broadcasts per row against ragged shape {} (rank at most \
                 {rank}, leading axis 1 or nrows, every ragged axis 1)",
                TensorLike::shape(base)
            ),
            format!("dense shape {}", t.shape),
        )
    };
    if dims.len() > rank {
        return Err(refuse());
    }
    let mut padded = vec![Dim::Known(1); rank - dims.len()];
    padded.extend(dims.iter().cloned());
    if padded[1..=rr]
        .iter()
        .any(|d| matches!(d, Dim::Known(n) if *n != 1) || matches!(d, Dim::NotOne))
    {
        return Err(refuse());
    }
    let nrows = TensorLike::shape(base)
        .dims()
        .and_then(|d| d.first().cloned());
    if let (Dim::Known(lead), Some(Dim::Known(n))) = (&padded[0], &nrows)
        && *lead != 1
        && lead != n
    {
        return Err(refuse());
    }
    let lead = if padded[0] == Dim::Known(1) {
        Dim::Known(1)
    } else {
        Dim::Unknown
    };
    let mut out = vec![lead];
    out.extend(padded[1 + rr..].iter().cloned());
    Ok(TensorSpec::new(Shape::from_dims(out), t.dtype))
}

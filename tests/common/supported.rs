//! The honesty check of `ops::supported`: every op it lists for a sample value runs on that value,
//! and every catalog op it does not list fails (with the "no handler" error, for an extension
//! value). Reusable for any type: each op's call is built generically from the op and the
//! sample's tensor-like view (its dtype and shape).

use extype::ops::{self, OpArgs, catalog};
use extype::{DType, Op, OpKind, Tensor, Value};
use ndarray::{ArrayD, IxDyn};

/// The outcome of one op on a sample: every attempt's error (empty when one attempt ran).
#[derive(Debug)]
pub struct Outcome {
    /// The op.
    pub op: &'static Op,
    /// Whether some attempt ran.
    pub ran: bool,
    /// The error of each attempt that failed, with the arguments' description.
    pub errors: Vec<String>,
}

/// Runs every op `ops::supported(sample)` lists on `sample` and panics naming each that fails;
/// checks that `ops::supported_for_spec(&sample.spec())` lists the same ops, and that every
/// catalog op not listed fails on every attempt — with the "no handler" error when `sample` is
/// an extension value (a dense sample's unlisted ops fail on their dtype). Returns the list.
///
/// The sample needs rank ≥ 1 and a non-empty first axis (for `gather`, `boolean_mask` and the
/// segment ops); a sample that is not tensor-like gets f32 scalars as its dense partners.
pub fn check_supported(sample: &Value) -> Vec<&'static Op> {
    let listed = ops::supported(sample).unwrap();
    let from_spec = ops::supported_for_spec(&sample.spec()).unwrap();
    assert_eq!(
        names(&listed),
        names(&from_spec),
        "supported and supported_for_spec differ"
    );
    let mut failed = Vec::new();
    for &op in &listed {
        let outcome = run(op, sample);
        if !outcome.ran {
            failed.push(format!("{}: {}", op.name(), outcome.errors.join(" | ")));
        }
    }
    assert!(
        failed.is_empty(),
        "ops listed as supported for {} that do not run:\n{}",
        sample.type_name(),
        failed.join("\n")
    );
    let dense = matches!(sample, Value::Tensor(_));
    for &op in catalog::ALL {
        if listed.iter().any(|l| std::ptr::eq(*l, op)) {
            continue;
        }
        let outcome = run(op, sample);
        assert!(
            !outcome.ran,
            "{} is not listed for {} but runs",
            op.name(),
            sample.type_name()
        );
        if !dense {
            // "No handler", or (a tensor-like sample's elementwise op or reduction) the op's
            // refusal of the dtype the sample shows.
            let shown = sample
                .tensor_like()
                .map(|l| format!("found dtype {}", l.dtype()));
            for e in &outcome.errors {
                let refused = shown.as_ref().is_some_and(|d| e.contains(d.as_str()));
                assert!(
                    e.contains(&format!("{}: no handler for arguments", op.name())) || refused,
                    "{} is not listed for {} but fails otherwise than with no handler: {e}",
                    op.name(),
                    sample.type_name()
                );
            }
        }
    }
    listed
}

fn names(ops: &[&'static Op]) -> Vec<&'static str> {
    ops.iter().map(|op| op.name()).collect()
}

/// Calls `op` with `sample` in one or more positions and dense partners in the others (every
/// combination; `stack` and `concat`: two samples), with extra arguments built from the sample's
/// shape. `ran` when one call succeeds.
pub fn run(op: &'static Op, sample: &Value) -> Outcome {
    let (dtype, shape) = match sample.tensor_like() {
        Some(like) => (
            like.dtype(),
            like.shape()
                .dims()
                .map(|dims| {
                    dims.iter()
                        .map(|d| match d {
                            extype::Dim::Known(n) => *n,
                            _ => 1,
                        })
                        .collect()
                })
                .unwrap_or_default(),
        ),
        None => (DType::F32, Vec::new()),
    };
    let args = args_for(op, &shape);
    let (n, every) = match op.arity() {
        extype::ops::Arity::Exactly(n) => (n, false),
        extype::ops::Arity::AtLeast(k) => (k.max(2), true),
    };
    let all = (1u32 << n) - 1;
    let masks: Vec<u32> = if every {
        vec![all]
    } else {
        (1..=all).collect()
    };
    let mut errors = Vec::new();
    for mask in masks {
        let values: Vec<Value> = (0..n)
            .map(|i| {
                if mask >> i & 1 == 1 {
                    sample.clone()
                } else {
                    Value::Tensor(partner(op, i, dtype, &shape))
                }
            })
            .collect();
        let operands: Vec<_> = values.iter().map(extype::Operand::value).collect();
        match ops::call(op, &operands, &args) {
            Ok(_) => {
                return Outcome {
                    op,
                    ran: true,
                    errors: Vec::new(),
                };
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    Outcome {
        op,
        ran: false,
        errors,
    }
}

/// The extra arguments of `op` for a sample of this shape.
fn args_for(op: &'static Op, shape: &[usize]) -> OpArgs {
    let is = |other: &Op| std::ptr::eq(op, other);
    let first = shape.first().copied().unwrap_or(1);
    if is(&catalog::RESHAPE) {
        OpArgs::none().with_shape(&[shape.iter().product()])
    } else if is(&catalog::TILE) {
        let mut multiples = vec![1; shape.len()];
        if let Some(m) = multiples.first_mut() {
            *m = 2;
        }
        OpArgs::none().with_shape(&multiples)
    } else if is(&catalog::GATHER) {
        OpArgs::none().with_indices(&[0]).with_axis(0)
    } else if is(&catalog::CAST) {
        OpArgs::none().with_dtype(DType::F64)
    } else if op.kind() == OpKind::Other && op.name().starts_with("segment_") {
        OpArgs::none().with_indices(&[0, first as i64])
    } else {
        // Unary and binary elementwise ops, reductions over all axes, `shape`, `transpose`
        // (reversed axes), `stack`/`concat` (axis 0), `where`, `zeros_like`, `ones_like`,
        // `boolean_mask`, and user ops: none.
        OpArgs::none()
    }
}

/// The dense argument of `op` at position `i` beside the sample: a bool condition for `where`
/// (position 0), a bool mask over the first axis for `boolean_mask` (position 1), otherwise ones
/// of the sample's dtype and shape; for `matmul`, of the sample's shape with its last two
/// axes swapped (so that `sample @ partner` and `partner @ sample` fit).
fn partner(op: &'static Op, i: usize, dtype: DType, shape: &[usize]) -> Tensor {
    let is = |other: &Op| std::ptr::eq(op, other);
    if is(&catalog::WHERE) && i == 0 {
        let n: usize = shape.iter().product();
        return Tensor::from(
            ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|k| k % 2 == 0).collect()).unwrap(),
        );
    }
    if is(&catalog::BOOLEAN_MASK) && i == 1 {
        let first = shape.first().copied().unwrap_or(1);
        return Tensor::from(ArrayD::from_elem(IxDyn(&[first]), true));
    }
    let mut shape = shape.to_vec();
    if is(&catalog::MATMUL) && shape.len() >= 2 {
        let n = shape.len();
        shape.swap(n - 2, n - 1);
    }
    let ones = Tensor::from(ArrayD::from_elem(IxDyn(&shape), 1.0f64));
    ops::cast_as(&ones, dtype).unwrap()
}

//! Spec inference: the output spec of an op from its input specs, before any data exists.
//!
//! [`dense`] is every catalog op's own rule on tensor specs (binary ops broadcast statically with
//! [`broadcast_static`], returning the runtime [`BroadcastChecks`] that make the output true);
//! [`infer_spec`](super::infer_spec) dispatches on spec types, so handlers registered with
//! `#[dispatch(op, infer = f)]` infer the specs of extension values.
//!
//! ```
//! use extype_core::ops::{self, OpArgs, catalog};
//! use extype_core::{DType, Shape, TensorSpec, ValueSpec};
//! let x = ValueSpec::Tensor(TensorSpec::new("[?, 3]".parse().unwrap(), DType::F32));
//! let y = ValueSpec::Tensor(TensorSpec::new("[4, ?]".parse().unwrap(), DType::F32));
//! let out = ops::infer_spec(&catalog::ADD, &[&x, &y], &OpArgs::none()).unwrap();
//! assert_eq!(out.tensor_spec().unwrap().to_string(), "f32[4, 3]");
//! assert_eq!(
//!     out.checks.unwrap().to_string(),
//!     "argument 1 axis 1 ∈ {1, 3}; argument 0 axis 0 ∈ {1, 4}"
//! );
//! ```

use crate::dtype::DType;
use crate::error::{Result, ShapeError};
use crate::ops::OpArgs;
use crate::ops::catalog::{Op, OpKind};
use crate::ops::operand::bad_argument;
use crate::shape::{BroadcastChecks, Dim, Policy, Shape, broadcast_static};
use crate::spec::TensorSpec;
use crate::value::ValueSpec;

/// The result of spec inference: the output spec, and for broadcasting ops the runtime checks the
/// inputs must pass for that spec to hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inferred {
    /// The output spec.
    pub spec: ValueSpec,
    /// The broadcast checks on the inputs (binary elementwise ops and `where`).
    pub checks: Option<BroadcastChecks>,
}

impl Inferred {
    /// The output spec as a tensor spec, if it is one.
    pub fn tensor_spec(&self) -> Option<&TensorSpec> {
        match &self.spec {
            ValueSpec::Tensor(t) => Some(t),
            ValueSpec::Extension(_) => None,
        }
    }
}

impl From<ValueSpec> for Inferred {
    fn from(spec: ValueSpec) -> Self {
        Inferred { spec, checks: None }
    }
}

impl From<TensorSpec> for Inferred {
    fn from(spec: TensorSpec) -> Self {
        Inferred {
            spec: ValueSpec::Tensor(spec),
            checks: None,
        }
    }
}

const KERNEL_DTYPES: [DType; 7] = [
    DType::Bool,
    DType::F32,
    DType::F64,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U64,
];

fn numeric(d: DType) -> bool {
    d != DType::Bool && KERNEL_DTYPES.contains(&d)
}

fn check_dtype(op: &str, arg: usize, d: DType, ok: fn(DType) -> bool, what: &str) -> Result<()> {
    if ok(d) {
        Ok(())
    } else {
        Err(bad_argument(
            op,
            format!("argument {arg}"),
            what,
            format!("dtype {d}"),
        ))
    }
}

const NUMERIC: &str = "a numeric dtype (f32, f64, i32, i64, u8, u64)";
const FLOAT: &str = "a float dtype (f32, f64)";
const ANY: &str = "one of bool, f32, f64, i32, i64, u8, u64";

fn out(shape: Shape, dtype: DType) -> Inferred {
    TensorSpec::new(shape, dtype).into()
}

/// The dtype a reduction (or segment reduction) returns for input dtype `d`.
fn reduced_dtype(name: &str, d: DType) -> DType {
    let stem = name
        .trim_start_matches("reduce_")
        .trim_start_matches("segment_");
    match stem {
        "sum" | "prod" => match d {
            DType::I32 => DType::I64,
            DType::U8 => DType::U64,
            other => other,
        },
        "mean" if !d.is_float() => DType::F64,
        "any" | "all" => DType::Bool,
        "count_nonzero" | "argmax" | "argmin" => DType::I64,
        _ => d,
    }
}

fn normalize_axis(op: &str, axis: isize, rank: usize) -> Result<usize> {
    let r = rank as isize;
    let a = if axis < 0 { axis + r } else { axis };
    if a < 0 || a >= r {
        return Err(bad_argument(
            op,
            "axis",
            format!("an axis in -{r}..{r} (rank {rank})"),
            axis.to_string(),
        ));
    }
    Ok(a as usize)
}

fn reduce_shape(op: &str, shape: &Shape, args: &OpArgs) -> Result<Shape> {
    let Some(dims) = shape.dims() else {
        return Ok(match (&args.axes, args.keepdims) {
            (None, false) => Shape::scalar(),
            _ => Shape::unknown_rank(),
        });
    };
    let rank = dims.len();
    let mut reduced = vec![false; rank];
    match &args.axes {
        None => reduced.iter_mut().for_each(|r| *r = true),
        Some(axes) => {
            for &a in axes {
                let i = normalize_axis(op, a, rank)?;
                if std::mem::replace(&mut reduced[i], true) {
                    return Err(bad_argument(
                        op,
                        "axes",
                        "distinct axes",
                        format!("axis {a} twice"),
                    ));
                }
            }
        }
    }
    Ok(Shape::from_dims(dims.iter().zip(&reduced).filter_map(
        |(&d, &r)| match (r, args.keepdims) {
            (false, _) => Some(d),
            (true, true) => Some(Dim::Known(1)),
            (true, false) => None,
        },
    )))
}

fn same_dtype(op: &str, specs: &[&TensorSpec], from: usize) -> Result<DType> {
    let d = specs[from].dtype;
    for (i, s) in specs.iter().enumerate().skip(from + 1) {
        if s.dtype != d {
            return Err(bad_argument(
                op,
                format!("argument {i}"),
                format!("dtype {d} (the dtype of argument {from}; cast first)"),
                format!("dtype {}", s.dtype),
            ));
        }
    }
    Ok(d)
}

/// The output spec of `op` on dense inputs of these specs (the rule the dense default follows).
///
/// Errors say what the kernels would: a dtype the op does not take, shapes that cannot
/// broadcast, an axis out of range — before any data exists. User-declared ops follow their
/// kind: unary and binary elementwise ops keep the dtype (binary ones broadcast), reductions
/// reduce the shape; `other` user ops have no inference without a handler.
pub fn dense(op: &Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<Inferred> {
    let name = op.name();
    if !op.arity().admits(specs.len()) {
        return Err(crate::error::DispatchError::Arity {
            op: name.to_string(),
            expected: op.arity().to_string(),
            found: specs.len(),
        }
        .into());
    }
    let Some(&x) = specs.first() else {
        return Err(bad_argument(
            name,
            "specs",
            "at least one input spec (an op of no inputs has no default inference)",
            "none",
        ));
    };
    if !op.is_builtin() {
        return match op.kind() {
            OpKind::UnaryElementwise => Ok(out(x.shape.clone(), x.dtype)),
            OpKind::BinaryElementwise => {
                let d = same_dtype(name, specs, 0)?;
                broadcast(name, specs, d)
            }
            OpKind::Reduction => Ok(out(reduce_shape(name, &x.shape, args)?, x.dtype)),
            OpKind::Other => Err(bad_argument(
                name,
                "specs",
                "a handler with `infer = …` (a user op of kind `other` has no default inference)",
                "dense specs",
            )),
        };
    }
    match op.kind() {
        OpKind::UnaryElementwise => {
            let dtype = match name {
                "neg" | "abs" => {
                    check_dtype(name, 0, x.dtype, numeric, NUMERIC)?;
                    x.dtype
                }
                "logical_not" | "is_nan" | "is_finite" => {
                    check_dtype(name, 0, x.dtype, |d| KERNEL_DTYPES.contains(&d), ANY)?;
                    DType::Bool
                }
                _ => {
                    check_dtype(name, 0, x.dtype, DType::is_float, FLOAT)?;
                    x.dtype
                }
            };
            Ok(out(x.shape.clone(), dtype))
        }
        OpKind::BinaryElementwise => {
            let d = same_dtype(name, specs, 0)?;
            let (ok, what, result): (fn(DType) -> bool, _, _) = match name {
                "div" | "pow" => (DType::is_float, FLOAT, d),
                "add" | "sub" | "mul" | "maximum" | "minimum" => (numeric, NUMERIC, d),
                "less" | "less_equal" | "greater" | "greater_equal" => {
                    (numeric, NUMERIC, DType::Bool)
                }
                _ => (|d| KERNEL_DTYPES.contains(&d), ANY, DType::Bool),
            };
            check_dtype(name, 0, d, ok, what)?;
            broadcast(name, specs, result)
        }
        OpKind::Reduction => {
            let ok: fn(DType) -> bool = match name {
                "reduce_any" | "reduce_all" | "count_nonzero" => |d| KERNEL_DTYPES.contains(&d),
                _ => numeric,
            };
            check_dtype(name, 0, x.dtype, ok, NUMERIC)?;
            Ok(out(
                reduce_shape(name, &x.shape, args)?,
                reduced_dtype(name, x.dtype),
            ))
        }
        OpKind::Other => other(name, specs, args),
    }
}

fn broadcast(name: &str, specs: &[&TensorSpec], dtype: DType) -> Result<Inferred> {
    let shapes: Vec<&Shape> = specs.iter().map(|s| &s.shape).collect();
    let b = broadcast_static(&shapes, Policy::Numpy)?;
    let _ = name;
    Ok(Inferred {
        spec: ValueSpec::Tensor(TensorSpec::new(b.shape, dtype)),
        checks: Some(b.checks),
    })
}

fn other(name: &str, specs: &[&TensorSpec], args: &OpArgs) -> Result<Inferred> {
    let x = specs[0];
    let missing = |what: &str| bad_argument(name, what, format!("`{what}` in OpArgs"), "nothing");
    match name {
        "shape" => {
            let n = x.shape.rank().map_or(Dim::Unknown, Dim::Known);
            Ok(out(Shape::from_dims([n]), DType::I64))
        }
        "reshape" => {
            let new = args.shape.as_deref().ok_or_else(|| missing("shape"))?;
            let want: Option<usize> = new.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
            if let (Some(have), Some(want)) = (x.shape.num_elements(), want)
                && have != want
            {
                return Err(bad_argument(
                    name,
                    "shape",
                    format!("a shape of {have} elements (the input is {})", x.shape),
                    format!("{new:?}"),
                ));
            }
            Ok(out(Shape::known(new), x.dtype))
        }
        "transpose" => {
            let Some(dims) = x.shape.dims() else {
                return Ok(out(Shape::unknown_rank(), x.dtype));
            };
            let perm: Vec<usize> = match &args.perm {
                Some(p) => p.clone(),
                None => (0..dims.len()).rev().collect(),
            };
            let mut seen = vec![false; dims.len()];
            let ok = perm.len() == dims.len()
                && perm
                    .iter()
                    .all(|&p| p < dims.len() && !std::mem::replace(&mut seen[p], true));
            if !ok {
                return Err(bad_argument(
                    name,
                    "perm",
                    format!("a permutation of 0..{}", dims.len()),
                    format!("{perm:?}"),
                ));
            }
            Ok(out(
                Shape::from_dims(perm.iter().map(|&p| dims[p])),
                x.dtype,
            ))
        }
        "concat" | "stack" => {
            let d = same_dtype(name, specs, 0)?;
            let mut merged = x.shape.clone();
            let stack = name == "stack";
            let Some(rank) = specs.iter().find_map(|s| s.shape.rank()) else {
                return Ok(out(Shape::unknown_rank(), d));
            };
            let axis = normalize_axis(name, args.axis, rank + usize::from(stack))?;
            let mut total = Some(0usize);
            for s in specs {
                let Some(dims) = s.shape.dims() else { continue };
                if dims.len() != rank {
                    return Err(ShapeError::Rank {
                        op: if stack { "stack" } else { "concat" },
                        expected: rank.to_string(),
                        found: Box::new(s.shape.clone()),
                    }
                    .into());
                }
                if !stack {
                    total = total.zip(dims[axis].value()).map(|(a, b)| a + b);
                    let mut masked: Vec<Dim> = dims.to_vec();
                    masked[axis] = Dim::Unknown;
                    let mut cur: Vec<Dim> = merged.dims().map_or(masked.clone(), <[Dim]>::to_vec);
                    cur[axis] = Dim::Unknown;
                    merged = Shape::from_dims(cur).merge_with(&Shape::from_dims(masked))?;
                } else {
                    merged = merged.merge_with(&s.shape)?;
                }
            }
            let mut dims: Vec<Dim> = merged
                .dims()
                .map_or(vec![Dim::Unknown; rank], <[Dim]>::to_vec);
            if stack {
                dims.insert(axis, Dim::Known(specs.len()));
            } else {
                dims[axis] = total.map_or(Dim::Unknown, Dim::Known);
            }
            Ok(out(Shape::from_dims(dims), d))
        }
        "tile" => {
            let reps = args
                .shape
                .as_deref()
                .ok_or_else(|| missing("multiples (OpArgs::shape)"))?;
            let dims: Vec<Dim> = match x.shape.dims() {
                Some(dims) if dims.len() == reps.len() => dims.to_vec(),
                None => vec![Dim::Unknown; reps.len()],
                Some(dims) => {
                    return Err(bad_argument(
                        name,
                        "multiples",
                        format!("{} multiples (one per axis of {})", dims.len(), x.shape),
                        format!("{reps:?}"),
                    ));
                }
            };
            Ok(out(
                Shape::from_dims(dims.iter().zip(reps).map(|(&d, &m)| match (d, m) {
                    (_, 0) => Dim::Known(0),
                    (d, 1) => d,
                    (Dim::Known(n), m) => Dim::Known(n * m),
                    // `!1` times m ≥ 2 is still not 1.
                    (Dim::NotOne, _) => Dim::NotOne,
                    (Dim::Unknown, _) => Dim::Unknown,
                })),
                x.dtype,
            ))
        }
        "gather" => {
            let indices = args.indices.as_deref().ok_or_else(|| missing("indices"))?;
            let Some(dims) = x.shape.dims() else {
                return Ok(out(Shape::unknown_rank(), x.dtype));
            };
            let axis = normalize_axis(name, args.axis, dims.len())?;
            let mut dims = dims.to_vec();
            dims[axis] = Dim::Known(indices.len());
            Ok(out(Shape::from_dims(dims), x.dtype))
        }
        "where" => {
            check_dtype(
                name,
                0,
                x.dtype,
                |d| d == DType::Bool,
                "dtype bool (the condition)",
            )?;
            let d = same_dtype(name, specs, 1)?;
            broadcast(name, specs, d)
        }
        "cast" => {
            let d = args.dtype.ok_or_else(|| missing("dtype"))?;
            Ok(out(x.shape.clone(), d))
        }
        "zeros_like" | "ones_like" => Ok(out(x.shape.clone(), x.dtype)),
        "boolean_mask" => {
            let m = specs[1];
            check_dtype(
                name,
                1,
                m.dtype,
                |d| d == DType::Bool,
                "dtype bool (the mask)",
            )?;
            match (x.shape.dims(), m.shape.rank()) {
                (Some(dims), Some(k)) if k <= dims.len() => {
                    let mut out_dims = vec![Dim::Unknown];
                    out_dims.extend_from_slice(&dims[k..]);
                    Ok(out(Shape::from_dims(out_dims), x.dtype))
                }
                (Some(_), Some(k)) => Err(ShapeError::Rank {
                    op: "boolean_mask",
                    expected: format!("at least {k} (the rank of the mask)"),
                    found: Box::new(x.shape.clone()),
                }
                .into()),
                _ => Ok(out(Shape::unknown_rank(), x.dtype)),
            }
        }
        _ => {
            // segment_sum / mean / max / min
            check_dtype(name, 0, x.dtype, numeric, NUMERIC)?;
            let splits = args
                .indices
                .as_deref()
                .ok_or_else(|| missing("row_splits (OpArgs::indices)"))?;
            let rows = Dim::Known(splits.len().saturating_sub(1));
            let shape = match x.shape.dims() {
                Some([]) => {
                    return Err(bad_argument(
                        name,
                        "argument 0",
                        "rank >= 1",
                        "a scalar spec",
                    ));
                }
                Some(dims) => {
                    let mut d = dims.to_vec();
                    d[0] = rows;
                    Shape::from_dims(d)
                }
                None => Shape::unknown_rank(),
            };
            Ok(out(shape, reduced_dtype(name, x.dtype)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::catalog::*;

    fn spec(s: &str, d: DType) -> TensorSpec {
        TensorSpec::new(s.parse().unwrap(), d)
    }

    fn one(op: &Op, x: &TensorSpec, args: &OpArgs) -> String {
        dense(op, &[x], args)
            .map(|i| i.tensor_spec().unwrap().to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn elementwise() {
        let x = spec("[?, 3]", DType::F32);
        assert_eq!(one(&EXP, &x, &OpArgs::none()), "f32[?, 3]");
        assert_eq!(one(&IS_NAN, &x, &OpArgs::none()), "bool[?, 3]");
        assert_eq!(
            one(&EXP, &spec("[2]", DType::I32), &OpArgs::none()),
            "error: exp: argument 0: expected a float dtype (f32, f64), found dtype i32"
        );
        let y = spec("[!1, 1]", DType::F32);
        let r = dense(&LESS, &[&x, &y], &OpArgs::none()).unwrap();
        assert_eq!(r.tensor_spec().unwrap().to_string(), "bool[!1, 3]");
        assert!(!r.checks.unwrap().is_trivial());
        let z = spec("[4]", DType::F32);
        let err = dense(&ADD, &[&x, &z], &OpArgs::none()).unwrap_err();
        assert!(
            err.to_string().contains("must be equal or one must be 1"),
            "{err}"
        );
    }

    #[test]
    fn reductions_and_others() {
        let x = spec("[2, ?, 5]", DType::I32);
        assert_eq!(one(&REDUCE_SUM, &x, &OpArgs::none()), "i64[]");
        assert_eq!(
            one(&REDUCE_MEAN, &x, &OpArgs::axes(&[-1]).keepdims(true)),
            "f64[2, ?, 1]"
        );
        assert_eq!(one(&ARGMAX, &x, &OpArgs::axes(&[1])), "i64[2, 5]");
        assert!(one(&REDUCE_MAX, &x, &OpArgs::axes(&[3])).starts_with("error: reduce_max: axis"));
        assert_eq!(one(&SHAPE, &x, &OpArgs::none()), "i64[3]");
        assert_eq!(one(&TRANSPOSE, &x, &OpArgs::none()), "i32[5, ?, 2]");
        assert_eq!(
            one(&TILE, &x, &OpArgs::none().with_shape(&[2, 2, 1])),
            "i32[4, ?, 5]"
        );
        assert_eq!(
            one(
                &GATHER,
                &x,
                &OpArgs::none().with_indices(&[0, 0, 1]).with_axis(2)
            ),
            "i32[2, ?, 3]"
        );
        assert_eq!(
            one(
                &RESHAPE,
                &spec("[2, 3]", DType::F32),
                &OpArgs::none().with_shape(&[6])
            ),
            "f32[6]"
        );
        assert!(
            one(
                &RESHAPE,
                &spec("[2, 3]", DType::F32),
                &OpArgs::none().with_shape(&[5])
            )
            .starts_with("error")
        );
        let a = spec("[2, 3]", DType::F32);
        let b = spec("[?, 3]", DType::F32);
        let c = dense(&CONCAT, &[&a, &b], &OpArgs::none()).unwrap();
        assert_eq!(c.tensor_spec().unwrap().to_string(), "f32[?, 3]");
        let s = dense(&STACK, &[&a, &b], &OpArgs::none().with_axis(1)).unwrap();
        assert_eq!(s.tensor_spec().unwrap().to_string(), "f32[2, 2, 3]");
        let seg = one(
            &SEGMENT_SUM,
            &spec("[?]", DType::U8),
            &OpArgs::none().with_indices(&[0, 1, 4]),
        );
        assert_eq!(seg, "u64[2]");
    }
}

//! The dense default of every catalog op: dtype dispatch onto the kernels
//! (`extype-kernels`, which handles `f32 f64 i32 i64 u8 u64 bool`).
//!
//! Other dtypes (`i8 i16 u16 u32`) are an error naming the op, the argument and the dtypes the op
//! takes — except for the ops that only move data (`shape reshape transpose zeros_like
//! ones_like`), which take every dtype. Binary ops need both arguments of one dtype (no implicit
//! promotion): `cast` first.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use smallvec::SmallVec;

use extype_kernels::elementwise::{binary as kb, unary as ku};
use extype_kernels::reduce::{axes as ka, masked as km, segment as ks};
use extype_kernels::{KernelError, cast as kc, compact, gather, select, stack_concat};

use super::args::OpArgs;
use super::catalog::Op;
use super::operand::bad_argument;
use crate::dtype::DType;
use crate::error::{DispatchError, Error, Result};
use crate::spec::TensorSpec;
use crate::tensor::{Tensor, TensorView, each_variant};

const NUMERIC: &str = "a numeric dtype (f32, f64, i32, i64, u8, u64)";
const FLOAT: &str = "a float dtype (f32, f64)";
const ANY: &str = "one of bool, f32, f64, i32, i64, u8, u64";

pub(crate) fn kernel(op: &str) -> impl Fn(KernelError) -> Error + '_ {
    move |source| {
        DispatchError::Kernel {
            op: op.to_string(),
            source,
        }
        .into()
    }
}

fn unsupported(op: &str, arg: usize, found: DType, expected: &str) -> Error {
    bad_argument(
        op,
        format!("argument {arg}"),
        expected,
        format!("dtype {found}"),
    )
}

fn pair_error(op: &str, a: DType, b: DType, expected: &str) -> Error {
    if a == b {
        unsupported(op, 0, a, expected)
    } else {
        bad_argument(
            op,
            "argument 1",
            format!("dtype {a} (the dtype of argument 0; cast first)"),
            format!("dtype {b}"),
        )
    }
}

/// Applies `$body` to the typed view of a numeric (`f32 f64 i32 i64 u8 u64`) tensor view.
macro_rules! num {
    ($op:expr, $arg:expr, $v:expr, |$a:ident| $body:expr) => {
        match $v {
            TensorView::F32($a) => Tensor::from($body),
            TensorView::F64($a) => Tensor::from($body),
            TensorView::I32($a) => Tensor::from($body),
            TensorView::I64($a) => Tensor::from($body),
            TensorView::U8($a) => Tensor::from($body),
            TensorView::U64($a) => Tensor::from($body),
            other => return Err(unsupported($op, $arg, other.dtype(), NUMERIC)),
        }
    };
}

/// Like [`num!`] for `f32 f64`.
macro_rules! float {
    ($op:expr, $arg:expr, $v:expr, |$a:ident| $body:expr) => {
        match $v {
            TensorView::F32($a) => Tensor::from($body),
            TensorView::F64($a) => Tensor::from($body),
            other => return Err(unsupported($op, $arg, other.dtype(), FLOAT)),
        }
    };
}

/// Like [`num!`] for every kernel dtype (numeric and bool).
macro_rules! elem {
    ($op:expr, $arg:expr, $v:expr, |$a:ident| $body:expr) => {
        match $v {
            TensorView::Bool($a) => Tensor::from($body),
            TensorView::F32($a) => Tensor::from($body),
            TensorView::F64($a) => Tensor::from($body),
            TensorView::I32($a) => Tensor::from($body),
            TensorView::I64($a) => Tensor::from($body),
            TensorView::U8($a) => Tensor::from($body),
            TensorView::U64($a) => Tensor::from($body),
            other => return Err(unsupported($op, $arg, other.dtype(), ANY)),
        }
    };
}

/// Two views of one dtype from the given list.
macro_rules! pair {
    ($op:expr, $expected:expr, $x:expr, $y:expr, |$a:ident, $b:ident| $body:expr, [$($var:ident),*]) => {
        match ($x, $y) {
            $((TensorView::$var($a), TensorView::$var($b)) => Tensor::from($body),)*
            (a, b) => return Err(pair_error($op, a.dtype(), b.dtype(), $expected)),
        }
    };
}

/// Runs a catalog op (or a user op's dense default) on dense arguments.
pub(crate) fn run(op: &Op, xs: &[TensorView<'_>], args: &OpArgs) -> Result<Tensor> {
    if !op.arity().admits(xs.len()) {
        return Err(DispatchError::Arity {
            op: op.name().to_string(),
            expected: op.arity().to_string(),
            found: xs.len(),
        }
        .into());
    }
    if let Some(dense) = op.dense_fn() {
        let owned: Vec<Tensor> = xs.iter().map(TensorView::to_tensor).collect();
        return dense(&owned, args);
    }
    let name = op.name();
    let (true, Some(x)) = (op.is_builtin(), xs.first().cloned()) else {
        return Err(DispatchError::NoMatch {
            op: name.to_string(),
            args: xs
                .iter()
                .map(|v| format!("Tensor({})", TensorSpec::from_view(v)))
                .collect(),
            tried: vec![format!("dense default (none: {name} has no dense default)")],
        }
        .into());
    };
    let k = kernel(name);
    Ok(match name {
        "neg" => num!(name, 0, x, |a| ku::neg(&a)),
        "abs" => num!(name, 0, x, |a| ku::abs(&a)),
        "exp" => float!(name, 0, x, |a| ku::exp(&a)),
        "log" => float!(name, 0, x, |a| ku::log(&a)),
        "sqrt" => float!(name, 0, x, |a| ku::sqrt(&a)),
        "sin" => float!(name, 0, x, |a| ku::sin(&a)),
        "cos" => float!(name, 0, x, |a| ku::cos(&a)),
        "tanh" => float!(name, 0, x, |a| ku::tanh(&a)),
        "sigmoid" => float!(name, 0, x, |a| ku::sigmoid(&a)),
        "floor" => float!(name, 0, x, |a| ku::floor(&a)),
        "ceil" => float!(name, 0, x, |a| ku::ceil(&a)),
        "round" => float!(name, 0, x, |a| ku::round(&a)),
        "logical_not" => elem!(name, 0, x, |a| ku::logical_not(&a)),
        "is_nan" => elem!(name, 0, x, |a| ku::is_nan(&a)),
        "is_finite" => elem!(name, 0, x, |a| ku::is_finite(&a)),
        "add" | "sub" | "mul" | "div" | "maximum" | "minimum" | "pow" | "equal" | "not_equal"
        | "less" | "less_equal" | "greater" | "greater_equal" | "logical_and" | "logical_or"
        | "logical_xor" => binary(name, x, xs[1].clone())?,
        "reduce_sum" | "reduce_mean" | "reduce_prod" | "reduce_max" | "reduce_min"
        | "reduce_any" | "reduce_all" | "count_nonzero" | "argmax" | "argmin" => {
            reduce(name, x, args)?
        }
        "shape" => {
            let dims: Vec<i64> = x.shape().iter().map(|&n| n as i64).collect();
            Tensor::from(ndarray::Array1::from(dims))
        }
        "reshape" => reshape(name, x, args)?,
        "transpose" => transpose(name, x, args)?,
        "concat" | "stack" => join(name, xs, args)?,
        "tile" => tile(name, x, args)?,
        "gather" => {
            let indices = args
                .indices
                .as_deref()
                .ok_or_else(|| missing(name, "indices"))?;
            elem!(name, 0, x, |a| gather::gather(&a, indices, args.axis)
                .map_err(&k)?)
        }
        "where" => {
            let TensorView::Bool(cond) = x else {
                return Err(unsupported(
                    name,
                    0,
                    x.dtype(),
                    "dtype bool (the condition)",
                ));
            };
            let (t, f) = (xs[1].clone(), xs[2].clone());
            match (t, f) {
                (TensorView::Bool(a), TensorView::Bool(b)) => {
                    Tensor::from(select::select(&cond, &a, &b).map_err(&k)?)
                }
                (a, b) => pair!(
                    name,
                    ANY,
                    a,
                    b,
                    |a, b| select::select(&cond, &a, &b).map_err(&k)?,
                    [F32, F64, I32, I64, U8, U64]
                ),
            }
        }
        "cast" => {
            let dtype = args.dtype.ok_or_else(|| missing(name, "dtype"))?;
            cast(name, x, dtype)?
        }
        "zeros_like" => filled(&x, false),
        "ones_like" => filled(&x, true),
        "boolean_mask" => {
            let TensorView::Bool(mask) = xs[1].clone() else {
                return Err(unsupported(name, 1, xs[1].dtype(), "dtype bool (the mask)"));
            };
            elem!(name, 0, x, |a| compact::boolean_mask(&a, &mask)
                .map_err(&k)?)
        }
        "segment_sum" | "segment_mean" | "segment_max" | "segment_min" => {
            let splits = args
                .indices
                .as_deref()
                .ok_or_else(|| missing(name, "row_splits (OpArgs::indices)"))?;
            match name {
                "segment_sum" => num!(name, 0, x, |a| ks::segment_sum(&a, splits).map_err(&k)?),
                "segment_mean" => {
                    num!(name, 0, x, |a| ks::segment_mean(&a, splits).map_err(&k)?)
                }
                "segment_max" => num!(name, 0, x, |a| ks::segment_max(&a, splits).map_err(&k)?),
                _ => num!(name, 0, x, |a| ks::segment_min(&a, splits).map_err(&k)?),
            }
        }
        // Every catalog op has an arm above (the catalog's unit tests run each one).
        _ => {
            return Err(DispatchError::NoMatch {
                op: name.to_string(),
                args: xs
                    .iter()
                    .map(|v| format!("Tensor({})", v.dtype()))
                    .collect(),
                tried: vec![format!("dense default (none for {name})")],
            }
            .into());
        }
    })
}

fn missing(op: &str, what: &str) -> Error {
    bad_argument(op, what, format!("`{what}` in OpArgs"), "nothing")
}

fn binary(name: &str, x: TensorView<'_>, y: TensorView<'_>) -> Result<Tensor> {
    let k = kernel(name);
    Ok(match name {
        "add" => pair!(
            name,
            NUMERIC,
            x,
            y,
            |a, b| kb::add(&a, &b).map_err(&k)?,
            [F32, F64, I32, I64, U8, U64]
        ),
        "sub" => pair!(
            name,
            NUMERIC,
            x,
            y,
            |a, b| kb::sub(&a, &b).map_err(&k)?,
            [F32, F64, I32, I64, U8, U64]
        ),
        "mul" => pair!(
            name,
            NUMERIC,
            x,
            y,
            |a, b| kb::mul(&a, &b).map_err(&k)?,
            [F32, F64, I32, I64, U8, U64]
        ),
        "maximum" => pair!(
            name,
            NUMERIC,
            x,
            y,
            |a, b| kb::maximum(&a, &b).map_err(&k)?,
            [F32, F64, I32, I64, U8, U64]
        ),
        "minimum" => pair!(
            name,
            NUMERIC,
            x,
            y,
            |a, b| kb::minimum(&a, &b).map_err(&k)?,
            [F32, F64, I32, I64, U8, U64]
        ),
        "div" => pair!(
            name,
            FLOAT,
            x,
            y,
            |a, b| kb::div(&a, &b).map_err(&k)?,
            [F32, F64]
        ),
        "pow" => pair!(
            name,
            FLOAT,
            x,
            y,
            |a, b| kb::pow(&a, &b).map_err(&k)?,
            [F32, F64]
        ),
        "less" => pair!(
            name,
            NUMERIC,
            x,
            y,
            |a, b| kb::lt(&a, &b).map_err(&k)?,
            [F32, F64, I32, I64, U8, U64]
        ),
        "less_equal" => pair!(
            name,
            NUMERIC,
            x,
            y,
            |a, b| kb::le(&a, &b).map_err(&k)?,
            [F32, F64, I32, I64, U8, U64]
        ),
        "greater" => pair!(
            name,
            NUMERIC,
            x,
            y,
            |a, b| kb::gt(&a, &b).map_err(&k)?,
            [F32, F64, I32, I64, U8, U64]
        ),
        "greater_equal" => pair!(
            name,
            NUMERIC,
            x,
            y,
            |a, b| kb::ge(&a, &b).map_err(&k)?,
            [F32, F64, I32, I64, U8, U64]
        ),
        "equal" => pair!(
            name,
            ANY,
            x,
            y,
            |a, b| kb::eq(&a, &b).map_err(&k)?,
            [Bool, F32, F64, I32, I64, U8, U64]
        ),
        "not_equal" => pair!(
            name,
            ANY,
            x,
            y,
            |a, b| kb::ne(&a, &b).map_err(&k)?,
            [Bool, F32, F64, I32, I64, U8, U64]
        ),
        "logical_and" => pair!(
            name,
            ANY,
            x,
            y,
            |a, b| kb::logical_and(&a, &b).map_err(&k)?,
            [Bool, F32, F64, I32, I64, U8, U64]
        ),
        "logical_or" => pair!(
            name,
            ANY,
            x,
            y,
            |a, b| kb::logical_or(&a, &b).map_err(&k)?,
            [Bool, F32, F64, I32, I64, U8, U64]
        ),
        _ => pair!(
            name,
            ANY,
            x,
            y,
            |a, b| kb::logical_xor(&a, &b).map_err(&k)?,
            [Bool, F32, F64, I32, I64, U8, U64]
        ),
    })
}

/// The axes a reduction runs over: the given ones, or every axis.
pub(crate) fn reduce_axes(args: &OpArgs, ndim: usize) -> SmallVec<[isize; 4]> {
    match &args.axes {
        Some(axes) => axes.clone(),
        None => (0..ndim as isize).collect(),
    }
}

fn to_i64(a: ArrayD<usize>) -> ArrayD<i64> {
    a.mapv(|n| n as i64)
}

fn reduce(name: &str, x: TensorView<'_>, args: &OpArgs) -> Result<Tensor> {
    let k = kernel(name);
    let axes = reduce_axes(args, x.shape().len());
    let (axes, kd) = (&axes[..], args.keepdims);
    Ok(match name {
        "reduce_sum" => num!(name, 0, x, |a| ka::sum_axes(&a, axes, kd).map_err(&k)?),
        "reduce_mean" => num!(name, 0, x, |a| ka::mean_axes(&a, axes, kd).map_err(&k)?),
        "reduce_prod" => num!(name, 0, x, |a| ka::prod_axes(&a, axes, kd).map_err(&k)?),
        "reduce_max" => num!(name, 0, x, |a| ka::max_axes(&a, axes, kd).map_err(&k)?),
        "reduce_min" => num!(name, 0, x, |a| ka::min_axes(&a, axes, kd).map_err(&k)?),
        "reduce_any" => elem!(name, 0, x, |a| ka::any_axes(&a, axes, kd).map_err(&k)?),
        "reduce_all" => elem!(name, 0, x, |a| ka::all_axes(&a, axes, kd).map_err(&k)?),
        "count_nonzero" => elem!(name, 0, x, |a| to_i64(
            ka::count_nonzero_axes(&a, axes, kd).map_err(&k)?
        )),
        "argmax" => num!(name, 0, x, |a| to_i64(
            ka::argmax_axes(&a, axes, kd).map_err(&k)?
        )),
        _ => num!(name, 0, x, |a| to_i64(
            ka::argmin_axes(&a, axes, kd).map_err(&k)?
        )),
    })
}

/// A masked reduction (`values` where `mask` is true), for the reductions that have one:
/// sum, mean, max, min, count_nonzero (the number of selected elements that are non-zero is not
/// offered by the kernels; `count_nonzero` counts the selected elements).
pub(crate) fn reduce_masked(
    name: &str,
    x: TensorView<'_>,
    mask: TensorView<'_>,
    args: &OpArgs,
) -> Result<Tensor> {
    let k = kernel(name);
    let TensorView::Bool(m) = mask else {
        return Err(unsupported(name, 1, mask.dtype(), "dtype bool (the mask)"));
    };
    let axes = reduce_axes(args, x.shape().len());
    let (axes, kd) = (&axes[..], args.keepdims);
    Ok(match name {
        "reduce_sum" => num!(name, 0, x, |a| km::masked_sum_axes(&a, &m, axes, kd)
            .map_err(&k)?),
        "reduce_mean" => {
            num!(name, 0, x, |a| km::masked_mean_axes(&a, &m, axes, kd)
                .map_err(&k)?)
        }
        "reduce_max" => num!(name, 0, x, |a| km::masked_max_axes(&a, &m, axes, kd)
            .map_err(&k)?),
        "reduce_min" => num!(name, 0, x, |a| km::masked_min_axes(&a, &m, axes, kd)
            .map_err(&k)?),
        _ => {
            return Err(bad_argument(
                name,
                "mask",
                "a reduction with a masked kernel (reduce_sum, reduce_mean, reduce_max, reduce_min)",
                format!("{name} (no masked form)"),
            ));
        }
    })
}

fn reshape(name: &str, x: TensorView<'_>, args: &OpArgs) -> Result<Tensor> {
    let shape = args
        .shape
        .as_deref()
        .ok_or_else(|| missing(name, "shape"))?;
    let n: Option<usize> = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    let len: usize = x.shape().iter().product();
    if n != Some(len) {
        return Err(bad_argument(
            name,
            "shape",
            format!(
                "a shape of {len} elements (the input has shape {:?})",
                x.shape()
            ),
            format!("{shape:?}"),
        ));
    }
    let shape = IxDyn(shape);
    each_variant!(TensorView, x, a => {
        let out = a
            .to_shape((shape.clone(), ndarray::Order::RowMajor))
            .map_err(|e| bad_argument(name, "shape", "a valid shape", e.to_string()))?
            .into_owned();
        Ok(Tensor::from(out))
    })
}

fn transpose(name: &str, x: TensorView<'_>, args: &OpArgs) -> Result<Tensor> {
    let ndim = x.shape().len();
    let perm: Vec<usize> = match &args.perm {
        Some(p) => p.clone(),
        None => (0..ndim).rev().collect(),
    };
    let mut seen = vec![false; ndim];
    let valid = perm.len() == ndim
        && perm
            .iter()
            .all(|&p| p < ndim && !std::mem::replace(&mut seen[p], true));
    if !valid {
        return Err(bad_argument(
            name,
            "perm",
            format!("a permutation of 0..{ndim}"),
            format!("{perm:?}"),
        ));
    }
    each_variant!(TensorView, x, a => Ok(Tensor::from(
        a.permuted_axes(IxDyn(&perm)).as_standard_layout().into_owned()
    )))
}

fn join(name: &str, xs: &[TensorView<'_>], args: &OpArgs) -> Result<Tensor> {
    let k = kernel(name);
    let stack = name == "stack";
    macro_rules! typed {
        ($($var:ident),*) => {
            match &xs[0] {
                $(TensorView::$var(_) => {
                    let mut views = Vec::with_capacity(xs.len());
                    for (i, v) in xs.iter().enumerate() {
                        match v {
                            TensorView::$var(a) => views.push(a.clone()),
                            other => return Err(bad_argument(
                                name,
                                format!("argument {i}"),
                                format!("dtype {} (the dtype of argument 0)", xs[0].dtype()),
                                format!("dtype {}", other.dtype()),
                            )),
                        }
                    }
                    let out = if stack {
                        stack_concat::stack(args.axis, &views)
                    } else {
                        stack_concat::concat(args.axis, &views)
                    };
                    Tensor::from(out.map_err(&k)?)
                })*
                other => return Err(unsupported(name, 0, other.dtype(), ANY)),
            }
        };
    }
    Ok(typed!(Bool, F32, F64, I32, I64, U8, U64))
}

fn tile(name: &str, x: TensorView<'_>, args: &OpArgs) -> Result<Tensor> {
    let reps = args
        .shape
        .as_deref()
        .ok_or_else(|| missing(name, "multiples (OpArgs::shape)"))?;
    if reps.len() != x.shape().len() {
        return Err(bad_argument(
            name,
            "multiples",
            format!(
                "{} multiples (one per axis of {:?})",
                x.shape().len(),
                x.shape()
            ),
            format!("{reps:?}"),
        ));
    }
    fn tile_typed<T: Clone + extype_kernels::Scalar>(
        a: ArrayViewD<'_, T>,
        reps: &[usize],
        k: &dyn Fn(KernelError) -> Error,
    ) -> Result<ArrayD<T>> {
        let mut cur = a.to_owned();
        for (axis, &m) in reps.iter().enumerate() {
            cur = match m {
                0 => cur.slice_axis(Axis(axis), Slice::from(0..0)).to_owned(),
                1 => cur,
                _ => {
                    let views: Vec<ArrayViewD<'_, T>> = (0..m).map(|_| cur.view()).collect();
                    stack_concat::concat(axis as isize, &views).map_err(k)?
                }
            };
        }
        Ok(cur)
    }
    let k = kernel(name);
    Ok(elem!(name, 0, x, |a| tile_typed(a, reps, &k)?))
}

fn cast(name: &str, x: TensorView<'_>, dtype: DType) -> Result<Tensor> {
    macro_rules! to {
        ($a:expr) => {
            match dtype {
                DType::Bool => Tensor::from(kc::cast::<_, bool, _, _>(&$a)),
                DType::F32 => Tensor::from(kc::cast::<_, f32, _, _>(&$a)),
                DType::F64 => Tensor::from(kc::cast::<_, f64, _, _>(&$a)),
                DType::I32 => Tensor::from(kc::cast::<_, i32, _, _>(&$a)),
                DType::I64 => Tensor::from(kc::cast::<_, i64, _, _>(&$a)),
                DType::U8 => Tensor::from(kc::cast::<_, u8, _, _>(&$a)),
                DType::U64 => Tensor::from(kc::cast::<_, u64, _, _>(&$a)),
                other => {
                    return Err(bad_argument(name, "dtype", ANY, format!("dtype {other}")));
                }
            }
        };
    }
    Ok(match x {
        TensorView::Bool(a) => to!(a),
        TensorView::F32(a) => to!(a),
        TensorView::F64(a) => to!(a),
        TensorView::I32(a) => to!(a),
        TensorView::I64(a) => to!(a),
        TensorView::U8(a) => to!(a),
        TensorView::U64(a) => to!(a),
        other => return Err(unsupported(name, 0, other.dtype(), ANY)),
    })
}

fn filled(x: &TensorView<'_>, one: bool) -> Tensor {
    let shape = IxDyn(x.shape());
    macro_rules! fill {
        ($($var:ident => $zero:expr, $one:expr;)*) => {
            match x {
                $(TensorView::$var(_) => {
                    Tensor::from(ArrayD::from_elem(shape, if one { $one } else { $zero }))
                })*
            }
        };
    }
    fill! {
        Bool => false, true;
        I8 => 0i8, 1;
        I16 => 0i16, 1;
        I32 => 0i32, 1;
        I64 => 0i64, 1;
        U8 => 0u8, 1;
        U16 => 0u16, 1;
        U32 => 0u32, 1;
        U64 => 0u64, 1;
        F32 => 0f32, 1.0;
        F64 => 0f64, 1.0;
    }
}

#[cfg(test)]
mod tests {
    use ndarray::{ArrayD, array};

    use super::*;
    use crate::ops::catalog::*;

    fn t(x: impl Into<Tensor>) -> Tensor {
        x.into()
    }

    fn run1(op: &Op, x: &Tensor, args: &OpArgs) -> Result<Tensor> {
        run(op, &[x.view()], args)
    }

    #[test]
    fn elementwise_and_binary() {
        let x = t(array![1.0f32, -2.0, 4.0]);
        assert_eq!(
            run1(&NEG, &x, &OpArgs::none()).unwrap(),
            t(array![-1.0f32, 2.0, -4.0].into_dyn())
        );
        let y = t(array![[1.0f32], [2.0]]);
        let s = run(&ADD, &[x.view(), y.view()], &OpArgs::none()).unwrap();
        assert_eq!(s.shape(), &[2, 3]);
        let c = run(&LESS, &[x.view(), y.view()], &OpArgs::none()).unwrap();
        assert_eq!(c.dtype(), DType::Bool);
        let i = t(array![1i32, 2, 3]);
        let err = run(&ADD, &[x.view(), i.view()], &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "add: argument 1: expected dtype f32 (the dtype of argument 0; cast first), found dtype i32"
        );
        let err = run1(&EXP, &i, &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "exp: argument 0: expected a float dtype (f32, f64), found dtype i32"
        );
        let small = t(array![1i8]);
        assert!(
            run1(&NEG, &small, &OpArgs::none())
                .unwrap_err()
                .to_string()
                .contains("found dtype i8")
        );
        let bad = t(array![1.0f32, 2.0]);
        let err = run(&ADD, &[x.view(), bad.view()], &OpArgs::none()).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("add:") && msg.contains("broadcast") && msg.contains("[2]"),
            "names the op, the problem and the shape: {msg}"
        );
    }

    #[test]
    fn reductions() {
        let x = t(array![[1i32, 2, 3], [4, 5, 6]]);
        let s = run1(&REDUCE_SUM, &x, &OpArgs::none()).unwrap();
        assert_eq!(s, t(ArrayD::from_elem(IxDyn(&[]), 21i64)));
        let s = run1(&REDUCE_SUM, &x, &OpArgs::axes(&[1]).keepdims(true)).unwrap();
        assert_eq!(s, t(array![[6i64], [15]].into_dyn()));
        let m = run1(&REDUCE_MEAN, &x, &OpArgs::axes(&[0])).unwrap();
        assert_eq!(m, t(array![2.5f64, 3.5, 4.5].into_dyn()));
        let a = run1(&ARGMAX, &x, &OpArgs::axes(&[1])).unwrap();
        assert_eq!(a, t(array![2i64, 2].into_dyn()));
        let err = run1(&REDUCE_SUM, &x, &OpArgs::axes(&[2])).unwrap_err();
        assert!(err.to_string().contains("axis 2 is out of range"), "{err}");
        let mask = t(array![[true, false, true], [false, false, true]]);
        let ms = reduce_masked("reduce_sum", x.view(), mask.view(), &OpArgs::axes(&[1])).unwrap();
        assert_eq!(ms, t(array![4i64, 6].into_dyn()));
    }

    #[test]
    fn other_ops() {
        let x = t(array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        let shape = run1(&SHAPE, &x, &OpArgs::none()).unwrap();
        assert_eq!(shape, t(array![2i64, 3].into_dyn()));
        let r = run1(&RESHAPE, &x, &OpArgs::none().with_shape(&[3, 2])).unwrap();
        assert_eq!(
            r,
            t(array![[1.0f64, 2.0], [3.0, 4.0], [5.0, 6.0]].into_dyn())
        );
        assert!(run1(&RESHAPE, &x, &OpArgs::none().with_shape(&[4])).is_err());
        let tr = run1(&TRANSPOSE, &x, &OpArgs::none()).unwrap();
        assert_eq!(
            tr,
            t(array![[1.0f64, 4.0], [2.0, 5.0], [3.0, 6.0]].into_dyn())
        );
        let tl = run1(&TILE, &t(array![1u8, 2]), &OpArgs::none().with_shape(&[2])).unwrap();
        assert_eq!(tl, t(array![1u8, 2, 1, 2].into_dyn()));
        let g = run1(&GATHER, &x, &OpArgs::none().with_indices(&[1, 0, -1])).unwrap();
        assert_eq!(g.shape(), &[3, 3]);
        let c = run(&CONCAT, &[x.view(), x.view()], &OpArgs::none()).unwrap();
        assert_eq!(c.shape(), &[4, 3]);
        let s = run(&STACK, &[x.view(), x.view()], &OpArgs::none().with_axis(-1)).unwrap();
        assert_eq!(s.shape(), &[2, 3, 2]);
        let cond = t(array![true, false, true]);
        let w = run(
            &WHERE,
            &[cond.view(), x.view(), t(array![0.0f64]).view()],
            &OpArgs::none(),
        )
        .unwrap();
        assert_eq!(w, t(array![[1.0f64, 0.0, 3.0], [4.0, 0.0, 6.0]].into_dyn()));
        let ci = run1(&CAST, &x, &OpArgs::none().with_dtype(DType::I32)).unwrap();
        assert_eq!(ci.dtype(), DType::I32);
        let z = run1(&ONES_LIKE, &t(array![1u16, 2]), &OpArgs::none()).unwrap();
        assert_eq!(z, t(array![1u16, 1].into_dyn()));
        let seg = run1(
            &SEGMENT_SUM,
            &t(array![1.0f32, 2.0, 3.0]),
            &OpArgs::none().with_indices(&[0, 2, 2, 3]),
        )
        .unwrap();
        assert_eq!(seg, t(array![3.0f32, 0.0, 3.0].into_dyn()));
        let err = run(&CONCAT, &[], &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "concat: expected at least 1 arguments, found 0"
        );
    }

    /// Every catalog op has a dense default, and its spec inference admits what it computes.
    #[test]
    fn every_catalog_op_runs_and_agrees_with_inference() {
        let x = t(array![[1.0f32, -2.0, 3.5], [0.5, 5.0, -6.0]]);
        let cond = t(array![true, false, true]);
        let mask = t(array![true, false]);
        for op in ALL.iter().copied() {
            let (inputs, args): (Vec<&Tensor>, OpArgs) = match op.name() {
                "reshape" => (vec![&x], OpArgs::none().with_shape(&[3, 2])),
                "tile" => (vec![&x], OpArgs::none().with_shape(&[2, 1])),
                "gather" => (
                    vec![&x],
                    OpArgs::none().with_indices(&[1, 1, 0]).with_axis(0),
                ),
                "cast" => (vec![&x], OpArgs::none().with_dtype(DType::I64)),
                "where" => (vec![&cond, &x, &x], OpArgs::none()),
                "boolean_mask" => (vec![&x, &mask], OpArgs::none()),
                "concat" | "stack" => (vec![&x, &x, &x], OpArgs::none().with_axis(1)),
                n if n.starts_with("segment_") => {
                    (vec![&x], OpArgs::none().with_indices(&[0, 1, 2]))
                }
                _ => match op.arity() {
                    crate::ops::Arity::Exactly(2) => (vec![&x, &x], OpArgs::axes(&[1])),
                    _ => (vec![&x], OpArgs::axes(&[1])),
                },
            };
            let views: Vec<TensorView<'_>> = inputs.iter().map(|t| t.view()).collect();
            let out = run(op, &views, &args).unwrap_or_else(|e| panic!("{op}: {e}"));
            let specs: Vec<TensorSpec> =
                inputs.iter().map(|t| TensorSpec::from_tensor(t)).collect();
            let refs: Vec<&TensorSpec> = specs.iter().collect();
            let inferred =
                crate::ops::infer::dense(op, &refs, &args).unwrap_or_else(|e| panic!("{op}: {e}"));
            let spec = inferred.tensor_spec().unwrap();
            assert!(
                spec.admits(&out),
                "{op}: inferred {spec}, computed {}",
                TensorSpec::from_tensor(&out)
            );
        }
    }
}

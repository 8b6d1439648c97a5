//! The dense bodies of the catalog ops that are not a single kernel call — `shape`, `reshape`,
//! `transpose`, `concat`/`stack`, `tile`, `gather`, `where`, `boolean_mask`, `cast`,
//! `zeros_like`/`ones_like` — each `fn(&Op, DenseArgs, &OpArgs) -> Result<Tensor>`, named by
//! its entry in [`catalog`](super::catalog) through `custom!`. Each checks its output size
//! ([`check_output`]) before allocating anything proportional to it, and reads its inputs as
//! views (a broadcast view is read in place).

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use smallvec::SmallVec;

use extype_kernels::{cast as kc, compact, gather as kg, matmul as km, select, stack_concat};

use super::args::OpArgs;
use super::dense_args::DenseArgs;
use super::glue::{check_output, kernel_error, pair, refused, typed};
use super::op::{Op, missing};
use super::operand::bad_argument;
use super::size::{self, shape_text, too_large};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Tensor, TensorView, each_variant};

/// `shape`: the shape as an `i64` vector.
pub(crate) fn shape_of(_: &Op, xs: DenseArgs<'_, '_>, _: &OpArgs) -> Result<Tensor> {
    let xs = xs.views();
    let dims: Vec<i64> = xs[0].shape().iter().map(|&n| n as i64).collect();
    Ok(Tensor::from(ndarray::Array1::from(dims)))
}

pub(crate) fn reshape(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let x = &xs[0];
    let shape = args.shape.as_deref().ok_or_else(|| missing(op, "shape"))?;
    let n: Option<usize> = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    // A view's element count fits `isize` (ndarray checks it), so this product does not overflow.
    let len: usize = x.shape().iter().product();
    if n != Some(len) {
        return Err(bad_argument(
            op.name(),
            "shape",
            format!(
                "a shape of {len} elements (the input has shape {:?})",
                x.shape()
            ),
            format!("{shape:?}"),
        ));
    }
    check_output(op, shape, x.dtype())?;
    let shape = IxDyn(shape);
    each_variant!(TensorView, x, a => {
        let out = a
            .to_shape((shape.clone(), ndarray::Order::RowMajor))
            .map_err(|e| bad_argument(op.name(), "shape", "a valid shape", e.to_string()))?
            .into_owned();
        Ok(Tensor::from(out))
    })
}

pub(crate) fn transpose(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let x = &xs[0];
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
            op.name(),
            "perm",
            format!("a permutation of 0..{ndim}"),
            format!("{perm:?}"),
        ));
    }
    check_output(op, x.shape(), x.dtype())?;
    each_variant!(TensorView, x, a => Ok(Tensor::from(
        a.view().permuted_axes(IxDyn(&perm)).as_standard_layout().into_owned()
    )))
}

/// `concat` (`STACK = false`) and `stack` (`STACK = true`).
pub(crate) fn join<const STACK: bool>(
    op: &Op,
    dense: DenseArgs<'_, '_>,
    args: &OpArgs,
) -> Result<Tensor> {
    let xs = &*dense.views();
    check_join::<STACK>(op, xs, args.axis)?;
    macro_rules! typed_join {
        ($($var:ident),*) => {
            match &xs[0] {
                $(TensorView::$var(_) => {
                    let mut views = Vec::with_capacity(xs.len());
                    for v in xs {
                        match v {
                            TensorView::$var(a) => views.push(a.view()),
                            _ => return Err(refused(op, dense)),
                        }
                    }
                    let out = if STACK {
                        stack_concat::stack(args.axis, &views)
                    } else {
                        stack_concat::concat(args.axis, &views)
                    };
                    Tensor::from(out.map_err(kernel_error(op))?)
                })*
                _ => return Err(refused(op, dense)),
            }
        };
    }
    Ok(typed_join!(Bool, F32, F64, I32, I64, U8, U64, F16, BF16))
}

/// Checks the axis of `concat` / `stack` (the op's words, as spec inference gives them) and
/// their output (unchecked when the arguments do not join: the kernel says why).
fn check_join<const STACK: bool>(op: &Op, xs: &[TensorView<'_>], axis: isize) -> Result<()> {
    let Some(first) = xs.first() else {
        return Ok(());
    };
    let mut out = first.shape().to_vec();
    let rank = out.len() + usize::from(STACK);
    if rank == 0 {
        // A rank-0 array to concatenate: the kernel names the argument.
        return Ok(());
    }
    let axis = op.axis(axis, rank)?;
    let joined = if STACK {
        Some(xs.len())
    } else {
        xs.iter()
            .try_fold(0usize, |acc, v| acc.checked_add(*v.shape().get(axis)?))
    };
    let Some(joined) = joined else {
        // An overflowing sum: the output cannot exist (the ranks agree, or the kernel errs).
        let total: u128 = xs
            .iter()
            .map(|v| v.shape().get(axis).map_or(0, |&d| d as u128))
            .sum();
        let dims = out
            .iter()
            .enumerate()
            .map(|(i, &d)| if i == axis { total } else { d as u128 });
        return Err(too_large(
            op.name(),
            shape_text(dims),
            first.dtype(),
            format!("at most {} bytes (isize::MAX)", size::MAX_BYTES),
            "a size overflowing usize",
        ));
    };
    if STACK {
        out.insert(axis, joined);
    } else {
        out[axis] = joined;
    }
    check_output(op, &out, first.dtype())
}

pub(crate) fn tile(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let x = &xs[0];
    let reps = args
        .shape
        .as_deref()
        .ok_or_else(|| missing(op, "multiples (OpArgs::shape)"))?;
    if reps.len() != x.shape().len() {
        return Err(bad_argument(
            op.name(),
            "multiples",
            format!(
                "{} multiples (one per axis of {:?})",
                x.shape().len(),
                x.shape()
            ),
            format!("{reps:?}"),
        ));
    }
    // The output shape, checked before anything is allocated (no list of views proportional
    // to the multiples: each axis is filled by copying the previous result into place).
    let wide: SmallVec<[u128; 4]> = x
        .shape()
        .iter()
        .zip(reps)
        .map(|(&d, &m)| d as u128 * m as u128)
        .collect();
    let out: Option<SmallVec<[usize; 4]>> = wide.iter().map(|&d| usize::try_from(d).ok()).collect();
    let Some(out) = out else {
        return Err(too_large(
            op.name(),
            shape_text(wide.iter()),
            x.dtype(),
            format!("dims of at most {} (isize::MAX)", size::MAX_BYTES),
            "a dim overflowing usize",
        ));
    };
    check_output(op, &out, x.dtype())?;
    fn tile_typed<T: Clone>(a: &ArrayViewD<'_, T>, reps: &[usize], out: &[usize]) -> ArrayD<T> {
        let Some(first) = a.iter().next().filter(|_| !out.contains(&0)) else {
            // Empty output: nothing proportional to the request is allocated.
            return ArrayD::from_shape_vec(IxDyn(out), Vec::new())
                .expect("an empty shape holds no elements");
        };
        // Each tiled axis is filled from the previous result, the first from the input view
        // itself (a broadcast view is read in place, not copied first).
        let mut cur: Option<ArrayD<T>> = None;
        for (axis, &m) in reps.iter().enumerate() {
            if m == 1 {
                continue;
            }
            let src = cur.as_ref().map_or_else(|| a.view(), |c| c.view());
            let n = src.shape()[axis];
            let mut shape = src.shape().to_vec();
            shape[axis] = n * m; // Fits: at most the checked output's dim.
            let mut next = ArrayD::from_elem(IxDyn(&shape), first.clone());
            for k in 0..m {
                next.slice_axis_mut(Axis(axis), Slice::from(k * n..(k + 1) * n))
                    .assign(&src);
            }
            cur = Some(next);
        }
        // No axis tiled: the output is the input's elements.
        cur.unwrap_or_else(|| a.to_owned())
    }
    Ok(typed!(
        KERNEL,
        op,
        TensorView,
        x,
        |a| tile_typed(a, reps, &out),
        refused(op, dense)
    ))
}

pub(crate) fn gather(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let indices = args
        .indices
        .as_deref()
        .ok_or_else(|| missing(op, "indices"))?;
    let x = &xs[0];
    // A rank-0 array to gather from: the kernel names the argument.
    if !x.shape().is_empty() {
        let axis = op.axis(args.axis, x.shape().len())?;
        let mut out = x.shape().to_vec();
        out[axis] = indices.len();
        check_output(op, &out, x.dtype())?;
    }
    Ok(typed!(
        KERNEL,
        op,
        TensorView,
        &xs[0],
        |a| kg::gather(a, indices, args.axis).map_err(kernel_error(op))?,
        refused(op, dense)
    ))
}

/// `where`: `cond ? x : y` (the kernel checks and allocates the output: see
/// [`sized_error`](super::glue::sized_error)).
pub(crate) fn where_(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let TensorView::Bool(cond) = &xs[0] else {
        return Err(refused(op, dense));
    };
    pair!(
        KERNEL,
        TensorView,
        (op, dense, args),
        &xs[1],
        &xs[2],
        |a, b| select::select(cond, a, b),
        refused(op, dense)
    )
}

pub(crate) fn matmul(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    op.check_dtypes(2, |i| xs[i].dtype())?;
    // The kernel checks the ranks, `k` and the output size before allocating.
    pair!(
        LINALG,
        TensorView,
        (op, dense, args),
        &xs[0],
        &xs[1],
        |a, b| km::matmul(a, b),
        refused(op, dense)
    )
}

pub(crate) fn boolean_mask(op: &Op, dense: DenseArgs<'_, '_>, _: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let TensorView::Bool(mask) = &xs[1] else {
        return Err(refused(op, dense));
    };
    Ok(typed!(
        KERNEL,
        op,
        TensorView,
        &xs[0],
        |a| compact::boolean_mask(a, mask).map_err(kernel_error(op))?,
        refused(op, dense)
    ))
}

pub(crate) fn cast(op: &Op, dense: DenseArgs<'_, '_>, args: &OpArgs) -> Result<Tensor> {
    let xs = &*dense.views();
    let x = &xs[0];
    let to = op.result_dtype(op.check_dtypes(1, |_| x.dtype())?, args)?;
    check_output(op, x.shape(), to)?;
    macro_rules! to {
        ($a:expr) => {
            match to {
                DType::Bool => Tensor::from(kc::cast::<_, bool, _, _>($a)),
                DType::F32 => Tensor::from(kc::cast::<_, f32, _, _>($a)),
                DType::F64 => Tensor::from(kc::cast::<_, f64, _, _>($a)),
                DType::I32 => Tensor::from(kc::cast::<_, i32, _, _>($a)),
                DType::I64 => Tensor::from(kc::cast::<_, i64, _, _>($a)),
                DType::U8 => Tensor::from(kc::cast::<_, u8, _, _>($a)),
                DType::U64 => Tensor::from(kc::cast::<_, u64, _, _>($a)),
                DType::I8 => Tensor::from(kc::cast::<_, i8, _, _>($a)),
                DType::I16 => Tensor::from(kc::cast::<_, i16, _, _>($a)),
                DType::U16 => Tensor::from(kc::cast::<_, u16, _, _>($a)),
                DType::U32 => Tensor::from(kc::cast::<_, u32, _, _>($a)),
                DType::F16 => Tensor::from(kc::cast::<_, half::f16, _, _>($a)),
                DType::BF16 => Tensor::from(kc::cast::<_, half::bf16, _, _>($a)),
            }
        };
    }
    Ok(typed!(
        ALL,
        op,
        TensorView,
        x,
        |a| to!(a),
        refused(op, dense)
    ))
}

/// `zeros_like` (`ONE = false`) and `ones_like` (`ONE = true`), of the input's dtype or the
/// one in `args`.
pub(crate) fn filled<const ONE: bool>(
    op: &Op,
    xs: DenseArgs<'_, '_>,
    args: &OpArgs,
) -> Result<Tensor> {
    let xs = xs.views();
    let x = &xs[0];
    let dtype = op.result_dtype(x.dtype(), args)?;
    check_output(op, x.shape(), dtype)?;
    let shape = IxDyn(x.shape());
    macro_rules! fill {
        ($($var:ident => $zero:expr, $one:expr;)*) => {
            match dtype {
                $(DType::$var => {
                    Tensor::from(ArrayD::from_elem(shape, if ONE { $one } else { $zero }))
                })*
            }
        };
    }
    Ok(fill! {
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
        F16 => half::f16::ZERO, half::f16::ONE;
        BF16 => half::bf16::ZERO, half::bf16::ONE;
    })
}

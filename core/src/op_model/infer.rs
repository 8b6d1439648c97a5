//! Spec inference: the output spec of an op from its input specs, before any data exists.
//!
//! [`dense`] is every op's own rule on tensor specs, read from its catalog entry: the dtype check
//! the kernels run ([`Op::check_dtypes`]), the result dtype ([`Op::result_dtype`]) and the shape
//! rule ([`InferRule`]; binary ops broadcast statically with [`broadcast_static`], returning the
//! runtime [`BroadcastChecks`] that make the output true);
//! [`infer_spec`](crate::ops::infer_spec) dispatches on spec types, so handlers registered with
//! `#[dispatch(op, infer = f)]` infer the specs of extension values. A handler without
//! `infer = …` gets a default from its return type: [`componentwise`] for an extension type whose
//! tensor fields share one shape, [`on_tensor_like`] for a dense `Tensor`.
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

use std::any::TypeId;

use smallvec::SmallVec;

use super::args::OpArgs;
use super::op::{InferRule, Op, missing};
use super::operand::bad_argument;
use crate::dtype::DType;
use crate::error::{Result, ShapeError};
use crate::spec::value::{AnySpec, ValueSpec};
use crate::spec::{ExtensionType, TensorSpec};
use crate::tensor::{Tensor, TensorLike};
use extype_kernels::axis::Repeats;
use extype_shape::{
    BroadcastChecks, Dim, MAX_DIM, Shape, ShapeCalculator, Unifier, broadcast_static,
};

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

fn out(shape: Shape, dtype: DType) -> Inferred {
    TensorSpec::new(shape, dtype).into()
}

/// The output spec of `op` on dense inputs of these specs (the rule the dense default follows).
///
/// Errors say what the kernels would: a dtype the op does not take, shapes that cannot
/// broadcast, an axis out of range — before any data exists. User-declared ops follow their
/// kind: unary and binary elementwise ops keep the dtype (binary ones broadcast), reductions
/// reduce the shape; `other` user ops have no inference without a handler.
pub fn dense(op: &Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<Inferred> {
    op.check_arity(specs.len())?;
    dense_unchecked(op, specs, args)
}

/// [`dense`] for a caller that has checked the arity ([`Op::check_arity`]).
pub(crate) fn dense_unchecked(op: &Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<Inferred> {
    let Some(&x) = specs.first() else {
        return Err(bad_argument(
            op.name(),
            "specs",
            "at least one input spec (an op of no inputs has no default inference)",
            "none",
        ));
    };
    let rule = op.infer_rule();
    if let InferRule::None = rule {
        return Err(bad_argument(
            op.name(),
            "specs",
            "a handler with `infer = …` (a user op of kind `other` has no default inference)",
            "dense specs",
        ));
    }
    let d = op.check_dtypes(specs.len(), |i| specs[i].dtype)?;
    let dtype = op.result_dtype(d, args)?;
    let shape = match rule {
        InferRule::Same => x.shape.clone(),
        InferRule::Broadcast => {
            let shapes: Vec<&Shape> = specs.iter().map(|s| &s.shape).collect();
            let b = broadcast_static(&shapes, args.effective_policy())?;
            return Ok(Inferred {
                spec: ValueSpec::Tensor(TensorSpec::new(b.shape, dtype)),
                checks: Some(b.checks),
            });
        }
        InferRule::Reduce => reduce_shape(op, &x.shape, args)?,
        InferRule::Custom(f) => f(op, specs, args)?,
        // Refused above.
        InferRule::None => Shape::unknown_rank(),
    };
    Ok(out(shape, dtype))
}

/// The output shape of an op declared with a shape contract (`declare_op!(…, shapes = [PATTERN,
/// …] -> OUTPUT)`): the inputs' patterns unified jointly on their partial shapes, and the output's
/// declared dims (affine expressions over the patterns' names, such as `n - k + 1`) evaluated on
/// what is known. The contract is built once, into `contract`; a contract that breaks a
/// declaration rule (an any-dim in the output, a name no input binds, a missing batch dim) or does
/// not parse is an error of every inference of the op.
///
/// ```
/// use extype_core::ops::{self, OpArgs};
/// use extype_core::{DType, TensorSpec, ValueSpec};
///
/// extype_core::declare_op!(pub CONV1D: other(2) "my.conv1d",
///     shapes = ["b c_in n", "c_out c_in k"] -> "b, c_out, n - k + 1", batch = "b");
///
/// let x = ValueSpec::Tensor(TensorSpec::new("[8, 3, ?]".parse().unwrap(), DType::F32));
/// let w = ValueSpec::Tensor(TensorSpec::new("[16, 3, 5]".parse().unwrap(), DType::F32));
/// let y = ops::infer_spec(&CONV1D, &[&x, &w], &OpArgs::none()).unwrap();
/// assert_eq!(y.tensor_spec().unwrap().to_string(), "f32[8, 16, ?]");
/// let x = ValueSpec::Tensor(TensorSpec::new("[8, 3, 100]".parse().unwrap(), DType::F32));
/// let y = ops::infer_spec(&CONV1D, &[&x, &w], &OpArgs::none()).unwrap();
/// assert_eq!(y.tensor_spec().unwrap().to_string(), "f32[8, 16, 96]");
/// ```
pub fn contract_shape(
    op: &Op,
    specs: &[&TensorSpec],
    contract: &std::sync::OnceLock<std::result::Result<ShapeCalculator, ShapeError>>,
    inputs: &[&str],
    output: &str,
    batch: Option<&str>,
) -> Result<Shape> {
    let calc = contract
        .get_or_init(|| {
            let mut unifier = inputs
                .iter()
                .try_fold(Unifier::new(), |u, pattern| u.positional(pattern))?;
            if let Some(batch) = batch {
                unifier = unifier.batch(batch)?;
            }
            ShapeCalculator::new(unifier).output(op.name(), output)
        })
        .as_ref()
        .map_err(|e| e.clone())?;
    let shapes: Vec<&Shape> = specs.iter().map(|s| &s.shape).collect();
    let mut outputs = calc.infer(&shapes)?;
    Ok(outputs.pop().map_or_else(Shape::unknown_rank, |o| o.shape))
}

impl Inferred {
    /// This inference, if its output spec is fully defined (MXNet's `infer_shape` beside
    /// `infer_shape_partial`); otherwise an error naming the op and each dim that is not a known
    /// size, with its component and axis.
    pub fn fully_defined(self, op: &Op) -> Result<Inferred> {
        let (specs, paths) = match &self.spec {
            ValueSpec::Tensor(t) => (vec![t.clone()], vec![]),
            ValueSpec::Extension(e) => (e.dyn_component_specs(), e.dyn_component_paths()),
        };
        let mut unknown = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let place = paths.get(i).map_or_else(String::new, |p| format!("`{p}` "));
            match spec.shape.dims() {
                None => unknown.push(format!("{place}rank (shape *)")),
                Some(dims) => unknown.extend(
                    dims.iter()
                        .enumerate()
                        .filter(|(_, d)| !d.is_known())
                        .map(|(axis, d)| format!("{place}axis {axis} is {d}")),
                ),
            }
        }
        if unknown.is_empty() {
            return Ok(self);
        }
        Err(ShapeError::Calculation {
            output: op.name().into(),
            message: format!("not fully defined: {}", unknown.join(", ")),
        }
        .into())
    }
}

fn reduce_shape(op: &Op, shape: &Shape, args: &OpArgs) -> Result<Shape> {
    let Some(dims) = shape.dims() else {
        return Ok(match (&args.axes, args.keepdims) {
            (None, false) => Shape::scalar(),
            _ => Shape::unknown_rank(),
        });
    };
    let reduced = op.reduced_axes(args.axes.as_deref(), dims.len(), Repeats::Refused)?;
    Ok(Shape::from_dims(dims.iter().zip(&reduced).filter_map(
        |(&d, &r)| match (r, args.keepdims) {
            (false, _) => Some(d),
            (true, true) => Some(Dim::Known(1)),
            (true, false) => None,
        },
    )))
}

/// `shape`: a vector of the input's rank.
pub(crate) fn shape_of(_: &Op, specs: &[&TensorSpec], _: &OpArgs) -> Result<Shape> {
    let n = specs[0].shape.rank().map_or(Dim::Unknown, Dim::Known);
    Ok(Shape::from_dims([n]))
}

pub(crate) fn reshape(op: &Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<Shape> {
    let x = specs[0];
    let new = args.shape.as_deref().ok_or_else(|| missing(op, "shape"))?;
    let want: Option<usize> = new.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    if let (Some(have), Some(want)) = (x.shape.num_elements(), want)
        && have != want
    {
        return Err(bad_argument(
            op.name(),
            "shape",
            format!("a shape of {have} elements (the input is {})", x.shape),
            format!("{new:?}"),
        ));
    }
    for (axis, &d) in new.iter().enumerate() {
        bounded(op, "shape", axis, Some(d))?;
    }
    Ok(Shape::known(new))
}

pub(crate) fn transpose(op: &Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<Shape> {
    let Some(dims) = specs[0].shape.dims() else {
        return Ok(Shape::unknown_rank());
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
            op.name(),
            "perm",
            format!("a permutation of 0..{}", dims.len()),
            format!("{perm:?}"),
        ));
    }
    Ok(Shape::from_dims(perm.iter().map(|&p| dims[p])))
}

/// `concat` (`STACK = false`) and `stack` (`STACK = true`).
pub(crate) fn join<const STACK: bool>(
    op: &Op,
    specs: &[&TensorSpec],
    args: &OpArgs,
) -> Result<Shape> {
    let mut merged = specs[0].shape.clone();
    let Some(rank) = specs.iter().find_map(|s| s.shape.rank()) else {
        return Ok(Shape::unknown_rank());
    };
    let axis = op.axis(args.axis, rank + usize::from(STACK))?;
    let mut total = Some(0usize);
    for s in specs {
        let Some(dims) = s.shape.dims() else { continue };
        if dims.len() != rank {
            return Err(ShapeError::Rank {
                op: op.name(),
                expected: rank.to_string(),
                found: Box::new(s.shape.clone()),
            }
            .into());
        }
        if STACK {
            merged = merged.merge_with(&s.shape)?;
        } else {
            total = match (total, dims[axis].value()) {
                (Some(a), Some(b)) => Some(bounded(op, "arguments", axis, a.checked_add(b))?),
                _ => None,
            };
            let mut masked: Vec<Dim> = dims.to_vec();
            masked[axis] = Dim::Unknown;
            let mut cur: Vec<Dim> = merged.dims().map_or(masked.clone(), <[Dim]>::to_vec);
            cur[axis] = Dim::Unknown;
            merged = Shape::from_dims(cur).merge_with(&Shape::from_dims(masked))?;
        }
    }
    let mut dims: Vec<Dim> = merged
        .dims()
        .map_or(vec![Dim::Unknown; rank], <[Dim]>::to_vec);
    if STACK {
        dims.insert(axis, Dim::Known(specs.len()));
    } else {
        dims[axis] = total.map_or(Dim::Unknown, Dim::Known);
    }
    Ok(Shape::from_dims(dims))
}

pub(crate) fn tile(op: &Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<Shape> {
    let x = specs[0];
    let reps = args
        .shape
        .as_deref()
        .ok_or_else(|| missing(op, "multiples (OpArgs::shape)"))?;
    let dims: Vec<Dim> = match x.shape.dims() {
        Some(dims) if dims.len() == reps.len() => dims.to_vec(),
        None => vec![Dim::Unknown; reps.len()],
        Some(dims) => {
            return Err(bad_argument(
                op.name(),
                "multiples",
                format!("{} multiples (one per axis of {})", dims.len(), x.shape),
                format!("{reps:?}"),
            ));
        }
    };
    let out = dims.iter().zip(reps).enumerate().map(|(axis, (&d, &m))| {
        Ok(match (d, m) {
            (_, 0) => Dim::Known(0),
            (d, 1) => d,
            (Dim::Known(n), m) => Dim::Known(bounded(op, "multiples", axis, n.checked_mul(m))?),
            // `!1` times m ≥ 2 is still not 1.
            (Dim::NotOne, _) => Dim::NotOne,
            // `$n` times m ≥ 2 is 0 or at least m: never 1, but no longer `$n`.
            (Dim::Symbol { .. }, _) => Dim::NotOne,
            (Dim::Unknown, _) => Dim::Unknown,
        })
    });
    out.collect::<Result<Vec<Dim>>>().map(Shape::from_dims)
}

/// An output dim computed with checked arithmetic (`None`: it overflowed), refused above
/// [`MAX_DIM`] (`isize::MAX`, the one bound of every shape the library builds or parses).
fn bounded(op: &Op, arg: &str, axis: usize, dim: Option<usize>) -> Result<usize> {
    match dim {
        Some(d) if d <= MAX_DIM => Ok(d),
        _ => Err(bad_argument(
            op.name(),
            arg,
            format!("an output dim of at most {MAX_DIM} (isize::MAX) at axis {axis}"),
            match dim {
                Some(d) => format!("{d}"),
                None => "a dim overflowing usize".to_string(),
            },
        )),
    }
}

pub(crate) fn gather(op: &Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<Shape> {
    let indices = args
        .indices
        .as_deref()
        .ok_or_else(|| missing(op, "indices"))?;
    let Some(dims) = specs[0].shape.dims() else {
        return Ok(Shape::unknown_rank());
    };
    let axis = op.axis(args.axis, dims.len())?;
    let mut dims = dims.to_vec();
    dims[axis] = Dim::Known(indices.len());
    Ok(Shape::from_dims(dims))
}

/// `matmul`: `[.., n, k] @ [.., k, m] → [.., n, m]`, the leading axes broadcast (statically,
/// NumPy's rules); a known `k` that differs is an error naming both arguments' shapes.
pub(crate) fn matmul(op: &Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<Shape> {
    let (a, b) = (&specs[0].shape, &specs[1].shape);
    for (i, s) in [a, b].into_iter().enumerate() {
        if s.rank().is_some_and(|r| r < 2) {
            return Err(bad_argument(
                op.name(),
                format!("argument {i}"),
                "rank >= 2 (a matrix or a batch of them)",
                format!("shape {s}"),
            ));
        }
    }
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(Shape::unknown_rank());
    };
    let (ra, rb) = (da.len(), db.len());
    if let (Dim::Known(k), Dim::Known(k2)) = (da[ra - 1], db[rb - 2])
        && k != k2
    {
        return Err(bad_argument(
            op.name(),
            "argument 1",
            format!(
                "axis -2 of size {k} (axis -1 of argument 0, shape {a}: [.., n, k] @ [.., k, m])"
            ),
            format!("size {k2} (shape {b})"),
        ));
    }
    let lead_a = Shape::from_dims(da[..ra - 2].to_vec());
    let lead_b = Shape::from_dims(db[..rb - 2].to_vec());
    let lead = broadcast_static(&[&lead_a, &lead_b], args.effective_policy())?.shape;
    Ok(lead.concatenate(&Shape::from_dims([da[ra - 2], db[rb - 1]])))
}

pub(crate) fn boolean_mask(op: &Op, specs: &[&TensorSpec], _: &OpArgs) -> Result<Shape> {
    let (x, m) = (specs[0], specs[1]);
    match (x.shape.dims(), m.shape.rank()) {
        (Some(dims), Some(k)) if k <= dims.len() => {
            let mut out_dims = vec![Dim::Unknown];
            out_dims.extend_from_slice(&dims[k..]);
            Ok(Shape::from_dims(out_dims))
        }
        (Some(_), Some(k)) => Err(ShapeError::Rank {
            op: op.name(),
            expected: format!("at least {k} (the rank of the mask)"),
            found: Box::new(x.shape.clone()),
        }
        .into()),
        _ => Ok(Shape::unknown_rank()),
    }
}

/// A segment reduction: axis 0 becomes one entry per ragged row.
pub(crate) fn segment(op: &Op, specs: &[&TensorSpec], args: &OpArgs) -> Result<Shape> {
    let x = specs[0];
    let splits = args
        .indices
        .as_deref()
        .ok_or_else(|| missing(op, "row_splits (OpArgs::indices)"))?;
    let rows = Dim::Known(splits.len().saturating_sub(1));
    Ok(match x.shape.dims() {
        Some([]) => {
            return Err(bad_argument(
                op.name(),
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
    })
}

// ---------------------------------------------------------------------------------------------
// Extension specs: the default inference of handlers without `infer = …`

/// The op's dense inference ([`dense`]) on the inputs' tensor-like views: a tensor spec is
/// itself, the spec of a tensor-like extension type the tensor spec it shows
/// ([`TensorLike::tensor_like_spec`]). `Ok(None)` when some input is not tensor-like, or the op
/// has no dense inference (no input; a user op of kind `other` without a shape contract).
///
/// The default inference of a `#[dispatch]` handler that returns a dense `Tensor` and has no
/// `infer = …` (a `Shape` handler of a tensor-like type infers `i64[rank]`).
///
/// ```
/// use extype_core::ops::{OpArgs, catalog, infer};
/// use extype_core::{DType, TensorSpec, ValueSpec};
/// let x = ValueSpec::Tensor(TensorSpec::new("[2, ?]".parse().unwrap(), DType::F32));
/// let out = infer::on_tensor_like(&catalog::SHAPE, &[&x], &OpArgs::none()).unwrap().unwrap();
/// assert_eq!(out.tensor_spec().unwrap().to_string(), "i64[2]");
/// ```
pub fn on_tensor_like(op: &Op, specs: &[&ValueSpec], args: &OpArgs) -> Result<Option<Inferred>> {
    on_views(op, specs, None, args)
}

/// [`on_tensor_like`], with the view of input `i` given (`replaced = Some((i, view))`).
fn on_views(
    op: &Op,
    specs: &[&ValueSpec],
    replaced: Option<(usize, &TensorSpec)>,
    args: &OpArgs,
) -> Result<Option<Inferred>> {
    // No input, or a user op of kind `other` without a shape contract: no dense inference to
    // run (a handler of such an op needs `infer = …`).
    if specs.is_empty() || matches!(op.infer_rule(), InferRule::None) {
        return Ok(None);
    }
    let like: Option<SmallVec<[TensorSpec; 3]>> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| match replaced {
            Some((j, view)) if i == j => Some(view.clone()),
            _ => s.tensor_like().map(TensorLike::tensor_like_spec),
        })
        .collect();
    let Some(like) = like else {
        return Ok(None);
    };
    let refs: SmallVec<[&TensorSpec; 3]> = like.iter().collect();
    dense(op, &refs, args).map(Some)
}

/// Component-wise spec inference for a tensor-like extension type `T` whose tensor fields share
/// one shape (a masked tensor: `values` and a `mask` of the same shape): the op's dense
/// inference on the inputs' tensor-like views ([`on_tensor_like`]) gives the output dtype and
/// shape; the output spec is the first input spec of type `T` with every component's shape
/// replaced by the output shape and the dtype of the component the type shows as its dtype
/// replaced by the output dtype (the other components keep theirs; static data is kept), through
/// [`TypeSpec::with_component_specs`](crate::TypeSpec::with_component_specs). The broadcast
/// checks of the dense inference come along.
///
/// It applies when an input spec is of type `T`, `T` is tensor-like
/// (`#[extype(tensor_like = field)]`), every component spec of that input has exactly the shape
/// its tensor-like view shows (fields of equal shapes, or under one shape contract, `*dims` on
/// each: a spec whose fields know different dims of it is refined by the contract first), and
/// every input is tensor-like (dense specs are). Otherwise it declines
/// (`Ok(None)`), and so it does when `T` cannot hold the result (a fixed-rank or fixed-dtype
/// field that the output does not fit: [`with_component_specs`](crate::TypeSpec::with_component_specs)
/// says why). Errors are the dense inference's (shapes that do not broadcast, an axis out of
/// range).
///
/// Which component the type shows as its dtype is found without naming it: the component whose
/// dtype, once replaced, is the dtype the rebuilt spec's tensor-like view shows (candidates are
/// the components of the view's dtype, in component order; the first that works is taken). This
/// needs nothing generated by the derive and holds for `tensor_like = field` on a tensor or on a
/// nested tensor-like type, and for hand-written `TensorLike` impls that read a component.
///
/// `#[dispatch]` registers it for every handler returning `Result<T>` / `Result<Option<T>>`
/// without `infer = …`; call it from your own `infer = f` to adapt it:
///
/// ```ignore
/// fn masked_infer(call: &Call, specs: &[&ValueSpec]) -> Result<Option<Inferred>> {
///     ops::infer::componentwise::<Masked>(call.op, specs, call.args)
/// }
/// ```
pub fn componentwise<T: ExtensionType>(
    op: &Op,
    specs: &[&ValueSpec],
    args: &OpArgs,
) -> Result<Option<Inferred>> {
    componentwise_of(TypeId::of::<T>(), op, specs, args)
}

/// [`componentwise`] for the extension type of this `TypeId`.
fn componentwise_of(
    value_type: TypeId,
    op: &Op,
    specs: &[&ValueSpec],
    args: &OpArgs,
) -> Result<Option<Inferred>> {
    let base = specs.iter().enumerate().find_map(|(i, s)| match s {
        ValueSpec::Extension(e) if e.value_type_id() == value_type => Some((i, &**e)),
        _ => None,
    });
    let Some((index, mut base)) = base else {
        return Ok(None);
    };
    let Some(view) = base.dyn_tensor_like() else {
        return Ok(None);
    };
    let (mut view_dtype, mut view_shape) = (view.dtype(), view.shape());
    let mut components = base.dyn_component_specs();
    let shared = |components: &[TensorSpec], shape: &Shape| {
        !components.is_empty() && components.iter().all(|c| c.shape == *shape)
    };
    // A spec made by hand may know a dim in one field that its shape contract gives the others
    // too: the spec rebuilt with its own component specs is refined by the contract.
    let refined;
    if !shared(&components, &view_shape) {
        let Ok(spec) = base.dyn_with_component_specs(components) else {
            return Ok(None);
        };
        refined = spec;
        base = &*refined;
        let Some(view) = base.dyn_tensor_like() else {
            return Ok(None);
        };
        (view_dtype, view_shape) = (view.dtype(), view.shape());
        components = base.dyn_component_specs();
        if !shared(&components, &view_shape) {
            return Ok(None);
        }
    }
    let view = TensorSpec::new(view_shape, view_dtype);
    let Some(inferred) = on_views(op, specs, Some((index, &view)), args)? else {
        return Ok(None);
    };
    let ValueSpec::Tensor(out) = &inferred.spec else {
        return Ok(None);
    };
    let reshaped: Vec<TensorSpec> = components
        .iter()
        .map(|c| TensorSpec::new(out.shape.clone(), c.dtype))
        .collect();
    let spec = if out.dtype == view_dtype {
        rebuilt(base, reshaped, out)
    } else {
        // The component the view shows as its dtype: one of the view's dtype, whose
        // replacement the rebuilt view shows.
        let mut found = None;
        for (i, _) in components
            .iter()
            .enumerate()
            .filter(|(_, c)| c.dtype == view_dtype)
        {
            let mut candidate = reshaped.clone();
            candidate[i].dtype = out.dtype;
            found = rebuilt(base, candidate, out);
            if found.is_some() {
                break;
            }
        }
        found
    };
    Ok(spec.map(|spec| Inferred {
        spec: ValueSpec::Extension(spec),
        checks: inferred.checks,
    }))
}

/// `base` with these component specs, when it can hold them and then shows `out` (its dtype,
/// a compatible shape) as its tensor-like view.
fn rebuilt(
    base: &dyn AnySpec,
    specs: Vec<TensorSpec>,
    out: &TensorSpec,
) -> Option<Box<dyn AnySpec>> {
    let spec = base.dyn_with_component_specs(specs).ok()?;
    let view = spec.dyn_tensor_like()?;
    let shows_out = view.dtype() == out.dtype && view.shape().is_compatible_with(&out.shape);
    shows_out.then_some(spec)
}

/// The default inference of a handler whose results are all of the type of `TypeId` `result`:
/// [`on_tensor_like`] for `Tensor`, [`componentwise`] for an extension type.
pub(crate) fn by_result_type(
    result: TypeId,
    op: &Op,
    specs: &[&ValueSpec],
    args: &OpArgs,
) -> Result<Option<Inferred>> {
    if result == TypeId::of::<Tensor>() {
        on_tensor_like(op, specs, args)
    } else {
        componentwise_of(result, op, specs, args)
    }
}

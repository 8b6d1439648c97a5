//! Arithmetic of [`SparseTensor`]s, as `tf.sparse` does it:
//!
//! - `sparse + sparse` ([`SparseTensor::add`], `ops::add`, `&a + &b`): TensorFlow's `SparseAdd`,
//!   a merge of the two entry lists in their stored order. Entries at the same index are summed,
//!   and a sum is kept when `threshold <= |sum|`, as TensorFlow compares (only sums: an entry of
//!   one operand alone is kept, explicit zeros and NaN included; `threshold = 0` keeps every sum
//!   but a NaN one, `nan + 1` or `inf + -inf`, which that comparison drops). Both dense shapes
//!   must be equal ("Operands' shapes do not match"). The result is canonical when both inputs
//!   are; for unordered inputs the merge is TensorFlow's too (reorder first, as its docs say).
//! - `sparse + dense` and `dense + sparse` → dense: TensorFlow's `SparseTensorDenseAdd`: the
//!   shapes must be equal (it does not broadcast); repeated indices add up.
//! - `sparse * dense`, `dense * sparse`, `sparse * scalar`: TensorFlow's `SparseDenseCwiseMul`:
//!   the dense operand broadcasts to the sparse dense shape (never the other way), and the result
//!   has exactly the sparse operand's entries, so a NaN or infinity of the dense operand at an
//!   implicit zero never appears.
//! - `sparse / dense`, `sparse / scalar`: TensorFlow's `SparseDenseCwiseDiv`
//!   (`tf.sparse.SparseTensor.__truediv__`), the same broadcast and the same entries: each stored
//!   value divided by the dense element at its index (an implicit zero stays an implicit zero,
//!   never `0 / 0`). Floats only, as extype's dense `div`: TensorFlow's `/` casts integer values
//!   to `float32` (8- and 16-bit) or `float64` (32- and 64-bit) first, extype asks for that cast
//!   (`ops::cast`). `dense / sparse` is refused, as in TensorFlow (it would be dense, with
//!   ±inf or NaN at every implicit zero).
//! - `zeros_like` keeps the indices, each stored value 0 (TensorFlow's
//!   `tf.sparse.map_values(tf.zeros_like, st)`; densified, all zeros); `ones_like` is refused
//!   like every unary op with `f(0) != 0` (its result is dense: `ones_like(to_dense(x))`, or
//!   ones at the stored entries only: `ones_like` of `values()`, rebuilt with `SparseTensor::new`).
//! - Unary elementwise ops with `f(0) = 0` (`neg`, `abs`, `sqrt`, `sin`, `tanh`, `floor`,
//!   `ceil`, `round`, `is_nan`, …) map the stored values and keep the indices; the others
//!   (`exp`, `cos`, `log`, `logical_not`, …) are an error that says to densify first, and so is
//!   any other binary op on a sparse operand (TensorFlow raises a `TypeError` for them: it has
//!   no `sub`, `maximum`, `pow`, comparisons, … between a `SparseTensor` and another operand).
//!
//! Dtypes: both operands of one dtype (TensorFlow's rule; cast first); the threshold compares
//! magnitudes as `f64` (a signed integer sum that wraps to its minimum has a negative magnitude,
//! as TensorFlow's `std::abs` gives it, and is dropped); integer sums and products wrap, as
//! TensorFlow's do. Half floats add, multiply and divide in `f32`, rounded after each step, as Eigen's;
//! `sparse + sparse` on them is an extension (TensorFlow registers no `SparseAdd` kernel for
//! `f16` or `bf16`).

use super::element::Arith;
use super::{SparseTensor, SparseTensorSpec};
use crate::dispatch::Call;
use crate::ndarray::{Array1, ArrayD, ArrayViewD, Ix1, IxDyn};
use crate::ops::infer;
use crate::ops::infer::Inferred;
use crate::ops::{OpArgs, catalog};
use crate::with_element;
use crate::{
    BinaryOp, DType, Dim, Element, Error, OrDense, Result, Shape, Tensor, TensorLike, TensorView,
    UnaryOp, ValueSpec, dispatch,
};
use extype_kernels::sparse_merge::{self, Entries, Summand};

/// The dtypes of two operands, which must agree (TensorFlow: cast first).
fn same_dtype(op: &str, a: DType, b: DType) -> Result<DType> {
    if a == b {
        Ok(a)
    } else {
        Err(Error::unsupported(
            op,
            format!("both operands need one dtype (cast first), found {a} and {b}"),
        ))
    }
}

impl SparseTensor {
    /// `self + other`, TensorFlow's `tf.sparse.add(a, b, threshold)` (see the
    /// [module docs](self::super)): entries at the same index are summed, and a sum whose magnitude
    /// is below `threshold` is dropped.
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use ndarray::array;
    /// let a = SparseTensor::new(array![[0i64, 0], [1, 1]], array![1.0f32, 2.0], &[2, 3])?;
    /// let b = SparseTensor::new(array![[0i64, 0], [1, 2]], array![-1.0f32, 3.0], &[2, 3])?;
    /// let c = a.add(&b, 0.0)?;
    /// assert_eq!(c.to_string(), "f32[2, 3] nnz=3 indices [[0, 0], [1, 1], [1, 2]] values [0.0, 2.0, 3.0]");
    /// let d = a.add(&b, 0.5)?; // the sum 0 at [0, 0] is dropped
    /// assert_eq!(d.nnz(), 2);
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn add(&self, other: &SparseTensor, threshold: f64) -> Result<SparseTensor> {
        const OP: &str = "sparse add";
        let dtype = same_dtype(OP, self.dtype(), other.dtype())?;
        if self.dense_shape() != other.dense_shape() {
            return Err(Error::unsupported(
                OP,
                format!(
                    "Operands' shapes do not match: {:?} and {:?}",
                    self.dense_shape(),
                    other.dense_shape()
                ),
            ));
        }
        with_arith!(OP, dtype, T => merge_add::<T>(self, other, threshold))
    }
}

/// TensorFlow's `SparseAdd` merge, for one element type: the kernel's
/// ([`extype_kernels::sparse_merge::add`]) on contiguous indices and values.
fn merge_add<T: Arith>(a: &SparseTensor, b: &SparseTensor, threshold: f64) -> Result<SparseTensor> {
    let (av, bv) = (
        a.values().as_array::<T, Ix1>()?,
        b.values().as_array::<T, Ix1>()?,
    );
    let (ai, bi) = (a.indices_array(), b.indices_array());
    // Contiguous values and indices (the usual case) go to the kernel as they are.
    let (Some(av), Some(bv), Some(af), Some(bf)) =
        (av.as_slice(), bv.as_slice(), ai.as_slice(), bi.as_slice())
    else {
        let (a, b) = (standard(a)?, standard(b)?);
        return merge_add::<T>(&a, &b, threshold);
    };
    // Canonical inputs merge into a canonical result; otherwise it is computed when asked.
    let canonical = a.is_canonical() && b.is_canonical();
    let (indices, vals) = sparse_merge::add(
        a.dense_shape(),
        Entries {
            indices: af,
            values: av,
        },
        Entries {
            indices: bf,
            values: bv,
        },
        threshold,
        canonical,
    )
    .map_err(super::kernel_error("sparse add"))?;
    Ok(SparseTensor::from_parts_unchecked(
        indices,
        Tensor::from(vals),
        a.dense_shape(),
        canonical.then_some(true),
    ))
}

/// The same value with standard-layout indices and values.
fn standard(st: &SparseTensor) -> Result<SparseTensor> {
    let indices = st.indices_array().as_standard_layout().into_owned();
    let values: Tensor =
        with_element!(st.dtype(), T => Tensor::from(st.values().as_array::<T, Ix1>()?.to_owned()));
    Ok(SparseTensor::from_parts_unchecked(
        indices,
        values,
        st.dense_shape(),
        None,
    ))
}

/// `sparse + dense` → dense (TensorFlow's `SparseTensorDenseAdd`: equal shapes, repeated indices
/// add up).
pub(crate) fn add_dense(st: &SparseTensor, dense: &TensorView<'_>) -> Result<Tensor> {
    const OP: &str = "add";
    let dtype = same_dtype(OP, st.dtype(), dense.dtype())?;
    if dense.shape() != st.dense_shape() {
        return Err(Error::unsupported(
            OP,
            format!(
                "a SparseTensor of dense shape {:?} adds a dense tensor of that shape only \
                 (TensorFlow's SparseTensorDenseAdd does not broadcast), found shape {:?}",
                st.dense_shape(),
                dense.shape()
            ),
        ));
    }
    let offsets = st.linear_offsets();
    with_arith!(OP, dtype, T => {
        let d = T::from_view(dense.clone()).expect("checked dtype");
        let mut out: Vec<T> = d.as_standard_layout().iter().copied().collect();
        let v = st.values().as_array::<T, Ix1>()?;
        for (&o, &x) in offsets.iter().zip(v.iter()) {
            out[o] = out[o].plus(x);
        }
        Ok(Tensor::from(ArrayD::from_shape_vec(IxDyn(dense.shape()), out).expect("same size")))
    })
}

/// TensorFlow's refusal besides broadcasting for `sparse * dense`: a dense axis longer than the
/// sparse axis it aligns with (from the right), so a dense axis of 1 does not stretch onto an
/// empty sparse axis. `longer` compares one pair (sizes, or dims of partial shapes).
fn dense_axis_longer<D>(dense: &[D], sparse: &[D], longer: impl Fn(&D, &D) -> bool) -> bool {
    dense
        .iter()
        .rev()
        .zip(sparse.iter().rev())
        .any(|(d, s)| longer(d, s))
}

/// An elementwise op of a sparse and a dense operand whose result has the sparse operand's
/// entries: TensorFlow's `SparseDenseCwise*` kernels.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cwise {
    /// `SparseDenseCwiseMul`.
    Mul,
    /// `SparseDenseCwiseDiv` (floats only).
    Div,
}

impl Cwise {
    /// The op's name, as the user calls it.
    fn name(self) -> &'static str {
        match self {
            Cwise::Mul => "mul",
            Cwise::Div => "div",
        }
    }

    /// TensorFlow's kernel, for error messages.
    fn kernel(self) -> &'static str {
        match self {
            Cwise::Mul => "SparseDenseCwiseMul",
            Cwise::Div => "SparseDenseCwiseDiv",
        }
    }
}

/// `sparse * dense` (TensorFlow's `SparseDenseCwiseMul`): the dense operand broadcast to the
/// dense shape, read at each stored index only.
pub(crate) fn mul_dense(st: &SparseTensor, dense: &TensorView<'_>) -> Result<SparseTensor> {
    cwise_dense(Cwise::Mul, st, dense)
}

/// `sparse / dense` (TensorFlow's `SparseDenseCwiseDiv`): as [`mul_dense`], each stored value
/// divided by the dense element at its index; floats only (integers: cast first).
pub(crate) fn div_dense(st: &SparseTensor, dense: &TensorView<'_>) -> Result<SparseTensor> {
    cwise_dense(Cwise::Div, st, dense)
}

/// The refusal of integer (and bool) dtypes by sparse division: the dense `div`'s dtypes.
fn check_div_dtype(dtype: DType) -> Result<()> {
    if dtype.is_float() {
        return Ok(());
    }
    Err(Error::unsupported(
        "div",
        format!(
            "a SparseTensor of dtype {dtype} divides as floats only, as the dense `div` \
             (TensorFlow's `/` casts integer values to float32 or float64 first): cast both \
             operands to a float dtype first with `ops::cast`"
        ),
    ))
}

/// The `SparseDenseCwise*` kernels: the dense operand broadcast to the dense shape, read at
/// each stored index only.
fn cwise_dense(op: Cwise, st: &SparseTensor, dense: &TensorView<'_>) -> Result<SparseTensor> {
    let name = op.name();
    let dtype = same_dtype(name, st.dtype(), dense.dtype())?;
    if op == Cwise::Div {
        check_div_dtype(dtype)?;
    }
    let shape = st.dense_shape();
    with_arith!(name, dtype, T => {
        let d: ArrayViewD<'_, T> = T::from_view(dense.clone()).expect("checked dtype");
        let longer = dense_axis_longer(dense.shape(), shape, |d, s| d > s);
        if longer || d.broadcast(IxDyn(shape)).is_none() {
            return Err(Error::unsupported(
                name,
                format!(
                    "the dense operand broadcasts to the sparse operand only (TensorFlow's \
                     {}); got incompatible shapes: {shape:?} vs. {:?}",
                    op.kernel(),
                    dense.shape()
                ),
            ));
        }
        let idx = st.indices_array();
        let v = st.values().as_array::<T, Ix1>()?;
        // The dense operand in row-major order (borrowed when it already is, the usual case),
        // read through strides over the sparse dense shape: 0 on the axes it broadcasts along
        // (length 1, or missing in front).
        let flat = d.as_standard_layout();
        let flat = flat.as_slice().expect("standard layout");
        let lead = shape.len() - d.ndim();
        let mut strides = vec![0usize; shape.len()];
        for (k, (&len, stride)) in d.shape().iter().zip(super::row_major_strides(d.shape())).enumerate() {
            if len != 1 {
                strides[lead + k] = stride;
            }
        }
        let mut out: Vec<T> = Vec::with_capacity(v.len());
        for (e, (row, &x)) in idx.outer_iter().zip(v.iter()).enumerate() {
            let mut off = 0usize;
            for ((&i, &s), &d) in row.iter().zip(&strides).zip(shape) {
                // Every value's indices are in bounds (checked on construction, kept by every
                // op); checked here again, since the read below must not trust them.
                if i < 0 || i as u64 >= d as u64 {
                    return Err(out_of_bounds(name, e, row.iter().copied(), shape));
                }
                off += i as usize * s;
            }
            // In bounds: `off` is the offset of the element the broadcast reads at `row`.
            let Some(&y) = flat.get(off) else {
                return Err(out_of_bounds(name, e, row.iter().copied(), shape));
            };
            out.push(match op {
                Cwise::Mul => x.times(y),
                Cwise::Div => x.over(y),
            });
        }
        Ok(SparseTensor::from_parts_unchecked(
            idx.to_owned(),
            Tensor::from(Array1::from(out)),
            shape,
            st.canonical.0.get().copied(),
        ))
    })
}

/// The error of an index row outside the dense shape.
#[cold]
fn out_of_bounds(
    name: &str,
    entry: usize,
    row: impl Iterator<Item = i64>,
    shape: &[usize],
) -> Error {
    Error::invalid(format!(
        "{name}: indices[{entry}] = {} is out of bounds of the dense shape {shape:?}",
        super::fmt_index(row)
    ))
}

/// `sparse + sparse` (threshold 0).
#[dispatch(Add, infer = same_shape_spec)]
fn sparse_add(x: &SparseTensor, y: &SparseTensor) -> Result<SparseTensor> {
    x.add(y, 0.0)
}

/// `sparse + dense` → dense.
#[dispatch(Add, infer = dense_add_spec)]
fn sparse_add_dense(x: &SparseTensor, y: &TensorView) -> Result<Tensor> {
    add_dense(x, y)
}

/// `dense + sparse` → dense.
#[dispatch(Add, infer = dense_add_spec)]
fn dense_add_sparse(x: &TensorView, y: &SparseTensor) -> Result<Tensor> {
    add_dense(y, x)
}

/// `sparse * dense` (and `sparse * scalar`) → sparse.
#[dispatch(Mul, infer = sparse_cwise_spec)]
fn sparse_mul_dense(x: &SparseTensor, y: &TensorView) -> Result<SparseTensor> {
    mul_dense(x, y)
}

/// `dense * sparse` (and `scalar * sparse`) → sparse.
#[dispatch(Mul, infer = sparse_cwise_spec)]
fn dense_mul_sparse(x: &TensorView, y: &SparseTensor) -> Result<SparseTensor> {
    mul_dense(y, x)
}

/// `sparse / dense` (and `sparse / scalar`) → sparse.
#[dispatch(Div, infer = sparse_div_spec)]
fn sparse_div_dense(x: &SparseTensor, y: &TensorView) -> Result<SparseTensor> {
    div_dense(x, y)
}

/// Every other binary elementwise op with a sparse operand (and `dense / sparse`): an error
/// that says to densify.
#[dispatch(binary_elementwise)]
fn sparse_binary_other(
    op: &BinaryOp,
    x: &OrDense<SparseTensor>,
    y: &OrDense<SparseTensor>,
) -> Result<SparseTensor> {
    let kinds =
        [x.ext().is_some(), y.ext().is_some()].map(|s| if s { "SparseTensor" } else { "dense" });
    Err(Error::unsupported(
        op.name(),
        format!(
            "not defined on ({}, {}) operands (TensorFlow's SparseTensor has add (sparse + \
             sparse, sparse + dense), mul (sparse * dense or scalar) and div (sparse / dense or \
             scalar) only); densify first with `to_dense`",
            kinds[0], kinds[1]
        ),
    ))
}

/// Unary elementwise ops with `f(0) = 0` map the stored values; the others are an error.
#[dispatch(unary_elementwise, infer = unary_spec)]
fn sparse_unary(op: &UnaryOp, x: &SparseTensor) -> Result<SparseTensor> {
    check_keeps_zero(op, x.dtype())?;
    let values: Tensor = op.apply_as(x.values())?;
    Ok(SparseTensor::from_parts_unchecked(
        x.indices_array().to_owned(),
        values,
        x.dense_shape(),
        x.canonical.0.get().copied(),
    ))
}

/// `zeros_like`: the same entries, each value 0 (`f(0) = 0`: sparsity kept).
#[dispatch(ZerosLike, infer = same_spec)]
fn sparse_zeros_like(args: &OpArgs, x: &SparseTensor) -> Result<SparseTensor> {
    let values = x.values().dense_op(&catalog::ZEROS_LIKE, args)?;
    Ok(SparseTensor::from_parts_unchecked(
        x.indices_array().to_owned(),
        values,
        x.dense_shape(),
        x.canonical.0.get().copied(),
    ))
}

/// `ones_like`: refused (the result would be dense), saying what to write instead.
#[dispatch(OnesLike, infer = ones_like_spec)]
fn sparse_ones_like(x: &SparseTensor) -> Result<SparseTensor> {
    Err(ones_like_refused(x.dtype()))
}

/// The refusal of `ones_like` on a SparseTensor.
fn ones_like_refused(dtype: DType) -> Error {
    Error::unsupported(
        "ones_like",
        format!(
            "ones_like(0) is not 0, so the result would be dense: write \
             `ops::ones_like(&x.to_dense(..))` for dense ones, or rebuild the sparse tensor \
             from `ops::ones_like(x.values())` for ones at the stored entries only ({dtype} \
             values; TensorFlow: tf.sparse.map_values(tf.ones_like, x))"
        ),
    )
}

/// `zeros_like`: the spec of its operand.
fn same_spec(_: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    Ok(Inferred {
        spec: specs[0].clone(),
        checks: None,
    })
}

/// `ones_like`: the same refusal as the call.
fn ones_like_spec(_: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    let l = like(specs)?;
    Err(ones_like_refused(l[0].dtype))
}

/// Whether `op` maps 0 of `dtype` to 0 (of its result dtype): then it keeps sparsity.
fn check_keeps_zero(op: &UnaryOp, dtype: DType) -> Result<()> {
    let zero = SparseTensor::empty(dtype, &[1])?.to_dense_zero()?;
    let image: Tensor = op.apply_as(&zero)?;
    if SparseTensor::from_dense(&image)?.nnz() == 0 {
        Ok(())
    } else {
        Err(Error::unsupported(
            op.name(),
            format!(
                "{}(0) is not 0, so the result would be dense; densify first with `to_dense` \
                 (unary ops on a SparseTensor keep sparsity only when f(0) = 0)",
                op.name()
            ),
        ))
    }
}

impl SparseTensor {
    /// The dense form with zeros (`T::default()`) at the implicit elements.
    pub(crate) fn to_dense_zero(&self) -> Result<Tensor> {
        let zero = with_element!(self.dtype(), T => Tensor::from(crate::ndarray::arr0(T::default()).into_dyn()));
        self.to_dense(&zero, false)
    }
}

/// The sparse spec of a dense inference result.
pub(crate) fn sparse_of(inferred: Inferred) -> Result<Inferred> {
    let spec = inferred
        .tensor_spec()
        .ok_or_else(|| Error::invalid("expected a tensor spec from the dense inference"))?;
    Ok(Inferred {
        spec: ValueSpec::Extension(Box::new(SparseTensorSpec::new(
            spec.shape.clone(),
            spec.dtype,
        ))),
        checks: inferred.checks,
    })
}

/// The tensor-like specs of the inputs (the dense shapes of sparse ones).
pub(crate) fn like(specs: &[&ValueSpec]) -> Result<Vec<crate::TensorSpec>> {
    specs
        .iter()
        .map(|s| {
            s.tensor_like()
                .map(TensorLike::tensor_like_spec)
                .ok_or_else(|| Error::invalid("expected tensor-like input specs"))
        })
        .collect()
}

/// `sparse + sparse`: equal dense shapes (merged), one dtype.
fn same_shape_spec(call: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    let l = like(specs)?;
    let dtype = same_dtype(call.op.name(), l[0].dtype, l[1].dtype)?;
    let shape = l[0].shape.merge_with(&l[1].shape).map_err(|_| {
        Error::unsupported(
            call.op.name(),
            format!(
                "Operands' shapes do not match: {} and {}",
                l[0].shape, l[1].shape
            ),
        )
    })?;
    Ok(Inferred {
        spec: ValueSpec::Extension(Box::new(SparseTensorSpec::new(shape, dtype))),
        checks: None,
    })
}

/// `sparse + dense`: the dense spec of equal shapes.
fn dense_add_spec(call: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    let l = like(specs)?;
    let dtype = same_dtype(call.op.name(), l[0].dtype, l[1].dtype)?;
    let shape = l[0].shape.merge_with(&l[1].shape).map_err(|_| {
        Error::unsupported(
            call.op.name(),
            format!(
                "a SparseTensor adds a dense tensor of its dense shape only, found {} and {}",
                l[0].shape, l[1].shape
            ),
        )
    })?;
    Ok(Inferred {
        spec: ValueSpec::Tensor(crate::TensorSpec::new(shape, dtype)),
        checks: None,
    })
}

/// `sparse / dense`: as `sparse * dense`, of floats only.
fn sparse_div_spec(call: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    let l = like(specs)?;
    check_div_dtype(same_dtype(call.op.name(), l[0].dtype, l[1].dtype)?)?;
    sparse_cwise_spec(call, specs)
}

/// `sparse * dense`, `sparse / dense`: the sparse operand's dense shape (the dense one
/// broadcasts into it).
fn sparse_cwise_spec(call: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    let l = like(specs)?;
    let dtype = same_dtype(call.op.name(), l[0].dtype, l[1].dtype)?;
    let sparse_at = usize::from(!is_sparse(specs[0]));
    let out = infer::dense(call.op, &[&l[0], &l[1]], call.args)?;
    let shape = out
        .tensor_spec()
        .map(|s| s.shape.clone())
        .unwrap_or(Shape::unknown_rank());
    let too_long = match (l[sparse_at].shape.dims(), l[1 - sparse_at].shape.dims()) {
        (Some(sparse), Some(dense)) => dense_axis_longer(
            dense,
            sparse,
            |d, s| matches!((d, s), (Dim::Known(d), Dim::Known(s)) if d > s),
        ),
        _ => false,
    };
    if too_long || matches!((shape.rank(), l[sparse_at].shape.rank()), (Some(a), Some(b)) if a != b)
    {
        return Err(Error::unsupported(
            call.op.name(),
            format!(
                "the dense operand broadcasts to the sparse operand only; got incompatible \
                 shapes: {} vs. {}",
                l[sparse_at].shape,
                l[1 - sparse_at].shape
            ),
        ));
    }
    Ok(Inferred {
        spec: ValueSpec::Extension(Box::new(SparseTensorSpec::new(
            l[sparse_at].shape.merge_with(&shape).unwrap_or(shape),
            dtype,
        ))),
        checks: None,
    })
}

/// Unary ops: the op's dense inference on the dense shape, as a sparse spec.
fn unary_spec(call: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    let l = like(specs)?;
    let out = sparse_of(infer::dense(call.op, &[&l[0]], call.args)?)?;
    // The same refusal as the call: an op with f(0) != 0 would densify.
    check_keeps_zero(&UnaryOp::new(call), l[0].dtype)?;
    Ok(out)
}

/// Whether a spec is a sparse tensor's.
pub(crate) fn is_sparse(spec: &ValueSpec) -> bool {
    match spec {
        ValueSpec::Extension(e) => e.as_any().is::<SparseTensorSpec>(),
        ValueSpec::Tensor(_) => false,
    }
}

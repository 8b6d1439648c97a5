//! `sparse_dense_matmul`: a rank-2 [`SparseTensor`] times a dense matrix, with `adjoint_a` /
//! `adjoint_b` (TensorFlow's `tf.sparse.sparse_dense_matmul`; for real dtypes the adjoint is the
//! transpose). `ops::matmul(&sparse, &dense)` dispatches here (no adjoints).
//!
//! Every stored entry `(i, j, v)` adds `v * B[j, :]` to row `i` of the output (duplicates add
//! up, the entries may be in any order), so a NaN of `B` in a row no entry reads never appears,
//! as in TensorFlow. The entries are bucketed by output row first (a counting sort, `O(nnz)`;
//! canonical entries without `adjoint_a` already are), then the kernels' `sparse_dense_matmul`
//! accumulates each output row in registers and splits the rows across cores.

use super::SparseTensor;
use super::element::Arith;
use extype_kernels::buckets;

use super::elementwise::like;
use crate::dispatch::Call;
use crate::ndarray::{Array2, ArrayView2, Ix1, Ix2};
use crate::ops::infer::Inferred;
use crate::{
    DType, Dim, Error, Result, Shape, Tensor, TensorSpec, TensorView, ValueSpec, dispatch,
};

const OP: &str = "sparse_dense_matmul";

/// `op(a) @ op(b)`, `op` the adjoint (transpose) where asked: `a` a rank-2 SparseTensor, `b` a
/// dense matrix of the same dtype (f32, f64, f16, bf16, i32, and i64, which TensorFlow's CPU
/// kernel does not register; integers wrap). As TensorFlow, f16 products are summed in f32 and
/// rounded once, bf16 products and sums are rounded to bf16 at each step. The inner dimensions
/// must agree (TensorFlow's "Cannot multiply A and B because inner dimension does not match").
///
/// ```
/// use extype::types::{SparseTensor, sparse::sparse_dense_matmul};
/// use extype::Tensor;
/// use ndarray::array;
/// let a = SparseTensor::new(array![[0i64, 0], [1, 2]], array![1.0f32, 2.0], &[2, 3])?;
/// let b = array![[1.0f32, 1.0], [f32::NAN, 1.0], [1.0, 1.0]];
/// let c = sparse_dense_matmul(&a, &Tensor::from(b), false, false)?;
/// assert_eq!(c, Tensor::from(array![[1.0f32, 1.0], [2.0, 2.0]])); // the NaN is never read
/// let ct = sparse_dense_matmul(&a, &Tensor::from(array![[1.0f32, 1.0], [1.0, 1.0]]), true, false)?;
/// assert_eq!(ct, Tensor::from(array![[1.0f32, 1.0], [0.0, 0.0], [2.0, 2.0]]));
/// # Ok::<(), extype::Error>(())
/// ```
pub fn sparse_dense_matmul(
    a: &SparseTensor,
    b: &Tensor,
    adjoint_a: bool,
    adjoint_b: bool,
) -> Result<Tensor> {
    matmul_view(a, &b.view(), adjoint_a, adjoint_b)
}

fn matmul_view(
    a: &SparseTensor,
    b: &TensorView<'_>,
    adjoint_a: bool,
    adjoint_b: bool,
) -> Result<Tensor> {
    if a.rank() != 2 {
        return Err(Error::unsupported(
            OP,
            format!(
                "argument a: expected a rank-2 SparseTensor, found dense shape {:?}",
                a.dense_shape()
            ),
        ));
    }
    if b.shape().len() != 2 {
        return Err(Error::unsupported(
            OP,
            format!("argument b: expected a matrix, found shape {:?}", b.shape()),
        ));
    }
    if a.dtype() != b.dtype() {
        return Err(Error::unsupported(
            OP,
            format!(
                "a and b need one dtype (cast first), found {} and {}",
                a.dtype(),
                b.dtype()
            ),
        ));
    }
    let (ar, ac) = (a.dense_shape()[0], a.dense_shape()[1]);
    let (n, k) = if adjoint_a { (ac, ar) } else { (ar, ac) };
    let (br, bc) = (b.shape()[0], b.shape()[1]);
    let k2 = if adjoint_b { bc } else { br };
    if k != k2 {
        return Err(Error::unsupported(
            OP,
            format!(
                "Cannot multiply A and B because inner dimension does not match: {k} vs. {k2}. \
                 Did you forget a transpose? Dimensions of A: {:?}, dimensions of B: {:?}",
                a.dense_shape(),
                b.shape()
            ),
        ));
    }
    // `product(a, op(b), adjoint_a, n)` for one element type.
    macro_rules! run {
        ($t:ty, $product:ident) => {{
            let bv: ArrayView2<'_, $t> = <$t as crate::Element>::from_view(b.clone())
                .expect("checked dtype")
                .into_dimensionality::<Ix2>()
                .expect("checked rank");
            let bt = if adjoint_b { bv.reversed_axes() } else { bv };
            Ok(Tensor::from($product::<$t>(a, &bt, adjoint_a, n)?))
        }};
    }
    match a.dtype() {
        DType::F32 => run!(f32, typed),
        DType::F64 => run!(f64, typed),
        DType::I32 => run!(i32, typed),
        DType::I64 => run!(i64, typed),
        DType::F16 => {
            // TensorFlow accumulates f16 products in f32 and rounds each output once.
            let wide_a: SparseTensor = crate::ops::cast_as(a, DType::F32)?;
            let wide_b: Tensor = crate::ops::cast_as(b, DType::F32)?;
            let out = matmul_view(&wide_a, &wide_b.view(), adjoint_a, adjoint_b)?;
            crate::ops::cast_as(&out, DType::F16)
        }
        DType::BF16 => run!(crate::half::bf16, rounded_each_step),
        other => Err(Error::unsupported(
            OP,
            format!(
                "expected a numeric dtype (f32, f64, f16, bf16, i32, i64), found dtype {other}"
            ),
        )),
    }
}

/// The product as TensorFlow computes it for `bf16`: entry by entry in stored order, each product
/// and each sum rounded to `bf16` (`b` is `op(b)`, `[k, m]`).
fn rounded_each_step<T: Arith>(
    a: &SparseTensor,
    b: &ArrayView2<'_, T>,
    adjoint_a: bool,
    n: usize,
) -> Result<Array2<T>> {
    let len = super::dense_len(OP, &[n, b.ncols()], size_of::<T>())?;
    let out = super::try_filled(OP, "the output", len, T::default())?;
    let mut out = Array2::from_shape_vec((n, b.ncols()), out).expect("n * m elements");
    let vals = a.values().as_array::<T, Ix1>()?;
    for (row, &v) in a.indices_array().outer_iter().zip(vals.iter()) {
        let (r, c) = if adjoint_a {
            (row[1], row[0])
        } else {
            (row[0], row[1])
        };
        let (mut dst, src) = (out.row_mut(r as usize), b.row(c as usize));
        dst.zip_mut_with(&src, |o, &x| *o = o.plus(v.times(x)));
    }
    Ok(out)
}

/// The product for one element type: `b` is `op(b)` (`[k, m]`), on the kernels'
/// `sparse_dense_matmul` (each output row accumulated in registers, the rows of `b` prefetched,
/// rows split across cores).
fn typed<T: Arith + extype_kernels::Num>(
    a: &SparseTensor,
    b: &ArrayView2<'_, T>,
    adjoint_a: bool,
    n: usize,
) -> Result<Array2<T>> {
    let idx = a.indices_array();
    let idx = idx.as_standard_layout();
    let flat = idx.as_slice().expect("standard layout");
    let vals = a.values().as_array::<T, Ix1>()?;
    let vals = vals.as_standard_layout();
    let (row_col, col_col) = if adjoint_a { (1, 0) } else { (0, 1) };
    // Bucket the entries by output row: `start[r]..start[r + 1]` in `order` (canonical entries
    // without adjoint are already bucketed: `order` is then the identity, and not built).
    let rows_of = || {
        flat.iter()
            .skip(row_col)
            .step_by(2)
            .map(|&r| Some(r as usize))
    };
    let start = buckets::starts(OP, rows_of(), n).map_err(super::kernel_error(OP))?;
    let order: Option<Vec<usize>> = if adjoint_a || !a.is_canonical() {
        Some(buckets::place(OP, rows_of(), &start).map_err(super::kernel_error(OP))?)
    } else {
        None
    };
    let rows = extype_kernels::spmm::SparseRows {
        starts: &start,
        order: order.as_deref(),
        inner: flat,
        inner_stride: 2,
        inner_offset: col_col,
        values: vals.as_slice().expect("standard layout"),
    };
    extype_kernels::spmm::sparse_dense_matmul(&rows, b).map_err(super::kernel_error(OP))
}

/// `ops::matmul(&sparse, &dense)`: [`sparse_dense_matmul`] without adjoints.
#[dispatch(Matmul, infer = matmul_spec)]
fn sparse_matmul(a: &SparseTensor, b: &TensorView) -> Result<Tensor> {
    matmul_view(a, b, false, false)
}

/// `[n, k] @ [k, m] → [n, m]` on the dense shape, a known `k` that differs an error.
fn matmul_spec(_: &Call, specs: &[&ValueSpec]) -> Result<Inferred> {
    let l = like(specs)?;
    if l[0].dtype != l[1].dtype {
        return Err(Error::unsupported(
            OP,
            format!(
                "a and b need one dtype (cast first), found {} and {}",
                l[0].dtype, l[1].dtype
            ),
        ));
    }
    let a = l[0].shape.with_rank(2).map_err(Error::from)?;
    let b = l[1].shape.with_rank(2).map_err(Error::from)?;
    let (da, db) = (a.dims().expect("rank 2"), b.dims().expect("rank 2"));
    if let (Dim::Known(k), Dim::Known(k2)) = (da[1], db[0])
        && k != k2
    {
        return Err(Error::unsupported(
            OP,
            format!(
                "Cannot multiply A and B because inner dimension does not match: {k} vs. {k2}. Dimensions of A: {a}, dimensions of B: {b}"
            ),
        ));
    }
    Ok(Inferred {
        spec: ValueSpec::Tensor(TensorSpec::new(
            Shape::from_dims([da[0], db[1]]),
            l[0].dtype,
        )),
        checks: None,
    })
}

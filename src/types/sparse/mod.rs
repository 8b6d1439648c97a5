//! [`SparseTensor`]: an N-d sparse tensor in coordinate (COO) form, registered as
//! `extype.SparseTensor`, with TensorFlow 2.x's `tf.sparse` semantics.
//!
//! A value is `indices` (`i64`, `[nnz, rank]`: one row per stored entry), `values` (`[nnz]`,
//! any dtype) and `dense_shape` (`rank` sizes). The number of stored entries is dynamic: a
//! spec says `nnz: ?` (`indices: i64[?, 2]`), and the spec's (tensor-like) shape is the dense
//! shape, as partial as the user makes it.
//!
//! **Why `dense_shape` is an `i64` vector component, as in TensorFlow.** The exact dense shape
//! is data of each value: items of one batch, or values loaded under a relaxed spec
//! (`[?, 3]`), each keep their own. Static spec data would lose it when the spec is relaxed,
//! and a value rebuilt from a relaxed spec would no longer know its shape. So it is one small
//! component (saved with the others, read by NumPy/SciPy from the file alone), while the spec
//! keeps the partial [`Shape`] itself (the field type [`DenseShape`]), which spec
//! inference and compatibility read; rebuilding from components checks the vector against it.
//!
//! **Canonical order.** An entry order is canonical when the indices are in row-major order with
//! no duplicates (TensorFlow's requirement for most sparse ops). Each value knows whether it is
//! ([`SparseTensor::is_canonical`], computed once and kept; ops that build canonical results
//! record it). [`SparseTensor::reorder`] sorts the entries (keeping duplicates, in the order
//! `tf.sparse.reorder` leaves them). Each op documents whether it needs canonical input and what
//! it returns.
//!
//! **Constructor checks** (TensorFlow's, as errors): `indices` and `values` of different lengths,
//! an index row of the wrong length, a negative dense size, a dense shape whose non-zero sizes
//! multiply past `i64::MAX` (TensorFlow's `TensorShape` bound, "Encountered overflow when
//! multiplying", which TensorFlow reports when the value is used; see [`DenseShape`] for the one
//! difference), an index out of bounds or negative
//! (`indices[0] = [0,5] is out of bounds: need 0 <= index < [2,2]`, which TensorFlow reports when
//! the value is used, extype at construction). Unordered and duplicate indices are legal values;
//! `to_dense(…, validate = true)` rejects them as TensorFlow does
//! (`indices[1] = [0,0] is out of order`, `indices[1] = [0,0] is repeated`).

mod display;
mod field;

pub(crate) use super::size::{dense_len, running_splits, try_filled};
pub(crate) use field::check_dims;
pub use field::{DenseShape, Entries};

use std::sync::OnceLock;

use crate::ndarray::{Array1, Array2, ArrayD, ArrayView2, Dimension, Ix1, Ix2};
use crate::ops::AsOperand;
use crate::{
    DType, Element, Error, ExtensionType, Result, Shape, Tensor, TensorLike, with_element,
};
use extype_kernels::filled::ZeroBits;

#[macro_use]
mod element;
mod batch;
mod elementwise;
mod matmul;
mod reduce;
mod reshape;

pub use batch::SparseBatch;

pub use matmul::sparse_dense_matmul;

/// An N-d sparse tensor in coordinate form (TensorFlow's `tf.sparse.SparseTensor`).
///
/// Built with the public derive, like any user type: registered as `extype.SparseTensor`, saved
/// and loaded by `extype::io`, tensor-like (its dtype is the values', its shape the dense
/// shape). The [module docs](self) give the representation, the checks and the canonical order.
///
/// ```
/// use extype::types::SparseTensor;
/// use extype::{ExtensionType, Tensor};
/// use ndarray::array;
///
/// let st = SparseTensor::new(array![[0i64, 1], [2, 3]], array![1.0f32, 5.0], &[3, 4])?;
/// assert_eq!(st.to_string(), "f32[3, 4] nnz=2 indices [[0, 1], [2, 3]] values [1.0, 5.0]");
/// assert_eq!(st.spec().to_string(),
///     "extype.SparseTensor { indices: i64[?, 2], values: f32[?], dense_shape: [3, 4] }");
/// let dense = st.to_dense(&0.0f32, true)?;
/// assert_eq!(dense, Tensor::from(array![[0.0f32, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 5.0]]));
/// assert_eq!(SparseTensor::from_dense(&dense)?, st);
/// // Out of bounds: TensorFlow's message.
/// let err = SparseTensor::new(array![[0i64, 5]], array![1.0f32], &[2, 2]).unwrap_err();
/// assert!(err.to_string().contains("indices[0] = [0,5] is out of bounds: need 0 <= index < [2,2]"), "{err}");
/// # Ok::<(), extype::Error>(())
/// ```
#[crate::dispatch(operators)]
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "extype.SparseTensor", validate = check_parts, tensor_like, batchable = SparseBatch)]
pub struct SparseTensor {
    /// The index of each stored entry (`i64`, `[nnz, rank]`).
    indices: Entries,
    /// The value of each stored entry (`[nnz]`, any dtype).
    values: Entries,
    /// The dense shape (`i64[rank]`; its spec is the partial dense shape).
    dense_shape: DenseShape,
    /// Whether the entries are in canonical order, once known.
    #[extype(skip)]
    canonical: Canonical,
}

/// Whether a value's entries are in canonical order: computed on first use, or recorded by the
/// op that built it. Not part of the value's identity (always equal).
#[derive(Clone, Debug, Default)]
pub struct Canonical(OnceLock<bool>);

impl PartialEq for Canonical {
    fn eq(&self, _: &Canonical) -> bool {
        true
    }
}

impl Canonical {
    fn known(canonical: bool) -> Canonical {
        let cell = OnceLock::new();
        let _ = cell.set(canonical);
        Canonical(cell)
    }
}

/// The checks of every value (construction, rebuilding from components, loading).
fn check_parts(st: &SparseTensor) -> Result<()> {
    let (indices, values) = (&st.indices.0, &st.values.0);
    let rank = st.dense_shape.dims().len();
    if indices.dtype() != DType::I64 {
        return Err(Error::invalid(format!(
            "indices: expected dtype i64, found {}",
            indices.dtype()
        )));
    }
    if indices.ndim() != 2 {
        return Err(Error::invalid(format!(
            "indices: shape {:?} must have rank 2 ([nnz, rank])",
            indices.shape()
        )));
    }
    if values.ndim() != 1 {
        return Err(Error::invalid(format!(
            "values: shape {:?} must have rank 1 ([nnz])",
            values.shape()
        )));
    }
    let (nnz, cols) = (indices.shape()[0], indices.shape()[1]);
    if nnz != values.len() {
        return Err(Error::invalid(format!(
            "indices has {nnz} entries but values has {}: dimensions {nnz} and {} are not compatible",
            values.len(),
            values.len()
        )));
    }
    if cols != rank {
        return Err(Error::invalid(format!(
            "indices rows have {cols} entries but dense_shape has {rank} axes: dimensions {cols} and {rank} are not compatible"
        )));
    }
    let dims = st.dense_shape.dims();
    check_dims("dense_shape", dims)?;
    let view = indices.as_array::<i64, Ix2>()?;
    for (k, row) in view.outer_iter().enumerate() {
        if row
            .iter()
            .zip(dims)
            .any(|(&i, &d)| i < 0 || i as u64 >= d as u64)
        {
            return Err(Error::invalid(format!(
                "indices[{k}] = {} is out of bounds: need 0 <= index < {}",
                fmt_index(row.iter().copied()),
                fmt_index(dims.iter().map(|&d| d as i64))
            )));
        }
    }
    Ok(())
}

/// `[0,5]`, TensorFlow's form of an index in its messages.
pub(crate) fn fmt_index(index: impl Iterator<Item = i64>) -> String {
    let parts: Vec<String> = index.map(|i| i.to_string()).collect();
    format!("[{}]", parts.join(","))
}

impl SparseTensor {
    /// A sparse tensor from the index of each stored entry (`i64`, `[nnz, rank]`), their values
    /// (`[nnz]`, any dtype) and the dense shape (`rank` sizes, `usize` as every size in the
    /// public API: [`Tensor::shape`], [`dense_shape`](Self::dense_shape),
    /// [`into_parts`](Self::into_parts)). Errors as TensorFlow's constructor and `to_dense`
    /// report them (see the [module docs](self)); the entries may be in any order, with
    /// duplicates. TensorFlow's `int64` dense shape, negative sizes refused, is the component
    /// ([`dense_shape_tensor`](Self::dense_shape_tensor)) and what
    /// [`from_components`](crate::TypeSpec::from_components) and files check.
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use ndarray::array;
    /// let x = SparseTensor::new(array![[0i64, 1]], array![5.0f32], &[2, 3])?;
    /// assert_eq!(x.dense_shape(), &[2, 3]);
    /// let (_indices, _values, shape) = x.into_parts();
    /// assert_eq!(shape, vec![2, 3]);
    /// let err = SparseTensor::new(array![[0i64, 0], [1, 1]], array![1.0f32], &[2, 2]).unwrap_err();
    /// assert!(err.to_string().contains("indices has 2 entries but values has 1"), "{err}");
    /// let err = SparseTensor::new(array![[0i64, 0]], array![1.0f32], &[1 << 62, 4]).unwrap_err();
    /// assert!(err.to_string().contains("is too large"), "{err}");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn new(
        indices: impl Into<Tensor>,
        values: impl Into<Tensor>,
        dense_shape: &[usize],
    ) -> Result<SparseTensor> {
        check_dims("dense_shape", dense_shape)?;
        let dense_shape = DenseShape::new(dense_shape);
        SparseTensor::try_new(
            Entries(indices.into()),
            Entries(values.into()),
            dense_shape,
            Canonical::default(),
        )
    }

    /// Parts already known to fit (the checks of [`new`](Self::new) hold), with the canonical
    /// flag when the caller knows it.
    pub(crate) fn from_parts_unchecked(
        indices: Array2<i64>,
        values: Tensor,
        dense_shape: &[usize],
        canonical: Option<bool>,
    ) -> SparseTensor {
        debug_assert_eq!(indices.nrows(), values.len());
        debug_assert_eq!(indices.ncols(), dense_shape.len());
        SparseTensor {
            indices: Entries(Tensor::from(indices)),
            values: Entries(values),
            dense_shape: DenseShape::new(dense_shape),
            canonical: canonical.map(Canonical::known).unwrap_or_default(),
        }
    }

    /// An empty sparse tensor (no stored entry) of `dtype` and `dense_shape`; an error for a
    /// dtype this type has no element type for, or a dense shape too large (as in
    /// [`new`](Self::new)).
    pub fn empty(dtype: DType, dense_shape: &[usize]) -> Result<SparseTensor> {
        check_dims("dense_shape", dense_shape)?;
        let values = with_element!(dtype, T => Tensor::from(Array1::<T>::default(0)));
        Ok(SparseTensor::from_parts_unchecked(
            Array2::zeros((0, dense_shape.len())),
            values,
            dense_shape,
            Some(true),
        ))
    }

    /// The index of each stored entry (`i64`, `[nnz, rank]`).
    pub fn indices(&self) -> &Tensor {
        &self.indices.0
    }

    /// The indices as an array (`[nnz, rank]`).
    pub fn indices_array(&self) -> ArrayView2<'_, i64> {
        // The checks of every value make it an i64 matrix.
        self.indices
            .0
            .as_array::<i64, Ix2>()
            .expect("indices are an i64 matrix (checked on construction)")
    }

    /// The value of each stored entry (`[nnz]`).
    pub fn values(&self) -> &Tensor {
        &self.values.0
    }

    /// The dense shape as an `i64` vector (the component).
    pub fn dense_shape_tensor(&self) -> &Tensor {
        self.dense_shape.tensor()
    }

    /// The dense shape.
    pub fn dense_shape(&self) -> &[usize] {
        self.dense_shape.dims()
    }

    /// The number of stored entries.
    pub fn nnz(&self) -> usize {
        self.values.0.len()
    }

    /// The number of dense axes.
    pub fn rank(&self) -> usize {
        self.dense_shape.dims().len()
    }

    /// The values' dtype.
    pub fn dtype(&self) -> DType {
        self.values.0.dtype()
    }

    /// The indices, values and dense shape, moved out.
    pub fn into_parts(self) -> (Tensor, Tensor, Vec<usize>) {
        let dims = self.dense_shape.dims().to_vec();
        (self.indices.0, self.values.0, dims)
    }

    /// Whether the entries are in canonical order: row-major, no duplicates (computed once per
    /// value, or known from the op that built it).
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use ndarray::array;
    /// let st = SparseTensor::new(array![[1i64, 0], [0, 1], [0, 1]], array![1.0f32, 2.0, 3.0], &[2, 2])?;
    /// assert!(!st.is_canonical());
    /// let sorted = st.reorder()?; // duplicates kept (tf.sparse.reorder)
    /// assert_eq!(sorted.indices_array(), array![[0i64, 1], [0, 1], [1, 0]]);
    /// assert!(!sorted.is_canonical()); // [0, 1] is repeated
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn is_canonical(&self) -> bool {
        *self
            .canonical
            .0
            .get_or_init(|| first_disorder(&self.indices_array()).is_none())
    }

    /// The same entries sorted in row-major order of their indices (TensorFlow's
    /// `tf.sparse.reorder`, duplicates kept). Repeated indices keep their stored order up to 16
    /// entries; beyond, they come out in the order TensorFlow's `std::sort` leaves them (not
    /// stable), reproduced step for step. Shares the data when already canonical.
    pub fn reorder(&self) -> Result<SparseTensor> {
        if self.is_canonical() {
            return Ok(self.clone());
        }
        let dims: Vec<usize> = (0..self.rank()).collect();
        let (indices, values) = self.permuted(&self.tf_order(&dims))?;
        let strict = indices
            .rows()
            .into_iter()
            .zip(indices.rows().into_iter().skip(1))
            .all(|(a, b)| a.iter().lt(b.iter()));
        Ok(SparseTensor::from_parts_unchecked(
            indices,
            values,
            self.dense_shape(),
            Some(strict),
        ))
    }

    /// The entry positions in the order TensorFlow's `SparseTensor::Reorder(dims)` leaves them:
    /// sorted by the index columns `dims` in turn, with its `std::sort` (see
    /// [`std_sort`](extype_kernels::tf_order::std_sort)).
    pub(crate) fn tf_order(&self, dims: &[usize]) -> Vec<usize> {
        let idx = self.indices_array();
        let mut order: Vec<usize> = (0..self.nnz()).collect();
        extype_kernels::tf_order::std_sort::std_sort(&mut order, |&i, &j| {
            let (ri, rj) = (idx.row(i), idx.row(j));
            dims.iter().map(|&d| ri[d]).lt(dims.iter().map(|&d| rj[d]))
        });
        order
    }

    /// The indices and values of the entries at `order` (positions), in that order.
    pub(crate) fn permuted(&self, order: &[usize]) -> Result<(Array2<i64>, Tensor)> {
        let idx = self.indices_array();
        let perm: Vec<i64> = order.iter().map(|&k| k as i64).collect();
        let indices =
            Array2::from_shape_fn((order.len(), idx.ncols()), |(r, c)| idx[[order[r], c]]);
        Ok((indices, crate::ops::gather_as(&self.values.0, &perm, 0)?))
    }

    /// A sparse tensor of the non-zero elements of `dense` (TensorFlow's `tf.sparse.from_dense`:
    /// an element is stored when it is not equal to zero, so NaN and ±inf are stored and `-0.0`
    /// is not), in canonical order.
    pub fn from_dense(dense: &impl AsOperand) -> Result<SparseTensor> {
        let operand = dense.as_operand();
        let view = operand.as_view().ok_or_else(|| {
            Error::unsupported("from_dense", "takes a dense tensor, array or scalar")
        })?;
        let shape = view.shape().to_vec();
        let rank = shape.len();
        with_element!(view.dtype(), T => {
            let a = T::from_view(view).expect("the view's dtype");
            let zero = T::default();
            let mut idx = Vec::new();
            let mut vals = Vec::new();
            for (i, &v) in a.indexed_iter() {
                if v != zero {
                    idx.extend(i.slice().iter().map(|&x| x as i64));
                    vals.push(v);
                }
            }
            let n = vals.len();
            let indices = Array2::from_shape_vec((n, rank), idx).expect("n rows of rank entries");
            Ok(SparseTensor::from_parts_unchecked(indices, Tensor::from(Array1::from(vals)), &shape, Some(true)))
        })
    }

    /// The dense tensor: each stored value at its index, `default` (a scalar of the values'
    /// dtype) elsewhere (TensorFlow's `tf.sparse.to_dense(sp, default_value, validate_indices)`).
    ///
    /// With `validate`, indices out of canonical order are errors naming the entry as
    /// TensorFlow's are (`indices[1] = [0,0] is out of order; use reorder …`,
    /// `indices[1] = [0,0] is repeated`); without it, entries are written in order, so the last
    /// of repeated indices wins (what TensorFlow does).
    ///
    /// ```
    /// use extype::types::SparseTensor;
    /// use extype::Tensor;
    /// use ndarray::array;
    /// let st = SparseTensor::new(array![[1i64], [0], [1]], array![1i32, 2, 3], &[3])?;
    /// assert_eq!(st.to_dense(&-1i32, false)?, Tensor::from(array![2i32, 3, -1]));
    /// let err = st.to_dense(&-1i32, true).unwrap_err();
    /// assert!(err.to_string().contains("indices[1] = [0] is out of order"), "{err}");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn to_dense(&self, default: &impl AsOperand, validate: bool) -> Result<Tensor> {
        if validate {
            self.validate_order()?;
        }
        let default = default.as_operand();
        let default = default
            .as_view()
            .filter(|d| d.shape().is_empty())
            .ok_or_else(|| {
                Error::unsupported("to_dense", "default_value must be a scalar (rank 0)")
            })?;
        if default.dtype() != self.dtype() {
            return Err(Error::unsupported(
                "to_dense",
                format!(
                    "default_value has dtype {} but the values have dtype {}",
                    default.dtype(),
                    self.dtype()
                ),
            ));
        }
        let shape = self.dense_shape();
        dense_len("to_dense", shape, self.dtype().size_of())?;
        with_element!(self.dtype(), T => {
            let fill = *T::from_view(default).expect("checked dtype").first().expect("rank 0");
            Ok(Tensor::from(scatter::<T>(self, fill)?))
        })
    }

    /// TensorFlow's index validation: the first entry out of order or repeated is an error.
    pub fn validate_order(&self) -> Result<()> {
        if self.is_canonical() {
            return Ok(());
        }
        let idx = self.indices_array();
        let Some((k, repeated)) = first_disorder(&idx) else {
            return Ok(());
        };
        let at = fmt_index(idx.row(k).iter().copied());
        Err(Error::invalid(if repeated {
            format!("indices[{k}] = {at} is repeated")
        } else {
            format!(
                "indices[{k}] = {at} is out of order. Many sparse ops require sorted indices; \
                 use `reorder` to create a correctly ordered copy"
            )
        }))
    }

    /// The row-major offset of each entry in the dense tensor.
    pub(crate) fn linear_offsets(&self) -> Vec<usize> {
        let strides = row_major_strides(self.dense_shape());
        let idx = self.indices_array();
        match (idx.as_slice(), strides.as_slice()) {
            // Contiguous indices (the usual case): one tight loop, rank 2 unrolled.
            (Some(flat), &[s0, s1]) => flat
                .chunks_exact(2)
                .map(|r| r[0] as usize * s0 + r[1] as usize * s1)
                .collect(),
            (Some(flat), _) if !strides.is_empty() => flat
                .chunks_exact(strides.len())
                .map(|r| r.iter().zip(&strides).map(|(&i, &s)| i as usize * s).sum())
                .collect(),
            _ => idx
                .outer_iter()
                .map(|row| {
                    row.iter()
                        .zip(&strides)
                        .map(|(&i, &s)| i as usize * s)
                        .sum()
                })
                .collect(),
        }
    }
}

/// Row-major strides of `shape`.
pub(crate) fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1];
    }
    strides
}

/// A kernel's error, as the sparse type reports it (an error of `op`).
pub(crate) fn kernel_error(op: &str) -> impl Fn(extype_kernels::KernelError) -> Error + '_ {
    move |source| Error::kernel(op, source)
}

/// The first entry that is not strictly after the previous one, and whether it is equal to it
/// (repeated) rather than before it (out of order).
fn first_disorder(idx: &ArrayView2<'_, i64>) -> Option<(usize, bool)> {
    let order = |o: std::cmp::Ordering, k: usize| match o {
        std::cmp::Ordering::Less => None,
        std::cmp::Ordering::Equal => Some((k, true)),
        std::cmp::Ordering::Greater => Some((k, false)),
    };
    let r = idx.ncols();
    match idx.as_slice().filter(|_| r > 0) {
        Some(flat) => (1..idx.nrows())
            .find_map(|k| order(flat[(k - 1) * r..k * r].cmp(&flat[k * r..(k + 1) * r]), k)),
        None => {
            (1..idx.nrows()).find_map(|k| order(idx.row(k - 1).iter().cmp(idx.row(k).iter()), k))
        }
    }
}

/// The dense array of `x`: `fill` everywhere, then each value at its index, in stored order
/// (the kernel's scatter; a canonical tensor's entries are written on several threads).
fn scatter<T: Element + ZeroBits + Send + Sync>(x: &SparseTensor, fill: T) -> Result<ArrayD<T>> {
    let values = x.values.0.as_array::<T, Ix1>()?;
    extype_kernels::scatter::scatter(
        x.dense_shape(),
        fill,
        x.indices_array(),
        values,
        x.is_canonical(),
    )
    .map_err(kernel_error("to_dense"))
}

impl TensorLike for SparseTensor {
    fn dtype(&self) -> DType {
        self.values.0.dtype()
    }
    fn shape(&self) -> Shape {
        Shape::known(self.dense_shape())
    }
    fn rank(&self) -> Option<usize> {
        Some(self.dense_shape().len())
    }
}

impl TensorLike for SparseTensorSpec {
    fn dtype(&self) -> DType {
        self.values.dtype
    }
    fn shape(&self) -> Shape {
        self.dense_shape.clone()
    }
}

impl SparseTensorSpec {
    /// The spec of sparse tensors of `dtype` and (partial) dense shape `dense_shape`, any
    /// number of stored entries (TensorFlow's `tf.SparseTensorSpec(shape, dtype)`).
    ///
    /// ```
    /// use extype::types::SparseTensorSpec;
    /// use extype::DType;
    /// let spec = SparseTensorSpec::new("[?, 3]".parse().unwrap(), DType::F64);
    /// assert_eq!(spec.to_string(),
    ///     "extype.SparseTensor { indices: i64[?, 2], values: f64[?], dense_shape: [?, 3] }");
    /// ```
    pub fn new(dense_shape: Shape, dtype: DType) -> SparseTensorSpec {
        let cols = match dense_shape.rank() {
            Some(r) => crate::Dim::Known(r),
            None => crate::Dim::Unknown,
        };
        SparseTensorSpec {
            indices: crate::TensorSpec::new(
                Shape::from_dims([crate::Dim::Unknown, cols]),
                DType::I64,
            ),
            values: crate::TensorSpec::new(Shape::from_dims([crate::Dim::Unknown]), dtype),
            dense_shape,
        }
    }

    /// The (partial) dense shape.
    pub fn dense_shape(&self) -> &Shape {
        &self.dense_shape
    }

    /// The values' dtype.
    pub fn dtype(&self) -> DType {
        self.values.dtype
    }
}

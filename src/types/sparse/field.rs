//! The two field types of [`SparseTensor`](super::SparseTensor) that make its spec TensorFlow's
//! `SparseTensorSpec`: [`Entries`] (a tensor whose leading axis, the number of stored entries,
//! is never part of the spec: `nnz: ?`) and [`DenseShape`] (the dense shape, stored as an `i64`
//! vector component as in TensorFlow, whose spec is the partial dense [`Shape`]).

use crate::field::{ComponentSpecs, Components, Field, FieldPath, Sink};
use crate::ndarray::{Array1, ArrayView1};
use crate::{
    DType, Dim, Error, Result, Shape, SpecSource, SpecTree, Tensor, TensorSpec, TensorView,
};

/// A tensor of stored entries (`indices` `[nnz, rank]`, `values` `[nnz]`): one component, whose
/// spec leaves the number of entries unknown, so two sparse tensors of the same dense shape
/// have the same spec whatever they store (TensorFlow's `SparseTensorSpec` does not carry `nnz`
/// either).
#[derive(Clone, Debug, PartialEq)]
pub struct Entries(pub(super) Tensor);

/// `spec` with its leading axis unknown.
fn any_nnz(mut spec: TensorSpec) -> TensorSpec {
    if let Some(dims) = spec.shape.dims()
        && !dims.is_empty()
    {
        let mut dims = dims.to_vec();
        dims[0] = Dim::Unknown;
        spec.shape = Shape::from_dims(dims);
    }
    spec
}

impl Field for Entries {
    type Spec = TensorSpec;

    fn field_spec(&self) -> TensorSpec {
        any_nnz(TensorSpec::from_tensor(&self.0))
    }
    fn num_components(_: &TensorSpec) -> usize {
        1
    }
    fn component_specs(spec: &TensorSpec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        out.push(path, spec.clone());
    }
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        out.push(path, self.0.view());
    }
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        out.push(path, self.0);
    }
    fn from_components(
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        components.next_checked(spec, path).map(Entries)
    }
    fn with_component_specs(
        _: &TensorSpec,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
    ) -> Result<TensorSpec> {
        Ok(any_nnz(specs.next_for(path)?))
    }
    fn spec_from_source(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Result<TensorSpec> {
        <Tensor as Field>::spec_from_source(path, source).map(any_nnz)
    }
    fn spec_to_value(spec: &TensorSpec) -> SpecTree {
        <Tensor as Field>::spec_to_value(spec)
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<TensorSpec> {
        <Tensor as Field>::spec_from_value(value, path)
    }
    fn spec_is_compatible(a: &TensorSpec, b: &TensorSpec) -> bool {
        a.is_compatible_with(b)
    }
    fn spec_most_specific_compatible(a: &TensorSpec, b: &TensorSpec) -> Option<TensorSpec> {
        a.most_specific_compatible(b)
    }
}

/// The dense shape of a sparse tensor: stored as an `i64` vector component (`[rank]`), as in
/// TensorFlow, so that the exact shape is data of the value (it survives a spec relaxed to
/// `[?, 3]`, a batch of items of different shapes and a file), while the spec holds the partial
/// [`Shape`] itself (`[?, 3]`), so that spec inference and compatibility see the dense shape.
/// Rebuilding from components checks the vector against the spec's shape.
///
/// Every size is `>= 0` and the product of the non-zero sizes is at most `i64::MAX`
/// (TensorFlow's `TensorShape` bound). TensorFlow multiplies left to right, so it also accepts a
/// zero before sizes whose product overflows (`[0, 2^62, 4]`); extype refuses those, because no
/// ndarray has that shape and a permutation or sub-shape of an accepted shape (transpose, a
/// reduction, an unstacked item) must be accepted too.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseShape {
    tensor: Tensor,
    dims: Vec<usize>,
}

/// Checks `dims` as the dense shape of a sparse tensor (`what` names it in the error): the
/// product of its non-zero sizes is at most `i64::MAX` (2^63 - 1), so the element count, every
/// row-major offset and stride, and the dense form's shape are representable (`i64` indices,
/// an ndarray of that shape). TensorFlow's `TensorShape` has the same bound (it multiplies left
/// to right and refuses on overflow, "Encountered overflow when multiplying"), except that it
/// accepts a zero size before the sizes whose product overflows (`[0, 2^62, 4]`); extype
/// refuses those too, since no ndarray has that shape and every permutation or sub-shape of an
/// accepted shape must be accepted.
pub(crate) fn check_dims(what: &str, dims: &[usize]) -> Result<()> {
    let mut product: u64 = 1;
    for (axis, &d) in dims.iter().enumerate() {
        if d == 0 {
            continue;
        }
        product = match product
            .checked_mul(d as u64)
            .filter(|&p| p <= i64::MAX as u64)
        {
            Some(p) => p,
            None => {
                return Err(Error::invalid(format!(
                    "{what} {dims:?} is too large: the product of its non-zero sizes exceeds \
                     2^63 - 1 (9223372036854775807) at axis {axis} (Encountered overflow when \
                     multiplying {product} with {d})"
                )));
            }
        };
    }
    Ok(())
}

impl DenseShape {
    /// The dense shape `dims` (checked by the caller with [`check_dims`]).
    pub(super) fn new(dims: &[usize]) -> DenseShape {
        debug_assert!(check_dims("dense_shape", dims).is_ok(), "{dims:?}");
        let data: Array1<i64> = dims.iter().map(|&d| d as i64).collect();
        DenseShape {
            tensor: Tensor::from(data),
            dims: dims.to_vec(),
        }
    }

    /// Checks `tensor` as a dense shape (`i64`, rank 1, entries `>= 0`, TensorFlow's
    /// "Dimension -2 must be >= 0").
    pub(super) fn from_tensor(tensor: Tensor, path: &str) -> Result<DenseShape> {
        if tensor.dtype() != DType::I64 || tensor.ndim() != 1 {
            return Err(Error::invalid(format!(
                "{path}: expected an i64 vector (one entry per dense axis), found {}{:?}",
                tensor.dtype(),
                tensor.shape()
            )));
        }
        let view: ArrayView1<i64> = tensor.as_array()?;
        let mut dims = Vec::with_capacity(view.len());
        for (axis, &d) in view.iter().enumerate() {
            if d < 0 {
                return Err(Error::invalid(format!(
                    "{path}[{axis}]: dimension {d} must be >= 0"
                )));
            }
            dims.push(d as usize);
        }
        check_dims(path, &dims)?;
        Ok(DenseShape { tensor, dims })
    }

    /// The sizes.
    pub(super) fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// The `i64` vector.
    pub(super) fn tensor(&self) -> &Tensor {
        &self.tensor
    }
}

/// The component spec of a dense shape of spec `shape`: `i64[rank]`.
fn component_spec(shape: &Shape) -> TensorSpec {
    let len = match shape.rank() {
        Some(rank) => Dim::Known(rank),
        None => Dim::Unknown,
    };
    TensorSpec::new(Shape::from_dims([len]), DType::I64)
}

impl Field for DenseShape {
    type Spec = Shape;

    fn field_spec(&self) -> Shape {
        Shape::known(&self.dims)
    }
    fn num_components(_: &Shape) -> usize {
        1
    }
    fn component_specs(spec: &Shape, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        out.push(path, component_spec(spec));
    }
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        out.push(path, self.tensor.view());
    }
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        out.push(path, self.tensor);
    }
    fn from_components(
        spec: &Shape,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        let tensor = components.next_checked(&component_spec(spec), path)?;
        let shape = DenseShape::from_tensor(tensor, &path.to_string())?;
        if !spec.admits(&shape.dims) {
            return Err(Error::invalid(format!(
                "{path}: the dense shape {:?} does not fit the spec's shape {spec}",
                shape.dims
            )));
        }
        Ok(shape)
    }
    fn with_component_specs(
        spec: &Shape,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
    ) -> Result<Shape> {
        let next = specs.next_for(path)?;
        if next.dtype != DType::I64 || next.shape.rank().is_some_and(|r| r != 1) {
            return Err(Error::invalid(format!(
                "{path}: expected an i64 vector spec for the dense shape, found {next}"
            )));
        }
        let rank = next.shape.dims().and_then(|d| match d[0] {
            Dim::Known(n) => Some(n),
            _ => None,
        });
        Ok(match (rank, spec.rank()) {
            (Some(r), Some(s)) if r == s => spec.clone(),
            (Some(r), _) => Shape::unknown(r),
            (None, _) => Shape::unknown_rank(),
        })
    }
    fn spec_from_source(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Result<Shape> {
        let spec = <Tensor as Field>::spec_from_source(path, source)?;
        match spec.shape.to_known().as_deref() {
            Some([rank]) if spec.dtype == DType::I64 => Ok(Shape::unknown(*rank)),
            _ => Err(Error::invalid(format!(
                "{path}: expected an i64 vector for the dense shape, found {spec}"
            ))),
        }
    }
    fn spec_to_value(spec: &Shape) -> SpecTree {
        SpecTree::Shape(spec.clone())
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Shape> {
        <Shape as Field>::spec_from_value(value, path)
    }
    fn spec_is_compatible(a: &Shape, b: &Shape) -> bool {
        a.is_compatible_with(b)
    }
    fn spec_most_specific_compatible(a: &Shape, b: &Shape) -> Option<Shape> {
        Some(a.most_specific_compatible(b))
    }
}

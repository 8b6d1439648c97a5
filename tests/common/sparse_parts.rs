//! A `SparseTensor` from TensorFlow's three parts, shared by the TF case replay
//! (`tests/types/sparse_tf_cases.rs`) and the bounded fuzz of the library types
//! (`tests/fuzz_types.rs`), which are separate test binaries and include it by path.

use extype::ndarray::{Array1, Array2};
use extype::types::{SparseTensor, SparseTensorSpec};
use extype::{Tensor, TypeSpec};

/// A SparseTensor of TensorFlow's parts, the dense shape `int64` as TF gives it: through
/// `SparseTensor::new` (sizes as `usize`) when every size is `>= 0`, else through the
/// components, which refuse a negative size as TF does.
pub fn sparse_of_tf_parts(
    indices: Array2<i64>,
    values: Tensor,
    shape: &[i64],
) -> extype::Result<SparseTensor> {
    match shape
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<Result<Vec<usize>, _>>()
    {
        Ok(dims) => SparseTensor::new(indices, values, &dims),
        Err(_) => SparseTensorSpec::new(extype::Shape::unknown_rank(), values.dtype())
            .from_components(vec![
                Tensor::from(indices),
                values,
                Tensor::from(Array1::from(shape.to_vec())),
            ]),
    }
}

//! TensorFlow's order of operations, where it shows in results: the folds and the sort its
//! kernels run, step for step, so that a result equals TensorFlow's bit for bit (how a float
//! sum rounds, where a NaN goes, which of equal keys comes first). Each module says what it
//! reproduces and how it was checked against TensorFlow 2.21.
//!
//! - [`eigen_fold`]: Eigen's full reduction (`sum`, `maximum`) in TensorFlow's x86 build, the
//!   order `tf.sparse.reduce_sum` / `reduce_max` reduce one output element's values in.
//! - [`segment_extreme`]: TensorFlow's segment max and min on floats (a NaN kept unless a later
//!   value replaces it, the finite bound), what its ragged reductions give.
//! - [`std_sort`]: libstdc++'s `std::sort`, the order TensorFlow leaves equal keys in when it
//!   reorders a SparseTensor.

pub mod eigen_fold;
pub mod segment_extreme;
pub mod std_sort;

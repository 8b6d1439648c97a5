//! The library types (`MaskedTensor`, `RaggedTensor`, `SparseTensor`) against TensorFlow's
//! documented semantics and against the same ops on the dense form: one test binary, one module
//! per file (each was a binary of its own; one link instead of nine). They register no type and
//! no handler of their own, so sharing a process changes nothing they see.

#[path = "../common/sparse_parts.rs"]
mod sparse_parts;

mod hostile_arith;
mod masked_tensor;
mod masked_tensor_props;
mod matmul;
mod ragged_conformance;
mod ragged_props;
mod sparse_ops;
mod sparse_tensor;
mod sparse_tf_cases;

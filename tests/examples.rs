//! The examples that show the library types and how to write one run to completion (their
//! output is for people; their behaviour is tested in `masked_tensor.rs` and the dispatch tests).

#[path = "../examples/custom_type.rs"]
#[allow(dead_code)]
mod custom_type;

#[path = "../examples/masked_tensor.rs"]
#[allow(dead_code)]
mod masked_tensor;

#[path = "../examples/sparse.rs"]
#[allow(dead_code)]
mod sparse;

#[test]
fn custom_type_runs() {
    custom_type::main().unwrap();
}

#[test]
fn masked_tensor_runs() {
    masked_tensor::main().unwrap();
}

#[path = "../examples/ragged_ops.rs"]
#[allow(dead_code)]
mod ragged_ops;

#[test]
fn ragged_ops_runs() {
    ragged_ops::main().unwrap();
}

#[test]
fn sparse_runs() {
    sparse::main().unwrap();
}

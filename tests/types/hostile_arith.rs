//! Arithmetic on user-controlled values in the library types (issue "Sound and safe against
//! hostile input, round two"): every size, count and axis taken from an argument or from
//! tensor data is checked before it is added or multiplied. Each case below once overflowed:
//! a panic in a debug build, a wrapped (wrong) value in a release build. Both now give the
//! same error (or the correct value), by construction: the arithmetic is checked.
//!
//! Most cases use flat values with an empty inner axis (`[2^62, 0]`): a valid tensor that holds
//! 2^62 rows in no memory, so that sums of row counts pass `i64::MAX` in a test.

use extype::types::{MaskedTensor, RaggedTensor, RaggedTensorSpec};
use extype::{ExtensionType, Tensor, TensorLike, TypeSpec, ops};
use ndarray::{Array2, array};

const BIG: usize = 1 << 62;

/// One row of 2^62 values of shape `[0]` (no memory).
fn one_huge_row() -> RaggedTensor {
    RaggedTensor::from_row_splits(Array2::<f32>::zeros((BIG, 0)), array![0i64, BIG as i64]).unwrap()
}

fn err_text<T: std::fmt::Debug>(r: extype::Result<T>) -> String {
    r.expect_err("expected an error").to_string()
}

#[test]
fn ragged_stack_and_concat_refuse_more_than_i64_max_rows_in_all() {
    let r = one_huge_row();
    let items = [&r, &r];
    for axis in [0, 1] {
        let err = err_text(RaggedTensor::stack(&items, axis));
        assert!(err.contains("stack") || err.contains("concat"), "{err}");
        assert!(err.contains("i64::MAX"), "{err}");
        let err = err_text(RaggedTensor::concat(&items, axis));
        assert!(err.starts_with("concat"), "{err}");
        assert!(err.contains("i64::MAX"), "{err}");
    }
    let err = err_text(extype::batch::stack(&[r.clone(), r.clone()]));
    assert!(err.contains("i64::MAX"), "{err}");
    // Within the bound, the rows join.
    let half = RaggedTensor::from_row_splits(
        Array2::<f32>::zeros((BIG - 1, 0)),
        array![0i64, (BIG - 1) as i64],
    )
    .unwrap();
    let joined = RaggedTensor::concat(&[&half, &half], 0).unwrap();
    assert_eq!(joined.flat_values().shape(), &[2 * BIG - 2, 0]);
    assert_eq!(joined.nrows(), 2);
}

#[test]
fn ragged_dense_batch_refuses_more_than_i64_max_rows_in_all() {
    let t = Tensor::from(Array2::<f32>::zeros((BIG, 0)));
    let err = err_text(RaggedTensor::from_dense_batch([&t, &t]));
    assert!(err.starts_with("dense_to_ragged_batch: items"), "{err}");
    assert!(err.contains("i64::MAX"), "{err}");
}

#[test]
fn ragged_gather_of_a_repeated_row_refuses_more_than_i64_max_rows() {
    let r = one_huge_row();
    let err = err_text(r.gather(&[0, 0]));
    assert!(err.starts_with("gather: indices"), "{err}");
    assert!(err.contains("i64::MAX"), "{err}");
    let err = err_text(ops::gather_as::<RaggedTensor>(&r, &[0i64, 0, 0], 0));
    assert!(err.contains("i64::MAX"), "{err}");
}

#[test]
fn masked_reductions_over_repeated_axes_do_not_multiply_the_sizes() {
    // The reduced extent was the product of the reduced sizes, repeated axes included (3^64
    // overflows); the mask's reduction refuses repeated axes before it, as the dense one does,
    // and the check no longer multiplies.
    let m = MaskedTensor::new(array![1.0f32, 2.0, 3.0], array![true, false, true]).unwrap();
    let axes = [0isize; 64];
    let masked = ops::reduce_sum_as::<MaskedTensor>(&m, Some(&axes), false);
    let dense = ops::reduce_sum_as::<Tensor>(m.values(), Some(&axes), false);
    assert!(dense.is_err(), "{dense:?}");
    let err = err_text(masked);
    assert!(err.contains("reduce_sum"), "{err}");
}

#[test]
fn a_spec_with_a_negative_uniform_length_has_no_known_size_there() {
    // A spec is data (a file, a caller); its uniform lengths are not checked as a value's. Once,
    // -1 became the size 2^64 - 1.
    let r = RaggedTensor::from_uniform_row_length(array![1, 2, 3, 4], 2, None).unwrap();
    let json = r.spec().serialize().to_json().unwrap();
    assert!(json.contains('2'), "{json}");
    let hostile = json.replace(
        "\"uniform_row_lengths\":[2]",
        "\"uniform_row_lengths\":[-1]",
    );
    assert_ne!(hostile, json, "{json}");
    let tree = extype::SpecTree::from_json(&hostile).unwrap();
    let spec = <RaggedTensorSpec as TypeSpec>::deserialize(&tree).unwrap();
    assert_eq!(TensorLike::shape(&spec).to_string(), "[2, ?]");
}

#[test]
fn ragged_gather_of_rows_of_empty_values_counts_them() {
    // Once: the gathered value rows were listed one by one (2^62 ids: an abort).
    let r = one_huge_row();
    let g = r.gather(&[0]).unwrap();
    assert_eq!(g.flat_values().shape(), &[BIG, 0]);
    assert_eq!(g.row_splits(), r.row_splits());
    let g: RaggedTensor = ops::gather_as(&r, &[0i64], 0).unwrap();
    assert_eq!(g.nrows(), 1);
    // Nested: the outer rows gathered twice hold 2^61 + 2^61 - 2 values in all.
    let half = RaggedTensor::from_row_splits(
        Array2::<f32>::zeros((BIG / 2 - 1, 0)),
        array![0i64, (BIG / 2 - 1) as i64],
    )
    .unwrap()
    .with_outer_splits(array![0i64, 1])
    .unwrap();
    let g = half.gather(&[0, 0]).unwrap();
    assert_eq!(g.flat_values().shape(), &[BIG - 2, 0]);
    assert_eq!(
        g.nested_row_splits()[1],
        Tensor::from(array![0i64, (BIG / 2 - 1) as i64, (BIG - 2) as i64])
    );
}

/// Flat values of zero width hold any number of rows in no memory: what an op lists per value
/// or per row (row ids, row lengths) is allocated fallibly, an error when it cannot be.
#[test]
fn zero_width_values_claiming_more_rows_than_memory_holds_are_errors() {
    let flat = Tensor::from(ndarray::ArrayD::<f32>::zeros(ndarray::IxDyn(&[1 << 62, 0])));
    let r = RaggedTensor::from_row_splits(flat, ndarray::array![0i64, 1 << 62]).unwrap();
    let e = r.value_rowids().unwrap_err().to_string();
    assert!(e.contains("value_rowids"), "{e}");
    let dense = Tensor::from(ndarray::ArrayD::<f32>::zeros(ndarray::IxDyn(&[
        1 << 62,
        1,
        0,
    ])));
    let e = RaggedTensor::from_tensor(dense).unwrap_err().to_string();
    assert!(e.contains("from_tensor"), "{e}");
}

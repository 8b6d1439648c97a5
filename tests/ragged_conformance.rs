//! `extype::types::RaggedTensor` against TensorFlow 2.x: each test names the TF behaviour it
//! follows (checked with TF 2.21 on CPU).

use extype::ops::{self, OpArgs, catalog};
use extype::types::{RaggedTensor, RaggedTensorSpec};
use extype::{DType, Tensor, TensorLike, Value, ValueSpec, batch};
use ndarray::{ArrayD, IxDyn, arr0, array};

fn t<A: extype::Element, D: ndarray::Dimension>(a: ndarray::Array<A, D>) -> Tensor {
    Tensor::from(a.into_dyn())
}

/// `[[1, 2, 3], [], [4, 5], [6]]` (f32).
fn r() -> RaggedTensor {
    RaggedTensor::from_row_splits(
        array![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0],
        array![0i64, 3, 3, 5, 6],
    )
    .unwrap()
}

fn f32s(x: &Tensor) -> Vec<f32> {
    x.as_array::<f32, IxDyn>()
        .unwrap()
        .iter()
        .copied()
        .collect()
}

// ---- constructors (TF: RaggedTensor.from_* and their validation) ----

#[test]
fn from_row_splits_checks_as_tf() {
    // TF: "Arguments to from_row_splits do not form a valid RaggedTensor: zero".
    let e = RaggedTensor::from_row_splits(array![1.0f32, 2.0], array![1i64, 2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "from_row_splits: row_splits: expected row splits starting at zero, found row_splits[0] = 1"
    );
    // TF: "... monotonic".
    let e = RaggedTensor::from_row_splits(array![1.0f32, 2.0], array![0i64, 2, 1, 2]).unwrap_err();
    assert!(e.to_string().contains("monotonic"), "{e}");
    assert!(e.to_string().contains("row_splits[2] = 1 after 2"), "{e}");
    // TF: splits[-1] must equal nvals.
    let e = RaggedTensor::from_row_splits(array![1.0f32, 2.0], array![0i64, 1]).unwrap_err();
    assert!(
        e.to_string().contains("ending at the number of values (2)"),
        "{e}"
    );
    // TF: empty splits raise (slice index 0 out of bounds).
    assert!(
        RaggedTensor::from_row_splits(array![1.0f32], ndarray::Array1::<i64>::zeros(0)).is_err()
    );
    // TF: scalar values raise.
    assert!(RaggedTensor::from_row_splits(arr0(1.0f32), array![0i64, 1]).is_err());
    // TF accepts int32 splits.
    let r32 = RaggedTensor::from_row_splits(array![1.0f32, 2.0], array![0i32, 2]).unwrap();
    assert_eq!(r32.row_splits().dtype(), DType::I64);
    // Other dtypes are refused.
    assert!(RaggedTensor::from_row_splits(array![1.0f32], array![0.0f32, 1.0]).is_err());
}

#[test]
fn from_row_lengths_and_value_rowids_check_as_tf() {
    // TF: negative lengths: "do not form a valid RowPartition".
    let e = RaggedTensor::from_row_lengths(array![1.0f32, 2.0], array![3i64, -1]).unwrap_err();
    assert!(e.to_string().contains("row_lengths[1] = -1"), "{e}");
    // TF: lengths must sum to nvals.
    let e = RaggedTensor::from_row_lengths(array![1.0f32, 2.0], array![1i64, 2]).unwrap_err();
    assert!(e.to_string().contains("a sum of 3"), "{e}");
    let ok = RaggedTensor::from_row_lengths(array![1.0f32, 2.0, 3.0], array![2i64, 0, 1]).unwrap();
    assert_eq!(ok.to_string(), "f32[3, ?] [[1.0, 2.0], [], [3.0]]");
    // TF from_value_rowids: unsorted, negative and >= nrows raise; trailing empty rows kept.
    let v = || array![1.0f32, 2.0, 3.0];
    assert!(
        RaggedTensor::from_value_rowids(v(), array![0i64, 2, 1], 3)
            .unwrap_err()
            .to_string()
            .contains("sorted")
    );
    assert!(
        RaggedTensor::from_value_rowids(v(), array![-1i64, 1, 1], 3)
            .unwrap_err()
            .to_string()
            .contains("non-negative")
    );
    let e = RaggedTensor::from_value_rowids(v(), array![0i64, 1, 3], 3).unwrap_err();
    assert!(
        e.to_string().contains("nrows >= value_rowids[-1] + 1"),
        "{e}"
    );
    assert!(RaggedTensor::from_value_rowids(v(), array![0i64, 1], 3).is_err());
    let ok = RaggedTensor::from_value_rowids(v(), array![1i64, 1, 3], 5).unwrap();
    assert_eq!(ok.to_string(), "f32[5, ?] [[], [1.0, 2.0], [], [3.0], []]");
}

#[test]
fn uniform_row_length_as_tf() {
    // TF: "uniform_row_length=2 times nrows=1 must equal nvals=3".
    let e = RaggedTensor::from_uniform_row_length(array![1, 2, 3], 2, None).unwrap_err();
    assert!(
        e.to_string()
            .contains("uniform_row_length=2 times nrows=1 must equal nvals=3"),
        "{e}"
    );
    // TF: "uniform_row_length must be >= 0."
    let e = RaggedTensor::from_uniform_row_length(array![1, 2, 3], -1, None).unwrap_err();
    assert!(
        e.to_string().contains("uniform_row_length must be >= 0"),
        "{e}"
    );
    // TF: length 0 with no nrows and 3 values raises; with nrows=4 and no values gives 4 empty rows.
    assert!(RaggedTensor::from_uniform_row_length(array![1, 2, 3], 0, None).is_err());
    let e = RaggedTensor::from_uniform_row_length(ndarray::Array1::<i32>::zeros(0), 0, Some(4))
        .unwrap();
    assert_eq!(e.to_string(), "i32[4, 0] [[], [], [], []]");
    // A uniform dimension is known in the shape; between ragged ones (TF: uniform_row_length of
    // a ragged tensor's rows).
    let inner = RaggedTensor::from_row_lengths(array![1, 2, 3, 4], array![1i64, 0, 2, 1]).unwrap();
    let u = inner.with_uniform_outer(2).unwrap();
    assert_eq!(TensorLike::shape(&u).to_string(), "[2, 2, ?]");
    assert_eq!(u.to_string(), "i32[2, 2, ?] [[[1], []], [[2, 3], [4]]]");
    assert_eq!(u.uniform_row_lengths(), &[Some(2), None]);
    assert!(inner.with_uniform_outer(3).is_err());
}

#[test]
fn nested_row_splits_ragged_rank_2() {
    // TF: from_nested_row_splits checks each level against the level below.
    let r2 = RaggedTensor::from_nested_row_splits(
        array![1, 2, 3, 4],
        vec![t(array![0i64, 2, 3]), t(array![0i64, 1, 1, 4])],
    )
    .unwrap();
    assert_eq!(r2.ragged_rank(), 2);
    assert_eq!(r2.rank(), 3);
    assert_eq!(r2.to_string(), "i32[2, ?, ?] [[[1], []], [[2, 3, 4]]]");
    assert_eq!(r2.bounding_shape(), vec![2, 2, 3]);
    let e = RaggedTensor::from_nested_row_splits(
        array![1, 2, 3, 4],
        vec![t(array![0i64, 2, 4]), t(array![0i64, 1, 1, 4])],
    )
    .unwrap_err();
    assert!(e.to_string().contains("nested_row_splits[0]"), "{e}");
    assert!(
        e.to_string().contains("ending at the number of values (3)"),
        "{e}"
    );
    // nested_row_lengths / value_rowids per level (TF: nested_row_lengths, value_rowids).
    assert_eq!(r2.nested_row_lengths(1).unwrap(), t(array![1i64, 0, 3]));
    assert_eq!(r2.nested_value_rowids(1).unwrap(), t(array![0i64, 2, 2, 2]));
    assert!(r2.nested_row_lengths(2).is_err());
}

#[test]
fn accessors_as_tf() {
    let x = r();
    assert_eq!(x.nrows(), 4);
    assert_eq!(x.row_lengths(), t(array![3i64, 0, 2, 1]));
    assert_eq!(x.value_rowids(), t(array![0i64, 0, 0, 2, 2, 3]));
    assert_eq!(x.row_starts(), t(array![0i64, 3, 3, 5]));
    assert_eq!(x.row_limits(), t(array![3i64, 3, 5, 6]));
    assert_eq!(x.bounding_shape(), vec![4, 3]);
    assert_eq!(x.flat_values(), &t(array![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]));
    assert_eq!(x.nested_row_splits().len(), 1);
    // Zero rows (TF: from_row_splits(values=[], [0])).
    let empty =
        RaggedTensor::from_row_splits(ndarray::Array1::<f32>::zeros(0), array![0i64]).unwrap();
    assert_eq!(empty.nrows(), 0);
    assert_eq!(empty.bounding_shape(), vec![0, 0]);
    assert_eq!(empty.to_string(), "f32[0, ?] []");
}

#[test]
fn derived_encodings_are_computed_once_and_shared() {
    let x = r();
    let a = x.value_rowids();
    let b = x.value_rowids();
    // The same buffer: computed once.
    assert_eq!(
        a.as_array::<i64, ndarray::Ix1>().unwrap().as_ptr(),
        b.as_array::<i64, ndarray::Ix1>().unwrap().as_ptr()
    );
    // Shared by values built on the same partition (ops that keep it, with_flat_values).
    let y: RaggedTensor = ops::neg_as(&x).unwrap();
    assert!(y.shares_partitions_with(&x));
    let c = y.value_rowids();
    assert_eq!(
        a.as_array::<i64, ndarray::Ix1>().unwrap().as_ptr(),
        c.as_array::<i64, ndarray::Ix1>().unwrap().as_ptr()
    );
    let z = x
        .with_flat_values(ndarray::Array1::<f32>::zeros(6))
        .unwrap();
    assert!(z.shares_partitions_with(&x));
    assert!(
        x.with_flat_values(ndarray::Array1::<f32>::zeros(5))
            .is_err()
    );
}

#[test]
fn to_tensor_pads_and_truncates_as_tf() {
    let x = r();
    // TF: to_tensor() pads with 0 to the bounding shape.
    assert_eq!(
        x.to_tensor(None, None).unwrap(),
        t(array![
            [1.0f32, 2.0, 3.0],
            [0.0, 0.0, 0.0],
            [4.0, 5.0, 0.0],
            [6.0, 0.0, 0.0]
        ])
    );
    // TF: to_tensor(default_value=-1, shape=[2, 2]) truncates; shape=[5, 4] pads.
    let d = Tensor::from(arr0(-1.0f32).into_dyn());
    assert_eq!(
        x.to_tensor(Some(&d), Some(&[Some(2), Some(2)])).unwrap(),
        t(array![[1.0f32, 2.0], [-1.0, -1.0]])
    );
    let big = x.to_tensor(Some(&d), Some(&[Some(5), Some(4)])).unwrap();
    assert_eq!(big.shape(), &[5, 4]);
    assert_eq!(f32s(&big)[16..], [-1.0; 4]);
    // Inner uniform axes are carried (TF: values of shape [n, 2]).
    let inner =
        RaggedTensor::from_row_lengths(array![[1, 2], [3, 4], [5, 6]], array![1i64, 2]).unwrap();
    assert_eq!(
        inner.to_tensor(None, None).unwrap(),
        t(array![[[1, 2], [0, 0]], [[3, 4], [5, 6]]])
    );
    // A default of another dtype is an error (TF raises too).
    assert!(x.to_tensor(Some(&t(arr0(1i32))), None).is_err());
    // Ragged rank 2.
    let r2 = RaggedTensor::from_nested_row_splits(
        array![1, 2, 3, 4],
        vec![t(array![0i64, 2, 3]), t(array![0i64, 1, 1, 4])],
    )
    .unwrap();
    assert_eq!(
        r2.to_tensor(None, None).unwrap(),
        t(array![[[1, 0, 0], [0, 0, 0]], [[2, 3, 4], [0, 0, 0]]])
    );
}

#[test]
fn from_tensor_as_tf() {
    // TF: from_tensor(t) keeps every entry; lengths cut rows; padding strips trailing pads.
    let d = array![[1, 0, 3, 0, 0], [0, 0, 0, 0, 0], [7, 8, 9, 10, 11]];
    let all = RaggedTensor::from_tensor(d.clone()).unwrap();
    assert_eq!(all.row_lengths(), t(array![5i64, 5, 5]));
    let cut = RaggedTensor::from_tensor_with_lengths(d.clone(), array![1i64, 0, 5]).unwrap();
    assert_eq!(cut.to_string(), "i32[3, ?] [[1], [], [7, 8, 9, 10, 11]]");
    assert!(RaggedTensor::from_tensor_with_lengths(d.clone(), array![6i64, 0, 5]).is_err());
    let pad = RaggedTensor::from_tensor_with_padding(d, arr0(0)).unwrap();
    assert_eq!(
        pad.to_string(),
        "i32[3, ?] [[1, 0, 3], [], [7, 8, 9, 10, 11]]"
    );
    // Inner axes: an entry is padding when all of it equals the padding.
    let d3 = array![[[1, 0], [0, 0]], [[0, 0], [0, 1]]];
    let pad3 = RaggedTensor::from_tensor_with_padding(d3, arr0(0)).unwrap();
    assert_eq!(pad3.row_lengths(), t(array![1i64, 2]));
    assert!(RaggedTensor::from_tensor(array![1, 2]).is_err());
}

#[test]
fn spec_and_tensor_like() {
    let x = r();
    assert_eq!(TensorLike::shape(&x).to_string(), "[4, ?]");
    assert_eq!(TensorLike::dtype(&x), DType::F32);
    let spec: RaggedTensorSpec = extype::ExtensionType::spec(&x);
    assert_eq!(TensorLike::shape(&spec).to_string(), "[4, ?]");
    assert_eq!(ops::rank(&x).unwrap(), 2);
    // Spec inference: a chain checked on specs alone.
    let vs = ValueSpec::Extension(Box::new(spec.clone()));
    let out = ops::infer_spec(&catalog::ADD, &[&vs, &vs], &OpArgs::none()).unwrap();
    assert_eq!(
        out.spec.tensor_like().unwrap().shape().to_string(),
        "[4, ?]"
    );
    let less = ops::infer_spec(
        &catalog::LESS,
        &[&vs, &ValueSpec::Tensor("f32[]".parse().unwrap())],
        &OpArgs::none(),
    )
    .unwrap();
    assert_eq!(less.spec.tensor_like().unwrap().dtype(), DType::Bool);
    let cast = ops::infer_spec(
        &catalog::CAST,
        &[&vs],
        &OpArgs::none().with_dtype(DType::I32),
    )
    .unwrap();
    assert_eq!(cast.spec.tensor_like().unwrap().dtype(), DType::I32);
    let sum = ops::infer_spec(&catalog::REDUCE_SUM, &[&vs], &OpArgs::axes(&[1])).unwrap();
    assert_eq!(sum.spec.to_string(), "f32[4]");
    let mean = ops::infer_spec(&catalog::REDUCE_MEAN, &[&vs], &OpArgs::none()).unwrap();
    assert_eq!(mean.spec.to_string(), "f32[]");
    // A dense operand TF refuses is refused on specs too, naming both shapes.
    let e = ops::infer_spec(
        &catalog::ADD,
        &[&vs, &ValueSpec::Tensor("f32[3]".parse().unwrap())],
        &OpArgs::none(),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("[4, ?]") && e.to_string().contains("[3]"),
        "{e}"
    );
    // Saved and loaded through the registry.
    let value = Value::from_extension(x.clone());
    assert_eq!(value.type_name(), "extype.RaggedTensor");
}

//! `extype::types::RaggedTensor` against TensorFlow 2.x: each test names the TF behaviour it
//! follows (checked with TF 2.21 on CPU).

use extype::half::{bf16, f16};
use extype::ops::{self, AsOperand, OpArgs, catalog};
use extype::types::{RaggedRow, RaggedTensor, RaggedTensorSpec};
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
    // TF accepts int32 splits (and keeps them as `row_splits_dtype`; extype widens them to
    // int64, a deliberate difference in the module docs).
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
    assert_eq!(x.value_rowids().unwrap(), t(array![0i64, 0, 0, 2, 2, 3]));
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
    let a = x.value_rowids().unwrap();
    let b = x.value_rowids().unwrap();
    // The same buffer: computed once.
    assert_eq!(
        a.as_array::<i64, ndarray::Ix1>().unwrap().as_ptr(),
        b.as_array::<i64, ndarray::Ix1>().unwrap().as_ptr()
    );
    // Shared by values built on the same partition (ops that keep it, with_flat_values).
    let y: RaggedTensor = ops::neg_as(&x).unwrap();
    assert!(y.shares_partitions_with(&x));
    let c = y.value_rowids().unwrap();
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
    // One length per row (TF raises for [3] lengths of 2 rows).
    assert!(RaggedTensor::from_tensor_with_lengths(d.clone(), array![1i64, 0]).is_err());
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

// ---- elementwise (TF: ragged dispatch of elementwise ops) ----

#[test]
fn binary_with_equal_partitions_scalars_and_dense_rows() {
    let x = r();
    // TF: r + r (same partition), and equal splits in another buffer combine.
    let twice: RaggedTensor = ops::add_as(&x, &x).unwrap();
    assert_eq!(
        twice.to_string(),
        "f32[4, ?] [[2.0, 4.0, 6.0], [], [8.0, 10.0], [12.0]]"
    );
    assert!(twice.shares_partitions_with(&x));
    let other = r();
    assert!(!other.shares_partitions_with(&x));
    let d: RaggedTensor = ops::sub_as(&x, &other).unwrap();
    assert_eq!(f32s(d.flat_values()), vec![0.0; 6]);
    // TF: different splits raise; the error names both shapes.
    let y = RaggedTensor::from_row_splits(array![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], array![0i64, 6])
        .unwrap();
    let e = ops::add(&x, &y).unwrap_err().without_context().to_string();
    assert_eq!(
        e,
        "add: argument 1: expected a ragged tensor with the partitions of the first ragged \
         operand, ragged shape [4, ?] (row lengths [3, 0, 2, 1]), found ragged shape [1, ?] (row lengths [6])"
    );
    // TF: scalar; [4, 1] per row; [1]; [1, 1].
    let s: RaggedTensor = ops::add_as(&x, &arr0(1.0f32)).unwrap();
    assert_eq!(
        s.to_string(),
        "f32[4, ?] [[2.0, 3.0, 4.0], [], [5.0, 6.0], [7.0]]"
    );
    let rows: RaggedTensor = ops::add_as(&x, &array![[10.0f32], [20.0], [30.0], [40.0]]).unwrap();
    assert_eq!(
        rows.to_string(),
        "f32[4, ?] [[11.0, 12.0, 13.0], [], [34.0, 35.0], [46.0]]"
    );
    let one: RaggedTensor = ops::add_as(&array![10.0f32], &x).unwrap();
    assert_eq!(
        one.to_string(),
        "f32[4, ?] [[11.0, 12.0, 13.0], [], [14.0, 15.0], [16.0]]"
    );
    let oneone: RaggedTensor = ops::mul_as(&x, &array![[2.0f32]]).unwrap();
    assert_eq!(
        f32s(oneone.flat_values()),
        vec![2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    );
    // TF raises for [3], [4], [2, 1] and [4, 3] against [4, (r)]; the error names both shapes.
    for bad in [
        t(array![1.0f32, 2.0, 3.0]),
        t(array![1.0f32, 2.0, 3.0, 4.0]),
        t(array![[1.0f32], [2.0]]),
        t(ArrayD::<f32>::zeros(IxDyn(&[4, 3]))),
    ] {
        let e = ops::add(&x, &bad)
            .unwrap_err()
            .without_context()
            .to_string();
        assert!(
            e.contains("ragged shape [4, ?]")
                && e.contains(&format!("dense shape {:?}", bad.shape())),
            "{e}"
        );
    }
    // Operators keep the type.
    let neg = (-&x).unwrap();
    assert_eq!(f32s(neg.flat_values())[0], -1.0);
}

#[test]
fn inner_axes_broadcast_with_the_flat_values() {
    // TF: a [n, (r), 2] ragged + [2] adds to every entry; + [4, 1, 2] per row.
    let x = RaggedTensor::from_row_lengths(
        ndarray::Array::from_shape_vec((6, 2), (0..12).map(|v| v as f32).collect()).unwrap(),
        array![3i64, 0, 2, 1],
    )
    .unwrap();
    let y: RaggedTensor = ops::add_as(&x, &array![100.0f32, 200.0]).unwrap();
    assert_eq!(f32s(y.flat_values())[..4], [100.0, 201.0, 102.0, 203.0]);
    let z: RaggedTensor = ops::add_as(&x, &ArrayD::<f32>::zeros(IxDyn(&[4, 1, 2]))).unwrap();
    assert_eq!(TensorLike::shape(&z).to_string(), "[4, ?, 2]");
    // Ragged rank 2: a per-row dense operand reaches every value of the row.
    let r2 = RaggedTensor::from_nested_row_splits(
        array![1, 2, 3, 4],
        vec![t(array![0i64, 2, 3]), t(array![0i64, 1, 1, 4])],
    )
    .unwrap();
    let w: RaggedTensor = ops::add_as(&r2, &array![[[10]], [[20]]]).unwrap();
    assert_eq!(w.to_string(), "i32[2, ?, ?] [[[11], []], [[22, 23, 24]]]");
}

#[test]
fn comparisons_where_cast_and_special_values() {
    let x = r();
    // TF: tf.less(r, 3.) is a bool ragged tensor of the same partition.
    let lt: RaggedTensor = ops::less_as(&x, &arr0(3.0f32)).unwrap();
    assert_eq!(
        lt.to_string(),
        "bool[4, ?] [[true, true, false], [], [false, false], [false]]"
    );
    // TF: tf.where(r < 3, r, -r).
    let neg = (-&x).unwrap();
    let w: RaggedTensor = ops::where_as(&lt, &x, &neg).unwrap();
    assert_eq!(
        w.to_string(),
        "f32[4, ?] [[1.0, 2.0, -3.0], [], [-4.0, -5.0], [-6.0]]"
    );
    // TF: tf.cast(r, tf.int32).
    let c: RaggedTensor = ops::cast_as(&x, DType::I32).unwrap();
    assert_eq!(c.to_string(), "i32[4, ?] [[1, 2, 3], [], [4, 5], [6]]");
    // NaN and infinities go through elementwise ops as in dense ones.
    let n = RaggedTensor::from_row_lengths(array![f32::NAN, f32::INFINITY, -1.0], array![1i64, 2])
        .unwrap();
    let isnan: RaggedTensor = ops::is_nan_as(&n).unwrap();
    assert_eq!(isnan.to_string(), "bool[2, ?] [[true], [false, false]]");
    let e: RaggedTensor = ops::exp_as(&n).unwrap();
    assert!(f32s(e.flat_values())[0].is_nan());
    assert_eq!(f32s(e.flat_values())[1], f32::INFINITY);
}

// ---- reductions (TF: tf.reduce_* on ragged tensors) ----

fn reduce(op: &'static extype::Op, x: &RaggedTensor, axes: Option<&[isize]>, keep: bool) -> Value {
    ops::call(
        op,
        &[extype::ops::AsOperand::as_operand(x)],
        &OpArgs::maybe_axes(axes).keepdims(keep),
    )
    .unwrap()
}

fn dense_f32(v: Value) -> Vec<f32> {
    f32s(&v.into_tensor().unwrap())
}

#[test]
fn reductions_over_the_ragged_axis_with_empty_rows_as_tf() {
    let x = r();
    // TF 2.21: sum [6, 0, 9, 6]; mean [2, nan, 4.5, 6]; max [3, -3.4028235e38, 5, 6];
    // min [1, 3.4028235e38, 4, 6]; prod [6, 1, 20, 6].
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_SUM, &x, Some(&[1]), false)),
        vec![6.0, 0.0, 9.0, 6.0]
    );
    let mean = dense_f32(reduce(&catalog::REDUCE_MEAN, &x, Some(&[-1]), false));
    assert_eq!((mean[0], mean[2], mean[3]), (2.0, 4.5, 6.0));
    assert!(mean[1].is_nan());
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_MAX, &x, Some(&[1]), false)),
        vec![3.0, f32::MIN, 5.0, 6.0]
    );
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_MIN, &x, Some(&[1]), false)),
        vec![1.0, f32::MAX, 4.0, 6.0]
    );
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_PROD, &x, Some(&[1]), false)),
        vec![6.0, 1.0, 20.0, 6.0]
    );
    // keepdims: [4, 1].
    let k = reduce(&catalog::REDUCE_SUM, &x, Some(&[1]), true)
        .into_tensor()
        .unwrap();
    assert_eq!(k.shape(), &[4, 1]);
    // TF: int32 max of an empty row is -2147483648; int mean is float64.
    let xi: RaggedTensor = ops::cast_as(&x, DType::I32).unwrap();
    let maxi = reduce(&catalog::REDUCE_MAX, &xi, Some(&[1]), false)
        .into_tensor()
        .unwrap();
    assert_eq!(maxi, t(array![3, i32::MIN, 5, 6]));
    let meani = reduce(&catalog::REDUCE_MEAN, &xi, Some(&[1]), false)
        .into_tensor()
        .unwrap();
    assert_eq!(meani.dtype(), DType::F64);
    // TF: any of an empty row is false, all is true.
    let b =
        RaggedTensor::from_row_splits(array![true, false, false], array![0i64, 2, 2, 3]).unwrap();
    assert_eq!(
        reduce(&catalog::REDUCE_ANY, &b, Some(&[1]), false)
            .into_tensor()
            .unwrap(),
        t(array![true, false, false])
    );
    assert_eq!(
        reduce(&catalog::REDUCE_ALL, &b, Some(&[1]), false)
            .into_tensor()
            .unwrap(),
        t(array![false, true, false])
    );
    // bool max is refused, as by extype's dense reduce_max (TF's too: no bool max kernel).
    assert!(ops::reduce_max(&b, Some(&[1]), false).is_err());
}

#[test]
fn reductions_over_axis_0_and_all_axes_as_tf() {
    let x = r();
    // TF 2.21: axis 0: sum [11, 7, 3], mean [3.6666667, 3.5, 3], max [6, 5, 3], min [1, 2, 3],
    // prod [24, 10, 3]; all axes: 21, 3.5, 6, 1, 720.
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_SUM, &x, Some(&[0]), false)),
        vec![11.0, 7.0, 3.0]
    );
    let m = dense_f32(reduce(&catalog::REDUCE_MEAN, &x, Some(&[0]), false));
    assert!(
        (m[0] - 11.0 / 3.0).abs() < 1e-6 && m[1] == 3.5 && m[2] == 3.0,
        "{m:?}"
    );
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_MAX, &x, Some(&[0]), false)),
        vec![6.0, 5.0, 3.0]
    );
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_MIN, &x, Some(&[-2]), false)),
        vec![1.0, 2.0, 3.0]
    );
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_PROD, &x, Some(&[0]), false)),
        vec![24.0, 10.0, 3.0]
    );
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_SUM, &x, None, false)),
        vec![21.0]
    );
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_PROD, &x, Some(&[0, 1]), false)),
        vec![720.0]
    );
    // TF: keepdims over axis 0 gives [1, 3]; over all axes [1, 1].
    assert_eq!(
        reduce(&catalog::REDUCE_SUM, &x, Some(&[0]), true)
            .into_tensor()
            .unwrap()
            .shape(),
        &[1, 3]
    );
    assert_eq!(
        reduce(&catalog::REDUCE_SUM, &x, None, true)
            .into_tensor()
            .unwrap()
            .shape(),
        &[1, 1]
    );
    // TF: max over all axes of an empty float tensor is -inf (the dense op on the flat values).
    let empty =
        RaggedTensor::from_row_splits(ndarray::Array1::<f32>::zeros(0), array![0i64, 0]).unwrap();
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_MAX, &empty, None, false)),
        vec![f32::NEG_INFINITY]
    );
    // Zero rows: axis 0 gives an empty result, the ragged axis too.
    let none =
        RaggedTensor::from_row_splits(ndarray::Array1::<f32>::zeros(0), array![0i64]).unwrap();
    assert_eq!(
        reduce(&catalog::REDUCE_SUM, &none, Some(&[1]), false)
            .into_tensor()
            .unwrap()
            .shape(),
        &[0]
    );
    assert_eq!(
        reduce(&catalog::REDUCE_MAX, &none, Some(&[0]), false)
            .into_tensor()
            .unwrap()
            .shape(),
        &[0]
    );
    // A bad axis names it, and the op the user called (TF: "Invalid reduction dimension 2 for
    // input with 2 dimensions" from `reduce_sum`).
    for (op, name) in [
        (&catalog::REDUCE_SUM, "reduce_sum"),
        (&catalog::REDUCE_MAX, "reduce_max"),
        (&catalog::REDUCE_MEAN, "reduce_mean"),
    ] {
        let e = ops::call(op, &[x.as_operand()], &OpArgs::axes(&[2]))
            .unwrap_err()
            .without_context()
            .to_string();
        assert!(
            e.starts_with(name) && e.contains("(rank 2), found 2") && !e.contains("reduce_any"),
            "{e}"
        );
    }
}

/// One `ops::reduce_sum` (or mean, max) of a ragged value consults the dispatch table once: the
/// handler takes the op's dtype rule and identity from the op's data and runs the segment and
/// dense reductions on the op model directly, never through the table again.
#[test]
fn a_ragged_reduction_consults_the_dispatch_table_once() {
    let x = r();
    for op in [
        &catalog::REDUCE_SUM,
        &catalog::REDUCE_MAX,
        &catalog::REDUCE_MEAN,
    ] {
        for axes in [
            Some(&[1isize][..]),
            Some(&[-1]),
            Some(&[0]),
            Some(&[0, 1]),
            None,
        ] {
            for keepdims in [false, true] {
                let args = OpArgs::maybe_axes(axes).keepdims(keepdims);
                let before = extype::dispatch::consultations();
                ops::call(op, &[x.as_operand()], &args).unwrap();
                let consulted = extype::dispatch::consultations() - before;
                assert_eq!(consulted, 1, "{op} over {axes:?}, keepdims {keepdims}");
            }
        }
    }
}

#[test]
fn reductions_with_inner_axes_and_ragged_rank_2() {
    // [2, (r), 2]: TF reduce_sum axis 2 keeps the partition; axis 1 gives [2, 2].
    let x = RaggedTensor::from_row_lengths(
        array![[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]],
        array![2i64, 1],
    )
    .unwrap();
    let inner = reduce(&catalog::REDUCE_SUM, &x, Some(&[2]), false)
        .downcast::<RaggedTensor>()
        .unwrap();
    assert_eq!(inner.to_string(), "f32[2, ?] [[3.0, 7.0], [11.0]]");
    assert!(inner.shares_partitions_with(&x));
    let rows = reduce(&catalog::REDUCE_SUM, &x, Some(&[1]), false)
        .into_tensor()
        .unwrap();
    assert_eq!(rows, t(array![[4.0f32, 6.0], [5.0, 6.0]]));
    let both = reduce(&catalog::REDUCE_MAX, &x, Some(&[1, 2]), false)
        .into_tensor()
        .unwrap();
    assert_eq!(both, t(array![4.0f32, 6.0]));
    // Ragged rank 2: the innermost ragged axis gives a ragged rank-1 tensor.
    let r2 = RaggedTensor::from_nested_row_splits(
        array![1.0f32, 2.0, 3.0, 4.0],
        vec![t(array![0i64, 2, 3]), t(array![0i64, 1, 1, 4])],
    )
    .unwrap();
    let s = reduce(&catalog::REDUCE_SUM, &r2, Some(&[2]), false)
        .downcast::<RaggedTensor>()
        .unwrap();
    assert_eq!(s.to_string(), "f32[2, ?] [[1.0, 0.0], [9.0]]");
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_SUM, &r2, None, false)),
        vec![10.0]
    );
}

// ---- batching (TF: Dataset.ragged_batch, dense_to_ragged_batch) ----

#[test]
fn ragged_batch_adds_a_ragged_dimension_and_unbatches_without_copying() {
    use extype::batch::BatchableSpec;
    let a = r();
    let b = RaggedTensor::from_row_lengths(array![7.0f32, 8.0], array![0i64, 2]).unwrap();
    // TF: ragged_batch of [4, (r)] and [2, (r)] items is [2, (n), (r)].
    let batch = batch::stack(&[a.clone(), b.clone()]).unwrap();
    assert_eq!(batch.ragged_rank(), 2);
    assert_eq!(
        batch.to_string(),
        "f32[2, ?, ?] [[[1.0, 2.0, 3.0], [], [4.0, 5.0], [6.0]], [[], [7.0, 8.0]]]"
    );
    // The spec law: the batch's spec is compatible with the batched spec.
    let spec = extype::ExtensionType::spec(&a);
    let batched = spec.batched(Some(2));
    assert!(extype::TypeSpec::is_compatible_with(
        &extype::ExtensionType::spec(&batch),
        &batched
    ));
    assert_eq!(TensorLike::shape(&batched).to_string(), "[2, ?, ?]");
    assert_eq!(
        TensorLike::shape(&batched.unbatched().unwrap()).to_string(),
        "[?, ?]"
    );
    // Unbatching gives the items back; their flat values view the batch's buffer.
    let base = batch
        .flat_values()
        .as_array::<f32, IxDyn>()
        .unwrap()
        .as_ptr();
    let items = batch::unstack(batch).unwrap();
    assert_eq!(items, vec![a, b]);
    let second = items[1]
        .flat_values()
        .as_array::<f32, IxDyn>()
        .unwrap()
        .as_ptr();
    assert_eq!(second, base.wrapping_add(6));
    // Batching again nests (ragged rank 3), and back.
    let twice = batch::stack(&[batch::stack(&items).unwrap()]).unwrap();
    assert_eq!(twice.ragged_rank(), 3);
    assert_eq!(
        batch::unstack(batch::unstack(twice).unwrap().remove(0)).unwrap(),
        items
    );
    // Items must agree on dtype, ragged rank and inner shape; the error names the item.
    let c = RaggedTensor::from_row_lengths(array![1, 2], array![2i64]).unwrap();
    let e = batch::stack(&[r(), c]).unwrap_err().to_string();
    assert!(e.contains("item 1") && e.contains("i32"), "{e}");
    // TF 2.21's unbatch / unstack of a ragged-rank-1 tensor gives its rows as dense tensors.
    // `batch::unstack` yields the batch's item type (`RaggedTensor`), so it refuses and points
    // to `unstack_rows`, which gives them (a deliberate difference, see
    // `RaggedTensor::unstack_rows`).
    let e = batch::unstack(r()).unwrap_err().to_string();
    assert!(e.contains("RaggedTensor::unstack_rows"), "{e}");
}

#[test]
fn unstack_of_ragged_rank_1_gives_dense_rows_as_tf() {
    // TF 2.21: tf.unstack(rt) and Dataset.from_tensors(rt).unbatch() of a ragged-rank-1
    // [[1, 2, 3], [], [4, 5], [6]] give the dense rows [1, 2, 3], [], [4, 5], [6].
    let x = r();
    let rows = x.unstack_rows().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0], t(array![1.0f32, 2.0, 3.0]));
    assert_eq!(rows[1].shape(), [0]);
    assert_eq!(rows[1].dtype(), DType::F32);
    assert_eq!(rows[3], t(array![6.0f32]));
    // The rows view the flat values: no copy.
    let base = x.flat_values().as_array::<f32, IxDyn>().unwrap().as_ptr();
    let third = rows[2].as_array::<f32, IxDyn>().unwrap().as_ptr();
    assert_eq!(third, base.wrapping_add(3));
    // Ragged rank 2: the rows are ragged (TF gives RaggedTensors); unstack_rows points to
    // batch::unstack, which gives them.
    let x2 = batch::stack(&[r(), r()]).unwrap();
    let e = x2.unstack_rows().unwrap_err().to_string();
    assert!(e.contains("batch::unstack"), "{e}");
    assert_eq!(batch::unstack(x2).unwrap(), vec![r(), r()]);
    // The spec of a ragged-rank-1 tensor does not unbatch either; the error says why.
    use extype::batch::BatchableSpec;
    let e = extype::ExtensionType::spec(&r())
        .unbatched()
        .unwrap_err()
        .to_string();
    assert!(e.contains("unstack_rows"), "{e}");
}

#[test]
fn dense_to_ragged_batch_as_tf() {
    // TF: dense_to_ragged_batch of [3], [1], [0], [2] tensors.
    let items = [
        t(array![1, 2, 3]),
        t(array![4]),
        t(ndarray::Array1::<i32>::zeros(0)),
        t(array![5, 6]),
    ];
    let b = RaggedTensor::from_dense_batch(&items).unwrap();
    assert_eq!(b.to_string(), "i32[4, ?] [[1, 2, 3], [4], [], [5, 6]]");
    // Inner axes must agree.
    let e = RaggedTensor::from_dense_batch(&[t(array![[1, 2]]), t(array![[1, 2, 3]])]).unwrap_err();
    assert!(e.to_string().contains("item 1"), "{e}");
    // From an iterator of dense tensors of different lengths.
    let b = RaggedTensor::from_dense_batch(
        (1..4)
            .map(|n| t(ndarray::Array1::<f32>::ones(n)))
            .collect::<Vec<_>>()
            .iter(),
    )
    .unwrap();
    assert_eq!(b.row_lengths(), t(array![1i64, 2, 3]));
}

#[test]
fn saved_and_loaded_by_io() {
    let dir = std::env::temp_dir().join(format!("extype-ragged-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.safetensors");
    let x = RaggedTensor::from_row_lengths(array![[1i64, 2], [3, 4], [5, 6]], array![1i64, 0, 2])
        .unwrap()
        .with_uniform_outer(3)
        .unwrap();
    extype::io::save(&path, &x).unwrap();
    let back: RaggedTensor = extype::io::load(&path).unwrap().downcast().unwrap();
    assert_eq!(back, x);
    assert_eq!(back.uniform_row_lengths(), &[Some(3), None]);
    // The components are plain arrays, named by their path.
    let info = extype::io::inspect(&path).unwrap();
    let mut names: Vec<String> = info.tensors.iter().map(|t| t.path.to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "flat_values",
            "nested_row_splits[0]",
            "nested_row_splits[1]"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- concat, stack, gather, boolean_mask (TF 2.21 outputs in the comments) ----

fn ab() -> (RaggedTensor, RaggedTensor) {
    (
        RaggedTensor::from_row_lengths(array![1, 2, 3, 4], array![3i64, 0, 1]).unwrap(),
        RaggedTensor::from_row_lengths(array![5, 6, 7], array![1i64, 2, 0]).unwrap(),
    )
}

#[test]
fn concat_and_stack_as_tf() {
    let (a, b) = ab();
    // TF concat axis 0: [[1, 2, 3], [], [4], [5], [6, 7], []].
    assert_eq!(
        RaggedTensor::concat(&[&a, &b], 0).unwrap().to_string(),
        "i32[6, ?] [[1, 2, 3], [], [4], [5], [6, 7], []]"
    );
    // TF concat axis 1 (and -1): [[1, 2, 3, 5], [6, 7], [4]].
    assert_eq!(
        RaggedTensor::concat(&[&a, &b], -1).unwrap().to_string(),
        "i32[3, ?] [[1, 2, 3, 5], [6, 7], [4]]"
    );
    // TF stack axis 0: [[[1, 2, 3], [], [4]], [[5], [6, 7], []]] (ragged rank 2).
    let s0 = RaggedTensor::stack(&[&a, &b], 0).unwrap();
    assert_eq!(
        s0.to_string(),
        "i32[2, ?, ?] [[[1, 2, 3], [], [4]], [[5], [6, 7], []]]"
    );
    // ops::stack on axis 0 batches through the encoder: the same.
    let via_ops: RaggedTensor = ops::stack_as(
        &[
            extype::ops::AsOperand::as_operand(&a),
            extype::ops::AsOperand::as_operand(&b),
        ],
        0,
    )
    .unwrap();
    assert_eq!(via_ops, s0);
    // TF stack axis 1: [[[1, 2, 3], [5]], [[], [6, 7]], [[4], []]], shape (3, None, None).
    let s1 = RaggedTensor::stack(&[&a, &b], 1).unwrap();
    assert_eq!(
        s1.to_string(),
        "i32[3, ?, ?] [[[1, 2, 3], [5]], [[], [6, 7]], [[4], []]]"
    );
    // Ragged rank 2, axis 1: each row's sub-rows joined.
    let j = RaggedTensor::concat(&[&s1, &s1], 1).unwrap();
    assert_eq!(
        j.to_string(),
        "i32[3, ?, ?] [[[1, 2, 3], [5], [1, 2, 3], [5]], [[], [6, 7], [], [6, 7]], [[4], [], [4], []]]"
    );
    // TF raises for other dtypes and, on axis 1, for different row counts.
    let f = RaggedTensor::from_row_lengths(array![1.0f32], array![1i64]).unwrap();
    let e = RaggedTensor::concat(&[&a, &f], 0).unwrap_err().to_string();
    assert!(e.contains("values[1]") && e.contains("f32"), "{e}");
    let two = RaggedTensor::from_row_lengths(array![1, 2], array![1i64, 1]).unwrap();
    let e = RaggedTensor::concat(&[&a, &two], 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 rows") && e.contains("found 2 rows"), "{e}");
    assert!(RaggedTensor::concat(&[&a, &b], 2).is_err());
}

#[test]
fn gather_rows_as_tf() {
    let (a, _) = ab();
    // TF: tf.gather(a, [2, 0, 0]) = [[4], [1, 2, 3], [1, 2, 3]]; indices[0] = 3 raises.
    let g: RaggedTensor = ops::gather_as(&a, &[2, 0, 0], 0).unwrap();
    assert_eq!(g.to_string(), "i32[3, ?] [[4], [1, 2, 3], [1, 2, 3]]");
    let e = ops::gather(&a, &[3], 0)
        .unwrap_err()
        .without_context()
        .to_string();
    assert_eq!(
        e,
        "gather: indices: expected row indices within 0..3, found indices[0] = 3"
    );
    assert!(ops::gather(&a, &[-1], 0).is_err());
    // Ragged rank 2: whole rows with their sub-rows.
    let s1 = RaggedTensor::stack(&[&a, &a], 1).unwrap();
    assert_eq!(
        s1.gather(&[2]).unwrap().to_string(),
        "i32[1, ?, ?] [[[4], [4]]]"
    );
    // Spec inference: the number of rows is the number of indices.
    let spec = ValueSpec::Extension(Box::new(extype::ExtensionType::spec(&a)));
    let out = ops::infer_spec(
        &catalog::GATHER,
        &[&spec],
        &OpArgs::none().with_indices(&[0, 0]).with_axis(0),
    )
    .unwrap();
    assert_eq!(
        out.spec.tensor_like().unwrap().shape().to_string(),
        "[2, ?]"
    );
}

#[test]
fn boolean_mask_as_tf() {
    let (a, _) = ab();
    // TF: tf.ragged.boolean_mask(a, [True, False, True]) = [[1, 2, 3], [4]].
    let rows: RaggedTensor = ops::boolean_mask_as(&a, &array![true, false, true]).unwrap();
    assert_eq!(rows.to_string(), "i32[2, ?] [[1, 2, 3], [4]]");
    // TF: a ragged mask of the same partition: [[1, 3], [], []].
    let m = a
        .with_flat_values(array![true, false, true, false])
        .unwrap();
    let vals: RaggedTensor = ops::boolean_mask_as(&a, &m).unwrap();
    assert_eq!(vals.to_string(), "i32[3, ?] [[1, 3], [], []]");
    // A mask of another partition is refused, naming both.
    let other =
        RaggedTensor::from_row_lengths(array![true, false, true, false], array![4i64, 0, 0])
            .unwrap();
    assert!(ops::boolean_mask(&a, &other).is_err());
    // TF: dense data with a rank-3 mask: [[[0, 2], []], [[6, 7, 8], [10]]], shape (2, None, None).
    let d = Tensor::from(
        ArrayD::from_shape_vec(IxDyn(&[2, 2, 3]), (0..12).collect::<Vec<i32>>()).unwrap(),
    );
    let mask = t(array![
        [[true, false, true], [false, false, false]],
        [[true, true, true], [false, true, false]]
    ]);
    let r = RaggedTensor::boolean_mask_dense(&d, &mask).unwrap();
    assert_eq!(
        r.to_string(),
        "i32[2, ?, ?] [[[0, 2], []], [[6, 7, 8], [10]]]"
    );
    // TF: a rank-2 mask over [2, 2, 3] data: [[[0, 1, 2]], [[6, 7, 8]]], shape (2, None, 3).
    let r = RaggedTensor::boolean_mask_dense(&d, &t(array![[true, false], [true, false]])).unwrap();
    assert_eq!(r.to_string(), "i32[2, ?, 3] [[[0, 1, 2]], [[6, 7, 8]]]");
    // A MaskedTensor's valid values, row by row.
    let masked = extype::types::MaskedTensor::new(
        array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]],
        array![[true, false, true], [false, false, false]],
    )
    .unwrap();
    assert_eq!(
        RaggedTensor::from_masked(&masked).unwrap().to_string(),
        "f32[2, ?] [[1.0, 3.0], []]"
    );
}

// ---- every dtype; NaN and infinities ----

#[test]
fn every_dtype_as_tf() {
    // TF 2.21, rows [[1, 2], [], [3]] of each dtype: sum [3, 0, 3], prod [2, 1, 3], max
    // [2, lowest, 3], min [1, highest, 3], mean [1.5, nan, 3] (f64 for integers).
    let lowest_highest = |d: DType| -> (f64, f64) {
        match d {
            DType::I8 => (i8::MIN as f64, i8::MAX as f64),
            DType::I16 => (i16::MIN as f64, i16::MAX as f64),
            DType::I32 => (i32::MIN as f64, i32::MAX as f64),
            DType::I64 => (i64::MIN as f64, i64::MAX as f64),
            DType::U8 => (0.0, u8::MAX as f64),
            DType::U16 => (0.0, u16::MAX as f64),
            DType::U32 => (0.0, u32::MAX as f64),
            DType::U64 => (0.0, u64::MAX as f64),
            DType::F32 => (f32::MIN as f64, f32::MAX as f64),
            DType::F64 => (f64::MIN, f64::MAX),
            DType::F16 => (f16::MIN.to_f64(), f16::MAX.to_f64()),
            DType::BF16 => (bf16::MIN.to_f64(), bf16::MAX.to_f64()),
            DType::Bool => (0.0, 1.0),
        }
    };
    // (extype's cast takes bool, f32, f64, i32, i64, u8, u64: build and read each dtype directly.)
    macro_rules! each {
        ($d:expr, $f:ident $(, $arg:expr)?) => {
            match $d {
                DType::I8 => $f!(i8 $(, $arg)?),
                DType::I16 => $f!(i16 $(, $arg)?),
                DType::I32 => $f!(i32 $(, $arg)?),
                DType::I64 => $f!(i64 $(, $arg)?),
                DType::U8 => $f!(u8 $(, $arg)?),
                DType::U16 => $f!(u16 $(, $arg)?),
                DType::U32 => $f!(u32 $(, $arg)?),
                DType::U64 => $f!(u64 $(, $arg)?),
                DType::F32 => $f!(f32 $(, $arg)?),
                DType::F64 => $f!(f64 $(, $arg)?),
                DType::F16 => $f!(half f16 $(, $arg)?),
                DType::BF16 => $f!(half bf16 $(, $arg)?),
                DType::Bool => unreachable!(),
            }
        };
    }
    macro_rules! read {
        (half $ty:ty, $t:expr) => {
            $t.as_array::<$ty, IxDyn>()
                .unwrap()
                .iter()
                .map(|v| v.to_f64())
                .collect::<Vec<f64>>()
        };
        ($ty:ty, $t:expr) => {
            $t.as_array::<$ty, IxDyn>()
                .unwrap()
                .iter()
                .map(|&v| v as f64)
                .collect::<Vec<f64>>()
        };
    }
    macro_rules! make {
        (half $ty:ty) => {
            Tensor::from(array![1.0f32, 2.0, 3.0].mapv(<$ty>::from_f32).into_dyn())
        };
        ($ty:ty) => {
            Tensor::from(array![1 as $ty, 2 as $ty, 3 as $ty].into_dyn())
        };
    }
    let as_f64 = |v: Value| -> Vec<f64> {
        let t = v.into_tensor().unwrap();
        each!(t.dtype(), read, t)
    };
    for dtype in DType::ALL.iter().copied().filter(|d| *d != DType::Bool) {
        let values = each!(dtype, make);
        let x = RaggedTensor::from_row_lengths(values, array![2i64, 0, 1]).unwrap();
        assert_eq!(x.dtype(), dtype);
        // Constructors, to_tensor, gather and batching move every dtype.
        assert_eq!(x.to_tensor(None, None).unwrap().shape(), &[3, 2], "{dtype}");
        let b = batch::stack(&[x.clone(), x.clone()]).unwrap();
        assert_eq!(batch::unstack(b).unwrap()[1], x);
        assert_eq!(x.gather(&[2]).unwrap().row_lengths(), t(array![1i64]));
        // Ops take the dtypes extype's dense ops take (the kernels refuse i8, i16, u16, u32;
        // TF takes them): where the dense op on the flat values refuses the dtype, the ragged
        // op refuses it too, with the dense op's error.
        let flat = x.flat_values();
        let dense_takes = |op: &'static extype::Op| {
            ops::call(
                op,
                &[extype::ops::AsOperand::as_operand(flat)],
                &OpArgs::none(),
            )
            .is_ok()
        };
        let checked = |op: &'static extype::Op, want: Option<Vec<f64>>| {
            let got = ops::call(
                op,
                &[extype::ops::AsOperand::as_operand(&x)],
                &OpArgs::axes(&[1]),
            );
            match (dense_takes(op), got) {
                (true, Ok(v)) => {
                    let v = as_f64(v);
                    match &want {
                        Some(w) => assert_eq!(&v, w, "{} of {dtype}", op.name()),
                        // The mean: NaN for the empty row.
                        None => assert!(
                            v[0] == 1.5 && v[1].is_nan() && v[2] == 3.0,
                            "{dtype}: {v:?}"
                        ),
                    }
                }
                (false, Err(e)) => {
                    assert!(e.to_string().contains(&format!("dtype {dtype}")), "{e}")
                }
                (dense, got) => panic!(
                    "{} of {dtype}: dense takes it: {dense}, ragged: {got:?}",
                    op.name()
                ),
            }
        };
        let (lo, hi) = lowest_highest(dtype);
        checked(&catalog::REDUCE_SUM, Some(vec![3.0, 0.0, 3.0]));
        checked(&catalog::REDUCE_PROD, Some(vec![2.0, 1.0, 3.0]));
        checked(&catalog::REDUCE_MAX, Some(vec![2.0, lo, 3.0]));
        checked(&catalog::REDUCE_MIN, Some(vec![1.0, hi, 3.0]));
        checked(&catalog::REDUCE_MEAN, None);
        if dense_takes(&catalog::NEG) || dtype.is_float() {
            let same: RaggedTensor = ops::equal_as(&x, &x).unwrap();
            assert_eq!(
                same.to_string(),
                "bool[3, ?] [[true, true], [], [true]]",
                "{dtype}"
            );
        }
    }
}

#[test]
fn nan_and_infinities() {
    // TF: row sums [nan, nan, nan, inf, 2] for rows [nan, 1], [1, nan], [inf, -inf], [inf], [2].
    let x = RaggedTensor::from_row_lengths(
        array![
            f32::NAN,
            1.0,
            1.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::INFINITY,
            2.0
        ],
        array![2i64, 2, 2, 1, 1],
    )
    .unwrap();
    let sum = dense_f32(reduce(&catalog::REDUCE_SUM, &x, Some(&[1]), false));
    assert!(sum[0].is_nan() && sum[1].is_nan() && sum[2].is_nan());
    assert_eq!(sum[3..], [f32::INFINITY, 2.0]);
    // TF's segment max keeps or drops a NaN by its position: [nan, 1] -> 1, [1, nan] -> nan.
    let max = dense_f32(reduce(&catalog::REDUCE_MAX, &x, Some(&[1]), false));
    assert_eq!(max[0], 1.0);
    assert!(max[1].is_nan());
    assert_eq!(max[2..], [f32::INFINITY, f32::INFINITY, 2.0]);
    let min = dense_f32(reduce(&catalog::REDUCE_MIN, &x, Some(&[1]), false));
    assert_eq!(min[0], 1.0);
    assert!(min[1].is_nan());
    // [inf] alone: the highest finite value (the fold starts there and inf never wins).
    assert_eq!(min[2..], [f32::NEG_INFINITY, f32::MAX, 2.0]);
}

/// Compares with NaN equal to NaN.
fn same(got: &[f32], want: &[f32]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| g == w || (g.is_nan() && w.is_nan()))
}

#[test]
fn max_and_min_fold_in_tf_order_on_ragged_axes_and_propagate_on_dense_ones() {
    // TF 2.21 (`tf.reduce_max` / `tf.reduce_min` of a RaggedTensor): a ragged axis and axis 0
    // reduce with `unsorted_segment_max`/`_min`, which start at the lowest / highest finite
    // value and fold `acc = v < acc ? acc : v` in order (a NaN survives only if nothing
    // follows it; `[-inf]` gives the lowest finite value); dense axes (inner ones, and axis 0
    // once the ragged axis is gone) propagate NaN. Axes reduce highest first.
    let (nan, inf, lo, hi) = (f32::NAN, f32::INFINITY, f32::MIN, f32::MAX);
    // A = [[nan, 1], [1, nan], [-inf], [], [2, nan, 3]]
    let a = RaggedTensor::from_row_lengths(
        array![nan, 1.0, 1.0, nan, -inf, 2.0, nan, 3.0],
        array![2i64, 2, 1, 0, 3],
    )
    .unwrap();
    let cases: [(&'static extype::Op, &[isize], Vec<f32>); 8] = [
        (&catalog::REDUCE_MAX, &[1], vec![1.0, nan, lo, lo, 3.0]),
        (&catalog::REDUCE_MAX, &[-1], vec![1.0, nan, lo, lo, 3.0]),
        (&catalog::REDUCE_MAX, &[0], vec![2.0, nan, 3.0]),
        (&catalog::REDUCE_MAX, &[0, 1], vec![nan]),
        (&catalog::REDUCE_MIN, &[1], vec![1.0, nan, -inf, hi, 3.0]),
        (&catalog::REDUCE_MIN, &[0], vec![-inf, nan, 3.0]),
        (&catalog::REDUCE_MIN, &[0, 1], vec![nan]),
        (&catalog::REDUCE_MIN, &[-1], vec![1.0, nan, -inf, hi, 3.0]),
    ];
    for (op, axes, want) in cases {
        let got = dense_f32(reduce(op, &a, Some(axes), false));
        assert!(same(&got, &want), "A {} {axes:?}: {got:?}", op.name());
    }
    // B = [[[nan, 1], [2, -inf]], [], [[3, nan]]], shape [3, (ragged), 2].
    let b = RaggedTensor::from_row_lengths(
        array![[nan, 1.0], [2.0, -inf], [3.0, nan]],
        array![2i64, 0, 1],
    )
    .unwrap();
    type Case = (
        &'static extype::Op,
        &'static [isize],
        &'static [usize],
        Vec<f32>,
    );
    let cases: Vec<Case> = vec![
        (
            &catalog::REDUCE_MAX,
            &[1],
            &[3, 2],
            vec![2.0, 1.0, lo, lo, 3.0, nan],
        ),
        (&catalog::REDUCE_MAX, &[1, 2], &[3], vec![2.0, lo, nan]),
        (&catalog::REDUCE_MAX, &[0], &[2, 2], vec![3.0, nan, 2.0, lo]),
        (&catalog::REDUCE_MAX, &[0, 2], &[2], vec![nan, 2.0]),
        (&catalog::REDUCE_MAX, &[0, 1], &[2], vec![3.0, nan]),
        (
            &catalog::REDUCE_MIN,
            &[1],
            &[3, 2],
            vec![2.0, -inf, hi, hi, 3.0, nan],
        ),
        (&catalog::REDUCE_MIN, &[1, 2], &[3], vec![-inf, hi, nan]),
        (
            &catalog::REDUCE_MIN,
            &[0],
            &[2, 2],
            vec![3.0, nan, 2.0, -inf],
        ),
        (&catalog::REDUCE_MIN, &[0, 2], &[2], vec![nan, -inf]),
        (&catalog::REDUCE_MIN, &[0, 1], &[2], vec![2.0, nan]),
    ];
    for (op, axes, shape, want) in cases {
        let got = reduce(op, &b, Some(axes), false).into_tensor().unwrap();
        assert_eq!(got.shape(), shape, "B {} {axes:?}", op.name());
        assert!(
            same(&f32s(&got), &want),
            "B {} {axes:?}: {got:?}",
            op.name()
        );
    }
    // keepdims keeps the same values in TF's shapes.
    let keep: [(&[isize], &[usize]); 5] = [
        (&[1], &[3, 1, 2]),
        (&[1, 2], &[3, 1, 1]),
        (&[0], &[1, 2, 2]),
        (&[0, 2], &[1, 2, 1]),
        (&[0, 1], &[1, 1, 2]),
    ];
    for (axes, shape) in keep {
        let got = reduce(&catalog::REDUCE_MAX, &b, Some(axes), true)
            .into_tensor()
            .unwrap();
        assert_eq!(got.shape(), shape, "B keepdims {axes:?}");
    }
    // E = [[], []]: rows reduce to the finite bound; axis 0 has no columns; naming every
    // axis reduces them one by one (`axis=None` reduces the flat values: -inf, tested above).
    let e =
        RaggedTensor::from_row_lengths(ndarray::Array1::<f32>::zeros(0), array![0i64, 0]).unwrap();
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_MAX, &e, Some(&[1]), false)),
        [lo, lo]
    );
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_MAX, &e, Some(&[0, 1]), false)),
        [lo]
    );
    assert_eq!(
        dense_f32(reduce(&catalog::REDUCE_MIN, &e, Some(&[0, 1]), false)),
        [hi]
    );
    assert!(dense_f32(reduce(&catalog::REDUCE_MAX, &e, Some(&[0]), false)).is_empty());
    // f64 and the half floats follow the same rule (their own finite bounds).
    let h =
        RaggedTensor::from_row_lengths(array![f64::NAN, 1.0, f64::NEG_INFINITY], array![2i64, 1])
            .unwrap();
    let got = reduce(&catalog::REDUCE_MAX, &h, Some(&[1]), false)
        .into_tensor()
        .unwrap();
    assert_eq!(
        got.as_array::<f64, IxDyn>().unwrap().as_slice().unwrap(),
        [1.0, f64::MIN]
    );
    let half: RaggedTensor = ops::cast_as(&h, extype::DType::F16).unwrap();
    let got = reduce(&catalog::REDUCE_MAX, &half, Some(&[1]), false)
        .into_tensor()
        .unwrap();
    let got: Vec<f32> = got
        .as_array::<extype::half::f16, IxDyn>()
        .unwrap()
        .iter()
        .map(|v| v.to_f32())
        .collect();
    assert_eq!(got, [1.0, -65504.0]);
}

#[test]
fn components_from_a_file_or_spec_are_checked() {
    // A value rebuilt from components (a load) runs the same checks as the constructors.
    let x = r();
    let spec = extype::ExtensionType::spec(&x);
    let good = extype::TypeSpec::from_components(
        &spec,
        vec![x.flat_values().clone(), x.row_splits().clone()],
    )
    .unwrap();
    assert_eq!(good, x);
    let bad = extype::TypeSpec::from_components(
        &spec,
        vec![x.flat_values().clone(), t(array![0i64, 3, 2, 5, 6])],
    )
    .unwrap_err()
    .to_string();
    assert!(
        bad.contains("nested_row_splits[0]") && bad.contains("monotonic"),
        "{bad}"
    );
}

#[test]
fn sizes_that_cannot_be_allocated_are_errors() {
    let e = RaggedTensor::from_value_rowids(array![1.0f32], array![0i64], usize::MAX).unwrap_err();
    assert!(e.to_string().contains("nrows"), "{e}");
    let e = RaggedTensor::from_uniform_row_length(
        ndarray::Array1::<f32>::zeros(0),
        0,
        Some(usize::MAX),
    )
    .unwrap_err();
    assert!(e.to_string().contains("nrows"), "{e}");
    let e = r()
        .to_tensor(None, Some(&[Some(4), Some(usize::MAX)]))
        .unwrap_err();
    assert!(e.to_string().contains("fits in memory"), "{e}");
    let e = r()
        .to_tensor(None, Some(&[Some(usize::MAX >> 8), None]))
        .unwrap_err();
    assert!(e.to_string().contains("fits in memory"), "{e}");
}

#[test]
fn ops_concat_and_stack_of_ragged_tensors_dispatch() {
    use extype::ops::AsOperand;
    let (a, b) = ab();
    // TF: tf.concat([a, b], 0) / tf.concat([a, b], 1) / tf.stack([a, b], 1).
    let c0: RaggedTensor = ops::concat_as(&[a.as_operand(), b.as_operand()], 0).unwrap();
    assert_eq!(c0, RaggedTensor::concat(&[&a, &b], 0).unwrap());
    let c1: RaggedTensor = ops::concat_as(&[a.as_operand(), b.as_operand()], 1).unwrap();
    assert_eq!(c1.to_string(), "i32[3, ?] [[1, 2, 3, 5], [6, 7], [4]]");
    let s1: RaggedTensor = ops::stack_as(&[a.as_operand(), b.as_operand()], 1).unwrap();
    assert_eq!(s1, RaggedTensor::stack(&[&a, &b], 1).unwrap());
    // Spec inference: the row counts become unknown, stack adds a ragged dimension.
    let spec = ValueSpec::Extension(Box::new(extype::ExtensionType::spec(&a)));
    let out = ops::infer_spec(
        &catalog::STACK,
        &[&spec, &spec],
        &OpArgs::none().with_axis(1),
    )
    .unwrap();
    assert_eq!(
        out.spec.tensor_like().unwrap().shape().to_string(),
        "[?, ?, ?]"
    );
    // Any number of operands (one handler takes `&[&RaggedTensor]`). TF 2.21, with
    // c = [[8, 9], [], [10]]: tf.concat([a, b, c], 1) -> [[1, 2, 3, 5, 8, 9], [6, 7], [4, 10]];
    // tf.stack([a, b, c], 1) -> [[[1, 2, 3], [5], [8, 9]], [[], [6, 7], []], [[4], [], [10]]].
    let c = RaggedTensor::from_row_lengths(array![8, 9, 10], array![2i64, 0, 1]).unwrap();
    let three = [a.as_operand(), b.as_operand(), c.as_operand()];
    let c1: RaggedTensor = ops::concat_as(&three, 1).unwrap();
    assert_eq!(
        c1.to_string(),
        "i32[3, ?] [[1, 2, 3, 5, 8, 9], [6, 7], [4, 10]]"
    );
    let c0: RaggedTensor = ops::concat_as(&three, 0).unwrap();
    assert_eq!(c0, RaggedTensor::concat(&[&a, &b, &c], 0).unwrap());
    let s1: RaggedTensor = ops::stack_as(&three, 1).unwrap();
    assert_eq!(
        s1.to_string(),
        "i32[3, ?, ?] [[[1, 2, 3], [5], [8, 9]], [[], [6, 7], []], [[4], [], [10]]]"
    );
    let s0: RaggedTensor = ops::stack_as(&three, 0).unwrap();
    assert_eq!(s0, RaggedTensor::stack(&[&a, &b, &c], 0).unwrap());
    // One operand, and more than a fixed-arity handler could take.
    let one: RaggedTensor = ops::concat_as(&[a.as_operand()], 0).unwrap();
    assert_eq!(one, a);
    let many: Vec<_> = (0..12).map(|_| c.as_operand()).collect();
    let joined: RaggedTensor = ops::concat_as(&many, 1).unwrap();
    assert_eq!(joined.row_lengths().shape(), [3]);
    assert_eq!(joined.flat_values().shape(), [36]);
    let specs = vec![&spec; 12];
    let out = ops::infer_spec(&catalog::CONCAT, &specs, &OpArgs::none().with_axis(1)).unwrap();
    let got = ValueSpec::Extension(Box::new(extype::ExtensionType::spec(&joined)));
    assert!(out.spec.is_compatible_with(&got));
    // Only ragged operands of another dtype: the error names the call.
    let f = RaggedTensor::from_row_lengths(array![1.0f32], array![1i64]).unwrap();
    let err = ops::concat(&[a.as_operand(), f.as_operand()], 0).unwrap_err();
    assert!(err.to_string().contains("concat"), "{err}");
}

/// TF 2.21: `tf.concat` / `tf.stack` of RaggedTensors and Tensors mixed convert each Tensor with
/// `RaggedTensor.from_tensor` and raise every operand to the largest ragged rank
/// (`_ragged_stack_concat_helper`). With a = [[1, 2, 3], [], [4]], b = [[5], [6, 7], []]:
/// `tf.concat([a, [[1]], b], 0)` -> [[1, 2, 3], [], [4], [1], [5], [6, 7], []];
/// `tf.concat([a, [[7, 8], [9, 10], [11, 12]]], 1)` -> [[1, 2, 3, 7, 8], [9, 10], [4, 11, 12]];
/// `tf.stack([[[7, 8], [9, 10]], a], 0)` -> [[[7, 8], [9, 10]], [[1, 2, 3], [], [4]]]; a dense
/// operand of rank ≤ the ragged rank raises ("ragged_rank must be smaller than rank").
#[test]
fn concat_and_stack_of_ragged_and_dense_as_tf() {
    let (a, b) = ab();
    let one = array![[1i32]];
    let c: RaggedTensor =
        ops::concat_as(&[a.as_operand(), one.as_operand(), b.as_operand()], 0).unwrap();
    assert_eq!(
        c.to_string(),
        "i32[7, ?] [[1, 2, 3], [], [4], [1], [5], [6, 7], []]"
    );
    let d = array![[7i32, 8], [9, 10], [11, 12]];
    let c: RaggedTensor = ops::concat_as(&[a.as_operand(), d.as_operand()], 1).unwrap();
    assert_eq!(
        c.to_string(),
        "i32[3, ?] [[1, 2, 3, 7, 8], [9, 10], [4, 11, 12]]"
    );
    let d2 = Tensor::from(array![[7i32, 8], [9, 10]].into_dyn());
    let s: RaggedTensor = ops::stack_as(&[d2.as_operand(), a.as_operand()], 0).unwrap();
    assert_eq!(
        s.to_string(),
        "i32[2, ?, ?] [[[7, 8], [9, 10]], [[1, 2, 3], [], [4]]]"
    );
    // Ragged rank 2 and a dense [1, 2, 1]: the dense one raised to ragged rank 2.
    let x = RaggedTensor::from_nested_row_splits(
        array![1i32, 2, 3],
        vec![t(array![0i64, 2, 3]), t(array![0i64, 1, 1, 3])],
    )
    .unwrap();
    let c: RaggedTensor =
        ops::concat_as(&[x.as_operand(), array![[[5i32], [6]]].as_operand()], 0).unwrap();
    assert_eq!(
        c.to_string(),
        "i32[3, ?, ?] [[[1], []], [[2, 3]], [[5], [6]]]"
    );
    // A ragged rank-1 operand is raised beside a ragged rank-2 one, as TF's.
    let flat2 = RaggedTensor::from_row_lengths(array![[4i32], [5]], array![2i64]).unwrap();
    let c: RaggedTensor = ops::concat_as(&[x.as_operand(), flat2.as_operand()], 0).unwrap();
    assert_eq!(
        c.to_string(),
        "i32[3, ?, ?] [[[1], []], [[2, 3]], [[4], [5]]]"
    );
    // A dense operand of too low a rank, and of another dtype: errors naming the operand.
    let e = ops::concat(&[x.as_operand(), array![[1i32]].as_operand()], 0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("concat") && e.contains("values[1]") && e.contains("rank at least 3"),
        "{e}"
    );
    let e = ops::concat(&[a.as_operand(), array![[1.0f32]].as_operand()], 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("concat") && e.contains("values[1]"), "{e}");
    // Spec inference: ragged, the ragged operand's dtype.
    let specs = [
        ValueSpec::Tensor(extype::TensorSpec::from_tensor(&d2)),
        ValueSpec::Extension(Box::new(extype::ExtensionType::spec(&a))),
    ];
    let out = ops::infer_spec(
        &catalog::STACK,
        &[&specs[0], &specs[1]],
        &OpArgs::none().with_axis(0),
    )
    .unwrap();
    assert!(out.spec.is_compatible_with(&ValueSpec::Extension(Box::new(
        extype::ExtensionType::spec(&s)
    ))));
    // Dense operands only: the dense op.
    let v = ops::concat(&[one.as_operand(), one.as_operand()], 0).unwrap();
    assert!(matches!(v, Value::Tensor(_)));
}

#[test]
fn ragged_rank_2_reductions_over_outer_axes_as_tf() {
    // x = [[[1, 2], []], [[3, 4, 5]], [], [[6], [7, 8], [9]]]; TF 2.21's outputs below.
    let x = RaggedTensor::from_nested_row_splits(
        array![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        vec![
            t(array![0i64, 2, 3, 3, 6]),
            t(array![0i64, 2, 2, 5, 6, 8, 9]),
        ],
    )
    .unwrap();
    let show = |op: &'static extype::Op, axes: &[isize]| -> String {
        match ops::call(
            op,
            &[extype::ops::AsOperand::as_operand(&x)],
            &OpArgs::axes(axes),
        )
        .unwrap()
        {
            Value::Tensor(t) => format!("{:?}", f32s(&t)),
            ext => ext.downcast::<RaggedTensor>().unwrap().to_string(),
        }
    };
    assert_eq!(
        show(&catalog::REDUCE_SUM, &[0]),
        "f32[3, ?] [[10.0, 6.0, 5.0], [7.0, 8.0], [9.0]]"
    );
    assert_eq!(
        show(&catalog::REDUCE_MAX, &[0]),
        "f32[3, ?] [[6.0, 4.0, 5.0], [7.0, 8.0], [9.0]]"
    );
    assert_eq!(
        show(&catalog::REDUCE_PROD, &[0]),
        "f32[3, ?] [[18.0, 8.0, 5.0], [7.0, 8.0], [9.0]]"
    );
    let mean0 = show(&catalog::REDUCE_MEAN, &[0]);
    assert!(mean0.starts_with("f32[3, ?] [[3.3333"), "{mean0}");
    assert_eq!(
        show(&catalog::REDUCE_SUM, &[1]),
        "f32[4, ?] [[1.0, 2.0], [3.0, 4.0, 5.0], [], [22.0, 8.0]]"
    );
    assert_eq!(
        show(&catalog::REDUCE_MAX, &[-2]),
        "f32[4, ?] [[1.0, 2.0], [3.0, 4.0, 5.0], [], [9.0, 8.0]]"
    );
    assert_eq!(
        show(&catalog::REDUCE_PROD, &[1]),
        "f32[4, ?] [[1.0, 2.0], [3.0, 4.0, 5.0], [], [378.0, 8.0]]"
    );
    assert_eq!(show(&catalog::REDUCE_SUM, &[0, 1]), "[26.0, 14.0, 5.0]");
    assert_eq!(show(&catalog::REDUCE_MAX, &[0, 1]), "[9.0, 8.0, 5.0]");
    assert_eq!(show(&catalog::REDUCE_SUM, &[0, 2]), "[21.0, 15.0, 9.0]");
    assert_eq!(show(&catalog::REDUCE_MEAN, &[0, 2]), "[3.5, 7.5, 9.0]");
    assert_eq!(
        show(&catalog::REDUCE_MAX, &[1, 2]),
        format!("{:?}", [2.0, 5.0, f32::MIN, 9.0])
    );
    let m12 = show(&catalog::REDUCE_MEAN, &[1, 2]);
    assert_eq!(m12, "[1.5, 4.0, NaN, 7.5]");
    assert_eq!(
        show(&catalog::REDUCE_PROD, &[1, 2]),
        "[2.0, 60.0, 1.0, 3024.0]"
    );
    // Spec inference: axis 0 leaves ragged rank 1, axes [0, 1] a dense [?].
    let spec = ValueSpec::Extension(Box::new(extype::ExtensionType::spec(&x)));
    let out = ops::infer_spec(&catalog::REDUCE_SUM, &[&spec], &OpArgs::axes(&[0])).unwrap();
    assert_eq!(
        out.spec.tensor_like().unwrap().shape().to_string(),
        "[?, ?]"
    );
    let out = ops::infer_spec(&catalog::REDUCE_SUM, &[&spec], &OpArgs::axes(&[0, 1])).unwrap();
    assert_eq!(out.spec.to_string(), "f32[?]");
}

#[test]
fn keepdims_over_outer_ragged_axes_as_tf() {
    // TF 2.21: r = tf.ragged.constant([[[1, 2], [3]], [], [[4], [], [5, 6]]]);
    // tf.reduce_sum(r, axis, keepdims=True) keeps each reduced axis as TF's `expand_dims` does,
    // one axis at a time: axis 0 -> [[[5, 2], [3], [5, 6]]] (1, 3, None); axis 1 ->
    // [[[4, 2]], [[]], [[9, 6]]] (3, 1, None); [0, 1] -> [[[13, 8]]] (1, 1, None); [0, 2] ->
    // dense (1, 3, 1) [[[7], [3], [11]]]; [1, 2] -> dense (3, 1, 1) [[[6]], [[0]], [[15]]].
    // Deliberate difference: the kept axis 0 is a ragged partition of one row (`[1, ?, ?]`),
    // where TF makes it uniform with the data's row count (`(1, 3, None)`): a spec cannot know
    // that length. Values are the same.
    let r = RaggedTensor::from_nested_row_splits(
        array![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0],
        vec![t(array![0i64, 2, 2, 5]), t(array![0i64, 2, 3, 4, 4, 6])],
    )
    .unwrap();
    let show = |axes: &[isize]| -> String {
        match reduce(&catalog::REDUCE_SUM, &r, Some(axes), true) {
            Value::Tensor(t) => t.to_string(),
            v => v.downcast::<RaggedTensor>().unwrap().to_string(),
        }
    };
    assert_eq!(show(&[0]), "f32[1, ?, ?] [[[5.0, 2.0], [3.0], [5.0, 6.0]]]");
    assert_eq!(
        show(&[1]),
        "f32[3, 1, ?] [[[4.0, 2.0]], [[]], [[9.0, 6.0]]]"
    );
    assert_eq!(show(&[0, 1]), "f32[1, ?, ?] [[[13.0, 8.0]]]");
    assert_eq!(show(&[0, 2]), "f32[1, 3, 1] [[[7.0], [3.0], [11.0]]]");
    assert_eq!(show(&[1, 2]), "f32[3, 1, 1] [[[6.0]], [[0.0]], [[15.0]]]");
    // TF: the mean keeps the same shapes (sum over count, each kept): axis 1 ->
    // [[[2, 2]], [[]], [[4.5, 6]]].
    let mean = reduce(&catalog::REDUCE_MEAN, &r, Some(&[1]), true);
    assert_eq!(
        mean.downcast::<RaggedTensor>().unwrap().to_string(),
        "f32[3, 1, ?] [[[2.0, 2.0]], [[]], [[4.5, 6.0]]]"
    );
    // Spec inference agrees with every result, keepdims or not, also on inputs with uniform
    // partitions and inner axes.
    // [3, 1, ?]: a uniform partition above a ragged one.
    let uniform_outer = reduce(&catalog::REDUCE_SUM, &r, Some(&[1]), true)
        .downcast::<RaggedTensor>()
        .unwrap();
    assert_eq!(uniform_outer.uniform_row_lengths(), [Some(1), None]);
    // [2, ?, 2, …]: a ragged partition above a uniform one.
    let u = RaggedTensor::from_uniform_row_length(array![1.0f32, 2.0, 3.0, 4.0], 2, None).unwrap();
    let ragged_over_uniform = RaggedTensor::stack(&[&u, &u], 0).unwrap();
    assert_eq!(ragged_over_uniform.uniform_row_lengths(), [None, Some(2)]);
    let inner = RaggedTensor::from_nested_row_splits(
        array![[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]],
        vec![t(array![0i64, 1, 3]), t(array![0i64, 2, 2, 3])],
    )
    .unwrap();
    for x in [&r, &uniform_outer, &ragged_over_uniform, &inner] {
        let spec = ValueSpec::Extension(Box::new(extype::ExtensionType::spec(x)));
        let rank = x.rank() as isize;
        let mut sets: Vec<Vec<isize>> = (0..rank).map(|a| vec![a]).collect();
        for a in 0..rank {
            for b in a + 1..rank {
                sets.push(vec![a, b]);
            }
        }
        for axes in sets {
            for keep in [false, true] {
                for op in [
                    &catalog::REDUCE_SUM,
                    &catalog::REDUCE_MEAN,
                    &catalog::REDUCE_MAX,
                ] {
                    let args = OpArgs::axes(&axes).keepdims(keep);
                    let got = ops::call(op, &[extype::ops::AsOperand::as_operand(x)], &args)
                        .unwrap_or_else(|e| {
                            panic!("{} {axes:?} keep={keep} of {x}: {e}", op.name())
                        });
                    let inferred = ops::infer_spec(op, &[&spec], &args).unwrap();
                    assert!(
                        inferred.spec.is_compatible_with(&got.spec()),
                        "{} {axes:?} keep={keep} of {x}: inferred {} for {}",
                        op.name(),
                        inferred.spec,
                        got.spec()
                    );
                }
            }
        }
    }
}

#[test]
fn max_and_min_over_outer_axes_of_ragged_rank_2_fold_in_tf_order() {
    // TF 2.21: `ragged_reduce_aggregate` over axis 0 or 1 of ragged rank 2 recurses down to
    // `unsorted_segment_max`/`_min` on the flat values, in flat order, from the lowest /
    // highest finite value: so `[1, nan, -inf]` at one position gives -inf (NaN is replaced by
    // a later value), a position holding only -inf gives the lowest finite value, and a NaN
    // last stays. x = [[[1, nan], [2]], [[nan, 5, -inf], []], [[-inf], [3, 4], [nan]]].
    let (nan, inf, lo) = (f32::NAN, f32::INFINITY, f32::MIN);
    let x = RaggedTensor::from_nested_row_splits(
        array![1.0f32, nan, 2.0, nan, 5.0, -inf, -inf, 3.0, 4.0, nan],
        vec![
            t(array![0i64, 2, 4, 7]),
            t(array![0i64, 2, 3, 6, 6, 7, 9, 10]),
        ],
    )
    .unwrap();
    // (op, axes, values in row-major order, row splits of a ragged result).
    type Case = (
        &'static extype::Op,
        &'static [isize],
        Vec<f32>,
        Option<Vec<i64>>,
    );
    let cases: [Case; 10] = [
        (
            &catalog::REDUCE_MAX,
            &[0],
            vec![-inf, 5.0, lo, 3.0, 4.0, nan],
            Some(vec![0, 3, 5, 6]),
        ),
        (
            &catalog::REDUCE_MAX,
            &[1],
            vec![2.0, nan, nan, 5.0, lo, nan, 4.0],
            Some(vec![0, 2, 5, 7]),
        ),
        (&catalog::REDUCE_MAX, &[0, 1], vec![nan, 5.0, lo], None),
        (&catalog::REDUCE_MAX, &[1, 2], vec![2.0, 5.0, nan], None),
        (&catalog::REDUCE_MAX, &[0, 2], vec![5.0, 4.0, nan], None),
        (
            &catalog::REDUCE_MIN,
            &[0],
            vec![-inf, 5.0, -inf, 2.0, 4.0, nan],
            Some(vec![0, 3, 5, 6]),
        ),
        (
            &catalog::REDUCE_MIN,
            &[1],
            vec![1.0, nan, nan, 5.0, -inf, nan, 4.0],
            Some(vec![0, 2, 5, 7]),
        ),
        (&catalog::REDUCE_MIN, &[0, 1], vec![nan, 4.0, -inf], None),
        (&catalog::REDUCE_MIN, &[1, 2], vec![2.0, -inf, nan], None),
        (&catalog::REDUCE_MIN, &[0, 2], vec![-inf, 2.0, nan], None),
    ];
    for (op, axes, want, splits) in cases {
        let got = ops::call(
            op,
            &[extype::ops::AsOperand::as_operand(&x)],
            &OpArgs::axes(axes),
        )
        .unwrap();
        let (values, got_splits) = match got {
            Value::Tensor(t) => (f32s(&t), None),
            ext => {
                let r = ext.downcast::<RaggedTensor>().unwrap();
                assert_eq!(r.ragged_rank(), 1, "{} {axes:?}", op.name());
                let s = r
                    .row_splits()
                    .as_array::<i64, ndarray::IxDyn>()
                    .unwrap()
                    .iter()
                    .copied()
                    .collect();
                (f32s(r.flat_values()), Some(s))
            }
        };
        assert!(
            same(&values, &want),
            "{} {axes:?}: {values:?} vs TF's {want:?}",
            op.name()
        );
        assert_eq!(got_splits, splits, "{} {axes:?}", op.name());
    }
}

// ---- from_tensor's lengths and padding (TF: RaggedTensor.from_tensor(t, lengths / padding)) ----

#[test]
fn from_tensor_clamps_lengths_as_tf() {
    // TF 2.21: from_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], lengths=[5, -1, 2]) is
    // [[1, 2, 3], [], [7, 8]]: lengths are clamped to the row (minimum(lengths, ncols), then
    // maximum(lengths, 0)).
    let d = array![[1, 2, 3], [4, 5, 6], [7, 8, 9]];
    let r = RaggedTensor::from_tensor_with_lengths(d.clone(), array![5i64, -1, 2]).unwrap();
    assert_eq!(r.to_string(), "i32[3, ?] [[1, 2, 3], [], [7, 8]]");
    assert_eq!(r.row_lengths(), t(array![3i64, 0, 2]));
    // i32 lengths too, far beyond the row.
    let r = RaggedTensor::from_tensor_with_lengths(d, array![i32::MAX, i32::MIN, 0]).unwrap();
    assert_eq!(r.to_string(), "i32[3, ?] [[1, 2, 3], [], []]");
}

#[test]
fn from_tensor_padding_takes_a_scalar_as_tf() {
    // TF 2.21: from_tensor(x, padding=0) takes a Python scalar, converted to x's dtype:
    // [[1, 0, 3, 0], [0, 0, 0, 0]] -> [[1, 0, 3], []], and padding=0 pads a float32 tensor.
    let d = array![[1, 0, 3, 0], [0, 0, 0, 0]];
    let want = "i32[2, ?] [[1, 0, 3], []]";
    // By reference too (`from_tensor_with_padding(x, &0)`).
    let (zero, zero_f32, zero_t): (&i32, &f32, &Tensor) = (&0, &0.0, &t(arr0(0)));
    assert_eq!(
        RaggedTensor::from_tensor_with_padding(d.clone(), zero)
            .unwrap()
            .to_string(),
        want
    );
    assert_eq!(
        RaggedTensor::from_tensor_with_padding(d.clone(), 0)
            .unwrap()
            .to_string(),
        want
    );
    assert_eq!(
        RaggedTensor::from_tensor_with_padding(d.clone(), 0i64)
            .unwrap()
            .to_string(),
        want
    );
    assert_eq!(
        RaggedTensor::from_tensor_with_padding(d.clone(), t(arr0(0)))
            .unwrap()
            .to_string(),
        want
    );
    assert_eq!(
        RaggedTensor::from_tensor_with_padding(d.clone(), zero_t)
            .unwrap()
            .to_string(),
        want
    );
    let f = array![[1.5f32, 0.0], [0.0, 0.0]];
    assert_eq!(
        RaggedTensor::from_tensor_with_padding(f.clone(), 0)
            .unwrap()
            .to_string(),
        "f32[2, ?] [[1.5], []]"
    );
    assert_eq!(
        RaggedTensor::from_tensor_with_padding(f, zero_f32)
            .unwrap()
            .to_string(),
        "f32[2, ?] [[1.5], []]"
    );
    // TF raises for a padding its dtype cannot hold (padding=1.5 for int32); so do we.
    let e = RaggedTensor::from_tensor_with_padding(d, 1.5)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("from_tensor: padding: expected a padding value of the tensor's dtype i32"),
        "{e}"
    );
    // A padding of the inner shape: an entry is padding when all of it equals it.
    let d3 = array![[[1, 0], [0, 9]], [[0, 9], [0, 9]]];
    let r = RaggedTensor::from_tensor_with_padding(d3, array![0, 9]).unwrap();
    assert_eq!(r.row_lengths(), t(array![1i64, 0]));
    // bool tensors take a bool padding.
    let b = array![[true, false], [false, false]];
    let r = RaggedTensor::from_tensor_with_padding(b, false).unwrap();
    assert_eq!(r.row_lengths(), t(array![1i64, 0]));
}

// ---- rows (TF: rt[i], rt[a:b], iteration, to_list, tf.ragged.constant) ----

#[test]
fn row_indexing_as_tf() {
    // TF 2.21: rt = [[1, 2, 3], [], [4, 5], [6]]; rt[0] is the tf.Tensor [1, 2, 3], rt[1]
    // the empty tf.Tensor, rt[-1] is [6] (negative counts from the end); rt[4] and rt[-5]
    // raise (out of range).
    let x = r();
    assert_eq!(
        x.row(0).unwrap(),
        RaggedRow::Dense(t(array![1.0f32, 2.0, 3.0]))
    );
    assert_eq!(x.row(1).unwrap().as_dense().unwrap().shape(), [0]);
    assert_eq!(x.row(-1).unwrap().into_dense().unwrap(), t(array![6.0f32]));
    assert_eq!(x.row(-4).unwrap(), x.row(0).unwrap());
    assert_eq!(
        x.row(4).unwrap_err().to_string(),
        "row: i: expected a row index within -4..4 (the tensor has 4 rows; a negative index \
         counts from the end), found 4"
    );
    assert!(x.row(-5).unwrap_err().to_string().ends_with("found -5"));
    assert!(x.row(i64::MIN).is_err());
    // Zero-copy: the row views the flat values.
    let base = x.flat_values().as_array::<f32, IxDyn>().unwrap().as_ptr();
    let row2 = x.row(2).unwrap().into_dense().unwrap();
    assert_eq!(
        row2.as_array::<f32, IxDyn>().unwrap().as_ptr(),
        base.wrapping_add(3)
    );
    // Inner uniform axes stay on the dense row: [[[1, 2]], [[3, 4], [5, 6]]][1] is [[3, 4],
    // [5, 6]] of shape [2, 2].
    let inner =
        RaggedTensor::from_row_lengths(array![[1, 2], [3, 4], [5, 6]], array![1i64, 2]).unwrap();
    assert_eq!(
        inner.row(1).unwrap(),
        RaggedRow::Dense(t(array![[3, 4], [5, 6]]))
    );
    // TF: a row of a ragged-rank-2 tensor is a RaggedTensor of ragged rank 1:
    // [[[1, 2], [3]], [], [[4], [], [5, 6]]][2] is [[4], [], [5, 6]].
    let x2 = extype::ragged![[[1, 2], [3]], [], [[4], [], [5, 6]]].unwrap();
    let row = x2.row(2).unwrap().into_ragged().unwrap();
    assert_eq!(row.to_string(), "i32[3, ?] [[4], [], [5, 6]]");
    assert_eq!(row.ragged_rank(), 1);
    assert_eq!(row.row_splits(), &t(array![0i64, 1, 1, 3]));
    assert_eq!(x2.row(1).unwrap().to_string(), "i32[0, ?] []");
    assert!(x2.row(0).unwrap().into_dense().is_err());
    assert!(x.row(0).unwrap().into_ragged().is_err());
    // As values: a dense tensor, or the ragged extension value.
    assert!(matches!(x.row(0).unwrap().into_value(), Value::Tensor(_)));
    let v = x2.row(0).unwrap().into_value();
    assert_eq!(
        v.downcast::<RaggedTensor>().unwrap().to_string(),
        "i32[2, ?] [[1, 2], [3]]"
    );
}

#[test]
fn iteration_over_rows_as_tf() {
    // TF 2.21: `for row in rt` yields rt[0], rt[1], …: [1, 2, 3], [], [4, 5], [6].
    let x = r();
    let rows: Vec<Vec<f32>> = x.rows().map(|row| f32s(row.as_dense().unwrap())).collect();
    assert_eq!(
        rows,
        vec![vec![1.0, 2.0, 3.0], vec![], vec![4.0, 5.0], vec![6.0]]
    );
    assert_eq!(x.rows().len(), 4);
    let back: Vec<RaggedRow> = x.rows().rev().collect();
    assert_eq!(back[0], x.row(3).unwrap());
    let mut n = 0;
    for row in &x {
        assert_eq!(row, x.row(n).unwrap());
        n += 1;
    }
    assert_eq!(n, 4);
    // Rows of a ragged-rank-2 tensor are ragged tensors.
    let x2 = batch::stack(&[r(), r().slice_rows(1, None)]).unwrap();
    let items: Vec<RaggedTensor> = x2.rows().map(|row| row.into_ragged().unwrap()).collect();
    assert_eq!(items, vec![r(), r().slice_rows(1, None)]);
}

#[test]
fn slicing_rows_as_tf() {
    // TF 2.21, rt = [[1, 2, 3], [], [4, 5], [6]]: rt[1:3] is [[], [4, 5]], rt[-2:] is
    // [[4, 5], [6]], rt[:-3] is [[1, 2, 3]], rt[3:1] is [] (shape [0, None]), rt[-100:100] is
    // rt (Python clamps slice bounds).
    let x = r();
    assert_eq!(x.slice_rows(1, 3).to_string(), "f32[2, ?] [[], [4.0, 5.0]]");
    assert_eq!(
        x.slice_rows(-2, None).to_string(),
        "f32[2, ?] [[4.0, 5.0], [6.0]]"
    );
    assert_eq!(
        x.slice_rows(None, -3).to_string(),
        "f32[1, ?] [[1.0, 2.0, 3.0]]"
    );
    let empty = x.slice_rows(3, 1);
    assert_eq!(empty.nrows(), 0);
    assert_eq!(TensorLike::shape(&empty).to_string(), "[0, ?]");
    assert_eq!(empty.row_splits(), &t(array![0i64]));
    assert_eq!(x.slice_rows(-100, 100), x);
    assert_eq!(x.slice_rows(None, None), x);
    assert_eq!(x.slice_rows(i64::MIN, i64::MAX), x);
    // The slice's splits are rebased; its flat values view the tensor's (no copy).
    let s = x.slice_rows(2, None);
    assert_eq!(s.row_splits(), &t(array![0i64, 2, 3]));
    let base = x.flat_values().as_array::<f32, IxDyn>().unwrap().as_ptr();
    assert_eq!(
        s.flat_values().as_array::<f32, IxDyn>().unwrap().as_ptr(),
        base.wrapping_add(3)
    );
    // The slice holds only its own values.
    assert_eq!(s.flat_values().shape(), [3]);
    // Ragged rank 2: rt2[1:] of [[[1, 2], [3]], [], [[4], [], [5, 6]]] is [[], [[4], [], [5, 6]]].
    let x2 = extype::ragged![[[1, 2], [3]], [], [[4], [], [5, 6]]].unwrap();
    let s2 = x2.slice_rows(1, None);
    assert_eq!(s2.to_string(), "i32[2, ?, ?] [[], [[4], [], [5, 6]]]");
    assert_eq!(s2.nested_row_splits()[1], t(array![0i64, 1, 1, 3]));
    assert_eq!(s2.flat_values(), &t(array![4, 5, 6]));
    // A uniform partition stays uniform.
    let u = RaggedTensor::from_uniform_row_length(array![1, 2, 3, 4, 5, 6], 2, None).unwrap();
    let us = u.slice_rows(1, None);
    assert_eq!(us.uniform_row_lengths(), &[Some(2)]);
    assert_eq!(TensorLike::shape(&us).to_string(), "[2, 2]");
}

#[test]
fn slicing_columns_as_tf() {
    // TF 2.21, rt = [[1, 2, 3], [], [4, 5], [6]]: rt[:, :2] is [[1, 2], [], [4, 5], [6]] (each
    // row cut to its first two entries), rt[:, -1:] is [[3], [], [5], [6]] (negative bounds
    // relative to each row's length), rt[:, 1:-1] is [[2], [], [], []], rt[:, 5:] is
    // [[], [], [], []], rt[:, :] is rt; rt[:, 2:1] is four empty rows.
    let x = r();
    assert_eq!(
        x.slice_columns(None, 2).unwrap().to_string(),
        "f32[4, ?] [[1.0, 2.0], [], [4.0, 5.0], [6.0]]"
    );
    assert_eq!(
        x.slice_columns(-1, None).unwrap().to_string(),
        "f32[4, ?] [[3.0], [], [5.0], [6.0]]"
    );
    assert_eq!(
        x.slice_columns(1, -1).unwrap().to_string(),
        "f32[4, ?] [[2.0], [], [], []]"
    );
    let none = x.slice_columns(5, None).unwrap();
    assert_eq!(none.row_splits(), &t(array![0i64, 0, 0, 0, 0]));
    assert_eq!(none.flat_values().shape(), [0]);
    assert_eq!(x.slice_columns(None, None).unwrap(), x);
    assert_eq!(x.slice_columns(i64::MIN, i64::MAX).unwrap(), x);
    assert_eq!(
        x.slice_columns(2, 1).unwrap().row_lengths(),
        t(array![0i64, 0, 0, 0])
    );
    // Inner dimensions come along: [[[1, 2]], [[3, 4], [5, 6]]][:, -1:] is [[[1, 2]], [[5, 6]]].
    let inner =
        RaggedTensor::from_row_lengths(array![[1, 2], [3, 4], [5, 6]], array![1i64, 2]).unwrap();
    assert_eq!(
        inner.slice_columns(-1, None).unwrap().to_string(),
        "i32[2, ?, 2] [[[1, 2]], [[5, 6]]]"
    );
    // Ragged rank 2: rt2 = [[[1, 2], [3]], [], [[4], [], [5, 6]]]; rt2[:, 1:] is
    // [[[3]], [], [[], [5, 6]]].
    let x2 = extype::ragged![[[1, 2], [3]], [], [[4], [], [5, 6]]].unwrap();
    let s2 = x2.slice_columns(1, None).unwrap();
    assert_eq!(s2.to_string(), "i32[3, ?, ?] [[[3]], [], [[], [5, 6]]]");
    assert_eq!(s2.flat_values(), &t(array![3, 5, 6]));
    // A uniform outermost partition stays uniform (every row is cut alike).
    let u = RaggedTensor::from_uniform_row_length(array![1, 2, 3, 4, 5, 6], 3, None).unwrap();
    let us = u.slice_columns(1, None).unwrap();
    assert_eq!(us.uniform_row_lengths(), &[Some(2)]);
    assert_eq!(us.to_string(), "i32[2, 2] [[2, 3], [5, 6]]");
    assert_eq!(TensorLike::shape(&us).to_string(), "[2, 2]");
}

/// TF 2.21's `tf.tile` on a RaggedTensor (`ragged_array_ops.tile`): rows repeated as a whole
/// along axis 0, each row's entries repeated along a ragged axis, inner axes as a dense tile.
/// rt = [[1, 2], [3]]: `tf.tile(rt, [3, 2])` is [[1, 2, 1, 2], [3, 3], [1, 2, 1, 2], [3, 3],
/// [1, 2, 1, 2], [3, 3]]; `tf.tile(rt, [1, 0])` is [[], []]; `tf.tile(rt, [0, 5])` has no rows.
/// rt2 = [[[1], [2, 3]], [[4]]]: `tf.tile(rt2, [1, 2, 2])` is [[[1, 1], [2, 3, 2, 3], [1, 1],
/// [2, 3, 2, 3]], [[4, 4], [4, 4]]]. Inner [[[1, 2]], [[3, 4], [5, 6]]] (shape [2, None, 2]):
/// `tf.tile(x, [2, 1, 2])` is [[[1, 2, 1, 2]], [[3, 4, 3, 4], [5, 6, 5, 6]], [[1, 2, 1, 2]],
/// [[3, 4, 3, 4], [5, 6, 5, 6]]]; multiples of the wrong length raise.
#[test]
fn tile_as_tf() {
    let rt = extype::ragged![[1, 2], [3]].unwrap();
    let tiled: RaggedTensor = ops::tile_as(&rt, &[3, 2]).unwrap();
    assert_eq!(
        tiled.to_string(),
        "i32[6, ?] [[1, 2, 1, 2], [3, 3], [1, 2, 1, 2], [3, 3], [1, 2, 1, 2], [3, 3]]"
    );
    assert_eq!(rt.tile(&[1, 0]).unwrap().to_string(), "i32[2, ?] [[], []]");
    assert_eq!(rt.tile(&[0, 5]).unwrap().nrows(), 0);
    assert_eq!(rt.tile(&[1, 1]).unwrap(), rt);
    let rt2 = extype::ragged![[[1], [2, 3]], [[4]]].unwrap();
    assert_eq!(
        rt2.tile(&[1, 2, 2]).unwrap().to_string(),
        "i32[2, ?, ?] [[[1, 1], [2, 3, 2, 3], [1, 1], [2, 3, 2, 3]], [[4, 4], [4, 4]]]"
    );
    let inner =
        RaggedTensor::from_row_lengths(array![[1, 2], [3, 4], [5, 6]], array![1i64, 2]).unwrap();
    let ti = inner.tile(&[2, 1, 2]).unwrap();
    assert_eq!(
        ti.to_string(),
        "i32[4, ?, 4] [[[1, 2, 1, 2]], [[3, 4, 3, 4], [5, 6, 5, 6]], [[1, 2, 1, 2]], [[3, 4, 3, 4], [5, 6, 5, 6]]]"
    );
    // A uniform partition stays uniform, its length multiplied.
    let u = RaggedTensor::from_uniform_row_length(array![1, 2, 3, 4], 2, None).unwrap();
    let ut = u.tile(&[1, 3]).unwrap();
    assert_eq!(ut.uniform_row_lengths(), &[Some(6)]);
    assert_eq!(
        ut.to_string(),
        "i32[2, 6] [[1, 2, 1, 2, 1, 2], [3, 4, 3, 4, 3, 4]]"
    );
    // Spec inference agrees with the value.
    for (x, m) in [(&rt, vec![3, 2]), (&inner, vec![2, 1, 2]), (&u, vec![1, 3])] {
        let spec = ValueSpec::Extension(Box::new(extype::ExtensionType::spec(x)));
        let args = OpArgs::none().with_shape(&m);
        let inferred = ops::infer_spec(&catalog::TILE, &[&spec], &args).unwrap();
        let got: RaggedTensor = ops::tile_as(x, &m).unwrap();
        let got = ValueSpec::Extension(Box::new(extype::ExtensionType::spec(&got)));
        assert!(
            inferred.spec.is_compatible_with(&got),
            "{m:?}: {:?}",
            inferred.spec
        );
        assert_eq!(
            inferred.spec.tensor_like().unwrap().shape(),
            got.tensor_like().unwrap().shape(),
            "{m:?}"
        );
    }
    // Errors name the op and the argument; sizes that cannot exist are errors, not aborts.
    let e = rt.tile(&[2]).unwrap_err().to_string();
    assert!(
        e.contains("tile") && e.contains("multiples") && e.contains("2 multiples"),
        "{e}"
    );
    let e = rt.tile(&[usize::MAX, 2]).unwrap_err().to_string();
    assert!(e.contains("tile") && e.contains("multiples"), "{e}");
    let e = rt.tile(&[1, usize::MAX / 2]).unwrap_err().to_string();
    assert!(e.contains("tile"), "{e}");
}

#[test]
fn ragged_constant_and_to_list_as_tf() {
    use extype::types::Nested::{self, Leaf, List};
    // TF 2.21: tf.ragged.constant([[1.0, 2.0], [], [3.0]]) has shape [3, None], ragged_rank 1;
    // to_list() gives the nested lists back.
    let x = extype::ragged![[1.0f32, 2.0], [], [3.0]].unwrap();
    assert_eq!(x.to_string(), "f32[3, ?] [[1.0, 2.0], [], [3.0]]");
    assert_eq!(x.ragged_rank(), 1);
    assert_eq!(x.row_splits(), &t(array![0i64, 2, 2, 3]));
    let list = x.to_list::<f32>().unwrap();
    assert_eq!(
        list,
        List(vec![
            List(vec![Leaf(1.0), Leaf(2.0)]),
            List(vec![]),
            List(vec![Leaf(3.0)])
        ])
    );
    assert_eq!(RaggedTensor::from_nested(&list).unwrap(), x);
    // The ragged rank is the nesting depth - 1 (TF's default ragged_rank): depth 4 -> 3.
    let x3 = extype::ragged![[[[1i64]], [[2, 3], []]], [], [[[-4, 5]]],].unwrap();
    assert_eq!(x3.ragged_rank(), 3);
    assert_eq!(
        x3.to_string(),
        "i64[3, ?, ?, ?] [[[[1]], [[2, 3], []]], [], [[[-4, 5]]]]"
    );
    assert_eq!(
        RaggedTensor::from_nested(&x3.to_list::<i64>().unwrap()).unwrap(),
        x3
    );
    // Empty lists only: TF gives ragged rank depth - 1 as well ([[], []] -> [2, None]).
    let e = RaggedTensor::from_nested::<f32>(&List(vec![List(vec![]), List(vec![])])).unwrap();
    assert_eq!(e.to_string(), "f32[2, ?] [[], []]");
    let e3 = RaggedTensor::from_nested::<f32>(&List(vec![List(vec![List(vec![])]), List(vec![])]))
        .unwrap();
    assert_eq!(e3.ragged_rank(), 2);
    // TF raises "all scalar values must have the same nesting depth" for [[1, 2], [[3]]].
    let err = extype::ragged![[1, 2], [[3]]].unwrap_err().to_string();
    assert_eq!(
        err,
        "from_nested: list: expected every scalar at the same nesting depth (2, as the first at \
         [0, 0]), found a list at [1, 0] (depth 2)"
    );
    let deeper = List(vec![List(vec![Leaf(1)]), List(vec![List(vec![Leaf(3)])])]);
    let err = RaggedTensor::from_nested(&deeper).unwrap_err().to_string();
    assert!(err.contains("found a list at [1, 0]"), "{err}");
    let mixed: Nested<i32> = List(vec![List(vec![List(vec![])]), List(vec![Leaf(1)])]);
    let err = RaggedTensor::from_nested(&mixed).unwrap_err().to_string();
    assert!(err.contains("a scalar at [1, 0] (depth 2)"), "{err}");
    // Depth 1 is a dense vector, not a ragged tensor; a bare scalar is no list.
    let err = extype::ragged![1, 2].unwrap_err().to_string();
    assert!(
        err.contains("at least 2 deep") && err.contains("depth 1"),
        "{err}"
    );
    assert!(RaggedTensor::from_nested(&Leaf(1)).is_err());
    // No rows: ragged rank 1 (TF's constant([]) is a dense [0]; a RaggedTensor has rank 2).
    let none = RaggedTensor::from_nested::<u8>(&List(vec![])).unwrap();
    assert_eq!(none.to_string(), "u8[0, ?] []");
    // to_list of inner uniform axes nests them too (TF: to_list gives Python lists to the
    // scalars); the dtype must match.
    let inner = RaggedTensor::from_row_lengths(array![[1, 2], [3, 4]], array![0i64, 2]).unwrap();
    assert_eq!(
        inner.to_list::<i32>().unwrap(),
        List(vec![
            List(vec![]),
            List(vec![
                List(vec![Leaf(1), Leaf(2)]),
                List(vec![Leaf(3), Leaf(4)])
            ]),
        ])
    );
    assert_eq!(
        inner.to_list::<f32>().unwrap_err().to_string(),
        "to_list: T: expected the tensor's dtype i32, found f32"
    );
    // Rows and the list agree.
    let row1 = inner.row(1).unwrap().into_dense().unwrap();
    assert_eq!(row1, t(array![[1, 2], [3, 4]]));
}

// ---- shape (TF: tf.shape(rt) is a DynamicRaggedShape; rt.shape is [nrows, None, …]) ----

#[test]
fn shape_of_a_ragged_tensor_as_tf() {
    use extype::types::{RaggedShape, RaggedShapeSpec};
    // TF 2.21: rt.shape of [[1, 2, 3], [], [4, 5], [6]] is [4, None]; tf.shape(rt) is a
    // DynamicRaggedShape with row lengths [3, 0, 2, 1] and inner_shape [6].
    let x = r();
    let shape: RaggedShape = ops::shape_as(&x).unwrap();
    assert_eq!(shape.static_shape().to_string(), "[4, ?]");
    assert_eq!(shape.static_lengths(), [Some(4), None]);
    assert_eq!(shape.nrows(), 4);
    assert_eq!(shape.rank(), 2);
    assert_eq!(shape.nested_row_lengths(), &[t(array![3i64, 0, 2, 1])]);
    assert_eq!(shape.inner_shape(), [6]);
    assert_eq!(shape.to_string(), "[4, (3, 0, 2, 1)]");
    assert_eq!(shape.static_shape(), TensorLike::shape(&x));
    // Through a Value too.
    let v = ops::shape(&Value::from_extension(x.clone())).unwrap();
    assert_eq!(v.downcast::<RaggedShape>().unwrap(), shape);
    // Uniform and inner dimensions are known: TF's [2, 2, None, 3] for a uniform second axis.
    let flat = ndarray::Array2::<f32>::zeros((5, 3));
    let inner = RaggedTensor::from_row_lengths(flat, array![2i64, 0, 3, 0]).unwrap();
    let outer = inner.with_uniform_outer(2).unwrap();
    let s: RaggedShape = ops::shape_as(&outer).unwrap();
    assert_eq!(s.static_shape().to_string(), "[2, 2, ?, 3]");
    assert_eq!(s.static_lengths(), [Some(2), Some(2), None, Some(3)]);
    assert_eq!(s.to_string(), "[2, 2, (2, 0, 3, 0), 3]");
    // Spec inference: a RaggedShape spec whose row lengths count nrows.
    let spec = extype::ExtensionType::spec(&x);
    let vs = ValueSpec::Extension(Box::new(spec));
    let out = ops::infer_spec(&catalog::SHAPE, &[&vs], &OpArgs::none()).unwrap();
    let ValueSpec::Extension(e) = &out.spec else {
        panic!("{}", out.spec)
    };
    assert!(e.as_any().downcast_ref::<RaggedShapeSpec>().is_some());
    assert!(extype::TypeSpec::is_compatible_with(
        &extype::ExtensionType::spec(&shape),
        e.as_any().downcast_ref::<RaggedShapeSpec>().unwrap()
    ));
}

// ---- printing (NumPy's rules, as TF prints a ragged tensor's values) ----

/// Up to 1000 values a ragged tensor prints whole (seven rows, all shown); above, as NumPy
/// summarises: three rows at each end around `...`, and a long row likewise.
#[test]
fn display_summarises_only_over_a_thousand_values() {
    let seven = RaggedTensor::from_row_lengths(
        ndarray::Array1::from_iter(0..7i64),
        array![1i64, 1, 1, 1, 1, 1, 1],
    )
    .unwrap();
    assert_eq!(
        seven.to_string(),
        "i64[7, ?] [[0], [1], [2], [3], [4], [5], [6]]"
    );
    let long = RaggedTensor::from_row_lengths(
        ndarray::Array1::from_iter(0..1001i64),
        array![1i64, 2, 995, 1, 1, 1, 0],
    )
    .unwrap();
    assert_eq!(
        long.to_string(),
        "i64[7, ?] [[0], [1, 2], [3, 4, 5, ..., 995, 996, 997], ..., [999], [1000], []]"
    );
}

/// TF's `tf.map_fn(tf.math.square, digits)` on the ragged guide's `digits` (the default output
/// signature is the input's: a ragged result, rows squared); on a ragged-rank-2 tensor each row
/// is ragged and the results stack one ragged rank up; with `fn_output_signature=tf.float32`
/// (`map_rows_dense`) the results stack densely; an error names the row.
#[test]
fn map_rows_as_tf_map_fn() {
    let digits = extype::ragged![[3, 1, 4, 1], [], [5, 9, 2], [6], []].unwrap();
    let squares = digits
        .map_rows(|row| {
            let row = row.into_dense()?;
            ops::mul_as::<Tensor>(&row, &row)
        })
        .unwrap();
    assert_eq!(
        squares.to_string(),
        "i32[5, ?] [[9, 1, 16, 1], [], [25, 81, 4], [36], []]"
    );
    // Ragged rows: each row's reversed order of sub-rows, stacked back (ragged rank 2).
    let nested = extype::ragged![[[1, 2], [3]], [], [[4]]].unwrap();
    let again = nested.map_rows(|row| row.into_ragged()).unwrap();
    assert_eq!(again, nested);
    // Dense results of one shape (TF: fn_output_signature=tf.TensorSpec([], tf.int32)).
    let lens = digits
        .map_rows_dense(|row| Ok(t(arr0(row.into_dense()?.shape()[0] as i32))))
        .unwrap();
    assert_eq!(lens, t(array![4, 0, 3, 1, 0]));
    // No rows: the empty slice for the ragged default; an error for the dense signature.
    let none = digits.slice_rows(0, 0);
    assert_eq!(
        none.map_rows(|_| -> extype::Result<Tensor> { unreachable!() })
            .unwrap(),
        none
    );
    assert!(none.map_rows_dense(|_| unreachable!()).is_err());
    // Errors are placed by row.
    let e = digits
        .map_rows(|row| -> extype::Result<Tensor> {
            let row = row.into_dense()?;
            if row.shape()[0] == 1 {
                Err(extype::Error::invalid("boom"))
            } else {
                Ok(row)
            }
        })
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("map_rows over RaggedTensor, item 3: "),
        "{e}"
    );
    let e = digits.map_rows(|_| Ok(t(arr0(1)))).unwrap_err();
    assert!(
        e.to_string().contains("item 0") && e.to_string().contains("rank"),
        "{e}"
    );
    let e = digits.map_rows_dense(|row| row.into_dense()).unwrap_err();
    assert!(
        e.to_string()
            .contains("map_rows_dense over RaggedTensor, item 1"),
        "{e}"
    );
}

/// TF: `Dataset.batch` of ragged items whose spec has a known row count (`[2, None]`) gives
/// `[None, 2, None]` with `uniform_row_length = 2`. extype keeps the outer partition ragged
/// (`[2, ?, ?]`), a deliberate difference (module docs): the values and row lengths are TF's.
#[test]
fn batching_items_of_one_row_count_keeps_a_ragged_partition() {
    use extype::batch::BatchableSpec;
    let a = extype::ragged![[1.0f32], [2.0, 3.0]].unwrap();
    let b = extype::ragged![[], [4.0f32]].unwrap();
    let spec = extype::ExtensionType::spec(&a);
    assert_eq!(TensorLike::shape(&spec).to_string(), "[2, ?]");
    let batched = spec.batched(Some(2));
    assert_eq!(TensorLike::shape(&batched).to_string(), "[2, ?, ?]");
    let batch = batch::stack(&[a, b]).unwrap();
    assert_eq!(batch.uniform_row_lengths(), &[None, None]);
    assert_eq!(batch.row_lengths(), t(array![2i64, 2]));
    assert_eq!(
        batch.to_string(),
        "f32[2, ?, ?] [[[1.0], [2.0, 3.0]], [[], [4.0]]]"
    );
}

//! Conformance of `extype::types::SparseTensor` with TensorFlow 2.x's `tf.sparse`: each test
//! names the TensorFlow behaviour it follows (checked with TF 2.21 on CPU).

use extype::types::{SparseTensor, SparseTensorSpec};
use extype::{DType, ExtensionType, Tensor, TensorLike, TypeSpec};
use ndarray::{Array2, ArrayD, IxDyn, array};

fn st(indices: Array2<i64>, values: impl Into<Tensor>, shape: &[usize]) -> SparseTensor {
    SparseTensor::new(indices, values, shape).unwrap()
}

fn err(r: extype::Result<impl std::fmt::Debug>) -> String {
    r.unwrap_err().to_string()
}

/// TF: `tf.SparseTensor([[0,0],[1,1]], [1.0], [2,2])` raises "Dimensions 2 and 1 are not
/// compatible"; an index row of 3 entries for a rank-2 shape, "Dimensions 3 and 2 …"; a
/// negative dense size, "Dimension -2 must be >= 0"; values of rank 2, "must have rank 1".
#[test]
fn constructor_checks_follow_tf() {
    let e = err(SparseTensor::new(
        array![[0i64, 0], [1, 1]],
        array![1.0f32],
        &[2, 2],
    ));
    assert!(
        e.contains("indices has 2 entries but values has 1: dimensions 2 and 1 are not compatible"),
        "{e}"
    );
    let e = err(SparseTensor::new(
        array![[0i64, 0, 0]],
        array![1.0f32],
        &[2, 2],
    ));
    assert!(e.contains("dimensions 3 and 2 are not compatible"), "{e}");
    // A negative size (TF's int64 dense shape): refused where an i64 dense shape is read,
    // from the components (`SparseTensor::new` takes sizes as usize).
    let e = err(
        SparseTensorSpec::new("[?, ?]".parse().unwrap(), DType::F32).from_components(vec![
            Tensor::from(array![[0i64, 0]]),
            Tensor::from(array![1.0f32]),
            Tensor::from(array![-2i64, 2]),
        ]),
    );
    assert!(
        e.contains("dense_shape[0]: dimension -2 must be >= 0"),
        "{e}"
    );
    let e = err(SparseTensor::new(
        array![[0i64, 0]],
        array![[1.0f32]],
        &[2, 2],
    ));
    assert!(e.contains("must have rank 1"), "{e}");
    let e = err(SparseTensor::new(array![0i64, 0], array![1.0f32], &[2, 2]));
    assert!(e.contains("must have rank 2"), "{e}");
    let e = err(SparseTensor::new(
        array![[0i32, 0]],
        array![1.0f32],
        &[2, 2],
    ));
    assert!(e.contains("expected dtype i64, found i32"), "{e}");
}

/// TF: `to_dense` of `indices [[0,5]]` in `[2,2]` raises "indices[0] = [0,5] is out of bounds:
/// need 0 <= index < [2,2]" (also for a negative index, and in rank 3); extype says it at
/// construction.
#[test]
fn out_of_bounds_and_negative_indices_follow_tf() {
    let e = err(SparseTensor::new(
        array![[0i64, 5]],
        array![1.0f32],
        &[2, 2],
    ));
    assert!(
        e.contains("indices[0] = [0,5] is out of bounds: need 0 <= index < [2,2]"),
        "{e}"
    );
    let e = err(SparseTensor::new(
        array![[0i64, -1]],
        array![1.0f32],
        &[2, 2],
    ));
    assert!(
        e.contains("indices[0] = [0,-1] is out of bounds: need 0 <= index < [2,2]"),
        "{e}"
    );
    let e = err(SparseTensor::new(
        array![[0i64, 0, 0], [1, 3, 0]],
        array![1.0f32, 2.0],
        &[2, 2, 2],
    ));
    assert!(
        e.contains("indices[1] = [1,3,0] is out of bounds: need 0 <= index < [2,2,2]"),
        "{e}"
    );
}

/// TF: `tf.sparse.to_dense` of unordered indices raises "indices[1] = [0,0] is out of order"
/// with `validate_indices=True` and scatters them with `False` (`[[2,0],[1,0]]`); rank 1 alike
/// ("indices[1] = [1] is out of order").
#[test]
fn unordered_indices_follow_tf() {
    let x = st(array![[1, 0], [0, 0]], array![1.0f32, 2.0], &[2, 2]);
    assert!(!x.is_canonical());
    let e = err(x.to_dense(&0.0f32, true));
    assert!(e.contains("indices[1] = [0,0] is out of order"), "{e}");
    assert_eq!(
        x.to_dense(&0.0f32, false).unwrap(),
        Tensor::from(array![[2.0f32, 0.0], [1.0, 0.0]])
    );
    let r1 = st(array![[3], [1]], array![1.0f32, 2.0], &[4]);
    let e = err(r1.to_dense(&0.0f32, true));
    assert!(e.contains("indices[1] = [1] is out of order"), "{e}");
    assert_eq!(
        r1.to_dense(&0.0f32, false).unwrap(),
        Tensor::from(array![0.0f32, 2.0, 0.0, 1.0])
    );
}

/// TF: repeated indices raise "indices[1] = [0,0] is repeated" (rank 3: "indices[2] =
/// [1,1,0] is repeated") with validation; without it the last value written wins
/// (`[[2,0],[0,0]]`).
#[test]
fn duplicate_indices_follow_tf() {
    let x = st(array![[0, 0], [0, 0]], array![1.0f32, 2.0], &[2, 2]);
    let e = err(x.to_dense(&0.0f32, true));
    assert!(e.contains("indices[1] = [0,0] is repeated"), "{e}");
    assert_eq!(
        x.to_dense(&0.0f32, false).unwrap(),
        Tensor::from(array![[2.0f32, 0.0], [0.0, 0.0]])
    );
    let x3 = st(
        array![[0, 0, 0], [1, 1, 0], [1, 1, 0]],
        array![1.0f32, 2.0, 3.0],
        &[2, 2, 2],
    );
    let e = err(x3.to_dense(&0.0f32, true));
    assert!(e.contains("indices[2] = [1,1,0] is repeated"), "{e}");
}

/// TF: `tf.sparse.reorder` sorts row-major, stably, keeping duplicates
/// (`[[1,0],[0,1],[0,1]]` / `[1,2,3]` → `[[0,1],[0,1],[1,0]]` / `[2,3,1]`).
#[test]
fn reorder_follows_tf() {
    let x = st(
        array![[1, 0], [0, 1], [0, 1]],
        array![1.0f32, 2.0, 3.0],
        &[2, 2],
    );
    let r = x.reorder().unwrap();
    assert_eq!(r.indices_array(), array![[0i64, 1], [0, 1], [1, 0]]);
    assert_eq!(r.values(), &Tensor::from(array![2.0f32, 3.0, 1.0]));
    assert!(!r.is_canonical());
    let y = st(array![[1, 1], [0, 1], [1, 0]], array![1i32, 2, 3], &[2, 2])
        .reorder()
        .unwrap();
    assert!(y.is_canonical());
    assert_eq!(y.values(), &Tensor::from(array![2i32, 3, 1]));
    assert_eq!(
        y.to_dense(&0i32, true).unwrap(),
        Tensor::from(array![[0i32, 2], [3, 1]])
    );
}

/// TF: a SparseTensor with no stored entry densifies to `default_value` everywhere
/// (`[[0,0],[0,0]]`); `from_dense` of zeros stores nothing.
#[test]
fn nnz_zero_follows_tf() {
    let x = SparseTensor::new(
        Array2::<i64>::zeros((0, 2)),
        ndarray::Array1::<f32>::zeros(0),
        &[2, 2],
    )
    .unwrap();
    assert_eq!(x.nnz(), 0);
    assert!(x.is_canonical());
    assert_eq!(
        x.to_dense(&0.0f32, true).unwrap(),
        Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[2, 2])))
    );
    assert_eq!(
        x.to_dense(&7.0f32, true).unwrap(),
        Tensor::from(ArrayD::from_elem(IxDyn(&[2, 2]), 7.0f32))
    );
    let z = SparseTensor::from_dense(&ArrayD::<i64>::zeros(IxDyn(&[3, 0, 2]))).unwrap();
    assert_eq!((z.nnz(), z.dense_shape()), (0, &[3usize, 0, 2][..]));
    assert_eq!(
        SparseTensor::empty(DType::F64, &[4])
            .unwrap()
            .to_dense(&0.0f64, true)
            .unwrap(),
        Tensor::from(ndarray::Array1::<f64>::zeros(4))
    );
}

/// TF: `tf.sparse.to_dense(..., default_value=7.0)` fills the implicit elements with 7; a
/// rank-0 SparseTensor (indices `[1, 0]`, dense shape `[]`) densifies to its one value.
#[test]
fn default_value_and_rank_0_follow_tf() {
    let x = st(array![[0, 1]], array![1.0f32], &[2, 2]);
    assert_eq!(
        x.to_dense(&7.0f32, true).unwrap(),
        Tensor::from(array![[7.0f32, 1.0], [7.0, 7.0]])
    );
    let e = err(x.to_dense(&7.0f64, true));
    assert!(
        e.contains("default_value has dtype f64 but the values have dtype f32"),
        "{e}"
    );
    let s = SparseTensor::new(Array2::<i64>::zeros((1, 0)), array![5.0f32], &[]).unwrap();
    assert_eq!(
        s.to_dense(&0.0f32, true).unwrap(),
        Tensor::from(ndarray::arr0(5.0f32).into_dyn())
    );
}

/// TF: `tf.sparse.from_dense([[0, nan], [-0.0, inf]])` stores NaN and inf (they are not equal
/// to 0) and not -0.0; `to_dense` gives them back. Explicit zeros given to the constructor are
/// stored entries (TF keeps them: nnz counts them).
#[test]
fn nan_inf_and_explicit_zeros_follow_tf() {
    let d = array![
        [0.0f32, f32::NAN],
        [-0.0, f32::INFINITY],
        [f32::NEG_INFINITY, 0.0]
    ];
    let x = SparseTensor::from_dense(&d).unwrap();
    assert_eq!(x.indices_array(), array![[0i64, 1], [1, 1], [2, 0]]);
    let back: ndarray::Array2<f32> = x.to_dense(&0.0f32, true).unwrap().into_array().unwrap();
    assert!(
        back[[0, 1]].is_nan() && back[[1, 1]] == f32::INFINITY && back[[2, 0]] == f32::NEG_INFINITY
    );
    let z = st(array![[0, 0], [1, 1]], array![0.0f64, 2.0], &[2, 2]);
    assert_eq!(z.nnz(), 2);
    assert_eq!(
        z.to_dense(&1.0f64, true).unwrap(),
        Tensor::from(array![[0.0f64, 1.0], [1.0, 2.0]])
    );
}

/// Rank 1 and rank 3 round trips (`from_dense` then `to_dense`, TF's identity).
#[test]
fn rank_1_and_3_round_trip() {
    let d1 = array![0i32, 3, 0, -4];
    let x = SparseTensor::from_dense(&d1).unwrap();
    assert_eq!(x.indices_array(), array![[1i64], [3]]);
    assert_eq!(x.to_dense(&0i32, true).unwrap(), Tensor::from(d1));
    let d3 = ArrayD::from_shape_fn(IxDyn(&[2, 3, 4]), |i| {
        if (i[0] + i[1] * i[2]) % 3 == 0 {
            (i[2] + 1) as f64
        } else {
            0.0
        }
    });
    let x3 = SparseTensor::from_dense(&d3).unwrap();
    assert_eq!(x3.rank(), 3);
    assert!(x3.is_canonical());
    assert_eq!(x3.to_dense(&0.0f64, true).unwrap(), Tensor::from(d3));
    let b = SparseTensor::from_dense(&array![[true, false], [false, true]]).unwrap();
    assert_eq!(b.nnz(), 2);
}

/// TF's `SparseTensorSpec(shape, dtype)`: no number of entries; the shape is the dense shape.
/// Rebuilding from components under a relaxed spec keeps the exact dense shape (data), and a
/// dense shape that does not fit the spec is an error.
#[test]
fn spec_components_and_tensor_like() {
    let x = st(array![[0, 1], [2, 3]], array![1.0f32, 5.0], &[3, 4]);
    let spec = x.spec();
    assert_eq!(
        spec.to_string(),
        "extype.SparseTensor { indices: i64[?, 2], values: f32[?], dense_shape: [3, 4] }"
    );
    assert_eq!(spec, st(array![[1, 1]], array![9.0f32], &[3, 4]).spec());
    assert_eq!(
        (
            TensorLike::dtype(&spec),
            TensorLike::shape(&spec).to_string()
        ),
        (DType::F32, "[3, 4]".to_string())
    );
    assert_eq!(TensorLike::shape(&x).to_string(), "[3, 4]");
    let relaxed = SparseTensorSpec::new("[?, 4]".parse().unwrap(), DType::F32);
    assert!(relaxed.is_compatible_with(&spec));
    let back = relaxed
        .from_components(x.clone().into_components())
        .unwrap();
    assert_eq!(back.dense_shape(), &[3, 4]);
    assert_eq!(back, x);
    let other = SparseTensorSpec::new("[?, 5]".parse().unwrap(), DType::F32);
    let e = err(other.from_components(x.clone().into_components()));
    assert!(e.contains("does not fit the spec's shape [?, 5]"), "{e}");
    let joined = spec
        .most_specific_compatible(&st(array![[0, 0]], array![1.0f32], &[5, 4]).spec())
        .unwrap();
    assert_eq!(joined.dense_shape().to_string(), "[!1, 4]");
    // JSON round trip of the spec.
    let json = serde_json::to_string(&spec).unwrap();
    let parsed: SparseTensorSpec = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed, spec);
}

/// `Display`: dtype, dense shape, number of entries, indices and values.
#[test]
fn display() {
    let x = st(array![[0, 1, 0]], array![2i64], &[1, 2, 1]);
    assert_eq!(
        x.to_string(),
        "i64[1, 2, 1] nnz=1 indices [[0, 1, 0]] values [2]"
    );
}

/// TF's batching of SparseTensors: rank + 1, the first index column is the item, the dense
/// shape the largest of the items' on each axis; the spec is the batched join of the items'
/// specs; unbatching gives the items back (padded to the batch's shape when the items' shapes
/// differ, as TF's unbatch).
#[test]
fn batching_follows_tf() {
    use extype::batch::{BatchableSpec, stack, unstack};
    let a = st(array![[0, 1]], array![1.0f32], &[2, 3]);
    let b = st(array![[1, 0], [1, 2]], array![2.0f32, 3.0], &[2, 3]);
    let empty = SparseTensor::empty(DType::F32, &[2, 3]).unwrap();
    let batch = stack(&[a.clone(), empty.clone(), b.clone()]).unwrap();
    assert_eq!(batch.dense_shape(), &[3, 2, 3]);
    assert_eq!(
        batch.indices_array(),
        array![[0i64, 0, 1], [2, 1, 0], [2, 1, 2]]
    );
    assert!(batch.is_canonical());
    assert_eq!(batch.spec(), a.spec().batched(Some(3)));
    assert_eq!(batch.spec().unbatched().unwrap(), a.spec());
    assert_eq!(unstack(batch).unwrap(), vec![a.clone(), empty, b]);
    // Different dense shapes: the batch takes the largest; the spec is the batched join.
    let c = st(array![[4, 0]], array![5.0f32], &[5, 1]);
    let batch = stack(&[a.clone(), c.clone()]).unwrap();
    assert_eq!(batch.dense_shape(), &[2, 5, 3]);
    let join = a.spec().most_specific_compatible(&c.spec()).unwrap();
    assert_eq!(join.dense_shape().to_string(), "[!1, ?]"); // 3 and 1: a 1 is involved
    assert!(join.batched(Some(2)).is_compatible_with(&batch.spec()));
    let items = unstack(batch).unwrap();
    assert_eq!(items[1].indices_array(), c.indices_array());
    assert_eq!(items[1].dense_shape(), &[5, 3]);
    // Mixed dtypes or ranks: an error naming the item.
    let e = stack(&[a.clone(), st(array![[0]], array![1.0f32], &[2])])
        .unwrap_err()
        .to_string();
    assert!(e.contains("item 1"), "{e}");
}

/// Saved by `extype::io` as `extype.SparseTensor` (indices, values, dense_shape as tensors);
/// loaded back by type and by name.
#[test]
fn io_round_trip() {
    let dir = std::env::temp_dir().join(format!("extype-sparse-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sp.safetensors");
    let x = st(
        array![[0, 1, 2], [1, 0, 0]],
        array![1.5f64, -2.0],
        &[2, 3, 4],
    );
    extype::io::save(&path, &x).unwrap();
    let back: SparseTensor = extype::io::load_as(&path).unwrap();
    assert_eq!(back, x);
    assert_eq!(back.dense_shape(), &[2, 3, 4]);
    let any = extype::io::load(&path).unwrap();
    assert_eq!(any.type_name(), "extype.SparseTensor");
    assert_eq!(any.downcast::<SparseTensor>().unwrap(), x);
    // From the tensors alone (the spec read from the file: nnz and dense sizes unknown).
    let inferred: SparseTensor = extype::io::load_components_inferred(&path).unwrap();
    assert_eq!(inferred, x);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Huge dense shapes are values like any other; what would allocate the dense form is an error,
/// never a panic or an abort. (A dense shape whose non-zero sizes multiply past 2^63 - 1 is
/// refused on construction: see `tests/hostile_types.rs`.)
#[test]
fn huge_dense_shapes_are_errors_not_panics() {
    let (rows, cols) = (1usize << 40, 1usize << 22);
    let x = SparseTensor::new(array![[1i64 << 39, 5]], array![1.0f32], &[rows, cols]).unwrap();
    let e = err(x.to_dense(&0.0f32, true));
    assert!(e.contains("too large to exist"), "{e}");
    // 2^40 output elements (4 TiB).
    let e = err(x.reduce_sum(Some(&[1]), false, false));
    assert!(
        e.contains("cannot allocate") || e.contains("too large"),
        "{e}"
    );
    // The element count fits `i64`: the flat index is exact.
    let flat = x.reshape(&[-1]).unwrap();
    assert_eq!(flat.indices_array(), array![[(1i64 << 61) + 5]]);
    // Reducing to a small output works.
    let s = x
        .reduce_sum(None, false, false)
        .unwrap()
        .into_tensor()
        .unwrap();
    assert_eq!(s, Tensor::from(ndarray::arr0(1.0f32).into_dyn()));
    let t = x.transpose(None).unwrap();
    assert_eq!(t.indices_array(), array![[5i64, 1 << 39]]);
}

/// `to_dense` with a fill of `-0.0` fills `-0.0` (not the zeroed memory `+0.0` takes), and with
/// `+0.0` gives `+0.0`.
#[test]
fn to_dense_fill_keeps_the_sign_of_zero() {
    let x = st(array![[0, 1]], array![1.0f64], &[2, 2]);
    let d: ndarray::Array2<f64> = x.to_dense(&-0.0f64, true).unwrap().into_array().unwrap();
    assert!(d[[0, 0]] == 0.0 && d[[0, 0]].is_sign_negative() && d[[0, 1]] == 1.0);
    let d: ndarray::Array2<f64> = x.to_dense(&0.0f64, true).unwrap().into_array().unwrap();
    assert!(d[[1, 1]].is_sign_positive());
}

#[test]
fn half_precision_values_follow_tf() {
    // TF: tf.sparse.from_dense of a float16 / bfloat16 tensor stores its nonzero entries (NaN
    // included), to_dense puts them back; reduce_sum and sparse + sparse keep the dtype.
    use extype::half::{bf16, f16};
    let dense = array![[0.0f32, 1.5, 0.0], [f32::NAN, 0.0, -2.0]];
    let h = Tensor::from(dense.mapv(f16::from_f32).into_dyn());
    let b = Tensor::from(dense.mapv(bf16::from_f32).into_dyn());
    for (t, dtype) in [(h, DType::F16), (b, DType::BF16)] {
        let s = SparseTensor::from_dense(&t).unwrap();
        assert_eq!(s.dtype(), dtype);
        assert_eq!(s.nnz(), 3);
        let zero =
            extype::ops::cast_as::<Tensor>(&Tensor::from(ndarray::arr0(0.0f32).into_dyn()), dtype)
                .unwrap();
        let back = s.to_dense(&zero, true).unwrap();
        let bits = |t: &Tensor| -> Vec<u16> {
            match t.view() {
                extype::TensorView::F16(a) => a.iter().map(|x| x.to_bits()).collect(),
                extype::TensorView::BF16(a) => a.iter().map(|x| x.to_bits()).collect(),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(bits(&back), bits(&t));
        let twice: SparseTensor = extype::ops::add_as(&s, &s).unwrap();
        assert_eq!(twice.dtype(), dtype);
        let sum: Tensor = extype::ops::reduce_sum_as(&twice, None, false).unwrap();
        assert_eq!(sum.dtype(), dtype);
    }
}

/// TF 2.21: integer sums wrap, and `abs` of the wrapped minimum is the minimum itself, so
/// `tf.sparse.add` of int32 `{0: 2147483647, 1: 5}` and `{0: 1, 1: -5}` at threshold 0 gives
/// `[[1]]: [0]` (the wrapped sum dropped, the zero sum kept); at threshold 1, nothing.
#[test]
fn a_sum_that_wraps_to_the_minimum_is_dropped_as_tf() {
    let a = st(array![[0], [1]], array![i32::MAX, 5], &[2]);
    let b = st(array![[0], [1]], array![1i32, -5], &[2]);
    let c = a.add(&b, 0.0).unwrap();
    assert_eq!(c.indices_array(), array![[1i64]]);
    assert_eq!(c.values(), &Tensor::from(array![0i32]));
    assert_eq!(a.add(&b, 1.0).unwrap().nnz(), 0);
}

/// TF 2.21: `tf.sparse.add(a, b, threshold)` keeps a sum when `threshold <= abs(sum)`, which is
/// false for NaN: with a = {0: nan, 1: 1, 2: inf} and b = {0: 1, 1: -1, 2: -inf, 3: nan} of
/// shape [4], threshold 0 gives indices [[1], [3]], values [0, nan] (the sums nan + 1 and
/// inf + -inf are dropped, the cancelled 0 kept, b's lone NaN kept); threshold 0.5 gives
/// [[3]], [nan].
#[test]
fn a_nan_sum_is_dropped_at_any_threshold_as_tf() {
    let a = st(
        array![[0i64], [1], [2]],
        array![f32::NAN, 1.0, f32::INFINITY],
        &[4],
    );
    let b = st(
        array![[0i64], [1], [2], [3]],
        array![1.0f32, -1.0, f32::NEG_INFINITY, f32::NAN],
        &[4],
    );
    let at0 = a.add(&b, 0.0).unwrap();
    assert_eq!(at0.indices_array(), array![[1i64], [3]]);
    let v = at0.values().as_array::<f32, IxDyn>().unwrap().to_owned();
    assert!(v[[0]] == 0.0 && v[[1]].is_nan(), "{v}");
    let half = a.add(&b, 0.5).unwrap();
    assert_eq!(half.indices_array(), array![[3i64]]);
    // The operator and `ops::add` are threshold 0.
    let op = (&a + &b).unwrap();
    assert_eq!(op.indices_array(), array![[1i64], [3]]);
    // Rank 3 takes the general merge: the same rule.
    let a3 = st(
        array![[0i64, 0, 0], [0, 0, 1]],
        array![f32::NAN, 2.0],
        &[1, 1, 2],
    );
    let b3 = st(
        array![[0i64, 0, 0], [0, 0, 1]],
        array![1.0f32, 3.0],
        &[1, 1, 2],
    );
    assert_eq!(
        a3.add(&b3, 0.0).unwrap().indices_array(),
        array![[0i64, 0, 1]]
    );
}

/// Indices and values print whole up to 1000 elements each, summarised above (NumPy's rules).
#[test]
fn display_summarises_only_over_a_thousand_elements() {
    let n = 600usize;
    let indices =
        ndarray::Array2::from_shape_fn((n, 2), |(i, j)| if j == 0 { 0 } else { i as i64 });
    let values = ndarray::Array1::from_iter((0..n).map(|i| i as f32));
    let x = SparseTensor::new(indices, values, &[1, n]).unwrap();
    let text = x.to_string();
    // 1200 indices: summarised; 600 values: whole.
    assert!(
        text.starts_with("f32[1, 600] nnz=600 indices [[0, 0], [0, 1], [0, 2], ..., [0, 597], [0, 598], [0, 599]] values [0.0, 1.0, 2.0, 3.0,"),
        "{text}"
    );
    assert!(text.ends_with("598.0, 599.0]"), "{text}");
    assert!(
        !text[text.find("values").unwrap()..].contains("..."),
        "{text}"
    );
}

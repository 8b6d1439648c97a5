//! `SparseTensor` ops: conformance with `tf.sparse` (each test names the TensorFlow behaviour it
//! follows) and property tests against the same op on the dense form.

use extype::ops;
use extype::types::{SparseTensor, SparseTensorSpec, sparse::sparse_dense_matmul};
use extype::{DType, ExtensionType, OpArgs, Tensor, ValueSpec};
use ndarray::{Array2, ArrayD, IxDyn, array};
use proptest::prelude::*;

fn st(indices: Array2<i64>, values: impl Into<Tensor>, shape: &[usize]) -> SparseTensor {
    SparseTensor::new(indices, values, shape).unwrap()
}

fn dense(x: &SparseTensor) -> Tensor {
    x.to_dense(&Tensor::from(ndarray::arr0(0.0f64).into_dyn()), false)
        .unwrap()
}

/// TF: `tf.sparse.add` of `[[0,0],[1,1]]: [1, 2]` and `[[0,0],[1,2]]: [-1, 3]` is
/// `[[0,0],[1,1],[1,2]]: [0, 2, 3]` (the zero sum kept); with `threshold=0.5` the zero sum is
/// dropped, with 2.5 the single entries 2 and 3 are still kept (only sums are thresholded); an
/// explicit zero of one operand is kept; shapes that differ raise "Operands' shapes do not
/// match".
#[test]
fn sparse_add_follows_tf() {
    let a = st(array![[0, 0], [1, 1]], array![1.0f32, 2.0], &[2, 3]);
    let b = st(array![[0, 0], [1, 2]], array![-1.0f32, 3.0], &[2, 3]);
    let c: SparseTensor = ops::add_as(&a, &b).unwrap();
    assert_eq!(c.indices_array(), array![[0i64, 0], [1, 1], [1, 2]]);
    assert_eq!(c.values(), &Tensor::from(array![0.0f32, 2.0, 3.0]));
    assert!(c.is_canonical());
    assert_eq!((&a + &b).unwrap(), c);
    assert_eq!(
        a.add(&b, 0.5).unwrap().indices_array(),
        array![[1i64, 1], [1, 2]]
    );
    assert_eq!(
        a.add(&b, 2.5).unwrap().values(),
        &Tensor::from(array![2.0f32, 3.0])
    );
    let z = st(array![[0, 1]], array![0.0f32], &[2, 3]);
    let az = a.add(&z, 1e-9).unwrap();
    assert_eq!(az.values(), &Tensor::from(array![1.0f32, 0.0, 2.0]));
    let e = a
        .add(&st(array![[0, 0]], array![1.0f32], &[2, 4]), 0.0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Operands' shapes do not match: [2, 3] and [2, 4]"),
        "{e}"
    );
    let e = a
        .add(&st(array![[0, 0]], array![1.0f64], &[2, 3]), 0.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("found f32 and f64"), "{e}");
}

/// TF merges the stored order as it is: repeated indices in one operand (`[0,0]` twice plus
/// `[0,0]` in the other) give `[[0,0],[0,0],[1,2]]: [0, 2, 3]`; unordered input gives its merge
/// unordered (`[[0,0],[1,1],[0,0],[1,2]]: [-1, 1, 2, 3]`).
#[test]
fn sparse_add_of_duplicates_and_unordered_follows_tf() {
    let b = st(array![[0, 0], [1, 2]], array![-1.0f32, 3.0], &[2, 3]);
    let dup = st(array![[0, 0], [0, 0]], array![1.0f32, 2.0], &[2, 3]);
    let c = dup.add(&b, 0.0).unwrap();
    assert_eq!(c.indices_array(), array![[0i64, 0], [0, 0], [1, 2]]);
    assert_eq!(c.values(), &Tensor::from(array![0.0f32, 2.0, 3.0]));
    assert!(!c.is_canonical());
    let un = st(array![[1, 1], [0, 0]], array![1.0f32, 2.0], &[2, 3]);
    let c = un.add(&b, 0.0).unwrap();
    assert_eq!(c.indices_array(), array![[0i64, 0], [1, 1], [0, 0], [1, 2]]);
    assert_eq!(c.values(), &Tensor::from(array![-1.0f32, 1.0, 2.0, 3.0]));
}

/// TF: `tf.sparse.add(sparse, dense)` is dense (`[[2,1,1],[1,3,1]]`); a dense operand of another
/// shape raises (no broadcasting), of another dtype too.
#[test]
fn sparse_plus_dense_follows_tf() {
    let a = st(array![[0, 0], [1, 1]], array![1.0f32, 2.0], &[2, 3]);
    let d = ArrayD::<f32>::ones(IxDyn(&[2, 3]));
    let c: Tensor = ops::add_as(&a, &d).unwrap();
    assert_eq!(c, Tensor::from(array![[2.0f32, 1.0, 1.0], [1.0, 3.0, 1.0]]));
    assert_eq!(ops::add_as::<Tensor>(&d, &a).unwrap(), c);
    let e = ops::add(&a, &ArrayD::<f32>::ones(IxDyn(&[3])))
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not broadcast"), "{e}");
    let e = ops::add(&a, &ArrayD::<f64>::ones(IxDyn(&[2, 3])))
        .unwrap_err()
        .to_string();
    assert!(e.contains("found f32 and f64"), "{e}");
}

/// TF: `sparse * dense` keeps the sparse entries: a NaN and an inf of the dense operand at
/// implicit zeros never appear (`[nan, 6]` at `[[0,0],[1,1]]`); the dense operand broadcasts to
/// the sparse one (`* [10, 20, 30]` → `[10, 40]`) and not the other way ("broadcasts dense to
/// sparse only", which also refuses a dense axis of 1 against an empty sparse one); `* 2.0`
/// scales the values.
#[test]
fn sparse_times_dense_and_scalar_follow_tf() {
    let a = st(array![[0, 0], [1, 1]], array![1.0f32, 2.0], &[2, 3]);
    let d = array![[f32::NAN, 2.0, f32::INFINITY], [f32::NAN, 3.0, 4.0]];
    let c: SparseTensor = ops::mul_as(&a, &d).unwrap();
    assert_eq!(c.indices_array(), a.indices_array());
    let v: ndarray::Array1<f32> = c.values().clone().into_array().unwrap();
    assert!(v[0].is_nan() && v[1] == 6.0);
    let c: SparseTensor = ops::mul_as(&array![10.0f32, 20.0, 30.0], &a).unwrap();
    assert_eq!(c.values(), &Tensor::from(array![10.0f32, 40.0]));
    let e = ops::mul(&a, &ArrayD::<f32>::ones(IxDyn(&[4, 2, 3])))
        .unwrap_err()
        .to_string();
    assert!(e.contains("broadcasts to the sparse operand only"), "{e}");
    // TF also refuses a dense axis of 1 against an empty sparse axis ("SparseDenseBinaryOpShared
    // broadcasts dense to sparse only; got incompatible shapes: [0,2] vs. [1,1]").
    let empty = SparseTensor::empty(extype::DType::F32, &[0, 2]).unwrap();
    let e = ops::mul(&empty, &ArrayD::<f32>::ones(IxDyn(&[1, 1])))
        .unwrap_err()
        .to_string();
    assert!(e.contains("broadcasts to the sparse operand only"), "{e}");
    let e = ops::mul(
        &SparseTensor::empty(extype::DType::F32, &[2, 0]).unwrap(),
        &ArrayD::<f32>::ones(IxDyn(&[1])),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("got incompatible shapes: [2, 0] vs. [1]"), "{e}");
    assert!(ops::mul(&empty, &ArrayD::<f32>::ones(IxDyn(&[2]))).is_ok());
    let s = (&a * 2.0).unwrap();
    assert_eq!(s.values(), &Tensor::from(array![2.0f32, 4.0]));
    assert_eq!((2.0 * &a).unwrap(), s);
}

/// TF: `sparse / dense` and `sparse / scalar` are `SparseDenseCwiseDiv`
/// (`tf.sparse.SparseTensor.__truediv__`): the result keeps the sparse entries, each value
/// divided by the dense element at its index (`[1, 2] / [[1, 0, 4], [2, 4, 0]]` → `[1, 0.5]`;
/// the zeros of the dense operand at implicit entries never divide anything; a stored entry
/// over 0 is inf); the dense operand broadcasts to the sparse one only (`/ [10, 20, 30]` →
/// `[0.1, 0.1]`); `/ 2.0` scales the values. Integer values: TF's `/` casts them to float64
/// (int32) first; extype's `div` is of floats only, as on dense tensors, and asks for the cast.
/// `dense / sparse` raises a TypeError in TF (extype: an error that says to densify).
#[test]
fn sparse_divided_by_dense_and_scalar_follows_tf() {
    let a = st(array![[0, 0], [1, 1]], array![1.0f32, 2.0], &[2, 3]);
    let d = array![[1.0f32, 0.0, 4.0], [2.0, 4.0, 0.0]];
    let c: SparseTensor = ops::div_as(&a, &d).unwrap();
    assert_eq!(c.indices_array(), a.indices_array());
    assert_eq!(c.dense_shape(), &[2, 3]);
    assert_eq!(c.values(), &Tensor::from(array![1.0f32, 0.5]));
    let zero = array![[0.0f32, 1.0, 1.0], [1.0, 0.0, 1.0]];
    let c: SparseTensor = ops::div_as(&a, &zero).unwrap();
    assert_eq!(
        c.values(),
        &Tensor::from(array![f32::INFINITY, f32::INFINITY])
    );
    let c: SparseTensor = ops::div_as(&a, &array![10.0f32, 20.0, 30.0]).unwrap();
    assert_eq!(c.values(), &Tensor::from(array![0.1f32, 0.1]));
    let s = (&a / 2.0).unwrap();
    assert_eq!(s.values(), &Tensor::from(array![0.5f32, 1.0]));
    assert_eq!(s.indices_array(), a.indices_array());
    let s: SparseTensor = ops::div_as(&a, &ndarray::arr0(4.0f32)).unwrap();
    assert_eq!(s.values(), &Tensor::from(array![0.25f32, 0.5]));
    // Half floats divide in f32, rounded once.
    let h = st(array![[1]], array![extype::half::bf16::from_f32(1.0)], &[3]);
    let q: SparseTensor = ops::div_as(
        &h,
        &ndarray::Array1::from_elem(3, extype::half::bf16::from_f32(3.0)),
    )
    .unwrap();
    assert_eq!(
        q.values(),
        &Tensor::from(array![extype::half::bf16::from_f32(1.0 / 3.0)])
    );
    // The same broadcast refusal as mul.
    let e = ops::div(&a, &ArrayD::<f32>::ones(IxDyn(&[4, 2, 3])))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("broadcasts to the sparse operand only (TensorFlow's SparseDenseCwiseDiv)"),
        "{e}"
    );
    // Integers: cast first.
    let i = st(array![[0, 0]], array![3i32], &[1, 1]);
    let e = ops::div(&i, &array![[2i32]]).unwrap_err().to_string();
    assert!(
        e.contains("divides as floats only") && e.contains("ops::cast"),
        "{e}"
    );
    // One dtype.
    let e = ops::div(&a, &array![2.0f64]).unwrap_err().to_string();
    assert!(e.contains("cast first"), "{e}");
    // dense / sparse: not defined (TF: TypeError).
    let e = ops::div(&d, &a).unwrap_err().to_string();
    assert!(
        e.contains("(dense, SparseTensor)") && e.contains("densify first"),
        "{e}"
    );
    // Spec inference agrees.
    let spec = |shape: &str, d| {
        ValueSpec::Extension(Box::new(SparseTensorSpec::new(shape.parse().unwrap(), d)))
    };
    let dense_spec =
        |shape: &str, d| ValueSpec::Tensor(extype::TensorSpec::new(shape.parse().unwrap(), d));
    let div = ops::catalog::lookup("div").unwrap();
    let inferred = ops::infer_spec(
        div,
        &[&spec("[?, 3]", DType::F32), &dense_spec("[3]", DType::F32)],
        &OpArgs::none(),
    )
    .unwrap();
    assert_eq!(
        inferred.spec.to_string(),
        "extype.SparseTensor { indices: i64[?, 2], values: f32[?], dense_shape: [?, 3] }"
    );
    let e = ops::infer_spec(
        div,
        &[&spec("[?, 3]", DType::I64), &dense_spec("[3]", DType::I64)],
        &OpArgs::none(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("divides as floats only"), "{e}");
}

/// TF: `neg` and `abs` map the stored values; `exp` of a SparseTensor raises (extype: an error
/// that says to densify); `sparse - sparse` raises a TypeError in TF (extype: the same error).
#[test]
fn unary_and_other_binary_ops_follow_tf() {
    let a = st(array![[0, 0], [1, 1]], array![-1.0f32, 2.0], &[2, 3]);
    let n: SparseTensor = ops::neg_as(&a).unwrap();
    assert_eq!(n.values(), &Tensor::from(array![1.0f32, -2.0]));
    assert_eq!(
        ops::abs_as::<SparseTensor>(&a).unwrap().values(),
        &Tensor::from(array![1.0f32, 2.0])
    );
    for op in [
        ops::sqrt,
        ops::sin,
        ops::tanh,
        ops::floor,
        ops::ceil,
        ops::round,
        ops::is_nan,
    ] {
        let out = op(&a).unwrap().downcast::<SparseTensor>().unwrap();
        assert_eq!(out.nnz(), 2);
    }
    let e = ops::exp(&a).unwrap_err().to_string();
    assert!(
        e.contains("exp(0) is not 0, so the result would be dense; densify first"),
        "{e}"
    );
    assert!(ops::cos(&a).is_err() && ops::logical_not(&a).is_err() && ops::is_finite(&a).is_err());
    let e = ops::sub(&a, &a).unwrap_err().to_string();
    assert!(e.contains("densify first with `to_dense`"), "{e}");
    let e = ops::maximum(&a, &array![1.0f32]).unwrap_err().to_string();
    assert!(e.contains("(SparseTensor, dense)"), "{e}");
}

/// TF: `tf.sparse.sparse_dense_matmul` (`[[1,1],[2,2]]`; adjoint_a `[[1,1],[0,0],[2,2]]`;
/// adjoint_b alike; repeated entries add up, `[[3,3],[0,0]]`; a NaN of B in a row no entry reads
/// never appears; a mismatched inner dimension raises "Cannot multiply A and B because inner
/// dimension does not match: 3 vs. 4"; rank 3 raises; int32 works).
#[test]
fn sparse_dense_matmul_follows_tf() {
    let a = st(array![[0, 0], [1, 2]], array![1.0f32, 2.0], &[2, 3]);
    let ones = |r, c| Tensor::from(Array2::<f32>::ones((r, c)));
    assert_eq!(
        sparse_dense_matmul(&a, &ones(3, 2), false, false).unwrap(),
        Tensor::from(array![[1.0f32, 1.0], [2.0, 2.0]])
    );
    assert_eq!(
        sparse_dense_matmul(&a, &ones(2, 2), true, false).unwrap(),
        Tensor::from(array![[1.0f32, 1.0], [0.0, 0.0], [2.0, 2.0]])
    );
    assert_eq!(
        sparse_dense_matmul(&a, &ones(2, 3), false, true).unwrap(),
        Tensor::from(array![[1.0f32, 1.0], [2.0, 2.0]])
    );
    let dup = st(array![[0, 0], [0, 0]], array![1.0f32, 2.0], &[2, 3]);
    assert_eq!(
        sparse_dense_matmul(&dup, &ones(3, 2), false, false).unwrap(),
        Tensor::from(array![[3.0f32, 3.0], [0.0, 0.0]])
    );
    let nan = Tensor::from(array![[1.0f32, 1.0], [f32::NAN, 1.0], [1.0, 1.0]]);
    assert_eq!(
        ops::matmul_as::<Tensor>(&a, &nan).unwrap(),
        Tensor::from(array![[1.0f32, 1.0], [2.0, 2.0]])
    );
    let e = sparse_dense_matmul(&a, &ones(4, 2), false, false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Cannot multiply A and B because inner dimension does not match: 3 vs. 4"),
        "{e}"
    );
    let a3 = st(array![[0, 0, 0]], array![1.0f32], &[1, 2, 3]);
    assert!(
        sparse_dense_matmul(&a3, &ones(3, 2), false, false)
            .unwrap_err()
            .to_string()
            .contains("rank-2")
    );
    let ai = st(array![[0, 0]], array![3i32], &[2, 3]);
    let bi = Tensor::from(Array2::<i32>::ones((3, 2)));
    assert_eq!(
        sparse_dense_matmul(&ai, &bi, false, false).unwrap(),
        Tensor::from(array![[3i32, 3], [0, 0]])
    );
}

/// Spec inference of the ops on sparse specs.
#[test]
fn spec_inference() {
    let s = |shape: &str, d| {
        ValueSpec::Extension(Box::new(SparseTensorSpec::new(shape.parse().unwrap(), d)))
    };
    let t = |shape: &str, d| ValueSpec::Tensor(extype::TensorSpec::new(shape.parse().unwrap(), d));
    let none = OpArgs::none();
    let cat = |name| ops::catalog::lookup(name).unwrap();
    let add = ops::infer_spec(
        cat("add"),
        &[&s("[?, 3]", DType::F32), &s("[2, ?]", DType::F32)],
        &none,
    )
    .unwrap();
    assert_eq!(
        add.spec.to_string(),
        "extype.SparseTensor { indices: i64[?, 2], values: f32[?], dense_shape: [2, 3] }"
    );
    let e = ops::infer_spec(
        cat("add"),
        &[&s("[4, 3]", DType::F32), &s("[2, ?]", DType::F32)],
        &none,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("Operands' shapes do not match"), "{e}");
    let dense = ops::infer_spec(
        cat("add"),
        &[&s("[?, 3]", DType::F32), &t("[2, 3]", DType::F32)],
        &none,
    )
    .unwrap();
    assert_eq!(dense.spec.to_string(), "f32[2, 3]");
    let mul = ops::infer_spec(
        cat("mul"),
        &[&t("[3]", DType::F64), &s("[?, 3]", DType::F64)],
        &none,
    )
    .unwrap();
    assert_eq!(
        mul.spec.to_string(),
        "extype.SparseTensor { indices: i64[?, 2], values: f64[?], dense_shape: [?, 3] }"
    );
    let e = ops::infer_spec(
        cat("mul"),
        &[&s("[?, 0]", DType::F64), &t("[1]", DType::F64)],
        &none,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("broadcasts to the sparse operand only"), "{e}");
    let e = ops::infer_spec(cat("exp"), &[&s("[5]", DType::F32)], &none)
        .unwrap_err()
        .to_string();
    assert!(e.contains("exp(0) is not 0"), "{e}");
    let neg = ops::infer_spec(cat("neg"), &[&s("[5]", DType::I32)], &none).unwrap();
    assert_eq!(
        neg.spec.to_string(),
        "extype.SparseTensor { indices: i64[?, 1], values: i32[?], dense_shape: [5] }"
    );
    let mm = ops::infer_spec(
        cat("matmul"),
        &[&s("[?, 3]", DType::F32), &t("[3, 64]", DType::F32)],
        &none,
    )
    .unwrap();
    assert_eq!(mm.spec.to_string(), "f32[?, 64]");
    let e = ops::infer_spec(
        cat("matmul"),
        &[&s("[?, 3]", DType::F32), &t("[4, 64]", DType::F32)],
        &none,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("inner dimension does not match: 3 vs. 4"), "{e}");
    // The spec of a value agrees with what inference says.
    let a = st(array![[0, 0]], array![1.0f32], &[2, 3]);
    let out: SparseTensor = ops::add_as(&a, &a).unwrap();
    assert_eq!(
        ValueSpec::Extension(Box::new(out.spec())).to_string(),
        add.spec.to_string()
    );
}

/// A random dense array of `shape` with about half its elements zero, small integers otherwise
/// (exact in every dtype).
fn arb_dense(shape: Vec<usize>) -> impl Strategy<Value = ArrayD<f64>> {
    let n: usize = shape.iter().product();
    proptest::collection::vec(prop_oneof![Just(0.0), (-4i32..5).prop_map(f64::from)], n)
        .prop_map(move |v| ArrayD::from_shape_vec(IxDyn(&shape), v).unwrap())
}

fn arb_shape() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0usize..5, 1..4)
}

/// A sparse tensor of a dense array, optionally with its entries shuffled (unordered) and
/// some split into two entries that add up (duplicates), for ops that accept any order.
fn sparse_of(d: &ArrayD<f64>) -> SparseTensor {
    SparseTensor::from_dense(d).unwrap()
}

proptest! {
    #[test]
    fn add_matches_dense((a, b) in arb_shape().prop_flat_map(|s| (arb_dense(s.clone()), arb_dense(s)))) {
        let (sa, sb) = (sparse_of(&a), sparse_of(&b));
        let sum: SparseTensor = ops::add_as(&sa, &sb).unwrap();
        prop_assert!(sum.is_canonical());
        prop_assert_eq!(dense(&sum), Tensor::from(&a + &b));
        let mixed: Tensor = ops::add_as(&sa, &b).unwrap();
        prop_assert_eq!(mixed, Tensor::from(&a + &b));
        // Threshold 0.5 drops exactly the zero sums of entries stored in both.
        let thr = sa.add(&sb, 0.5).unwrap();
        prop_assert_eq!(dense(&thr), Tensor::from(&a + &b));
        prop_assert!(ops::reduce_any_as::<Tensor>(&ops::equal_as::<Tensor>(thr.values(), &0.0f64).unwrap(), None, false).unwrap()
            == Tensor::from(ndarray::arr0(false).into_dyn()));
    }

    #[test]
    fn mul_matches_dense((a, b) in arb_shape().prop_flat_map(|s| (arb_dense(s.clone()), arb_dense(s)))) {
        let sa = sparse_of(&a);
        let prod: SparseTensor = ops::mul_as(&sa, &b).unwrap();
        prop_assert_eq!(prod.nnz(), sa.nnz());
        prop_assert_eq!(dense(&prod), Tensor::from(&a * &b));
        let last = b.shape().len() - 1;
        if b.shape()[0] > 0 && last > 0 {
            let row = b.index_axis(ndarray::Axis(0), 0).to_owned();
            let p: SparseTensor = ops::mul_as(&row, &sa).unwrap();
            prop_assert_eq!(dense(&p), Tensor::from(&a * &row));
        }
        let neg: SparseTensor = ops::neg_as(&sa).unwrap();
        prop_assert_eq!(dense(&neg), Tensor::from(-&a));
    }

    #[test]
    fn sparse_dense_matmul_matches_dense(n in 0usize..6, k in 0usize..6, m in 0usize..5, adj_a in any::<bool>(), adj_b in any::<bool>(), seed in any::<u64>()) {
        let mut s = seed;
        let mut next = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); let r = (s >> 40) % 7; if r < 3 { 0.0 } else { r as f64 - 4.0 } };
        let a_shape = if adj_a { (k, n) } else { (n, k) };
        let b_shape = if adj_b { (m, k) } else { (k, m) };
        let a = Array2::from_shape_fn(a_shape, |_| next());
        let b = Array2::from_shape_fn(b_shape, |_| next());
        let got = sparse_dense_matmul(&sparse_of(&a.clone().into_dyn()), &Tensor::from(b.clone()), adj_a, adj_b).unwrap();
        let oa = if adj_a { a.t().to_owned() } else { a };
        let ob = if adj_b { b.t().to_owned() } else { b };
        prop_assert_eq!(got, Tensor::from(oa.dot(&ob)));
    }
}

fn sh(x: &SparseTensor) -> (Array2<i64>, Tensor, Vec<usize>) {
    (
        x.indices_array().to_owned(),
        x.values().clone(),
        x.dense_shape().to_vec(),
    )
}

/// TF: `tf.sparse.reduce_sum` of `[[0,0],[1,2]]: [1, 2]` in `[2,3]`: axis 1 `[1, 2]`, keepdims
/// `[[1],[2]]`, all `3`, axis -1 alike, repeated axes one axis, axis 2 raises "Invalid reduction
/// dimension 2, for input with 2 dimensions."; output_is_sparse on axis 0 gives `[[0],[2]]: [1,
/// 2]` in `[3]`; a zero sum stays an entry; with keepdims the indices keep a 0 column; over all
/// axes a rank-0 SparseTensor with one entry; an int32 sum stays int32; no entry → 0.
#[test]
fn reduce_sum_follows_tf() {
    let a = st(array![[0, 0], [1, 2]], array![1.0f32, 2.0], &[2, 3]);
    let d = |v: extype::Value| v.into_tensor().unwrap();
    assert_eq!(
        d(a.reduce_sum(Some(&[1]), false, false).unwrap()),
        Tensor::from(array![1.0f32, 2.0])
    );
    assert_eq!(
        d(a.reduce_sum(Some(&[1]), true, false).unwrap()),
        Tensor::from(array![[1.0f32], [2.0]])
    );
    assert_eq!(
        d(a.reduce_sum(None, false, false).unwrap()),
        Tensor::from(ndarray::arr0(3.0f32).into_dyn())
    );
    assert_eq!(
        d(a.reduce_sum(Some(&[-1]), false, false).unwrap()),
        Tensor::from(array![1.0f32, 2.0])
    );
    assert_eq!(
        d(a.reduce_sum(Some(&[1, 1]), false, false).unwrap()),
        Tensor::from(array![1.0f32, 2.0])
    );
    let e = a
        .reduce_sum(Some(&[2]), false, false)
        .unwrap_err()
        .to_string();
    // TF: "Invalid reduction dimension 2, for input with 2 dimensions."; extype gives the
    // words every op gives for an axis out of range, naming the op and the rank.
    assert_eq!(
        e, "reduce_sum: axes: expected an axis in -2..2 (rank 2), found 2",
        "{e}"
    );
    let s = a
        .reduce_sum(Some(&[0]), false, true)
        .unwrap()
        .downcast::<SparseTensor>()
        .unwrap();
    assert_eq!(
        sh(&s),
        (
            array![[0i64], [2]],
            Tensor::from(array![1.0f32, 2.0]),
            vec![3]
        )
    );
    let z = st(array![[0, 0], [0, 1]], array![1.0f32, -1.0], &[2, 3]);
    let s = z
        .reduce_sum(Some(&[1]), false, true)
        .unwrap()
        .downcast::<SparseTensor>()
        .unwrap();
    assert_eq!(
        sh(&s),
        (array![[0i64]], Tensor::from(array![0.0f32]), vec![2])
    );
    let k = st(array![[0, 0], [1, 1]], array![1.0f32, -1.0], &[2, 3]);
    let s = k
        .reduce_sum(Some(&[1]), true, true)
        .unwrap()
        .downcast::<SparseTensor>()
        .unwrap();
    assert_eq!(
        sh(&s),
        (
            array![[0i64, 0], [1, 0]],
            Tensor::from(array![1.0f32, -1.0]),
            vec![2, 1]
        )
    );
    let s = k
        .reduce_sum(None, false, true)
        .unwrap()
        .downcast::<SparseTensor>()
        .unwrap();
    assert_eq!(
        sh(&s),
        (Array2::zeros((1, 0)), Tensor::from(array![0.0f32]), vec![])
    );
    let i = st(array![[1, 0], [0, 0]], array![1i32, 2], &[2, 3]);
    assert_eq!(
        d(i.reduce_sum(Some(&[1]), false, false).unwrap()),
        Tensor::from(array![2i32, 1])
    );
    let empty = SparseTensor::empty(DType::F32, &[2, 3]).unwrap();
    assert_eq!(
        d(empty.reduce_sum(Some(&[1]), false, false).unwrap()),
        Tensor::from(array![0.0f32, 0.0])
    );
    // Through dispatch: the dense result; other reductions say to densify.
    assert_eq!(
        ops::reduce_sum_as::<Tensor>(&a, Some(&[1]), false).unwrap(),
        Tensor::from(array![1.0f32, 2.0])
    );
    let e = ops::reduce_prod(&a, None, false).unwrap_err().to_string();
    assert!(e.contains("densify first"), "{e}");
    // inf + -inf in one slice: NaN, as TF.
    let inf = st(
        array![[0, 0], [0, 1]],
        array![f32::INFINITY, f32::NEG_INFINITY],
        &[2, 3],
    );
    let v: ndarray::Array1<f32> = d(inf.reduce_sum(Some(&[1]), false, false).unwrap())
        .into_array()
        .unwrap();
    assert!(v[0].is_nan() && v[1] == 0.0);
}

/// TF: `tf.sparse.reduce_max` of `[[0,0],[1,2]]: [-1, -2]` in `[3,3]` over axis 1 is
/// `[-1, -2, 0]` (stored values only; 0 for a slice with none); over all axes `-1`;
/// output_is_sparse `[[0],[1]]: [-1, -2]`; `[nan, 1] → 1`, `[1, nan] → nan`, `[nan] → nan`;
/// `[-inf]` stays `-inf`; unordered input is fine (`[2, 1]`); int8 `[-5, 0]`.
#[test]
fn reduce_max_follows_tf() {
    let d = |v: extype::Value| v.into_tensor().unwrap();
    let n = st(array![[0, 0], [1, 2]], array![-1.0f32, -2.0], &[3, 3]);
    assert_eq!(
        d(n.reduce_max(Some(&[1]), false, false).unwrap()),
        Tensor::from(array![-1.0f32, -2.0, 0.0])
    );
    assert_eq!(
        d(n.reduce_max(None, false, false).unwrap()),
        Tensor::from(ndarray::arr0(-1.0f32).into_dyn())
    );
    let s = n
        .reduce_max(Some(&[1]), false, true)
        .unwrap()
        .downcast::<SparseTensor>()
        .unwrap();
    assert_eq!(
        sh(&s),
        (
            array![[0i64], [1]],
            Tensor::from(array![-1.0f32, -2.0]),
            vec![3]
        )
    );
    let max1 = |v: [f32; 2]| -> f32 {
        let x = st(
            array![[0, 0], [0, 1]],
            ndarray::Array1::from(v.to_vec()),
            &[1, 3],
        );
        let t: ndarray::Array1<f32> = d(x.reduce_max(Some(&[1]), false, false).unwrap())
            .into_array()
            .unwrap();
        t[0]
    };
    assert_eq!(max1([f32::NAN, 1.0]), 1.0);
    assert!(max1([1.0, f32::NAN]).is_nan());
    assert_eq!(
        max1([f32::NEG_INFINITY, f32::NEG_INFINITY]),
        f32::NEG_INFINITY
    );
    let un = st(array![[1, 0], [0, 0]], array![1.0f64, 2.0], &[2, 3]);
    assert_eq!(
        d(un.reduce_max(Some(&[1]), false, false).unwrap()),
        Tensor::from(array![2.0f64, 1.0])
    );
    let i8s = st(array![[0, 0]], array![-5i8], &[2, 3]);
    assert_eq!(
        d(i8s.reduce_max(Some(&[1]), false, false).unwrap()),
        Tensor::from(array![-5i8, 0])
    );
    assert_eq!(
        ops::reduce_max_as::<Tensor>(&n, Some(&[1]), false).unwrap(),
        Tensor::from(array![-1.0f32, -2.0, 0.0])
    );
}

/// TF 2.21 reduces each output element's values with Eigen's vectorised maximum, in its order
/// of the entries (by output element, then the reduced axes): whole packets (4 `f64`, 8 `f32`)
/// skip a NaN, the values after them keep one. Over all axes of a `[4]` f64 tensor storing
/// `[1, 2, 3, nan]` it is 3, `[1, 2, 3, 4, nan]` in `[5]` is NaN, f32 `[1, 2, 3, nan]` is NaN;
/// the unordered `[[2],[0],[1],[3]]: [3, 1, nan, 2]` is reordered to `[1, nan, 3, 2]` → 3; of
/// two zeros the later in that order wins (`[[1],[0]]: [-0.0, 0.0]` → `-0.0`).
#[test]
fn reduce_max_follows_tf_with_nan_in_packets() {
    let all = |x: &SparseTensor| {
        x.reduce_max(None, false, false)
            .unwrap()
            .into_tensor()
            .unwrap()
    };
    let nan = f64::NAN;
    let x = st(array![[0], [1], [2], [3]], array![1.0, 2.0, 3.0, nan], &[4]);
    assert_eq!(all(&x), Tensor::from(ndarray::arr0(3.0f64).into_dyn()));
    let x = st(
        array![[0], [1], [2], [3], [4]],
        array![1.0, 2.0, 3.0, 4.0, nan],
        &[5],
    );
    let v: f64 = all(&x).into_array::<f64, ndarray::IxDyn>().unwrap()[[]];
    assert!(v.is_nan());
    let x = st(
        array![[0], [1], [2], [3]],
        array![1.0f32, 2.0, 3.0, f32::NAN],
        &[4],
    );
    let v: f32 = all(&x).into_array::<f32, ndarray::IxDyn>().unwrap()[[]];
    assert!(v.is_nan());
    let un = st(array![[2], [0], [1], [3]], array![3.0, 1.0, nan, 2.0], &[4]);
    assert_eq!(all(&un), Tensor::from(ndarray::arr0(3.0f64).into_dyn()));
    let zeros = st(array![[1], [0]], array![-0.0f64, 0.0], &[2]);
    let v: f64 = all(&zeros).into_array::<f64, ndarray::IxDyn>().unwrap()[[]];
    assert!(v == 0.0 && v.is_sign_negative());
    // The sparse output reduces the same groups.
    let s = x
        .reduce_max(Some(&[0]), true, true)
        .unwrap()
        .downcast::<SparseTensor>()
        .unwrap();
    let v: ndarray::Array1<f32> = s.values().clone().into_array().unwrap();
    assert!(v[0].is_nan());
}

/// TF 2.21 sorts entries with `std::sort`, which is not stable from 17 entries on: 20 entries at
/// `[k % 2]` valued `k` reorder (`tf.sparse.reorder`, and `tf.sparse.transpose` of the same at
/// `[0, k % 2]`) to the values `[0, 2, 18, 4, 6, 16, 8, 10, 14, 12, 19, 17, ..., 3, 1]`;
/// `tf.sparse.concat(1, ...)` of the `[2, 1]` version with `{[0, 0]: 100}` gives `[2, 18, 4, 6,
/// 16, 8, 10, 14, 12, 0, 100, 17, 15, ..., 3, 1, 19]` (each input sorted with the concat axis
/// first, then the whole).
#[test]
fn repeated_indices_come_out_in_tf_s_order() {
    let vals = |x: &SparseTensor| -> Vec<i32> {
        let v: ndarray::Array1<f32> = x.values().clone().into_array().unwrap();
        v.iter().map(|&f| f as i32).collect()
    };
    let values = ndarray::Array1::from_iter((0..20).map(|k| k as f32));
    let idx = Array2::from_shape_fn((20, 1), |(k, _)| (k % 2) as i64);
    let x = st(idx, values.clone(), &[2]);
    let want = [
        0, 2, 18, 4, 6, 16, 8, 10, 14, 12, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1,
    ];
    assert_eq!(vals(&x.reorder().unwrap()), want);
    let idx = Array2::from_shape_fn((20, 2), |(k, c)| if c == 0 { 0 } else { (k % 2) as i64 });
    let t = st(idx, values.clone(), &[1, 2]);
    assert_eq!(vals(&t.transpose(None).unwrap()), want);
    let idx = Array2::from_shape_fn((20, 2), |(k, c)| if c == 0 { (k % 2) as i64 } else { 0 });
    let a = st(idx, values, &[2, 1]);
    let b = st(array![[0, 0]], array![100.0f32], &[2, 1]);
    let c = SparseTensor::concat(&[&a, &b], 1, false).unwrap();
    assert_eq!(
        vals(&c),
        [
            2, 18, 4, 6, 16, 8, 10, 14, 12, 0, 100, 17, 15, 13, 11, 9, 7, 5, 3, 1, 19
        ]
    );
}

/// TF 2.21 sums each output element's values in Eigen's vectorised order, so rounding is
/// TensorFlow's: f32 `[1e8, 1, 1, 1, -1e8, 1, 1, 1]` sums to 6 (one packet of 8 lanes: lane
/// `l` and `l + 4` first), not 3 as in order; f16 `[2048, 1, 1]` to 2048 (each addition
/// rounded to half); 20 repeated indices, values `1e8` at every fifth, `-3e8` at the eighth,
/// else 1, to `1e8`; the f32 column of eight values inside an `[8, 100000]` matrix, to 6.
#[test]
fn reduce_sum_rounds_as_tf() {
    let all = |x: &SparseTensor| {
        x.reduce_sum(None, false, false)
            .unwrap()
            .into_tensor()
            .unwrap()
    };
    let x = st(
        Array2::from_shape_fn((8, 1), |(k, _)| k as i64),
        array![1e8f32, 1.0, 1.0, 1.0, -1e8, 1.0, 1.0, 1.0],
        &[8],
    );
    assert_eq!(all(&x), Tensor::from(ndarray::arr0(6.0f32).into_dyn()));
    let h = |v: f32| extype::half::f16::from_f32(v);
    let x = st(
        array![[0], [1], [2]],
        array![h(2048.0), h(1.0), h(1.0)],
        &[3],
    );
    assert_eq!(all(&x), Tensor::from(ndarray::arr0(h(2048.0)).into_dyn()));
    // The same eight values down a column of a wide matrix, interleaved with another column's
    // (so an element's values are not one run of the stored values, and the output is too wide
    // for a counting sort): the column sums to 6 as well.
    let col = [1e8f32, 1.0, 1.0, 1.0, -1e8, 1.0, 1.0, 1.0];
    let idx = Array2::from_shape_fn((16, 2), |(k, c)| {
        if c == 0 {
            (k / 2) as i64
        } else {
            [7, 9][k % 2]
        }
    });
    let v = ndarray::Array1::from_iter((0..16).map(|k| if k % 2 == 0 { col[k / 2] } else { 2.0 }));
    let x = st(idx, v, &[8, 100_000]);
    let sums: ndarray::Array1<f32> = x
        .reduce_sum(Some(&[0]), false, false)
        .unwrap()
        .into_tensor()
        .unwrap()
        .into_array()
        .unwrap();
    assert_eq!((sums[7], sums[9], sums[8]), (6.0, 16.0, 0.0));
    let mut v: Vec<f32> = (0..20)
        .map(|k| if k % 5 == 0 { 1e8 } else { 1.0 })
        .collect();
    v[7] = -3e8;
    let x = st(Array2::zeros((20, 1)), ndarray::Array1::from(v), &[1]);
    assert_eq!(all(&x), Tensor::from(ndarray::arr0(1e8f32).into_dyn()));
}

/// The mean is the sum over the number of dense elements reduced (NumPy's and TF's dense rule,
/// not PyTorch's open question of dividing by the stored count): `mean(x) == mean(to_dense(x))`.
#[test]
fn reduce_mean_is_numpy_s() {
    let x = st(array![[0, 0], [1, 2]], array![3i32, 6], &[2, 3]);
    assert_eq!(
        x.reduce_mean(Some(&[1]), false).unwrap(),
        Tensor::from(array![1.0f64, 2.0])
    );
    assert_eq!(
        ops::reduce_mean_as::<Tensor>(&x, None, false).unwrap(),
        Tensor::from(ndarray::arr0(1.5f64).into_dyn())
    );
    // An explicit zero changes nothing.
    let z = st(array![[0, 0], [0, 1], [1, 2]], array![3i32, 0, 6], &[2, 3]);
    assert_eq!(
        z.reduce_mean(Some(&[1]), false).unwrap(),
        x.reduce_mean(Some(&[1]), false).unwrap()
    );
}

proptest! {
    #[test]
    fn reductions_match_dense(
        a in arb_shape().prop_flat_map(arb_dense),
        axes in proptest::collection::vec(-3isize..3, 0..3),
        all in any::<bool>(),
        keepdims in any::<bool>(),
    ) {
        let rank = a.ndim() as isize;
        let mut axes: Vec<isize> = axes.into_iter().filter(|&x| x >= -rank && x < rank).map(|x| (x + rank) % rank.max(1)).collect();
        axes.sort_unstable();
        axes.dedup();
        let axes = if all { None } else { Some(&axes[..]) };
        let s = sparse_of(&a);
        let sum = s.reduce_sum(axes, keepdims, false).unwrap().into_tensor().unwrap();
        // The dense sum of f64 keeps f64 too.
        prop_assert_eq!(&sum, &ops::reduce_sum_as::<Tensor>(&a, axes, keepdims).unwrap());
        let sparse_sum = s.reduce_sum(axes, keepdims, true).unwrap().downcast::<SparseTensor>().unwrap();
        prop_assert!(sparse_sum.is_canonical());
        prop_assert_eq!(dense(&sparse_sum), sum);
        // max over stored values: the dense max of where(stored, x, -inf), 0 where none.
        let filled = a.mapv(|v| if v == 0.0 { f64::NEG_INFINITY } else { v });
        if !a.is_empty() {
            let want: ArrayD<f64> = ops::reduce_max_as(&filled, axes, keepdims).unwrap();
            let want = want.mapv(|v| if v == f64::NEG_INFINITY { 0.0 } else { v });
            let max = s.reduce_max(axes, keepdims, false).unwrap().into_tensor().unwrap();
            prop_assert_eq!(max, Tensor::from(want));
            let mean = s.reduce_mean(axes, keepdims).unwrap();
            prop_assert_eq!(mean, ops::reduce_mean_as::<Tensor>(&a, axes, keepdims).unwrap());
        }
    }
}

/// TF: `tf.sparse.concat(1, [A (2×3), C (2×2)])` is `[[0,1],[0,3],[1,2],[1,4]]: [1,5,2,6]` in
/// `[2,5]` (reordered; axis -1 alike); mismatched other dims raise "Input shapes must match:
/// expected 2 for dimension 0 but got 3 at position 1" unless `expand_nonconcat_dims` (then
/// `[3,7]`); a rank mismatch and an axis out of range raise; unordered inputs come out sorted.
#[test]
fn concat_follows_tf() {
    let a = st(array![[0, 1], [1, 2]], array![1.0f32, 2.0], &[2, 3]);
    let b = st(array![[0, 0], [2, 3]], array![3.0f32, 4.0], &[3, 4]);
    let c = st(array![[0, 0], [1, 1]], array![5.0f32, 6.0], &[2, 2]);
    let j = SparseTensor::concat(&[&a, &c], 1, false).unwrap();
    assert_eq!(
        sh(&j),
        (
            array![[0i64, 1], [0, 3], [1, 2], [1, 4]],
            Tensor::from(array![1.0f32, 5.0, 2.0, 6.0]),
            vec![2, 5]
        )
    );
    assert!(j.is_canonical());
    assert_eq!(SparseTensor::concat(&[&a, &c], -1, false).unwrap(), j);
    let viaops: SparseTensor = ops::concat_as(
        &[
            extype::ops::AsOperand::as_operand(&a),
            extype::ops::AsOperand::as_operand(&c),
        ],
        1,
    )
    .unwrap();
    assert_eq!(viaops, j);
    // Any number of operands through `ops::concat` (one `&[&SparseTensor]` handler).
    let three: SparseTensor = ops::concat_as(
        &[
            extype::ops::AsOperand::as_operand(&a),
            extype::ops::AsOperand::as_operand(&c),
            extype::ops::AsOperand::as_operand(&a),
        ],
        1,
    )
    .unwrap();
    assert_eq!(
        three,
        SparseTensor::concat(&[&a, &c, &a], 1, false).unwrap()
    );
    assert_eq!(three.dense_shape(), [2, 8]);
    let e = SparseTensor::concat(&[&a, &b], 1, false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Input shapes must match: expected 2 for dimension 0 but got 3 at position 1"),
        "{e}"
    );
    let x = SparseTensor::concat(&[&a, &b], 1, true).unwrap();
    assert_eq!(
        sh(&x),
        (
            array![[0i64, 1], [0, 3], [1, 2], [2, 6]],
            Tensor::from(array![1.0f32, 3.0, 2.0, 4.0]),
            vec![3, 7]
        )
    );
    let e = SparseTensor::concat(&[&a, &st(array![[0]], array![1.0f32], &[3])], 1, false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Ranks of all input tensors must match: expected 2 but got 1 at position 1"),
        "{e}"
    );
    let e = SparseTensor::concat(&[&a, &c], 2, false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Concat dimension must be in range [-2, 2), got 2"),
        "{e}"
    );
    let un = st(array![[1, 0], [0, 1]], array![1.0f32, 2.0], &[2, 2]);
    let j = SparseTensor::concat(&[&un, &c], 1, false).unwrap();
    assert_eq!(
        sh(&j),
        (
            array![[0i64, 1], [0, 2], [1, 0], [1, 3]],
            Tensor::from(array![2.0f32, 5.0, 1.0, 6.0]),
            vec![2, 4]
        )
    );
}

/// TF: `tf.sparse.slice(A, [0,1], [2,1])` is `[[0,0]]: [1]` in `[2,1]`; `[1,1], [5,5]` clips to
/// `[1,2]`; a start past the end gives an empty `[0,1]`; a negative start an empty `[1,1]`; a
/// negative size raises "Expected a non-negative size, got -1", a start of the wrong length
/// "Expected start to be a vector of length 2 but got length 1".
/// `tf.sparse.transpose` reorders (`[[1,0],[2,1]]` in `[3,2]`; perm `[2,0,1]` of
/// `[[0,1,2],[1,0,0]]` is `[[0,1,0],[2,0,1]]: [2,1]`). `tf.sparse.reshape` keeps the order
/// (`[-1]`: `[[1],[5]]`; unordered `[[1,0],[0,1]]` → `[[2],[1]]`) and raises "Input to reshape is
/// a tensor with 6 dense values, but the requested shape has 8" (and, word for word, its errors
/// for two `-1`, a size below `-1`, a `-1` beside a 0, and a size that does not divide).
/// `tf.cast` casts the values.
#[test]
fn slice_transpose_reshape_cast_follow_tf() {
    let a = st(array![[0, 1], [1, 2]], array![1.0f32, 2.0], &[2, 3]);
    assert_eq!(
        sh(&a.slice(&[0, 1], &[2, 1]).unwrap()),
        (array![[0i64, 0]], Tensor::from(array![1.0f32]), vec![2, 1])
    );
    assert_eq!(
        sh(&a.slice(&[1, 1], &[5, 5]).unwrap()),
        (array![[0i64, 1]], Tensor::from(array![2.0f32]), vec![1, 2])
    );
    assert_eq!(a.slice(&[3, 0], &[1, 1]).unwrap().dense_shape(), &[0, 1]);
    let neg = a.slice(&[-1, 0], &[1, 1]).unwrap();
    assert_eq!((neg.nnz(), neg.dense_shape()), (0, &[1usize, 1][..]));
    let e = a.slice(&[0, 0], &[-1, 2]).unwrap_err().to_string();
    assert!(e.contains("Expected a non-negative size, got -1"), "{e}");
    let e = a.slice(&[0], &[1, 1]).unwrap_err().to_string();
    assert!(
        e.contains("Expected start to be a vector of length 2 but got length 1"),
        "{e}"
    );
    let t: SparseTensor = ops::transpose_as(&a, None).unwrap();
    assert_eq!(
        sh(&t),
        (
            array![[1i64, 0], [2, 1]],
            Tensor::from(array![1.0f32, 2.0]),
            vec![3, 2]
        )
    );
    let x3 = st(
        array![[0, 1, 2], [1, 0, 0]],
        array![1.0f32, 2.0],
        &[2, 3, 4],
    );
    let t3 = x3.transpose(Some(&[2, 0, 1])).unwrap();
    assert_eq!(
        sh(&t3),
        (
            array![[0i64, 1, 0], [2, 0, 1]],
            Tensor::from(array![2.0f32, 1.0]),
            vec![4, 2, 3]
        )
    );
    assert!(
        a.transpose(Some(&[0, 0]))
            .unwrap_err()
            .to_string()
            .contains("permutation")
    );
    assert_eq!(
        a.reshape(&[-1]).unwrap().indices_array(),
        array![[1i64], [5]]
    );
    let r: SparseTensor = ops::reshape_as(&a, &[3, 2]).unwrap();
    assert_eq!(
        sh(&r),
        (
            array![[0i64, 1], [2, 1]],
            Tensor::from(array![1.0f32, 2.0]),
            vec![3, 2]
        )
    );
    let un = st(array![[1, 0], [0, 1]], array![1.0f32, 2.0], &[2, 2]);
    assert_eq!(
        un.reshape(&[4]).unwrap().indices_array(),
        array![[2i64], [1]]
    );
    let e = a.reshape(&[4, 2]).unwrap_err().to_string();
    assert!(
        e.contains(
            "Input to reshape is a tensor with 6 dense values, but the requested shape has 8"
        ),
        "{e}"
    );
    // TF 2.21's other reshape errors, word for word.
    for (shape, words) in [
        (
            &[-1i64, -1][..],
            "only one output dimension may be -1, not both 0 and 1",
        ),
        (&[-2, 3][..], "size 0 must be non-negative, not -2"),
        (
            &[0, -1][..],
            "reshape cannot infer the missing input size for an empty tensor",
        ),
        (
            &[7, -1][..],
            "Input to reshape is a SparseTensor with 6 dense values, but the requested shape \
             requires a multiple of 7",
        ),
    ] {
        let e = a.reshape(shape).unwrap_err().to_string();
        assert!(e.contains(words), "{shape:?}: {e}");
    }
    let c: SparseTensor = ops::cast_as(&a, DType::I32).unwrap();
    assert_eq!(c.values(), &Tensor::from(array![1i32, 2]));
    // Spec inference of the moves.
    let s = ValueSpec::Extension(Box::new(SparseTensorSpec::new(
        "[?, 3]".parse().unwrap(),
        DType::F32,
    )));
    let args = OpArgs::none();
    let t = ops::infer_spec(ops::catalog::lookup("transpose").unwrap(), &[&s], &args).unwrap();
    assert_eq!(
        t.spec.to_string(),
        "extype.SparseTensor { indices: i64[?, 2], values: f32[?], dense_shape: [3, ?] }"
    );
    let c = ops::infer_spec(
        ops::catalog::lookup("cast").unwrap(),
        &[&s],
        &OpArgs::none().with_dtype(DType::F64),
    )
    .unwrap();
    assert_eq!(
        c.spec.to_string(),
        "extype.SparseTensor { indices: i64[?, 2], values: f64[?], dense_shape: [?, 3] }"
    );
}

proptest! {
    #[test]
    fn moves_match_dense(a in arb_shape().prop_flat_map(arb_dense), seed in any::<u64>()) {
        let s = sparse_of(&a);
        let rank = a.ndim();
        // transpose by a rotation
        let perm: Vec<usize> = (0..rank).map(|i| (i + seed as usize) % rank).collect();
        let t = s.transpose(Some(&perm)).unwrap();
        prop_assert!(t.is_canonical());
        prop_assert_eq!(dense(&t), Tensor::from(a.clone().permuted_axes(IxDyn(&perm)).as_standard_layout().to_owned()));
        // reshape to flat and back
        let flat = s.reshape(&[-1]).unwrap();
        prop_assert_eq!(dense(&flat), Tensor::from(ArrayD::from_shape_vec(IxDyn(&[a.len()]), a.iter().copied().collect()).unwrap()));
        let back: Vec<i64> = a.shape().iter().map(|&d| d as i64).collect();
        prop_assert_eq!(flat.reshape(&back).unwrap(), s.clone());
        // slice from 1 along every axis
        let start: Vec<i64> = vec![1; rank];
        let size: Vec<i64> = vec![2; rank];
        let sl = s.slice(&start, &size).unwrap();
        let want = a.slice_each_axis(|ax| {
            let n = ax.len;
            ndarray::Slice::from(1.min(n)..3.min(n))
        }).to_owned();
        prop_assert_eq!(dense(&sl), Tensor::from(want));
        // concat with itself along axis 0
        let j = SparseTensor::concat(&[&s, &s], 0, false).unwrap();
        prop_assert_eq!(dense(&j), Tensor::from(ndarray::concatenate(ndarray::Axis(0), &[a.view(), a.view()]).unwrap()));
    }
}

/// Canonical random entries of a `[rows, cols]` tensor: `n` draws, sorted, distinct; values
/// small integers and their negatives with NaN and ±inf mixed in (so sums cancel to zero and
/// specials meet).
fn big_canonical(seed: u64, n: usize, rows: u64, cols: u64) -> SparseTensor {
    let mut s = seed;
    let mut next = |m: u64| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) % m
    };
    let mut keys: Vec<u64> = (0..n).map(|_| next(rows * cols)).collect();
    keys.sort_unstable();
    keys.dedup();
    let idx = Array2::from_shape_fn((keys.len(), 2), |(k, j)| {
        (if j == 0 {
            keys[k] / cols
        } else {
            keys[k] % cols
        }) as i64
    });
    let vals: Vec<f32> = keys
        .iter()
        .map(|_| match next(40) {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            v => v as f32 % 9.0 - 4.0,
        })
        .collect();
    st(
        idx,
        ndarray::Array1::from(vals),
        &[rows as usize, cols as usize],
    )
}

/// TF's `SparseAdd` on canonical operands is the sorted union with sums at shared indices, a
/// sum below the threshold dropped (NaN kept): large operands (merged in halves on two cores)
/// give exactly that, for thresholds 0 and 1, and the result is a well-formed, canonical value
/// (its arrays view past the slots the halves left, and it saves and loads).
#[test]
fn large_sparse_add_is_the_sorted_union() {
    use std::collections::BTreeMap;
    // A small dense shape: many indices in both operands, across the cut of the halves.
    let a = big_canonical(1, 150_000, 600, 700);
    let b = big_canonical(2, 150_000, 600, 700);
    for threshold in [0.0, 1.0] {
        let mut want: BTreeMap<(i64, i64), (f32, bool)> = BTreeMap::new();
        for x in [&a, &b] {
            let v: ndarray::ArrayView1<f32> = x.values().as_array().unwrap();
            for (row, &v) in x.indices_array().outer_iter().zip(v.iter()) {
                want.entry((row[0], row[1]))
                    .and_modify(|e| *e = (e.0 + v, true))
                    .or_insert((v, false));
            }
        }
        // TF keeps a sum when `threshold <= |sum|`: never a NaN sum.
        want.retain(|_, (s, summed)| !*summed || s.abs() >= threshold as f32);
        let sum = a.add(&b, threshold).unwrap();
        assert!(sum.is_canonical());
        let idx = sum.indices_array();
        let got: Vec<(i64, i64)> = idx.outer_iter().map(|r| (r[0], r[1])).collect();
        assert_eq!(got, want.keys().copied().collect::<Vec<_>>());
        let v: ndarray::ArrayView1<f32> = sum.values().as_array().unwrap();
        for (g, w) in v.iter().zip(want.values()) {
            assert!(g == &w.0 || (g.is_nan() && w.0.is_nan()), "{g} vs {}", w.0);
        }
        assert!(idx.as_slice().is_some() && v.as_slice().is_some());
        let again = SparseTensor::new(idx.to_owned(), v.to_owned(), &[600, 700]).unwrap();
        assert!(again.is_canonical());
        let dir = std::env::temp_dir().join(format!("extype_big_add_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("sum{threshold}.safetensors"));
        extype::io::save(&path, &sum).unwrap();
        let back: SparseTensor = extype::io::load_as(&path).unwrap();
        assert_eq!(back.indices_array(), sum.indices_array());
        assert_eq!(back.nnz(), sum.nnz());
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A product large enough to split across cores (and to run the register-block path with a
/// tail: 70 columns) against the same product on the dense form, with and without adjoints.
#[test]
fn large_sparse_dense_matmul_matches_dense() {
    let a = big_canonical(3, 60_000, 3000, 2000);
    let finite = SparseTensor::new(
        a.indices_array().to_owned(),
        a.values()
            .as_array::<f32, ndarray::Ix1>()
            .unwrap()
            .mapv(|v| if v.is_finite() { v } else { 1.5 }),
        &[3000, 2000],
    )
    .unwrap();
    let ad: Array2<f32> = finite
        .to_dense(&0.0f32, false)
        .unwrap()
        .into_array::<f32, ndarray::Ix2>()
        .unwrap();
    let b = Array2::from_shape_fn((2000, 70), |(i, j)| ((i * 7 + j * 3) % 11) as f32 - 5.0);
    let bt = Array2::from_shape_fn((3000, 70), |(i, j)| ((i * 5 + j) % 13) as f32 - 6.0);
    // Small integers: every sum is exact, so any order agrees.
    let want = ad.dot(&b);
    let got = sparse_dense_matmul(&finite, &Tensor::from(b.clone()), false, false).unwrap();
    assert_eq!(got, Tensor::from(want));
    let want_t = ad.t().dot(&bt);
    let got_t = sparse_dense_matmul(&finite, &Tensor::from(bt.clone()), true, false).unwrap();
    assert_eq!(got_t, Tensor::from(want_t));
    let want_b = ad.dot(&b);
    let b_t = Tensor::from(b.t().to_owned());
    let got_b = sparse_dense_matmul(&finite, &b_t, false, true).unwrap();
    assert_eq!(got_b, Tensor::from(want_b));
}

#[test]
fn shape_of_sparse_and_masked_tensors_as_tf() {
    // TF 2.21: tf.shape(sp) of a SparseTensor is its dense_shape (int64); a MaskedTensor (TF's
    // guide) has its values' shape. Both are fully known, so `ops::shape` gives the dense
    // `i64` vector through the tensor-like fallback (no handler needed, unlike RaggedTensor).
    let x = st(array![[0, 1], [2, 0]], array![1.0f32, 2.0], &[3, 4]);
    let s: Tensor = ops::shape_as(&x).unwrap();
    assert_eq!(s, Tensor::from(array![3i64, 4].into_dyn()));
    let m =
        extype::types::MaskedTensor::new(array![[1.0f32, 2.0, 3.0]], array![[true, false, true]])
            .unwrap();
    let s: Tensor = ops::shape_as(&m).unwrap();
    assert_eq!(s, Tensor::from(array![1i64, 3].into_dyn()));
    // On specs: `i64[rank]`.
    let spec = ValueSpec::Extension(Box::new(x.spec()));
    let out = ops::infer_spec(&extype::ops::catalog::SHAPE, &[&spec], &OpArgs::none()).unwrap();
    assert_eq!(out.spec.to_string(), "i64[2]");
}

/// `zeros_like` of a SparseTensor keeps its entries with value 0 (TF:
/// `tf.sparse.map_values(tf.zeros_like, st)`; densified, all zeros, as `zeros_like` of the
/// dense form); `ones_like` would be dense, so it is refused as every unary op with f(0) != 0,
/// naming what to write instead.
#[test]
fn zeros_like_keeps_entries_and_ones_like_says_what_to_write() {
    let a = st(array![[0, 1], [1, 2]], array![3i32, -4], &[2, 3]);
    let z: SparseTensor = ops::zeros_like_as(&a).unwrap();
    assert_eq!(z.indices_array(), a.indices_array());
    assert_eq!(z.dense_shape(), &[2, 3]);
    assert_eq!(z.values(), &Tensor::from(array![0i32, 0]));
    let e = ops::ones_like(&a).unwrap_err().to_string();
    assert!(
        e.contains("ones_like(0) is not 0, so the result would be dense")
            && e.contains("tf.sparse.map_values"),
        "{e}"
    );
    let spec = ValueSpec::Extension(Box::new(a.spec()));
    let cat = |name| ops::catalog::lookup(name).unwrap();
    let inferred = ops::infer_spec(cat("zeros_like"), &[&spec], &OpArgs::none()).unwrap();
    assert_eq!(inferred.spec, spec);
    assert!(ops::infer_spec(cat("ones_like"), &[&spec], &OpArgs::none()).is_err());
}

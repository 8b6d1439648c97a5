//! `SparseTensor` ops: conformance with `tf.sparse` (each test names the TensorFlow behaviour it
//! follows) and property tests against the same op on the dense form.

use extype::ops;
use extype::types::{SparseTensor, SparseTensorSpec, sparse::sparse_dense_matmul};
use extype::{DType, ExtensionType, OpArgs, Tensor, ValueSpec};
use ndarray::{Array2, ArrayD, IxDyn, array};
use proptest::prelude::*;

fn st(indices: Array2<i64>, values: impl Into<Tensor>, shape: &[i64]) -> SparseTensor {
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
/// sparse only"); `* 2.0` scales the values.
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
    let s = (&a * 2.0).unwrap();
    assert_eq!(s.values(), &Tensor::from(array![2.0f32, 4.0]));
    assert_eq!((2.0 * &a).unwrap(), s);
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

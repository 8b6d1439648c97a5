//! `ops::matmul` (dense, in the op catalog) against a scalar reference: rank 2 and batched with
//! broadcast leading axes, every dtype it takes, and its spec inference.

use extype::ops::{self, catalog};
use extype::{DType, OpArgs, Tensor, TensorSpec, ValueSpec};
use ndarray::{ArrayD, Dimension, IxDyn};
use proptest::prelude::*;

/// The textbook triple loop over every batch item (leading axes broadcast by hand).
fn reference(a: &ArrayD<f64>, b: &ArrayD<f64>) -> ArrayD<f64> {
    let (ra, rb) = (a.ndim(), b.ndim());
    let (n, k, m) = (a.shape()[ra - 2], a.shape()[ra - 1], b.shape()[rb - 1]);
    let lead = ra.max(rb) - 2;
    let dim = |s: &[usize], r: usize, i: usize| {
        if i + r - 2 >= lead {
            s[i + r - 2 - lead]
        } else {
            1
        }
    };
    let batch: Vec<usize> = (0..lead)
        .map(|i| dim(a.shape(), ra, i).max(dim(b.shape(), rb, i)))
        .collect();
    let mut out_shape = batch.clone();
    out_shape.extend([n, m]);
    ArrayD::from_shape_fn(IxDyn(&out_shape), |ix| {
        let ix = ix.slice().to_vec();
        let pick = |s: &[usize], r: usize| -> Vec<usize> {
            (0..r - 2)
                .map(|j| {
                    let i = j + lead + 2 - r;
                    if s[j] == 1 { 0 } else { ix[i] }
                })
                .collect()
        };
        let (pa, pb) = (pick(a.shape(), ra), pick(b.shape(), rb));
        (0..k).fold(0.0, |s, l| {
            let mut ia = pa.clone();
            ia.extend([ix[lead], l]);
            let mut ib = pb.clone();
            ib.extend([l, ix[lead + 1]]);
            s + a[IxDyn(&ia)] * b[IxDyn(&ib)]
        })
    })
}

fn filled(shape: &[usize], seed: u64) -> ArrayD<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ArrayD::from_shape_fn(IxDyn(shape), |_| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 33) % 19) as f64 - 9.0
    })
}

/// Integer-valued data: every dtype computes exactly, so all four compare equal to the
/// reference.
fn check(a_shape: &[usize], b_shape: &[usize]) {
    let (a, b) = (filled(a_shape, 1), filled(b_shape, 2));
    let want = reference(&a, &b);
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64] {
        let (ta, tb) = (
            ops::cast_as::<Tensor>(&a, dtype).unwrap(),
            ops::cast_as::<Tensor>(&b, dtype).unwrap(),
        );
        let got: Tensor = ops::matmul_as(&ta, &tb).unwrap();
        assert_eq!(got.dtype(), dtype);
        let got: ArrayD<f64> = ops::cast_as(&got, DType::F64).unwrap();
        assert_eq!(got, want, "{dtype} {a_shape:?} @ {b_shape:?}");
        // Spec inference admits the result.
        let specs = [
            ValueSpec::Tensor(TensorSpec::from_tensor(&ta)),
            ValueSpec::Tensor(TensorSpec::from_tensor(&tb)),
        ];
        let inferred =
            ops::infer_spec(&catalog::MATMUL, &[&specs[0], &specs[1]], &OpArgs::none()).unwrap();
        assert_eq!(
            inferred.tensor_spec().unwrap().shape.to_known().unwrap(),
            want.shape()
        );
    }
}

#[test]
fn rank_2_and_batched_match_the_reference() {
    check(&[3, 4], &[4, 5]);
    check(&[1, 1], &[1, 1]);
    check(&[2, 0], &[0, 3]);
    check(&[0, 3], &[3, 2]);
    check(&[2, 3, 4], &[2, 4, 1]);
    check(&[2, 1, 3, 4], &[5, 4, 2]); // leading axes broadcast: [2, 1] with [5] → [2, 5]
    check(&[3, 4], &[6, 4, 2]); // a matrix against a batch
}

#[test]
fn errors_name_both_shapes() {
    let a = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
    let b = ArrayD::<f32>::zeros(IxDyn(&[4, 5]));
    let e = ops::matmul(&a, &b).unwrap_err().to_string();
    assert_eq!(
        e,
        "matmul: argument 1: expected axis -2 of size 3 (axis -1 of argument 0, shape [2, 3]: [.., n, k] @ [.., k, m]), found size 4 (shape [4, 5])"
    );
    let spec = |s: &str| ValueSpec::Tensor(format!("f32{s}").parse::<TensorSpec>().unwrap());
    let (sa, sb) = (spec("[?, 2, 3]"), spec("[4, 5]"));
    let e = ops::infer_spec(&catalog::MATMUL, &[&sa, &sb], &OpArgs::none())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "matmul: argument 1: expected axis -2 of size 3 (axis -1 of argument 0, shape [?, 2, 3]: [.., n, k] @ [.., k, m]), found size 4 (shape [4, 5])"
    );
    let e = ops::matmul(&ArrayD::<f32>::zeros(IxDyn(&[3])), &a)
        .unwrap_err()
        .to_string();
    assert!(e.contains("matmul: argument 0: expected rank >= 2"), "{e}");
    let e = ops::matmul(&a, &ArrayD::<f64>::zeros(IxDyn(&[3, 2])))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("expected dtype f32 (the dtype of argument 0; cast first), found dtype f64"),
        "{e}"
    );
    let e = ops::matmul(
        &ArrayD::<u8>::zeros(IxDyn(&[2, 2])),
        &ArrayD::<u8>::zeros(IxDyn(&[2, 2])),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("expected a numeric dtype (f32, f64, i32, i64), found dtype u8"),
        "{e}"
    );
}

#[test]
fn spec_inference_is_partial() {
    let spec = |s: &str| ValueSpec::Tensor(s.parse::<TensorSpec>().unwrap());
    let infer = |a: &str, b: &str| {
        ops::infer_spec(&catalog::MATMUL, &[&spec(a), &spec(b)], &OpArgs::none())
            .unwrap()
            .spec
            .to_string()
    };
    assert_eq!(infer("f32[?, 7, ?]", "f32[?, 3]"), "f32[?, 7, 3]");
    assert_eq!(infer("f64[8, 1, 2, 3]", "f64[5, 3, 4]"), "f64[8, 5, 2, 4]");
    assert_eq!(infer("i64*", "i64[3, 4]"), "i64*");
}

proptest! {
    #[test]
    fn random_shapes_match_the_reference(n in 0usize..5, k in 0usize..5, m in 0usize..5, b in 1usize..3, bcast in any::<bool>()) {
        let a_shape = if bcast { vec![1, n, k] } else { vec![b, n, k] };
        check(&a_shape, &[b, k, m]);
    }
}

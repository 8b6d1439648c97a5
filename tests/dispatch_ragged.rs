//! RaggedTensor through dispatch (the handlers of `examples/ragged_ops.rs`): reductions along the
//! ragged axis run on the kernels' segment reductions.

#[path = "../examples/ragged_ops.rs"]
#[allow(dead_code)]
mod example;

use example::ragged::RaggedTensor;
use extype::ops;
use extype::{Tensor, Value};
use ndarray::{Array1, array};

fn r() -> RaggedTensor {
    RaggedTensor::from_rows(&[&[1.0, 2.0, 3.0], &[], &[4.0, 5.0], &[6.0]]).unwrap()
}

fn t<A: extype::Element, D: ndarray::Dimension>(a: ndarray::Array<A, D>) -> Tensor {
    Tensor::from(a.into_dyn())
}

#[test]
fn reduce_sum_along_the_ragged_axis_uses_segment_sum() {
    let out: Tensor = ops::reduce_sum_as(&r(), Some(&[1]), false).unwrap();
    assert_eq!(out, t(array![6.0f32, 0.0, 9.0, 6.0]));
    let negative: Tensor = ops::reduce_sum_as(&r(), Some(&[-1]), false).unwrap();
    assert_eq!(negative, out);
    let kept: Tensor = ops::reduce_sum_as(&r(), Some(&[1]), true).unwrap();
    assert_eq!(kept, t(array![[6.0f32], [0.0], [9.0], [6.0]]));
    // Same as the segment op called directly on the values.
    let direct =
        ops::segment_reduce(&ops::catalog::SEGMENT_SUM, &r().values, &[0, 3, 3, 5, 6]).unwrap();
    assert_eq!(direct.into_tensor().unwrap(), out);
}

/// `err` is `inner` raised in a handler of the example: `{via} (…/ragged_ops.rs:LINE): {inner}`.
fn assert_in_handler(err: &extype::Error, via: &str, inner: &str) {
    let msg = err.to_string();
    let prefix = format!("{via} (tests/../examples/ragged_ops.rs:");
    assert!(
        msg.starts_with(&prefix) && msg.ends_with(&format!("): {inner}")),
        "{msg}"
    );
    assert_eq!(err.without_context().to_string(), inner);
}

#[test]
fn other_segment_reductions_and_full_reduction() {
    let mean: Tensor = ops::reduce_mean_as(&r(), Some(&[1]), false).unwrap();
    let m = mean.as_array::<f32, ndarray::Ix1>().unwrap();
    assert_eq!((m[0], m[2], m[3]), (2.0, 4.5, 6.0));
    assert!(m[1].is_nan());
    let full: Tensor = ops::reduce_sum_as(&r(), None, false).unwrap();
    assert_eq!(full, t(ndarray::arr0(21.0f32)));
    // Without empty rows, max works; with one, the kernel's error names the segment.
    let dense_rows = RaggedTensor::from_rows(&[&[1.0, 7.0], &[3.0]]).unwrap();
    let max: Tensor = ops::reduce_max_as(&dense_rows, Some(&[1]), false).unwrap();
    assert_eq!(max, t(array![7.0f32, 3.0]));
    let err = ops::reduce_max(&r(), Some(&[1]), false).unwrap_err();
    assert_in_handler(
        &err,
        "reduce_max via ragged_reduce",
        "segment_max: zero-size input in segment 1 has no segment_max (it has no identity)",
    );
}

#[test]
fn unsupported_axes_decline_and_the_error_says_so() {
    let err = ops::reduce_sum(&r(), Some(&[0]), false)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "reduce_sum: no handler for arguments (example.RaggedTensor); tried: \
             ragged_reduce(&dispatch_ragged::example::ragged::RaggedTensor) at"
        ),
        "{err}"
    );
    // prod has no segment kernel: declined too.
    assert!(ops::reduce_prod(&r(), Some(&[1]), false).is_err());
    let err = ops::shape(&r()).unwrap_err();
    assert_in_handler(
        &err,
        "shape via ragged_shape",
        "shape: a RaggedTensor (4 rows) has no rectangular shape; use its row_splits",
    );
}

#[test]
fn elementwise_ops_keep_the_row_splits() {
    let sq: RaggedTensor = ops::mul_as(&r(), &r()).unwrap();
    assert_eq!(sq.values, t(array![1.0f32, 4.0, 9.0, 16.0, 25.0, 36.0]));
    assert_eq!(sq.row_splits, r().row_splits);
    let neg: RaggedTensor = ops::neg_as(&Value::from_extension(r())).unwrap();
    assert_eq!(neg.values, t(array![-1.0f32, -2.0, -3.0, -4.0, -5.0, -6.0]));
    let other = RaggedTensor {
        values: Tensor::from(array![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]),
        row_splits: Array1::from(vec![0i64, 6]),
    };
    let err = ops::add(&r(), &other).unwrap_err();
    assert_in_handler(
        &err,
        "add via ragged_binary",
        "add: the ragged operands have different row splits [0, 3, 3, 5, 6] and [0, 6]",
    );
}

//! A user-written RaggedTensor through dispatch: reductions along the ragged axis run on the
//! kernels' segment reductions. (The library's own type is `extype::types::RaggedTensor`,
//! tested in `ragged_conformance.rs`; this one tests what a user can write with the derive.)

#[allow(dead_code)]
pub mod ragged {
    use extype::ops::{self, catalog};
    use extype::{
        BinaryOp, ExtensionType, Op, ReductionOp, Result, Tensor, UnaryOp, Value, dispatch,
    };
    use ndarray::Array1;

    /// A ragged tensor: row `i` is `values[row_splits[i]..row_splits[i + 1]]` (rows on axis 0,
    /// the ragged axis is axis 1; `values` may have more, uniform, axes).
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "test.dispatch.RaggedTensor", validate = check_splits)]
    pub struct RaggedTensor {
        /// The flat values (axis 0 runs over all rows' elements).
        pub values: Tensor,
        /// Row boundaries: start at 0, non-decreasing, end at `values.shape[0]`.
        pub row_splits: Array1<i64>,
    }

    /// The row splits are well formed.
    pub fn check_splits(r: &RaggedTensor) -> Result<()> {
        let s = &r.row_splits;
        let n = r.values.shape().first().copied();
        if s.first() != Some(&0) {
            return Err(extype::Error::invalid("row_splits must start with 0"));
        }
        if s.windows(2).into_iter().any(|w| w[0] > w[1]) {
            return Err(extype::Error::invalid("row_splits must be non-decreasing"));
        }
        match (s.last(), n) {
            (Some(&last), Some(n)) if usize::try_from(last) == Ok(n) => Ok(()),
            (last, n) => Err(extype::Error::invalid(format!(
                "row_splits ends at {last:?} but values have {n:?} rows"
            ))),
        }
    }

    impl RaggedTensor {
        /// A ragged tensor from its rows.
        pub fn from_rows(rows: &[&[f32]]) -> Result<Self> {
            let mut splits = vec![0i64];
            let mut values = Vec::new();
            for row in rows {
                values.extend_from_slice(row);
                splits.push(values.len() as i64);
            }
            let r = RaggedTensor {
                values: Tensor::from(Array1::from(values)),
                row_splits: Array1::from(splits),
            };
            r.validate()?;
            Ok(r)
        }

        /// The number of rows.
        pub fn nrows(&self) -> usize {
            self.row_splits.len().saturating_sub(1)
        }

        /// The rank: 2 plus the uniform inner axes of the values.
        pub fn rank(&self) -> usize {
            self.values.ndim() + 1
        }
    }

    /// The segment op of a reduction along the ragged axis.
    fn segment_op(op: &Op) -> Option<&'static Op> {
        // Ops are values: compare them, not their names.
        const SEGMENT: [(&Op, &Op); 4] = [
            (&catalog::REDUCE_SUM, &catalog::SEGMENT_SUM),
            (&catalog::REDUCE_MEAN, &catalog::SEGMENT_MEAN),
            (&catalog::REDUCE_MAX, &catalog::SEGMENT_MAX),
            (&catalog::REDUCE_MIN, &catalog::SEGMENT_MIN),
        ];
        SEGMENT
            .iter()
            .find(|(reduction, _)| *reduction == op)
            .map(|&(_, segment)| segment)
    }

    /// Reductions of a RaggedTensor: along the ragged axis (1) by the kernels' segment
    /// reductions, giving a dense `[nrows, …]` tensor; over all axes on the flat values.
    /// Other axes (the row axis 0, or several axes) decline, so the error lists what was tried.
    #[dispatch(reduction)]
    pub fn ragged_reduce(op: &ReductionOp, x: &RaggedTensor) -> Result<Option<Tensor>> {
        let rank = x.rank() as isize;
        match op.axes() {
            None => Ok(Some(op.apply_as(&x.values)?)),
            Some(&[a]) if a == 1 || a == 1 - rank => {
                let Some(seg) = segment_op(op.op()) else {
                    return Ok(None);
                };
                let out: Tensor =
                    ops::segment_reduce(seg, &x.values, &x.row_splits.to_vec())?.into_tensor()?;
                if op.keepdims() {
                    let mut shape = out.shape().to_vec();
                    shape.insert(1, 1);
                    return Ok(Some(ops::reshape(&out, &shape)?.into_tensor()?));
                }
                Ok(Some(out))
            }
            Some(_) => Ok(None),
        }
    }

    /// Unary elementwise ops map the flat values and keep the row splits.
    #[dispatch(unary_elementwise)]
    pub fn ragged_unary(op: &UnaryOp, x: &RaggedTensor) -> Result<RaggedTensor> {
        Ok(RaggedTensor {
            values: op.apply_as(&x.values)?,
            row_splits: x.row_splits.clone(),
        })
    }

    /// Binary elementwise ops of two RaggedTensors with the same row splits combine the values.
    #[dispatch(binary_elementwise)]
    pub fn ragged_binary(
        op: &BinaryOp,
        x: &RaggedTensor,
        y: &RaggedTensor,
    ) -> Result<RaggedTensor> {
        if x.row_splits != y.row_splits {
            return Err(extype::Error::unsupported(
                op.name(),
                format!(
                    "the ragged operands have different row splits {} and {}",
                    x.row_splits, y.row_splits
                ),
            ));
        }
        Ok(RaggedTensor {
            values: op.apply_as(&x.values, &y.values)?,
            row_splits: x.row_splits.clone(),
        })
    }

    /// `shape` of a RaggedTensor has no dense answer (as in TensorFlow): an explicit error.
    #[dispatch(Shape)]
    pub fn ragged_shape(x: &RaggedTensor) -> Result<Value> {
        Err(extype::Error::unsupported(
            "shape",
            format!(
                "a RaggedTensor ({} rows) has no rectangular shape; use its row_splits",
                x.nrows()
            ),
        ))
    }
}

use extype::ops;
use extype::{Tensor, Value};
use ndarray::{Array1, array};
use ragged::RaggedTensor;

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

/// `err` is `inner` raised in a handler above: `{via} (tests/dispatch/dispatch_ragged.rs:LINE): {inner}`.
fn assert_in_handler(err: &extype::Error, via: &str, inner: &str) {
    let msg = err.to_string();
    let prefix = format!("{via} (tests/dispatch/dispatch_ragged.rs:");
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
            "reduce_sum: no handler for arguments (test.dispatch.RaggedTensor); tried: \
             ragged_reduce(&dispatch::dispatch_ragged::ragged::RaggedTensor) at"
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

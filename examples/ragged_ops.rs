//! RaggedTensor with dispatch: reductions along the ragged axis run on the kernels' segment
//! reductions; elementwise ops map the flat values and keep the row splits.
//!
//! Run with `cargo run --example ragged_ops`.

pub mod ragged {
    use extype::ops::{self, catalog};
    use extype::{
        BinaryOp, ExtensionType, Op, ReductionOp, Result, Tensor, UnaryOp, Value, dispatch,
    };
    use ndarray::Array1;

    /// A ragged tensor: row `i` is `values[row_splits[i]..row_splits[i + 1]]` (rows on axis 0,
    /// the ragged axis is axis 1; `values` may have more, uniform, axes).
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "example.RaggedTensor", validate = check_splits)]
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
use ragged::RaggedTensor;

fn dense(v: &Value) -> extype::Result<Vec<f64>> {
    let t = ops::cast_as::<Tensor>(v, extype::DType::F64)?;
    Ok(t.as_array::<f64, ndarray::IxDyn>()?
        .iter()
        .copied()
        .collect())
}

fn main() -> extype::Result<()> {
    let r = RaggedTensor::from_rows(&[&[1.0, 2.0, 3.0], &[], &[4.0, 5.0], &[6.0]])?;
    println!("== RaggedTensor through dispatch");
    println!(
        "rows: [[1, 2, 3], [], [4, 5], [6]]  (row_splits {})",
        r.row_splits
    );
    let sum = ops::reduce_sum(&r, Some(&[1]), false)?;
    println!(
        "reduce_sum(axis 1)   = {:?}  (segment_sum kernel)",
        dense(&sum)?
    );
    let mean = ops::reduce_mean(&r, Some(&[-1]), false)?;
    println!(
        "reduce_mean(axis -1) = {:?}  (empty row: NaN)",
        dense(&mean)?
    );
    let total = ops::reduce_sum(&r, None, false)?;
    println!("reduce_sum(all)      = {:?}", dense(&total)?);
    let squared: RaggedTensor = ops::mul_as(&r, &r)?;
    println!(
        "r * r values         = {:?}",
        dense(&Value::from(squared.values.clone()))?
    );
    if let Err(e) = ops::reduce_max(&r, Some(&[1]), false) {
        println!("reduce_max(axis 1)   : {e}");
    }
    if let Err(e) = ops::reduce_sum(&r, Some(&[0]), false) {
        println!("reduce_sum(axis 0)   : {e}");
    }
    if let Err(e) = ops::shape(&r) {
        println!("shape                : {e}");
    }
    Ok(())
}

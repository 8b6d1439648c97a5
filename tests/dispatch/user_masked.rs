//! A MaskedTensor written by hand as a user would (values plus a bool mask, with group
//! handlers, an exact handler, `where`, `tile`, `shape`, a masked `reduce_mean` and a
//! hand-written spec inference): the subject of `dispatch_masked.rs`, which tests the dispatch
//! machinery with it. The library's own type is `extype::types::MaskedTensor`.

pub mod masked {
    use std::borrow::Cow;

    use extype::ops::{self, OpArgs, catalog};
    use extype::{
        BinaryOp, DType, ExtensionType, Op, Operand, ReductionOp, Result, Tensor, TensorSpec,
        UnaryOp, Value, ValueSpec, dispatch,
    };
    use ndarray::{ArrayD, IxDyn};

    /// A tensor of values with a boolean mask of the same shape: `true` where a value is valid.
    #[dispatch(operators)]
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "example.MaskedTensor", validate = check_mask)]
    pub struct MaskedTensor {
        /// The values (any dtype).
        #[extype(shape = "*dims")]
        pub values: Tensor,
        /// Where the values are valid (the named segment `*dims` makes the shapes equal).
        #[extype(shape = "*dims")]
        pub mask: Tensor,
    }

    /// The mask is boolean.
    pub fn check_mask(m: &MaskedTensor) -> Result<()> {
        if m.mask.dtype() == DType::Bool {
            Ok(())
        } else {
            Err(extype::Error::invalid(format!(
                "the mask must be bool, found {}",
                m.mask.dtype()
            )))
        }
    }

    impl MaskedTensor {
        /// A masked tensor from its parts, checked by the shape contract and `check_mask`.
        pub fn new(values: impl Into<Tensor>, mask: impl Into<Tensor>) -> Result<Self> {
            MaskedTensor::try_new(values.into(), mask.into())
        }
    }

    fn all_true(shape: &[usize]) -> Tensor {
        Tensor::from(ArrayD::from_elem(IxDyn(shape), true))
    }

    /// The values and (for a MaskedTensor) the mask of an operand; `None` for other extension
    /// types, which these handlers do not support.
    fn parts<'a>(x: &Operand<'a>) -> Option<(Cow<'a, Tensor>, Option<&'a Tensor>)> {
        if let Some(m) = x.downcast_ref::<MaskedTensor>() {
            return Some((Cow::Borrowed(&m.values), Some(&m.mask)));
        }
        x.to_tensor().map(|t| (t, None))
    }

    /// Elementwise ops map the values and keep the mask.
    #[dispatch(unary_elementwise, infer = masked_spec)]
    pub fn masked_unary(op: &UnaryOp, x: &MaskedTensor) -> Result<MaskedTensor> {
        Ok(MaskedTensor {
            values: op.apply_as(&x.values)?,
            mask: x.mask.clone(),
        })
    }

    /// Binary ops combine the values (a dense operand counts as valid everywhere) and AND the
    /// masks, broadcast to the result's shape. Declines unless a MaskedTensor is involved.
    #[dispatch(binary_elementwise, infer = masked_spec)]
    pub fn masked_binary(op: &BinaryOp, x: &Operand, y: &Operand) -> Result<Option<MaskedTensor>> {
        let (Some((xv, xm)), Some((yv, ym))) = (parts(x), parts(y)) else {
            return Ok(None);
        };
        if xm.is_none() && ym.is_none() {
            return Ok(None);
        }
        let values = op.apply_as::<Tensor>(&*xv, &*yv)?;
        let ones = all_true(values.shape());
        let mask = ops::logical_and_as::<Tensor>(
            &ops::logical_and_as::<Tensor>(xm.unwrap_or(&ones), ym.unwrap_or(&ones))?,
            &ones,
        )?;
        Ok(Some(MaskedTensor { values, mask }))
    }

    /// The exact handler for `MaskedTensor + MaskedTensor` (beats the group handler).
    #[dispatch(Add, infer = masked_spec)]
    pub fn masked_add(x: &MaskedTensor, y: &MaskedTensor) -> Result<MaskedTensor> {
        let values = ops::add_as::<Tensor>(&x.values, &y.values)?;
        let mask = ops::logical_and_as::<Tensor>(&x.mask, &y.mask)?;
        Ok(MaskedTensor { values, mask })
    }

    /// The spec inference of every handler here: the op's own inference on the values' specs
    /// (a dense spec counts as valid everywhere), and a bool mask of the result's shape.
    /// Declines when no input is a MaskedTensor (so dense specs keep their own inference).
    pub fn masked_spec(
        call: &extype::dispatch::Call,
        specs: &[&ValueSpec],
    ) -> Result<Option<ValueSpec>> {
        if !specs.iter().any(|s| is_masked(s)) {
            return Ok(None);
        }
        let parts: Vec<MaskedTensorSpec> =
            specs.iter().map(|s| spec_of(s)).collect::<Result<_>>()?;
        let values: Vec<&TensorSpec> = parts.iter().map(|p| &p.values).collect();
        let out = ops::infer::dense(call.op, &values, call.args)?;
        let values = out
            .tensor_spec()
            .cloned()
            .ok_or_else(|| extype::Error::invalid("dense inference gave a non-tensor spec"))?;
        let mask = TensorSpec::new(values.shape.clone(), DType::Bool);
        Ok(Some(ValueSpec::Extension(Box::new(MaskedTensorSpec {
            values,
            mask,
        }))))
    }

    fn is_masked(spec: &ValueSpec) -> bool {
        matches!(spec, ValueSpec::Extension(s) if s.as_any().is::<MaskedTensorSpec>())
    }

    fn spec_of(spec: &ValueSpec) -> Result<MaskedTensorSpec> {
        match spec {
            ValueSpec::Extension(s) => s
                .as_any()
                .downcast_ref::<MaskedTensorSpec>()
                .cloned()
                .ok_or_else(|| extype::Error::invalid("expected a MaskedTensor spec")),
            ValueSpec::Tensor(t) => Ok(MaskedTensorSpec {
                values: t.clone(),
                mask: TensorSpec::new(t.shape.clone(), DType::Bool),
            }),
        }
    }

    /// Reductions ignore masked-out values: sum and mean with the kernels' masked reductions,
    /// the others by filling masked-out values with the reduction's identity. The result is valid
    /// where at least one reduced value was.
    #[dispatch(reduction, infer = masked_spec)]
    pub fn masked_reduction(op: &ReductionOp, x: &MaskedTensor) -> Result<MaskedTensor> {
        let valid = op.apply_other_as(&catalog::REDUCE_ANY, &x.mask)?;
        // Ops are values: compare them, not their names.
        let is = |ops: &[&Op]| ops.contains(&op.op());
        let values = if is(&[&catalog::REDUCE_SUM, &catalog::REDUCE_MEAN]) {
            op.apply_masked(&x.values, &x.mask)?
        } else {
            // For max/argmax fill with the global min (any valid value is ≥ it), and so on; a
            // row with no valid value gets the fill and is masked out.
            let fill: Value = if is(&[&catalog::REDUCE_MAX, &catalog::ARGMAX]) {
                ops::reduce_min(&x.values, None, false)?
            } else if is(&[&catalog::REDUCE_MIN, &catalog::ARGMIN]) {
                ops::reduce_max(&x.values, None, false)?
            } else if is(&[&catalog::REDUCE_PROD, &catalog::REDUCE_ALL]) {
                ops::ones_like(&x.values)?
            } else {
                ops::zeros_like(&x.values)?
            };
            let filled = ops::where_as::<Tensor>(&x.mask, &x.values, &fill.into_tensor()?)?;
            op.apply_as(&filled)?
        };
        Ok(MaskedTensor {
            values,
            mask: valid,
        })
    }

    /// `reduce_mean` by its own handler (an exact handler beats the reduction group): the mean
    /// of the valid values over the axes in `args`; valid where any reduced value was.
    #[dispatch(ReduceMean, infer = masked_spec)]
    pub fn masked_reduce_mean(args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
        let axes = args.axes.as_deref();
        let values = ops::masked_reduce(&catalog::REDUCE_MEAN, &x.values, &x.mask, args)?;
        let mask = ops::reduce_any_as(&x.mask, axes, args.keepdims)?;
        Ok(MaskedTensor { values, mask })
    }

    /// `where(cond, x, y)` on two MaskedTensors: picks values and masks.
    #[dispatch(Where)]
    pub fn masked_where(cond: &Tensor, x: &MaskedTensor, y: &MaskedTensor) -> Result<MaskedTensor> {
        Ok(MaskedTensor {
            values: ops::where_as(cond, &x.values, &y.values)?,
            mask: ops::where_as(cond, &x.mask, &y.mask)?,
        })
    }

    /// `tile` (as in the RFC's example): tiles the values and the mask alike.
    #[dispatch(Tile, infer = masked_spec)]
    pub fn masked_tile(args: &OpArgs, x: &MaskedTensor) -> Result<MaskedTensor> {
        Ok(MaskedTensor {
            values: x.values.dense_op(&catalog::TILE, args)?,
            mask: x.mask.dense_op(&catalog::TILE, args)?,
        })
    }

    /// `shape` of a MaskedTensor: the shape of its values (a dense `i64` tensor).
    #[dispatch(Shape)]
    pub fn masked_shape(x: &MaskedTensor) -> Result<Tensor> {
        ops::shape_as(&x.values)
    }
}

use extype::Tensor;
use extype::ops;
use masked::MaskedTensor;

/// `[[1, _, 3], [4, 5, _]]`: the values, `_` where masked out.
pub fn render(m: &MaskedTensor) -> extype::Result<String> {
    let values = ops::cast_as::<Tensor>(&m.values, extype::DType::F64)?;
    let values = values.as_array::<f64, ndarray::IxDyn>()?;
    let mask = m.mask.as_array::<bool, ndarray::IxDyn>()?;
    let cells: Vec<String> = values
        .iter()
        .zip(mask.iter())
        .map(|(v, &ok)| {
            if ok {
                format!("{}", (v * 1e3).round() / 1e3)
            } else {
                "_".into()
            }
        })
        .collect();
    Ok(nest(&cells, values.shape()))
}

fn nest(cells: &[String], shape: &[usize]) -> String {
    match shape.split_first() {
        None => cells.first().cloned().unwrap_or_default(),
        Some((&n, rest)) => {
            let step = rest.iter().product::<usize>();
            let parts: Vec<String> = (0..n)
                .map(|i| nest(&cells[i * step..(i + 1) * step], rest))
                .collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

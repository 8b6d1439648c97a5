//! A MaskedTensor: values plus a boolean mask of the same shape, as an extension type.
//!
//! The first part shows the derived spec: partial specs by hand, the shape contract,
//! compatibility, relaxation, components and the spec's JSON. The second part is TensorFlow's
//! guide behaviour through dispatch: three group handlers (unary elementwise, binary elementwise,
//! reduction) plus specific ones (`where`, `shape`, `tile`, masked `reduce_mean`, an exact `add`),
//! so every elementwise op and reduction works on MaskedTensor, mixes with dense tensors, and
//! propagates masks; and spec inference through those handlers before data exists.
//!
//! Run with `cargo run --example masked_tensor`.

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
    #[extype(name = "example.MaskedTensor", validate = check_mask, tensor_like = values)]
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
            values: op.apply(&x.values)?,
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
        let values = op.apply(&xv, &yv)?;
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
        let valid = op.apply_other(&catalog::REDUCE_ANY, &x.mask)?;
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
            op.apply(&filled)?
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

use extype::ops;
use extype::{Tensor, Value, ValueSpec};
use masked::MaskedTensor;
use ndarray::array;

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

fn show(label: &str, v: &Value) -> extype::Result<()> {
    match v.downcast_ref::<MaskedTensor>() {
        Ok(m) => println!("{label:<48} {}", render(m)?),
        Err(_) => {
            let t = ops::cast_as::<Tensor>(v, extype::DType::F64)?;
            let cells: Vec<f64> = t
                .as_array::<f64, ndarray::IxDyn>()?
                .iter()
                .copied()
                .collect();
            println!("{label:<48} {cells:?} (dense {})", t.dtype());
        }
    }
    Ok(())
}

fn main() -> extype::Result<()> {
    spec_tour()?;
    println!("\n== MaskedTensor through dispatch (`_` = masked out)");
    let x = MaskedTensor::new(
        array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]],
        array![[true, false, true], [true, true, false]],
    )?;
    let y = MaskedTensor::new(
        array![[10.0f32, 20.0, 30.0], [40.0, 50.0, 60.0]],
        array![[true, true, true], [false, true, true]],
    )?;
    show("x", &Value::from_extension(x.clone()))?;
    show("y", &Value::from_extension(y.clone()))?;
    show("x + y (exact handler)", &ops::add(&x, &y)?)?;
    show("x * y (binary group)", &ops::mul(&x, &y)?)?;
    show(
        "x - dense (binary group, mixed)",
        &ops::sub(&x, &array![1.0f32, 1.0, 1.0])?,
    )?;
    show(
        "dense > x (binary group, mixed)",
        &ops::greater(&array![[2.0f32], [5.0]], &x)?,
    )?;
    show("exp(x) (unary group)", &ops::exp(&x)?)?;
    show(
        "reduce_sum(x, axis 1) (reduction group, masked)",
        &ops::reduce_sum(&x, Some(&[1]), false)?,
    )?;
    show(
        "reduce_max(x, axis 0)",
        &ops::reduce_max(&x, Some(&[0]), false)?,
    )?;
    show("reduce_mean(x)", &ops::reduce_mean(&x, None, false)?)?;
    let cond = Tensor::from(array![true, false, true]);
    show("where(cond, x, y)", &ops::where_(&cond, &x, &y)?)?;
    show("shape(x)", &ops::shape(&x)?)?;
    show("tile(x, [1, 2])", &ops::tile(&x, &[1, 2])?)?;
    show("&x + &y (operator)", &Value::from_extension((&x + &y)?))?;
    show("-&x (operator)", &Value::from_extension((-&x)?))?;
    show(
        "1.0 - &x * 2.0 (operators, scalars: f32 here)",
        &Value::from_extension((1.0 - &(&x * 2.0)?)?),
    )?;

    println!("\n== Spec inference before data exists");
    let spec = |shape: &str| -> extype::Result<masked::MaskedTensorSpec> {
        let values = extype::TensorSpec::new(shape.parse()?, extype::DType::F32);
        let mask = extype::TensorSpec::new(shape.parse()?, extype::DType::Bool);
        Ok(masked::MaskedTensorSpec { values, mask })
    };
    let (sa, sb) = (spec("[?, 3]")?, spec("[4, ?]")?);
    let (a, b) = (
        ValueSpec::Extension(Box::new(sa.clone())),
        ValueSpec::Extension(Box::new(sb.clone())),
    );
    let out = ops::infer_spec(&ops::catalog::ADD, &[&a, &b], &ops::OpArgs::none())?;
    if let ValueSpec::Extension(s) = &out.spec
        && let Some(s) = s.as_any().downcast_ref::<masked::MaskedTensorSpec>()
    {
        println!("add({sa},\n    {sb})\n  = {s}");
    }
    let sum = ops::infer_spec(
        &ops::catalog::REDUCE_SUM,
        &[&out.spec],
        &ops::OpArgs::axes(&[1]),
    )?;
    if let ValueSpec::Extension(s) = &sum.spec
        && let Some(s) = s.as_any().downcast_ref::<masked::MaskedTensorSpec>()
    {
        println!("reduce_sum(that, axis 1) = {s}");
    }
    if let Err(e) = ops::infer_spec(&ops::catalog::TRANSPOSE, &[&a], &ops::OpArgs::none()) {
        println!("transpose (no handler): {e}");
    }
    Ok(())
}

/// The derived spec: what `#[derive(ExtensionType)]` gives the type before any op runs.
fn spec_tour() -> extype::Result<()> {
    use extype::{DType, ExtensionType, Shape, TensorSpec, TypeSpec};
    use masked::MaskedTensorSpec;

    let m = MaskedTensor::new(
        array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]],
        array![[true, false, true], [false, true, true]],
    )?;
    println!("== A value and its spec");
    let spec = m.spec();
    println!("spec: {spec}");

    println!("\n== The shape contract is checked on construction");
    let err =
        MaskedTensor::new(array![[1.0f32, 2.0, 3.0]], array![[true], [false], [true]]).unwrap_err();
    println!("error: {err}");

    println!("\n== A partial spec written by hand, refined by the contract");
    let mut partial = MaskedTensorSpec {
        values: TensorSpec::new("[?, 3]".parse::<Shape>()?, DType::F32),
        mask: TensorSpec::new("[2, ?]".parse::<Shape>()?, DType::Bool),
    };
    println!("by hand:   {partial}");
    partial.refine_shapes()?;
    println!("refined:   {partial}");
    println!(
        "compatible with the value's spec: {}",
        partial.is_compatible_with(&spec)
    );

    println!("\n== Relaxation: the most specific spec compatible with both");
    let other = MaskedTensor::new(
        ndarray::ArrayD::<f32>::zeros(ndarray::IxDyn(&[2, 5])),
        ndarray::ArrayD::from_elem(ndarray::IxDyn(&[2, 5]), true),
    )?;
    let relaxed = spec
        .most_specific_compatible(&other.spec())
        .ok_or_else(|| extype::Error::invalid("same dtypes and rank relax"))?;
    println!("{spec}\n  ∨ {}\n  = {relaxed}", other.spec());

    println!("\n== Components: borrowed views, or moved tensors (no copies)");
    for (spec, view) in spec.component_specs().iter().zip(spec.to_components(&m)) {
        println!("component {spec}: {:?}", view.shape());
    }
    let rebuilt = spec.from_components(m.clone().into_components())?;
    println!("rebuilt equals original: {}", rebuilt == m);

    println!("\n== The spec's JSON (stable, versioned, names the registered type)");
    println!("{}", extype::serial::spec_to_json(&spec)?);
    Ok(())
}

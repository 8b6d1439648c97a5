//! Spec inference without `infer = …`: a `#[dispatch]` handler returning a tensor-like extension
//! type whose tensor fields share one shape gets component-wise inference
//! (`ops::infer::componentwise`), one returning `Tensor` the op's dense inference on the inputs'
//! tensor-like specs; a type whose fields do not share one shape declines (the old error), and a
//! handler's own `infer = f` wins.

use extype::dispatch::Call;
use extype::ops::{self, AsOperand, Inferred, OpArgs, catalog};
use extype::{
    BinaryOp, DType, ExtensionType, ReductionOp, Result, Tensor, TensorSpec, TypeSpec, Value,
    ValueSpec, dispatch,
};
use ndarray::{Array2, ArrayD, array};

/// Values and a mask of one shape (one contract).
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_infer.Masked", tensor_like = values)]
pub struct Masked {
    #[extype(shape = "*dims")]
    pub values: Tensor,
    #[extype(shape = "*dims")]
    pub mask: Tensor,
}

/// The mask first, and of the same dtype as bool values: the dtype goes to `values` still.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_infer.MaskFirst", tensor_like = values)]
pub struct MaskFirst {
    pub mask: ArrayD<bool>,
    pub values: Tensor,
}

/// A nested tensor-like field and static data.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_infer.Labeled", tensor_like = inner)]
pub struct Labeled {
    pub inner: Masked,
    pub label: String,
}

/// Ragged-like: `values` and `row_splits` have different shapes.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_infer.Rows", tensor_like = values)]
pub struct Rows {
    pub values: Tensor,
    pub row_splits: ArrayD<i64>,
}

/// Fixed-rank fields: a result of another rank does not fit.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_infer.Fixed", tensor_like = values)]
pub struct Fixed {
    pub values: Array2<f32>,
    pub mask: Array2<bool>,
}

#[dispatch(reduction)]
fn fixed_reduce(op: &ReductionOp, x: &Fixed) -> Result<Option<Fixed>> {
    let _ = (op, x);
    Ok(None)
}

#[dispatch(Neg)]
fn fixed_neg(x: &Fixed) -> Result<Fixed> {
    Ok(Fixed {
        values: -&x.values,
        mask: x.mask.clone(),
    })
}

fn spec(text: &str) -> TensorSpec {
    text.parse().unwrap()
}

fn masked_spec(values: &str, mask: &str) -> ValueSpec {
    ValueSpec::Extension(Box::new(MaskedSpec {
        values: spec(values),
        mask: spec(mask),
    }))
}

fn dense(text: &str) -> ValueSpec {
    ValueSpec::Tensor(spec(text))
}

fn masked_of(inferred: &Inferred) -> &MaskedSpec {
    match &inferred.spec {
        ValueSpec::Extension(e) => e.as_any().downcast_ref::<MaskedSpec>().unwrap(),
        other => panic!("expected a Masked spec, found {other}"),
    }
}

fn text(inferred: &Inferred) -> String {
    let m = masked_of(inferred);
    format!("{}, {}", m.values, m.mask)
}

fn mask_and(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    ops::logical_and_as(x, y)
}

// The handlers: none has `infer = …`.

#[dispatch(binary_elementwise)]
fn masked_binary(op: &BinaryOp, x: &Masked, y: &Masked) -> Result<Option<Masked>> {
    let values = op.apply_as(&x.values, &y.values)?;
    Masked::try_new(values, mask_and(&x.mask, &y.mask)?).map(Some)
}

#[dispatch(reduction)]
fn masked_reduce(op: &ReductionOp, x: &Masked) -> Result<Masked> {
    let values = op.apply_as(&x.values)?;
    let mask = ops::reduce_any_as(&x.mask, op.axes(), op.keepdims())?;
    Masked::try_new(values, mask)
}

#[dispatch(Cast)]
fn masked_cast(x: &Masked, args: &OpArgs) -> Result<Masked> {
    let values = ops::call_as(&catalog::CAST, &[x.values.as_operand()], args)?;
    Masked::try_new(values, x.mask.clone())
}

#[dispatch(Reshape)]
fn masked_reshape(x: &Masked, args: &OpArgs) -> Result<Masked> {
    let values = ops::call_as(&catalog::RESHAPE, &[x.values.as_operand()], args)?;
    let mask = ops::call_as(&catalog::RESHAPE, &[x.mask.as_operand()], args)?;
    Masked::try_new(values, mask)
}

#[dispatch(Transpose)]
fn masked_transpose(x: &Masked, args: &OpArgs) -> Result<Masked> {
    let values = ops::call_as(&catalog::TRANSPOSE, &[x.values.as_operand()], args)?;
    let mask = ops::call_as(&catalog::TRANSPOSE, &[x.mask.as_operand()], args)?;
    Masked::try_new(values, mask)
}

#[dispatch(Tile)]
fn masked_tile(x: &Masked, args: &OpArgs) -> Result<Masked> {
    let values = ops::call_as(&catalog::TILE, &[x.values.as_operand()], args)?;
    let mask = ops::call_as(&catalog::TILE, &[x.mask.as_operand()], args)?;
    Masked::try_new(values, mask)
}

#[dispatch(Where)]
fn masked_where(cond: &Tensor, x: &Masked, y: &Masked) -> Result<Masked> {
    let values = ops::where_(cond, &x.values, &y.values)?.into_tensor()?;
    let mask = ops::where_(cond, &x.mask, &y.mask)?.into_tensor()?;
    Masked::try_new(values, mask)
}

/// Returns a dense tensor: the default is the dense inference on the tensor-like view.
#[dispatch(Abs)]
fn masked_abs_dense(x: &Masked) -> Result<Tensor> {
    ops::abs_as(&x.values)
}

/// Returns a `Value`: no default inference.
#[dispatch(Sqrt)]
fn masked_sqrt_value(x: &Masked) -> Result<Value> {
    ops::sqrt(&x.values)
}

/// Its own inference wins over the default.
#[dispatch(Neg, infer = neg_infer)]
fn masked_neg(x: &Masked) -> Result<Masked> {
    Masked::try_new(ops::neg_as(&x.values)?, x.mask.clone())
}

fn neg_infer(_: &Call<'_>, specs: &[&ValueSpec]) -> Result<ValueSpec> {
    assert_eq!(specs.len(), 1);
    Ok(masked_spec("f32[7]", "bool[7]"))
}

#[dispatch(Cast)]
fn mask_first_cast(x: &MaskFirst, args: &OpArgs) -> Result<MaskFirst> {
    let values = ops::call_as(&catalog::CAST, &[x.values.as_operand()], args)?;
    MaskFirst::try_new(x.mask.clone(), values)
}

#[dispatch(Cast)]
fn labeled_cast(x: &Labeled, args: &OpArgs) -> Result<Labeled> {
    let inner: Masked = ops::call_as(&catalog::CAST, &[x.inner.as_operand()], args)?;
    Labeled::try_new(inner, x.label.clone())
}

#[dispatch(unary_elementwise)]
fn rows_unary(op: &extype::UnaryOp, x: &Rows) -> Result<Rows> {
    Rows::try_new(op.apply_as(&x.values)?, x.row_splits.clone())
}

#[test]
fn binary_ops_broadcast_values_and_mask_alike() {
    let (x, y) = (
        masked_spec("f32[?, 3]", "bool[?, 3]"),
        masked_spec("f32[4, ?]", "bool[4, ?]"),
    );
    let out = ops::infer_spec(&catalog::ADD, &[&x, &y], &OpArgs::none()).unwrap();
    assert_eq!(text(&out), "f32[4, 3], bool[4, 3]");
    // The dense inference's broadcast checks come along.
    assert_eq!(
        out.checks.unwrap().to_string(),
        "argument 1 axis 1 ∈ {1, 3}; argument 0 axis 0 ∈ {1, 4}"
    );
    // A comparison: the values become bool, the mask stays bool.
    let x = masked_spec("f32[2, 3]", "bool[2, 3]");
    let out = ops::infer_spec(&catalog::GREATER, &[&x, &x], &OpArgs::none()).unwrap();
    assert_eq!(text(&out), "bool[2, 3], bool[2, 3]");
    // What the handler returns agrees.
    let m = Masked::try_new(
        Tensor::from(array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]].into_dyn()),
        Tensor::from(ArrayD::from_elem(vec![2, 3], true)),
    )
    .unwrap();
    let real = ops::greater(&m, &m).unwrap().spec();
    assert_eq!(out.spec, real);
    // A spec the registry decoded (erased, no per-type code) infers alike.
    let ValueSpec::Extension(typed) = masked_spec("f32[?, 3]", "bool[?, 3]") else {
        unreachable!()
    };
    let erased = ValueSpec::Extension(
        extype::registry()
            .deserialize_spec(&typed.dyn_serialize())
            .unwrap(),
    );
    let out = ops::infer_spec(&catalog::LESS, &[&erased, &x], &OpArgs::none()).unwrap();
    assert_eq!(text(&out), "bool[2, 3], bool[2, 3]");
    // Shapes that cannot broadcast: the dense inference's error.
    let z = masked_spec("f32[5]", "bool[5]");
    let err = ops::infer_spec(&catalog::ADD, &[&x, &z], &OpArgs::none()).unwrap_err();
    assert!(
        err.to_string()
            .contains("they must be equal or one must be 1"),
        "{err}"
    );
}

#[test]
fn a_hand_made_spec_is_refined_by_the_contract_first() {
    // Each field knows one dim of `*dims`: together `[4, 3]`.
    let x = masked_spec("f32[?, 3]", "bool[4, ?]");
    let out = ops::infer_spec(&catalog::EXP, &[&x], &OpArgs::none()).unwrap();
    assert_eq!(text(&out), "f32[4, 3], bool[4, 3]");
}

#[dispatch(Exp)]
fn masked_exp(x: &Masked) -> Result<Masked> {
    Masked::try_new(ops::exp_as(&x.values)?, x.mask.clone())
}

#[test]
fn reductions_widen_and_reduce_the_mask_alike() {
    let x = masked_spec("i32[2, 3]", "bool[2, 3]");
    let out = ops::infer_spec(&catalog::REDUCE_SUM, &[&x], &OpArgs::axes(&[1])).unwrap();
    assert_eq!(text(&out), "i64[2], bool[2]");
    let out = ops::infer_spec(
        &catalog::REDUCE_MAX,
        &[&x],
        &OpArgs::axes(&[-1]).keepdims(true),
    )
    .unwrap();
    assert_eq!(text(&out), "i32[2, 1], bool[2, 1]");
}

#[test]
fn cast_changes_the_values_dtype_only() {
    let x = masked_spec("f32[2, ?]", "bool[2, ?]");
    let args = OpArgs::none().with_dtype(DType::F64);
    let out = ops::infer_spec(&catalog::CAST, &[&x], &args).unwrap();
    assert_eq!(text(&out), "f64[2, ?], bool[2, ?]");
    // Bool values and a bool mask declared first: the dtype still goes to `values`.
    let first = ValueSpec::Extension(Box::new(MaskFirstSpec {
        mask: spec("bool[3]"),
        values: spec("bool[3]"),
    }));
    let out = ops::infer_spec(&catalog::CAST, &[&first], &args).unwrap();
    let ValueSpec::Extension(e) = &out.spec else {
        panic!("{}", out.spec)
    };
    let out = e.as_any().downcast_ref::<MaskFirstSpec>().unwrap();
    assert_eq!(
        (out.mask.to_string(), out.values.to_string()),
        ("bool[3]".into(), "f64[3]".into())
    );
}

#[test]
fn data_moving_ops_act_on_values_and_mask_alike() {
    let x = masked_spec("f32[2, 3]", "bool[2, 3]");
    let reshape = OpArgs::none().with_shape(&[3, 2]);
    let out = ops::infer_spec(&catalog::RESHAPE, &[&x], &reshape).unwrap();
    assert_eq!(text(&out), "f32[3, 2], bool[3, 2]");
    let out = ops::infer_spec(&catalog::TRANSPOSE, &[&x], &OpArgs::none()).unwrap();
    assert_eq!(text(&out), "f32[3, 2], bool[3, 2]");
    let tile = OpArgs::none().with_shape(&[2, 2]);
    let out = ops::infer_spec(&catalog::TILE, &[&x], &tile).unwrap();
    assert_eq!(text(&out), "f32[4, 6], bool[4, 6]");
    // `where` broadcasts its three arguments, a dense condition among them.
    let cond = dense("bool[4, 1, 3]");
    let y = masked_spec("f32[1, 3]", "bool[1, 3]");
    let out = ops::infer_spec(&catalog::WHERE, &[&cond, &x, &y], &OpArgs::none()).unwrap();
    assert_eq!(text(&out), "f32[4, 2, 3], bool[4, 2, 3]");
}

#[test]
fn nested_tensor_like_fields_and_static_data() {
    let x = ValueSpec::Extension(Box::new(LabeledSpec {
        inner: MaskedSpec {
            values: spec("i32[5]"),
            mask: spec("bool[5]"),
        },
        label: "kept".into(),
    }));
    let args = OpArgs::none().with_dtype(DType::F32);
    let out = ops::infer_spec(&catalog::CAST, &[&x], &args).unwrap();
    let ValueSpec::Extension(e) = &out.spec else {
        panic!("{}", out.spec)
    };
    let out = e.as_any().downcast_ref::<LabeledSpec>().unwrap();
    assert_eq!(out.inner.values.to_string(), "f32[5]");
    assert_eq!(out.inner.mask.to_string(), "bool[5]");
    assert_eq!(out.label, "kept");
}

#[test]
fn a_tensor_result_gets_the_dense_inference_of_the_tensor_like_view() {
    let x = masked_spec("f32[?, 3]", "bool[?, 3]");
    let out = ops::infer_spec(&catalog::ABS, &[&x], &OpArgs::none()).unwrap();
    assert_eq!(out.spec, dense("f32[?, 3]"));
}

#[test]
fn without_a_shared_shape_or_a_single_result_type_the_old_error_stands() {
    // Rows: `values` and `row_splits` differ in shape: the default declines.
    let rows = Rows::try_new(
        Tensor::from(array![1.0f32, 2.0, 3.0, 4.0].into_dyn()),
        array![0i64, 1, 4].into_dyn(),
    )
    .unwrap();
    let spec = Value::from_extension(rows.clone()).spec();
    let err = ops::infer_spec(&catalog::NEG, &[&spec], &OpArgs::none()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("neg: no handler for arguments (test_infer.Rows); tried: rows_unary(&dispatch_infer_default::Rows) at tests/dispatch_infer_default.rs:"),
        "{text}"
    );
    assert!(
        text.contains("(no spec inference; add `infer = …` to its #[dispatch])"),
        "{text}"
    );
    // The handler itself runs.
    assert!(ops::neg(&rows).is_ok());
    // A handler returning `Value` has no default.
    let x = masked_spec("f32[2]", "bool[2]");
    let err = ops::infer_spec(&catalog::SQRT, &[&x], &OpArgs::none()).unwrap_err();
    assert!(
        err.to_string().contains(
            "masked_sqrt_value(&dispatch_infer_default::Masked) at tests/dispatch_infer_default.rs"
        ) && err.to_string().contains("(no spec inference;"),
        "{err}"
    );
    // Mask and values of shapes the contract does not admit together: declines too.
    let ragged = masked_spec("f32[2, 3]", "bool[2, 4]");
    let args = OpArgs::none().with_dtype(DType::F64);
    let err = ops::infer_spec(&catalog::CAST, &[&ragged], &args).unwrap_err();
    assert!(err.to_string().contains("(no spec inference;"), "{err}");
}

extype::declare_op!(
    /// A user op with no dense inference of its own.
    pub OTHER: other(1) "test_infer.other"
);

#[dispatch(op = OTHER)]
fn masked_other(x: &Masked) -> Result<Masked> {
    Ok(x.clone())
}

#[test]
fn an_op_without_dense_inference_declines() {
    let x = masked_spec("f32[2]", "bool[2]");
    let err = ops::infer_spec(&OTHER, &[&x], &OpArgs::none()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("masked_other(&dispatch_infer_default::Masked) at")
            && text.contains("(no spec inference; add `infer = …` to its #[dispatch])"),
        "{text}"
    );
}

#[test]
fn a_result_the_type_cannot_hold_declines() {
    let x = ValueSpec::Extension(Box::new(FixedSpec {
        values: spec("f32[2, 3]"),
        mask: spec("bool[2, 3]"),
    }));
    let out = ops::infer_spec(&catalog::NEG, &[&x], &OpArgs::none()).unwrap();
    assert_eq!(out.spec, x);
    // A rank-1 sum does not fit `Array2` fields.
    let err = ops::infer_spec(&catalog::REDUCE_SUM, &[&x], &OpArgs::axes(&[1])).unwrap_err();
    assert!(
        err.to_string()
            .contains("fixed_reduce(&dispatch_infer_default::Fixed) at")
            && err.to_string().contains("(no spec inference;"),
        "{err}"
    );
}

#[test]
fn a_handler_with_its_own_inference_keeps_it() {
    let x = masked_spec("f32[2, 3]", "bool[2, 3]");
    let out = ops::infer_spec(&catalog::NEG, &[&x], &OpArgs::none()).unwrap();
    assert_eq!(text(&out), "f32[7], bool[7]");
}

#[test]
fn the_helper_can_be_called_and_adapted() {
    let x = masked_spec("f32[2, 3]", "bool[2, 3]");
    let y = dense("f32[3]");
    // A dense operand is valid everywhere: the helper infers from `x`.
    let out = ops::infer::componentwise::<Masked>(&catalog::MUL, &[&x, &y], &OpArgs::none())
        .unwrap()
        .unwrap();
    assert_eq!(text(&out), "f32[2, 3], bool[2, 3]");
    // No input of the type: declines.
    let none =
        ops::infer::componentwise::<Rows>(&catalog::MUL, &[&x, &y], &OpArgs::none()).unwrap();
    assert!(none.is_none());
    // The spec rebuild it is made of.
    let m = masked_of(&out);
    let rebuilt = m
        .with_component_specs(vec![spec("u8[9]"), spec("bool[9]")])
        .unwrap();
    assert_eq!(rebuilt.values.to_string(), "u8[9]");
}

//! A user-written MaskedTensor through dispatch (the handlers of `tests/dispatch/user_masked.rs`):
//! every elementwise op and reduction works on it, mixes with dense tensors and propagates masks.

use crate::example;

use example::masked::{MaskedTensor, MaskedTensorSpec};
use extype::ops::{self, OpArgs, catalog};
use extype::{DType, Tensor, TensorSpec, Value, ValueSpec};
use ndarray::{ArrayD, array};

fn x() -> MaskedTensor {
    MaskedTensor::new(
        array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]],
        array![[true, false, true], [true, true, false]],
    )
    .unwrap()
}

fn y() -> MaskedTensor {
    MaskedTensor::new(
        array![[10.0f32, 20.0, 30.0], [40.0, 50.0, 60.0]],
        array![[true, true, true], [false, true, true]],
    )
    .unwrap()
}

fn t<A: extype::Element, D: ndarray::Dimension>(a: ndarray::Array<A, D>) -> Tensor {
    Tensor::from(a.into_dyn())
}

fn masked(v: Value) -> MaskedTensor {
    v.downcast::<MaskedTensor>().unwrap()
}

#[test]
fn exact_add_and_masks_and() {
    let z: MaskedTensor = ops::add_as(&x(), &y()).unwrap();
    assert_eq!(
        z.values,
        t(array![[11.0f32, 22.0, 33.0], [44.0, 55.0, 66.0]])
    );
    assert_eq!(z.mask, t(array![[true, false, true], [false, true, false]]));
    assert_eq!(example::render(&z).unwrap(), "[[11, _, 33], [_, 55, _]]");
}

#[test]
fn every_binary_op_goes_through_the_group_handler() {
    let (a, b) = (x(), y());
    for op in catalog::ALL
        .iter()
        .filter(|op| op.kind() == extype::OpKind::BinaryElementwise)
    {
        let out = masked(op.apply2(&a, &b).unwrap_or_else(|e| panic!("{op}: {e}")));
        let dense = op
            .apply2(&a.values, &b.values)
            .unwrap()
            .into_tensor()
            .unwrap();
        assert_eq!(out.values, dense, "{op}");
        assert_eq!(
            out.mask,
            t(array![[true, false, true], [false, true, false]]),
            "{op}"
        );
    }
}

#[test]
fn every_unary_op_keeps_the_mask() {
    let a = x();
    for op in catalog::ALL
        .iter()
        .filter(|op| op.kind() == extype::OpKind::UnaryElementwise)
    {
        let out = masked(op.apply1(&a).unwrap_or_else(|e| panic!("{op}: {e}")));
        assert_eq!(
            out.values,
            op.apply1(&a.values).unwrap().into_tensor().unwrap(),
            "{op}"
        );
        assert_eq!(out.mask, a.mask, "{op}");
    }
}

/// TF (the extension-type guide: `dispatch_for_unary_elementwise_apis(MaskedTensor)` serves
/// `tf.ones_like(x)` and `tf.zeros_like`): the user's unary group handler takes `ones_like` and
/// `zeros_like`, keeping the mask, with no handler of their own.
#[test]
fn ones_like_and_zeros_like_reach_the_unary_group_handler() {
    let a = x();
    let ones: MaskedTensor = ops::ones_like_as(&a).unwrap();
    assert_eq!(
        ones.values,
        t(ndarray::ArrayD::<f32>::ones(ndarray::IxDyn(&[2, 3])))
    );
    assert_eq!(ones.mask, a.mask);
    let zeros: MaskedTensor = ops::zeros_like_as(&a).unwrap();
    assert_eq!(
        zeros.values,
        t(ndarray::ArrayD::<f32>::zeros(ndarray::IxDyn(&[2, 3])))
    );
    assert_eq!(zeros.mask, a.mask);
    assert_eq!(catalog::ONES_LIKE.kind(), extype::OpKind::UnaryElementwise);
    assert_eq!(catalog::ZEROS_LIKE.kind(), extype::OpKind::UnaryElementwise);
}

#[test]
fn mixing_with_dense_broadcasts_the_mask() {
    // MaskedTensor [3] with a dense [2, 1]: result [2, 3], the mask broadcast.
    let m = MaskedTensor::new(array![1.0f32, 2.0, 3.0], array![true, false, true]).unwrap();
    let d = array![[10.0f32], [20.0]];
    let out: MaskedTensor = ops::mul_as(&d, &m).unwrap();
    assert_eq!(
        out.values,
        t(array![[10.0f32, 20.0, 30.0], [20.0, 40.0, 60.0]])
    );
    assert_eq!(
        out.mask,
        t(array![[true, false, true], [true, false, true]])
    );
    // A dense tensor on the right, and a Value wrapping the MaskedTensor on the left.
    let v = Value::from_extension(m.clone());
    let out: MaskedTensor = ops::sub_as(&v, &Tensor::from(array![1.0f32])).unwrap();
    assert_eq!(out.values, t(array![0.0f32, 1.0, 2.0]));
    assert_eq!(out.mask, m.mask);
}

#[test]
fn reductions_ignore_masked_values() {
    let a = x();
    let sum: MaskedTensor = ops::reduce_sum_as(&a, Some(&[1]), false).unwrap();
    assert_eq!(sum.values, t(array![4.0f32, 9.0]));
    assert_eq!(sum.mask, t(array![true, true]));
    let max: MaskedTensor = ops::reduce_max_as(&a, Some(&[0]), false).unwrap();
    assert_eq!(max.values, t(array![4.0f32, 5.0, 3.0]));
    let min: MaskedTensor = ops::reduce_min_as(&a, Some(&[1]), true).unwrap();
    assert_eq!(min.values, t(array![[1.0f32], [4.0]]));
    let prod: MaskedTensor = ops::reduce_prod_as(&a, None, false).unwrap();
    assert_eq!(prod.values, t(ndarray::arr0(1.0f32 * 3.0 * 4.0 * 5.0)));
    let argmax: MaskedTensor = ops::argmax_as(&a, Some(&[1]), false).unwrap();
    assert_eq!(argmax.values, t(array![2i64, 1]));
    let count: MaskedTensor = ops::count_nonzero_as(&a, None, false).unwrap();
    assert_eq!(count.values, t(ndarray::arr0(4i64)));
    // A column with no valid value is masked out.
    let b = MaskedTensor::new(array![[1.0f32, 2.0]], array![[true, false]]).unwrap();
    let max: MaskedTensor = ops::reduce_max_as(&b, Some(&[0]), false).unwrap();
    assert_eq!(max.mask, t(array![true, false]));
    assert_eq!(max.values.as_array::<f32, ndarray::Ix1>().unwrap()[0], 1.0);
}

#[test]
fn reduce_mean_has_its_own_handler() {
    let a = x();
    let mean: MaskedTensor = ops::reduce_mean_as(&a, None, false).unwrap();
    assert_eq!(mean.values, t(ndarray::arr0(13.0f32 / 4.0)));
    assert_eq!(mean.mask, t(ndarray::arr0(true)));
    let mean: MaskedTensor = ops::reduce_mean_as(&a, Some(&[0]), false).unwrap();
    assert_eq!(mean.values.view().shape(), &[3]);
    let v = mean.values.as_array::<f32, ndarray::Ix1>().unwrap();
    assert_eq!((v[0], v[1], v[2]), (2.5, 5.0, 3.0));
}

#[test]
fn where_and_shape_and_operators() {
    let (a, b) = (x(), y());
    let cond = Tensor::from(array![true, false, true]);
    let w: MaskedTensor = ops::where_as(&cond, &a, &b).unwrap();
    assert_eq!(w.values, t(array![[1.0f32, 20.0, 3.0], [4.0, 50.0, 6.0]]));
    assert_eq!(w.mask, t(array![[true, true, true], [true, true, false]]));
    let tiled: MaskedTensor = ops::tile_as(&a, &[1, 2]).unwrap();
    assert_eq!(
        tiled.mask,
        t(array![
            [true, false, true, true, false, true],
            [true, true, false, true, true, false]
        ])
    );
    assert_eq!(tiled.values.shape(), &[2, 6]);
    let s: Tensor = ops::shape_as(&a).unwrap();
    assert_eq!(s, t(array![2i64, 3]));
    let sum = (&a + &b).unwrap();
    assert_eq!(sum, ops::add_as::<MaskedTensor>(&a, &b).unwrap());
    let diff = (&a - &Tensor::from(array![1.0f32])).unwrap();
    assert_eq!(diff.values, t(array![[0.0f32, 1.0, 2.0], [3.0, 4.0, 5.0]]));
    let q = (&a / &b).unwrap();
    assert_eq!(q.mask, t(array![[true, false, true], [false, true, false]]));
    let neg = (-&a).unwrap();
    assert_eq!(
        neg.values,
        t(array![[-1.0f32, -2.0, -3.0], [-4.0, -5.0, -6.0]])
    );
}

#[test]
fn errors_name_op_and_arguments() {
    // Integer MaskedTensor: exp is float-only; the dense error comes through the handler,
    // which the error names with its registration.
    let i = MaskedTensor::new(array![1i32, 2], array![true, true]).unwrap();
    let err = ops::exp(&i).unwrap_err();
    let msg = err.to_string();
    let dense = "exp: argument 0: expected a float dtype (f16, bf16, f32, f64), found dtype i32";
    assert!(
        msg.starts_with("exp via masked_unary (tests/dispatch/user_masked.rs:")
            && msg.ends_with(&format!("): {dense}")),
        "{msg}"
    );
    assert_eq!(err.without_context().to_string(), dense);
    // Shapes that do not broadcast.
    let a = x();
    let err = ops::mul(&a, &array![1.0f32, 2.0]).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with("mul via masked_binary (")
            && msg.contains("): mul:")
            && msg.contains("broadcast")
            && msg.contains("[2, 3]"),
        "names the op, the handler, the problem and the shapes: {msg}"
    );
    // `transpose` has no MaskedTensor handler: the error lists what was tried.
    let err = ops::transpose(&a, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "transpose: no handler for arguments (example.MaskedTensor); tried: dense default (not \
         applicable: argument 0 is example.MaskedTensor, not a tensor)"
    );
}

#[test]
fn spec_inference_for_masked_add_and_chains() {
    let spec = |shape: &str| {
        ValueSpec::Extension(Box::new(MaskedTensorSpec {
            values: TensorSpec::new(shape.parse().unwrap(), DType::F32),
            mask: TensorSpec::new(shape.parse().unwrap(), DType::Bool),
        }))
    };
    let (a, b) = (spec("[?, 3]"), spec("[4, ?]"));
    let out = ops::infer_spec(&catalog::ADD, &[&a, &b], &OpArgs::none()).unwrap();
    assert_eq!(out.spec, spec("[4, 3]"));
    // Chain: (a + b) + c, checked on specs alone; c's last axis conflicts.
    let c = spec("[4, 5]");
    let err = ops::infer_spec(&catalog::ADD, &[&out.spec, &c], &OpArgs::none()).unwrap_err();
    assert!(
        err.to_string().contains("must be equal or one must be 1"),
        "{err}"
    );
    // Group handlers infer too: mul (binary group), exp (unary), reduce_max (reduction).
    let m = ops::infer_spec(&catalog::MUL, &[&a, &b], &OpArgs::none()).unwrap();
    let e = ops::infer_spec(&catalog::EXP, &[&m.spec], &OpArgs::none()).unwrap();
    let r = ops::infer_spec(&catalog::REDUCE_MAX, &[&e.spec], &OpArgs::axes(&[0])).unwrap();
    assert_eq!(r.spec, spec("[3]"));
    // Mixed with a dense spec.
    let d = ValueSpec::Tensor(TensorSpec::new("[3]".parse().unwrap(), DType::F32));
    let mixed = ops::infer_spec(&catalog::SUB, &[&d, &a], &OpArgs::none()).unwrap();
    assert_eq!(mixed.spec, spec("[?, 3]"));
    // Dense specs alone: the handlers' inference declines, the op's own rule runs.
    let dense = ops::infer_spec(&catalog::SUB, &[&d, &d], &OpArgs::none()).unwrap();
    assert_eq!(dense.spec, d);
    // tile has a handler with inference; transpose has no MaskedTensor handler.
    let tiled =
        ops::infer_spec(&catalog::TILE, &[&a], &OpArgs::none().with_shape(&[1, 2])).unwrap();
    assert_eq!(tiled.spec, spec("[?, 6]"));
    let err = ops::infer_spec(&catalog::TRANSPOSE, &[&a], &OpArgs::none()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "transpose: no handler for arguments (example.MaskedTensor); tried: dense default (not \
         applicable: argument 0 is example.MaskedTensor, not a tensor)"
    );
    // A dense chain: exp(x) then reduce_sum over axis 1.
    let x = ValueSpec::Tensor(TensorSpec::new("[?, 8]".parse().unwrap(), DType::F32));
    let e = ops::infer_spec(&catalog::EXP, &[&x], &OpArgs::none()).unwrap();
    let r = ops::infer_spec(&catalog::REDUCE_SUM, &[&e.spec], &OpArgs::axes(&[1])).unwrap();
    assert_eq!(r.tensor_spec().unwrap().to_string(), "f32[?]");
    // The inferred spec agrees with the data.
    let data = ops::add_as::<MaskedTensor>(&x_sized(4, 3), &x_sized(1, 3)).unwrap();
    let inferred = ops::infer_spec(
        &catalog::ADD,
        &[
            &Value::from_extension(x_sized(4, 3)).spec(),
            &Value::from_extension(x_sized(1, 3)).spec(),
        ],
        &OpArgs::none(),
    )
    .unwrap();
    assert_eq!(inferred.spec, Value::from_extension(data).spec());
}

fn x_sized(r: usize, c: usize) -> MaskedTensor {
    MaskedTensor::new(
        ArrayD::from_elem(ndarray::IxDyn(&[r, c]), 1.0f32),
        ArrayD::from_elem(ndarray::IxDyn(&[r, c]), true),
    )
    .unwrap()
}

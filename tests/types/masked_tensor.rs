//! Conformance of `extype::types::MaskedTensor` with TensorFlow: each test names the TF
//! behaviour it follows (TF's ops applied to `(values, mask)`, as in TF's extension-type guide's
//! MaskedTensor), including all-false masks, NaN/±inf under the mask, zero-size and rank-0
//! values. Property tests against the dense ops are in `masked_tensor_props.rs`.

#[path = "../common/supported.rs"]
#[allow(dead_code)]
mod supported;

use extype::ndarray::{ArrayD, IxDyn, arr0, array};
use extype::ops;
use extype::types::{MaskedTensor, MaskedTensorSpec};
use extype::{DType, ExtensionType, Result, Tensor, TensorLike, TypeSpec, Value};

fn m(values: impl Into<Tensor>, mask: impl Into<Tensor>) -> MaskedTensor {
    MaskedTensor::new(values, mask).unwrap()
}

fn t(x: impl Into<Tensor>) -> Tensor {
    x.into()
}

/// `[[1, 2, 3], [4, 5, 6]]` with `[[T, F, T], [T, T, F]]`.
fn x() -> MaskedTensor {
    m(
        array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]],
        array![[true, false, true], [true, true, false]],
    )
}

#[test]
fn construction_checks_dtype_and_shape() {
    let err = MaskedTensor::new(array![1.0f32, 2.0], array![true]).unwrap_err();
    assert!(err.to_string().contains("mask"), "{err}");
    let err = MaskedTensor::new(array![1.0f32], array![1i32]).unwrap_err();
    assert!(
        err.to_string()
            .contains("the mask must have dtype bool, found i32"),
        "{err}"
    );
    // Rank 0 and zero-size values are values like any other.
    let scalar = m(arr0(2i64), arr0(true));
    assert_eq!(scalar.to_string(), "i64[] 2");
    let empty = m(
        ArrayD::<f32>::zeros(IxDyn(&[0, 3])),
        ArrayD::from_elem(IxDyn(&[0, 3]), false),
    );
    assert_eq!(empty.to_string(), "f32[0, 3] []");
    let dense = MaskedTensor::from_dense(array![1u8, 2]);
    assert_eq!(dense.to_string(), "u8[2] [1, 2]");
}

#[test]
fn display_shows_masked_elements_and_summarises_over_a_thousand_elements() {
    assert_eq!(x().to_string(), "f32[2, 3] [[1.0, _, 3.0], [4.0, 5.0, _]]");
    let long = m(
        ArrayD::from_shape_fn(IxDyn(&[9]), |i| i[0] as i32),
        ArrayD::from_shape_fn(IxDyn(&[9]), |i| i[0] % 2 == 0),
    );
    assert_eq!(long.to_string(), "i32[9] [0, _, 2, _, 4, _, 6, _, 8]");
    // NumPy summarises above 1000 elements: three edge items per axis around `...`.
    let longer = m(
        ArrayD::from_shape_fn(IxDyn(&[1001]), |i| i[0] as i32),
        ArrayD::from_shape_fn(IxDyn(&[1001]), |i| i[0] % 2 == 0),
    );
    assert_eq!(longer.to_string(), "i32[1001] [0, _, 2, ..., 998, _, 1000]");
    // Through `Value`, a tensor-like value starts with its dtype and shape.
    let v = Value::from_extension(x());
    assert!(
        v.to_string().starts_with("f32[2, 3] extype.MaskedTensor"),
        "{v}"
    );
}

#[test]
fn tensor_like_interface() -> Result<()> {
    let x = x();
    assert_eq!(TensorLike::dtype(&x), DType::F32);
    assert_eq!(TensorLike::shape(&x).to_string(), "[2, 3]");
    assert_eq!(ops::rank(&x)?, 2);
    assert_eq!(ops::shape_as::<Tensor>(&x)?, t(array![2i64, 3]));
    let spec = MaskedTensorSpec::new("f32[?, 3]".parse()?);
    assert_eq!(TensorLike::shape(&spec).to_string(), "[?, 3]");
    assert_eq!(spec.mask().to_string(), "bool[?, 3]");
    Ok(())
}

#[test]
fn parts_fill_and_count() -> Result<()> {
    let x = x();
    // TF guide `with_default`: `where(mask, values, default)`.
    assert_eq!(
        x.to_dense(&arr0(0.0f32))?,
        t(array![[1.0f32, 0.0, 3.0], [4.0, 5.0, 0.0]])
    );
    let filled = x.filled(&arr0(-1.0f32))?;
    assert_eq!(
        filled.values(),
        &t(array![[1.0f32, -1.0, 3.0], [4.0, 5.0, -1.0]])
    );
    assert_eq!(filled.mask(), x.mask());
    assert!(x.filled(&ArrayD::<f32>::zeros(IxDyn(&[4, 2, 3]))).is_err());
    assert_eq!(x.count(None, false)?, t(arr0(4i64)));
    assert_eq!(x.count(Some(&[0]), false)?, t(array![2i64, 1, 1]));
    assert_eq!(x.count(Some(&[-1]), true)?, t(array![[2i64], [2]]));
    let (values, mask) = x.clone().into_parts();
    assert_eq!(MaskedTensor::new(values, mask)?, x);
    Ok(())
}

/// TF: unary elementwise ops map the values; the mask is unchanged.
#[test]
fn unary_ops_map_values_and_keep_the_mask() -> Result<()> {
    let x = x();
    let y: MaskedTensor = ops::neg_as(&x)?;
    assert_eq!(
        y.values(),
        &t(array![[-1.0f32, -2.0, -3.0], [-4.0, -5.0, -6.0]])
    );
    assert_eq!(y.mask(), x.mask());
    // An op whose output dtype differs (is_nan: float → bool) keeps the mask too.
    let nan = m(array![f64::NAN, 1.0, f64::NAN], array![true, true, false]);
    let y: MaskedTensor = ops::is_nan_as(&nan)?;
    assert_eq!(y.to_string(), "bool[3] [true, false, _]");
    // Masked-out elements never raise: sqrt/log of a masked-out negative is NaN under a false mask.
    let neg = m(array![4.0f32, -1.0], array![true, false]);
    let y: MaskedTensor = ops::sqrt_as(&neg)?;
    assert_eq!(y.to_string(), "f32[2] [2.0, _]");
    // Rank 0 and zero-size.
    let y: MaskedTensor = ops::abs_as(&m(arr0(-3i32), arr0(true)))?;
    assert_eq!(y.to_string(), "i32[] 3");
    let y: MaskedTensor = ops::exp_as(&m(
        ArrayD::<f64>::zeros(IxDyn(&[2, 0])),
        ArrayD::from_elem(IxDyn(&[2, 0]), true),
    ))?;
    assert_eq!(y.shape(), &[2, 0]);
    Ok(())
}

/// TF: binary ops broadcast (NumPy rules) and AND the masks; a dense operand (tensor, array,
/// scalar) is valid everywhere.
#[test]
fn binary_ops_broadcast_and_and_the_masks() -> Result<()> {
    let x = x();
    let y = m(
        array![[10.0f32, 20.0, 30.0], [40.0, 50.0, 60.0]],
        array![[true, true, true], [false, true, true]],
    );
    let z: MaskedTensor = ops::add_as(&x, &y)?;
    assert_eq!(z.to_string(), "f32[2, 3] [[11.0, _, 33.0], [_, 55.0, _]]");
    // A dense row broadcasts; its elements are valid.
    let z: MaskedTensor = ops::mul_as(&x, &array![1.0f32, 10.0, 100.0])?;
    assert_eq!(z.to_string(), "f32[2, 3] [[1.0, _, 300.0], [4.0, 50.0, _]]");
    // Dense on the left, a column MaskedTensor broadcast against a row.
    let col = m(array![[1.0f32], [2.0]], array![[true], [false]]);
    let z: MaskedTensor = ops::sub_as(&array![10.0f32, 20.0, 30.0], &col)?;
    assert_eq!(z.to_string(), "f32[2, 3] [[9.0, 19.0, 29.0], [_, _, _]]");
    // A rank-0 scalar operand.
    let z: MaskedTensor = ops::div_as(&x, &arr0(2.0f32))?;
    assert_eq!(z.to_string(), "f32[2, 3] [[0.5, _, 1.5], [2.0, 2.5, _]]");
    // Both masked and broadcast: `[2, 1] & [3]` → `[2, 3]`.
    let row = m(array![1.0f32, 1.0, 1.0], array![true, false, true]);
    let z: MaskedTensor = ops::add_as(&col, &row)?;
    assert_eq!(z.to_string(), "f32[2, 3] [[2.0, _, 2.0], [_, _, _]]");
    // Comparisons: bool values, ANDed masks.
    let z: MaskedTensor = ops::greater_as(&x, &arr0(2.5f32))?;
    assert_eq!(
        z.to_string(),
        "bool[2, 3] [[false, _, true], [true, true, _]]"
    );
    // A NaN under a false mask stays there.
    let nan = m(array![f32::NAN, 1.0], array![false, true]);
    let z: MaskedTensor = ops::add_as(&nan, &array![1.0f32, 1.0])?;
    assert_eq!(z.to_string(), "f32[2] [_, 2.0]");
    // Shapes that do not broadcast are the dense op's error.
    let err = ops::add(&x, &array![1.0f32, 2.0]).unwrap_err().to_string();
    assert!(err.contains("add"), "{err}");
    // Two dense arguments never reach the MaskedTensor handlers.
    assert!(
        ops::add(&array![1.0f32], &array![2.0f32])?
            .as_tensor()
            .is_ok()
    );
    Ok(())
}

/// TF guide `masked_where`: values and masks both picked by the condition; a masked condition
/// also masks the result where it is invalid.
#[test]
fn where_picks_values_and_masks() -> Result<()> {
    let x = x();
    let y = m(
        array![[10.0f32, 20.0, 30.0], [40.0, 50.0, 60.0]],
        array![[false, true, true], [true, true, true]],
    );
    let cond = array![true, false, true];
    let z: MaskedTensor = ops::where_as(&cond, &x, &y)?;
    assert_eq!(
        z.to_string(),
        "f32[2, 3] [[1.0, 20.0, 3.0], [4.0, 50.0, _]]"
    );
    let z: MaskedTensor = ops::where_as(&cond, &x, &arr0(0.0f32))?;
    assert_eq!(z.to_string(), "f32[2, 3] [[1.0, 0.0, 3.0], [4.0, 0.0, _]]");
    let masked_cond = m(array![true, false, true], array![true, true, false]);
    let z: MaskedTensor = ops::where_as(&masked_cond, &x, &y)?;
    assert_eq!(z.to_string(), "f32[2, 3] [[1.0, 20.0, _], [4.0, 50.0, _]]");
    Ok(())
}

fn reduce(
    op: &'static extype::Op,
    x: &MaskedTensor,
    axes: Option<&[isize]>,
    keepdims: bool,
) -> Result<MaskedTensor> {
    ops::call_as(
        op,
        &[extype::AsOperand::as_operand(x)],
        &ops::OpArgs::maybe_axes(axes).keepdims(keepdims),
    )
}

/// TF: each reduction of `where(mask, values, identity)`; the result is valid where the count of
/// valid elements is > 0.
#[test]
fn reductions_fill_with_the_identity() -> Result<()> {
    use extype::ops::catalog::*;
    let x = x();
    let s = |op, axes: Option<&[isize]>| reduce(op, &x, axes, false).map(|r| r.to_string());
    assert_eq!(s(&REDUCE_SUM, None)?, "f32[] 13.0");
    assert_eq!(s(&REDUCE_SUM, Some(&[1]))?, "f32[2] [4.0, 9.0]");
    assert_eq!(s(&REDUCE_SUM, Some(&[-2]))?, "f32[3] [5.0, 5.0, 3.0]");
    assert_eq!(s(&REDUCE_MEAN, Some(&[0]))?, "f32[3] [2.5, 5.0, 3.0]");
    assert_eq!(s(&REDUCE_MAX, Some(&[1]))?, "f32[2] [3.0, 5.0]");
    assert_eq!(s(&REDUCE_MIN, Some(&[1]))?, "f32[2] [1.0, 4.0]");
    assert_eq!(s(&REDUCE_PROD, Some(&[1]))?, "f32[2] [3.0, 20.0]");
    assert_eq!(s(&ARGMAX, Some(&[1]))?, "i64[2] [2, 1]");
    assert_eq!(s(&ARGMIN, Some(&[1]))?, "i64[2] [0, 0]");
    assert_eq!(s(&COUNT_NONZERO, Some(&[0, 1]))?, "i64[] 4");
    assert_eq!(s(&REDUCE_ANY, Some(&[0]))?, "bool[3] [true, true, true]");
    // keepdims keeps the reduced axes with size 1.
    let k = reduce(&REDUCE_SUM, &x, Some(&[1]), true)?;
    assert_eq!(k.to_string(), "f32[2, 1] [[4.0], [9.0]]");
    // A bad axis is the error the dense op gives, naming the op called (TF: "Invalid
    // reduction dimension 2 for input with 2 dimensions" from the op called).
    for (op, name) in [
        (&REDUCE_SUM, "reduce_sum"),
        (&ARGMAX, "argmax"),
        (&REDUCE_MEAN, "reduce_mean"),
    ] {
        let e = reduce(op, &x, Some(&[2]), false).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "{name}: axes: expected an axis in -2..2 (rank 2), found 2"
            )),
            "{e}"
        );
    }
    Ok(())
}

/// A reduction of a masked value consults the dispatch table once (the user's call): the
/// handler reads the op's identity and result dtype from the op's data and runs its dense parts
/// on the op model.
#[test]
fn a_masked_reduction_consults_the_dispatch_table_once() {
    use extype::ops::{AsOperand, OpArgs, catalog::*};
    let floats = x();
    let ints = m(
        array![[1i32, 2, 3], [4, 5, 6]],
        array![[true, false, true], [true, true, false]],
    );
    let empty = m(
        ArrayD::<f64>::zeros(IxDyn(&[2, 0])),
        ArrayD::from_elem(IxDyn(&[2, 0]), true),
    );
    for value in [&floats, &ints, &empty] {
        for op in [
            &REDUCE_SUM,
            &REDUCE_MEAN,
            &REDUCE_MAX,
            &REDUCE_PROD,
            &ARGMIN,
            &COUNT_NONZERO,
        ] {
            for axes in [Some(&[1isize][..]), None] {
                if value.shape().contains(&0) && matches!(op.name(), "argmin") {
                    continue; // no index in an empty extent: an error, checked elsewhere
                }
                let before = extype::dispatch::consultations();
                let out = ops::call(op, &[value.as_operand()], &OpArgs::maybe_axes(axes));
                let consulted = extype::dispatch::consultations() - before;
                out.unwrap_or_else(|e| panic!("{op} over {axes:?}: {e}"));
                assert_eq!(consulted, 1, "{op} over {axes:?} of {}", value.dtype());
            }
        }
    }
}

/// TF: reducing a row with no valid element gives the identity (sum 0, prod 1, max -inf,
/// min +inf, any false, all true) and mean 0/0 = NaN; such a row is masked out (count 0).
#[test]
fn all_false_rows_give_the_identity_under_a_false_mask() -> Result<()> {
    use extype::ops::catalog::*;
    let x = m(
        array![[1.0f64, 2.0], [3.0, 4.0]],
        array![[false, false], [true, false]],
    );
    let r = |op| reduce(op, &x, Some(&[1]), false);
    let sum = r(&REDUCE_SUM)?;
    assert_eq!(sum.values(), &t(array![0.0f64, 3.0]));
    assert_eq!(sum.mask(), &t(array![false, true]));
    assert_eq!(r(&REDUCE_PROD)?.values(), &t(array![1.0f64, 3.0]));
    assert_eq!(r(&REDUCE_MAX)?.values(), &t(array![f64::NEG_INFINITY, 3.0]));
    assert_eq!(r(&REDUCE_MIN)?.values(), &t(array![f64::INFINITY, 3.0]));
    let mean = r(&REDUCE_MEAN)?;
    let mean = mean.values().as_array::<f64, IxDyn>()?;
    assert!(mean[[0]].is_nan() && mean[[1]] == 3.0);
    assert_eq!(r(&ARGMAX)?.values(), &t(array![0i64, 0]));
    // Integers: the dtype's lowest / highest; bools: false / true.
    let ints = m(array![[5i32, 7]], array![[false, false]]);
    let max = reduce(&REDUCE_MAX, &ints, None, false)?;
    assert_eq!(max.values(), &t(arr0(i32::MIN)));
    assert_eq!(max.mask(), &t(arr0(false)));
    assert_eq!(
        reduce(&REDUCE_MIN, &ints, None, false)?.values(),
        &t(arr0(i32::MAX))
    );
    let bools = m(array![true, false], array![false, false]);
    assert_eq!(
        reduce(&REDUCE_ALL, &bools, None, false)?.values(),
        &t(arr0(true))
    );
    assert_eq!(
        reduce(&REDUCE_ANY, &bools, None, false)?.values(),
        &t(arr0(false))
    );
    Ok(())
}

/// TF's masked semantics: NaN and ±inf under a false mask never reach a result.
#[test]
fn nan_and_inf_under_the_mask_never_reach_a_result() -> Result<()> {
    use extype::ops::catalog::*;
    let x = m(
        array![
            [f32::NAN, 1.0, f32::INFINITY],
            [f32::NEG_INFINITY, 2.0, f32::NAN]
        ],
        array![[false, true, false], [false, true, false]],
    );
    for (op, want) in [
        (&REDUCE_SUM, "f32[2] [1.0, 2.0]"),
        (&REDUCE_MEAN, "f32[2] [1.0, 2.0]"),
        (&REDUCE_MAX, "f32[2] [1.0, 2.0]"),
        (&REDUCE_MIN, "f32[2] [1.0, 2.0]"),
        (&REDUCE_PROD, "f32[2] [1.0, 2.0]"),
        (&ARGMAX, "i64[2] [1, 1]"),
        (&ARGMIN, "i64[2] [1, 1]"),
    ] {
        assert_eq!(
            reduce(op, &x, Some(&[1]), false)?.to_string(),
            want,
            "{}",
            op.name()
        );
    }
    // A valid -inf is the max of its row, and argmax picks it over masked-out elements.
    let y = m(array![[1.0f32, f32::NEG_INFINITY]], array![[false, true]]);
    assert_eq!(reduce(&ARGMAX, &y, None, false)?.to_string(), "i64[] 1");
    assert_eq!(
        reduce(&REDUCE_MAX, &y, None, false)?.to_string(),
        "f32[] -inf"
    );
    Ok(())
}

/// TF: `reduce_mean` of integers gives `f64` (`FloatOfInts`), `reduce_sum` widens to 64 bits.
#[test]
fn integer_reductions_follow_the_dense_dtype_rules() -> Result<()> {
    use extype::ops::catalog::*;
    let x = m(
        array![[1i32, 2, 4], [8, 16, 32]],
        array![[true, false, true], [false, false, false]],
    );
    let mean = reduce(&REDUCE_MEAN, &x, Some(&[1]), false)?;
    assert_eq!(mean.dtype(), DType::F64);
    let v = mean.values().as_array::<f64, IxDyn>()?;
    assert!(v[[0]] == 2.5 && v[[1]].is_nan());
    assert_eq!(mean.mask(), &t(array![true, false]));
    let sum = reduce(&REDUCE_SUM, &x, None, false)?;
    assert_eq!(sum.to_string(), "i64[] 5");
    Ok(())
}

/// Zero-size and rank-0 reductions: no element reduced → the identity under a false mask.
#[test]
fn zero_size_and_rank_0_reductions() -> Result<()> {
    use extype::ops::catalog::*;
    let empty = m(
        ArrayD::<f32>::zeros(IxDyn(&[0, 3])),
        ArrayD::from_elem(IxDyn(&[0, 3]), true),
    );
    let max = reduce(&REDUCE_MAX, &empty, Some(&[0]), false)?;
    assert_eq!(
        max.values(),
        &t(ArrayD::from_elem(IxDyn(&[3]), f32::NEG_INFINITY))
    );
    assert_eq!(max.mask(), &t(ArrayD::from_elem(IxDyn(&[3]), false)));
    assert_eq!(
        reduce(&REDUCE_SUM, &empty, Some(&[1]), false)?.shape(),
        &[0]
    );
    assert_eq!(reduce(&ARGMIN, &empty, None, false)?.to_string(), "i64[] _");
    let scalar = m(arr0(7.0f64), arr0(true));
    assert_eq!(
        reduce(&REDUCE_SUM, &scalar, None, false)?.to_string(),
        "f64[] 7.0"
    );
    let hidden = m(arr0(7.0f64), arr0(false));
    let sum = reduce(&REDUCE_SUM, &hidden, None, false)?;
    assert_eq!(
        (sum.values(), sum.mask()),
        (&t(arr0(0.0f64)), &t(arr0(false)))
    );
    Ok(())
}

/// `cast` converts the values (mask kept); reshape / transpose / tile / gather move values and
/// mask alike (TF: the same op on both components).
#[test]
fn shape_ops_act_on_values_and_mask_alike() -> Result<()> {
    let x = x();
    let c: MaskedTensor = ops::cast_as(&x, DType::I64)?;
    assert_eq!(c.to_string(), "i64[2, 3] [[1, _, 3], [4, 5, _]]");
    let r: MaskedTensor = ops::reshape_as(&x, &[3, 2])?;
    assert_eq!(r.to_string(), "f32[3, 2] [[1.0, _], [3.0, 4.0], [5.0, _]]");
    let tr: MaskedTensor = ops::transpose_as(&x, None)?;
    assert_eq!(tr.to_string(), "f32[3, 2] [[1.0, 4.0], [_, 5.0], [3.0, _]]");
    let tl: MaskedTensor = ops::tile_as(&x, &[1, 2])?;
    assert_eq!(
        tl.to_string(),
        "f32[2, 6] [[1.0, _, 3.0, 1.0, _, 3.0], [4.0, 5.0, _, 4.0, 5.0, _]]"
    );
    let g: MaskedTensor = ops::gather_as(&x, &[2, 0], 1)?;
    assert_eq!(g.to_string(), "f32[2, 2] [[3.0, 1.0], [_, 4.0]]");
    let z: MaskedTensor = ops::zeros_like_as(&x)?;
    assert_eq!(z.to_string(), "f32[2, 3] [[0.0, _, 0.0], [0.0, 0.0, _]]");
    assert!(ops::reshape(&x, &[4]).is_err());
    Ok(())
}

/// `stack` / `concat` of MaskedTensors join values and masks alike.
#[test]
fn stack_and_concat_join_values_and_masks() -> Result<()> {
    use extype::AsOperand;
    let x = x();
    let both = [x.as_operand(), x.as_operand()];
    let s: MaskedTensor = ops::stack_as(&both, 0)?;
    assert_eq!(s.shape(), &[2, 2, 3]);
    assert!(!s.mask().as_array::<bool, IxDyn>()?[[1, 0, 1]]);
    // Any axis, any number of values: values and masks joined alike.
    let y = m(array![[7.0f32], [8.0]], array![[false], [true]]);
    let three = [x.as_operand(), y.as_operand(), x.as_operand()];
    let c: MaskedTensor = ops::concat_as(&three, -1)?;
    assert_eq!(
        c.values(),
        &t(array![
            [1.0f32, 2.0, 3.0, 7.0, 1.0, 2.0, 3.0],
            [4.0, 5.0, 6.0, 8.0, 4.0, 5.0, 6.0]
        ])
    );
    assert_eq!(
        c.mask(),
        &t(array![
            [true, false, true, false, true, false, true],
            [true, true, false, true, true, true, false]
        ])
    );
    let s1: MaskedTensor = ops::stack_as(&both, 1)?;
    assert_eq!(s1.shape(), &[2, 2, 3]);
    assert_eq!(
        s1.to_string(),
        "f32[2, 2, 3] [[[1.0, _, 3.0], [1.0, _, 3.0]], [[4.0, 5.0, _], [4.0, 5.0, _]]]"
    );
    // Shapes that do not fit the axis, and values of other dtypes, are the dense op's errors.
    assert!(ops::concat(&[x.as_operand(), y.as_operand()], 0).is_err());
    let ints = m(
        array![[1i32, 2, 3], [4, 5, 6]],
        ArrayD::from_elem(IxDyn(&[2, 3]), true),
    );
    assert!(ops::concat(&[x.as_operand(), ints.as_operand()], 1).is_err());
    let c: MaskedTensor = ops::concat_as(&both, 0)?;
    assert_eq!(
        c.to_string(),
        "f32[4, 3] [[1.0, _, 3.0], [4.0, 5.0, _], [1.0, _, 3.0], [4.0, 5.0, _]]"
    );
    Ok(())
}

/// TF (the extension-type guide's `masked_stack`, dispatched for `tf.stack` on a list of
/// `Union[MaskedTensor, tf.Tensor]`, each dense operand as `MaskedTensor(v, ones_like(v,
/// tf.bool))`): `tf.stack([mt, dense])` and `tf.concat([dense, mt], 0)` give MaskedTensors, the
/// dense operand valid everywhere; an array or a scalar counts as a dense operand; spec
/// inference agrees; only dense operands stay with the dense op.
#[test]
fn stack_and_concat_of_masked_and_dense_mixed() -> Result<()> {
    use extype::{AsOperand, ValueSpec, ops::OpArgs, ops::catalog};
    let x = x();
    let dense = t(array![[10.0f32, 20.0, 30.0], [40.0, 50.0, 60.0]]);
    let s: MaskedTensor = ops::stack_as(&[x.as_operand(), dense.as_operand()], 0)?;
    assert_eq!(
        s.to_string(),
        "f32[2, 2, 3] [[[1.0, _, 3.0], [4.0, 5.0, _]], [[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]]]"
    );
    let row = array![7.0f32, 8.0, 9.0];
    let c: MaskedTensor = ops::concat_as(
        &[
            row.view().insert_axis(ndarray::Axis(0)).as_operand(),
            x.as_operand(),
        ],
        0,
    )?;
    assert_eq!(
        c.to_string(),
        "f32[3, 3] [[7.0, 8.0, 9.0], [1.0, _, 3.0], [4.0, 5.0, _]]"
    );
    // Three operands, the masked one in the middle, on axis 1.
    let s1: MaskedTensor =
        ops::stack_as(&[dense.as_operand(), x.as_operand(), dense.as_operand()], 1)?;
    assert_eq!(s1.shape(), &[2, 3, 3]);
    assert_eq!(
        s1.mask(),
        &t(array![
            [[true, true, true], [true, false, true], [true, true, true]],
            [[true, true, true], [true, true, false], [true, true, true]]
        ])
    );
    // Rank-0 masked values stack with scalars.
    let scalar = m(arr0(1.5f64), arr0(false));
    let v: MaskedTensor = ops::stack_as(&[scalar.as_operand(), 2.5f64.as_operand()], 0)?;
    assert_eq!(v.to_string(), "f64[2] [_, 2.5]");
    // Spec inference: a MaskedTensor spec of the stacked shape.
    let specs = [
        ValueSpec::Extension(Box::new(x.spec())),
        ValueSpec::Tensor(extype::TensorSpec::from_tensor(&dense)),
    ];
    let inferred = ops::infer_spec(
        &catalog::STACK,
        &[&specs[0], &specs[1]],
        &OpArgs::none().with_axis(0),
    )?;
    assert_eq!(inferred.spec, ValueSpec::Extension(Box::new(s.spec())));
    // Errors are the dense op's: another dtype, another shape.
    let e = ops::stack(
        &[x.as_operand(), array![[1i32, 2, 3], [4, 5, 6]].as_operand()],
        0,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("stack"), "{e}");
    let e = ops::concat(&[x.as_operand(), array![1.0f32].as_operand()], 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("concat"), "{e}");
    // Dense operands only: the dense op, a tensor.
    let d = ops::stack(&[dense.as_operand(), dense.as_operand()], 0)?;
    assert!(matches!(d, Value::Tensor(_)));
    Ok(())
}

/// TF (the extension-type guide's `masked_matmul`: `tf.matmul(a.with_default(0),
/// b.with_default(0))` for a MaskedTensor on either side, the other dense or masked): the
/// values are the guide's result; extype keeps a mask, valid where a term of the contraction
/// has both factors valid (the rule of `reduce_sum`, documented on `MaskedTensor`).
#[test]
fn matmul_with_masked_and_dense_operands_follows_the_guide() -> Result<()> {
    use extype::{ValueSpec, ops::OpArgs, ops::catalog};
    // [[1, _, 3], [4, 5, _]] @ [[1, 2], [3, 4], [5, 6]]
    let x = x();
    let dense = t(array![[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]]);
    let r: MaskedTensor = ops::matmul_as(&x, &dense)?;
    // The guide: [[1, 0, 3], [4, 5, 0]] @ dense = [[16, 20], [19, 28]].
    assert_eq!(r.values(), &t(array![[16.0f32, 20.0], [19.0, 28.0]]));
    assert_eq!(r.mask(), &t(array![[true, true], [true, true]]));
    // dense @ masked: [[1, 1], [0, 1]] @ [[1, _], [_, 2]] (a row of the dense side meets
    // only invalid elements of one column: that element is invalid).
    let left = t(array![[1.0f64, 1.0], [0.0, 1.0]]);
    let right = m(
        array![[1.0f64, 9.0], [9.0, 2.0]],
        array![[true, false], [false, true]],
    );
    let r: MaskedTensor = ops::matmul_as(&left, &right)?;
    assert_eq!(r.values(), &t(array![[1.0f64, 2.0], [0.0, 2.0]]));
    assert_eq!(r.mask(), &t(array![[true, true], [true, true]]));
    // masked @ masked: a term is valid when both factors are.
    let a = m(array![[1.0f64, 2.0]], array![[true, false]]);
    let b = m(
        array![[3.0f64, 4.0], [5.0, 6.0]],
        array![[false, true], [true, true]],
    );
    let r: MaskedTensor = ops::matmul_as(&a, &b)?;
    assert_eq!(r.to_string(), "f64[1, 2] [[_, 4.0]]");
    // `values()` is the guide's tensor bit for bit: inf under the mask meets a 0 (NaN).
    let inf = m(array![[f32::INFINITY, 1.0]], array![[false, true]]);
    let r: MaskedTensor = ops::matmul_as(&inf, &array![[2.0f32], [3.0]])?;
    assert_eq!(r.values(), &t(array![[3.0f32]]));
    let r: MaskedTensor = ops::matmul_as(
        &array![[2.0f32, 3.0]],
        &m(array![[f32::NAN], [1.0]], array![[false], [true]]),
    )?;
    assert_eq!(r.values(), &t(array![[3.0f32]]));
    // An empty contraction: 0 under a false mask.
    let empty = m(
        ArrayD::<f32>::zeros(IxDyn(&[2, 0])),
        ArrayD::from_elem(IxDyn(&[2, 0]), true),
    );
    let r: MaskedTensor = ops::matmul_as(&empty, &ArrayD::<f32>::zeros(IxDyn(&[0, 3])))?;
    assert_eq!(r.shape(), &[2, 3]);
    assert_eq!(r.count(None, false)?, t(arr0(0i64)));
    // Batched, the leading axis broadcast; integers.
    let bi = m(
        array![[[1i32, 2], [3, 4]], [[5, 6], [7, 8]]],
        array![
            [[true, true], [false, false]],
            [[true, false], [true, true]]
        ],
    );
    let r: MaskedTensor = ops::matmul_as(&bi, &array![[1i32], [1]])?;
    assert_eq!(r.to_string(), "i32[2, 2, 1] [[[3], [_]], [[5], [15]]]");
    // Spec inference: a MaskedTensor of the product's shape.
    let specs = [
        ValueSpec::Extension(Box::new(x.spec())),
        ValueSpec::Tensor(extype::TensorSpec::from_tensor(&dense)),
    ];
    let inferred = ops::infer_spec(&catalog::MATMUL, &[&specs[0], &specs[1]], &OpArgs::none())?;
    assert_eq!(
        inferred.spec,
        ValueSpec::Extension(Box::new(ops::matmul_as::<MaskedTensor>(&x, &dense)?.spec()))
    );
    // Errors are the dense matmul's: the contraction, the dtype.
    let e = ops::matmul(&x, &array![[1.0f32, 2.0]])
        .unwrap_err()
        .to_string();
    assert!(e.contains("matmul"), "{e}");
    let e = ops::matmul(&x, &array![[1.0f64], [2.0], [3.0]])
        .unwrap_err()
        .to_string();
    assert!(e.contains("matmul"), "{e}");
    Ok(())
}

/// Batching (the default encoder) and files: a MaskedTensor is a value like any other.
#[test]
fn batches_and_files() -> Result<()> {
    let x = x();
    let batch = extype::batch::stack(&[x.clone(), x.clone()])?;
    assert_eq!(batch.shape(), &[2, 2, 3]);
    assert_eq!(extype::batch::unstack(batch)?, vec![x.clone(), x.clone()]);
    let dir = std::env::temp_dir().join(format!("extype-masked-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("x.safetensors");
    extype::io::save(&path, &x)?;
    assert_eq!(extype::io::load_as::<MaskedTensor>(&path)?, x);
    let loaded = extype::io::load(&path)?;
    assert_eq!(loaded.type_name(), "extype.MaskedTensor");
    assert!(
        x.spec()
            .serialize()
            .to_string()
            .contains("extype.MaskedTensor")
    );
    std::fs::remove_dir_all(&dir).unwrap();
    Ok(())
}

/// `ops::supported` is honest for the library type: every op it lists runs on a sample value,
/// every other catalog op fails with "no handler"; and it lists what the type's docs promise.
#[test]
fn supported_ops_run() {
    let ints = m(
        array![[1i32, -2], [3, 4]],
        array![[true, false], [true, true]],
    );
    for (sample, float) in [(x(), true), (ints, false)] {
        let listed = supported::check_supported(&Value::from_extension(sample));
        let names: Vec<&str> = listed.iter().map(|op| op.name()).collect();
        for promised in [
            "neg",
            "abs",
            "is_nan",
            "add",
            "greater",
            "logical_and",
            "reduce_sum",
            "reduce_mean",
            "reduce_max",
            "argmax",
            "count_nonzero",
            "shape",
            "reshape",
            "transpose",
            "concat",
            "stack",
            "tile",
            "gather",
            "where",
            "cast",
            "zeros_like",
            "ones_like",
            "matmul",
        ] {
            assert!(names.contains(&promised), "{promised} not in {names:?}");
        }
        // Float-only ops are listed for float values only.
        assert_eq!(
            names.contains(&"exp") && names.contains(&"div"),
            float,
            "{names:?}"
        );
    }
}

/// Spec inference before data exists, with no inference written for the type: component-wise
/// (the values' spec by the op's rule, the mask's shape alike, still bool).
#[test]
fn spec_inference_is_component_wise() -> Result<()> {
    use extype::ValueSpec;
    use extype::ops::{OpArgs, catalog};
    let spec = |text: &str| -> Result<ValueSpec> {
        Ok(ValueSpec::Extension(Box::new(MaskedTensorSpec::new(
            text.parse()?,
        ))))
    };
    let show = |v: &ValueSpec| v.to_string();
    let (a, b) = (spec("f32[?, 3]")?, spec("f32[4, ?]")?);
    let out = ops::infer_spec(&catalog::ADD, &[&a, &b], &OpArgs::none())?;
    assert_eq!(
        show(&out.spec),
        "extype.MaskedTensor { values: f32[4, 3], mask: bool[4, 3] }"
    );
    let dense = ValueSpec::Tensor("f32[3]".parse()?);
    let out = ops::infer_spec(&catalog::GREATER, &[&a, &dense], &OpArgs::none())?;
    assert_eq!(
        show(&out.spec),
        "extype.MaskedTensor { values: bool[?, 3], mask: bool[?, 3] }"
    );
    let ints = spec("i32[2, 5]")?;
    let out = ops::infer_spec(&catalog::REDUCE_MEAN, &[&ints], &OpArgs::axes(&[-1]))?;
    assert_eq!(
        show(&out.spec),
        "extype.MaskedTensor { values: f64[2], mask: bool[2] }"
    );
    let out = ops::infer_spec(
        &catalog::REDUCE_SUM,
        &[&ints],
        &OpArgs::axes(&[0]).keepdims(true),
    )?;
    assert_eq!(
        show(&out.spec),
        "extype.MaskedTensor { values: i64[1, 5], mask: bool[1, 5] }"
    );
    let out = ops::infer_spec(
        &catalog::CAST,
        &[&ints],
        &OpArgs::none().with_dtype(DType::F32),
    )?;
    assert_eq!(
        show(&out.spec),
        "extype.MaskedTensor { values: f32[2, 5], mask: bool[2, 5] }"
    );
    let out = ops::infer_spec(&catalog::TRANSPOSE, &[&ints], &OpArgs::none())?;
    assert_eq!(
        show(&out.spec),
        "extype.MaskedTensor { values: i32[5, 2], mask: bool[5, 2] }"
    );
    let cond = ValueSpec::Tensor("bool[5]".parse()?);
    let out = ops::infer_spec(&catalog::WHERE, &[&cond, &ints, &ints], &OpArgs::none())?;
    assert_eq!(
        show(&out.spec),
        "extype.MaskedTensor { values: i32[2, 5], mask: bool[2, 5] }"
    );
    // The inference agrees with the op on data.
    let value = x();
    let inferred = ops::infer_spec(
        &catalog::REDUCE_MAX,
        &[&Value::from_extension(value.clone()).spec()],
        &OpArgs::axes(&[1]),
    )?;
    let ran: MaskedTensor = ops::reduce_max_as(&value, Some(&[1]), false)?;
    assert_eq!(inferred.spec, Value::from_extension(ran).spec());
    // Shapes that cannot broadcast are an error before any data exists.
    assert!(
        ops::infer_spec(
            &catalog::ADD,
            &[&spec("f32[2]")?, &spec("f32[3]")?],
            &OpArgs::none()
        )
        .is_err()
    );
    Ok(())
}

/// `#[dispatch(operators)]`: operators return MaskedTensors and chain; scalars on either side
/// take the values' dtype.
#[test]
fn operators_chain_with_scalars() -> Result<()> {
    let x = x();
    let y = (&(&x + 1.0)? * 2.0)?;
    assert_eq!(y.to_string(), "f32[2, 3] [[4.0, _, 8.0], [10.0, 12.0, _]]");
    let z = (1.0 - &y)?;
    assert_eq!(
        z.to_string(),
        "f32[2, 3] [[-3.0, _, -7.0], [-9.0, -11.0, _]]"
    );
    let w = (-&(&z / &y)?)?;
    assert_eq!(
        w.to_string(),
        "f32[2, 3] [[0.75, _, 0.875], [0.9, 0.9166667, _]]"
    );
    let ints = m(array![1i32, 2], array![true, false]);
    assert_eq!((&ints * 3)?.to_string(), "i32[2] [3, _]");
    let err = (&ints + 0.5).unwrap_err().to_string();
    assert!(err.contains("0.5") && err.contains("i32"), "{err}");
    Ok(())
}

/// TF (the extension-type guide's MaskedTensor, whose unary dispatcher covers `tf.ones_like`):
/// `ones_like` and `zeros_like` map the values and keep the mask; spec inference agrees.
#[test]
fn ones_like_and_zeros_like_keep_the_mask() {
    let ones: MaskedTensor = ops::ones_like_as(&x()).unwrap();
    assert_eq!(ones.to_string(), "f32[2, 3] [[1.0, _, 1.0], [1.0, 1.0, _]]");
    assert_eq!(ones.mask(), x().mask());
    let zeros: MaskedTensor = ops::zeros_like_as(&x()).unwrap();
    assert_eq!(
        zeros.to_string(),
        "f32[2, 3] [[0.0, _, 0.0], [0.0, 0.0, _]]"
    );
    assert_eq!(zeros.values(), &t(ArrayD::<f32>::zeros(IxDyn(&[2, 3]))));
    let spec = extype::ValueSpec::Extension(Box::new(x().spec()));
    for op in ["ones_like", "zeros_like"] {
        let inferred = ops::infer_spec(
            ops::catalog::lookup(op).unwrap(),
            &[&spec],
            &extype::OpArgs::none(),
        )
        .unwrap();
        assert_eq!(inferred.spec, spec, "{op}");
    }
}

/// TF: `tf.ones_like(x, dtype=…)` on the guide's MaskedTensor (its unary dispatcher passes the
/// `dtype` through): values of the new dtype, the same mask; spec inference agrees; a
/// `RaggedTensor` keeps its row partitions, a `SparseTensor` its entries for `zeros_like`.
#[test]
fn ones_like_and_zeros_like_take_a_dtype() {
    let ones: MaskedTensor = ops::ones_like_dtype_as(&x(), DType::I32).unwrap();
    assert_eq!(ones.to_string(), "i32[2, 3] [[1, _, 1], [1, 1, _]]");
    assert_eq!(ones.mask(), x().mask());
    let spec = extype::ValueSpec::Extension(Box::new(x().spec()));
    let inferred = ops::infer_spec(
        &ops::catalog::ONES_LIKE,
        &[&spec],
        &extype::OpArgs::none().with_dtype(DType::I32),
    )
    .unwrap();
    let want = ones.spec();
    assert_eq!(inferred.spec, extype::ValueSpec::Extension(Box::new(want)));
    let r = extype::ragged![[1.5f32, 2.5], [], [3.5]].unwrap();
    let z: extype::types::RaggedTensor = ops::zeros_like_dtype_as(&r, DType::I64).unwrap();
    assert_eq!(z.to_string(), "i64[3, ?] [[0, 0], [], [0]]");
    let s = extype::types::SparseTensor::new(array![[1i64]], array![2.0f32], &[3]).unwrap();
    let z: extype::types::SparseTensor = ops::zeros_like_dtype_as(&s, DType::F64).unwrap();
    assert_eq!(z.dtype(), DType::F64);
    assert_eq!(
        z.to_dense(&0.0f64, false).unwrap(),
        t(array![0.0f64, 0.0, 0.0])
    );
}

/// `Value::item`: an op's dense one-element result as a Rust scalar; an extension value is
/// named in the error.
#[test]
fn value_item_reads_dense_results_and_names_extension_values() {
    let sum = ops::add(&arr0(1.5f32), &arr0(2.0f32)).unwrap();
    assert_eq!(sum.item::<f32>().unwrap(), 3.5);
    assert_eq!(sum.as_tensor().unwrap().to_vec::<f32>().unwrap(), vec![3.5]);
    let e = Value::from_extension(x())
        .item::<f32>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("item") && e.contains("MaskedTensor"), "{e}");
}

/// The mask is declared the values' validity (`#[extype(validity_of = values)]`), for the
/// spec, the erased spec, and a user's type nesting it (paths prefixed as component paths).
#[test]
fn the_mask_is_declared_the_validity_of_the_values() {
    let pair = |m: &str, v: &str| (m.to_string(), v.to_string());
    let spec = x().spec();
    assert_eq!(spec.validity(), [pair("mask", "values")]);
    assert_eq!(
        extype::AnySpec::dyn_validity(&spec),
        [pair("mask", "values")]
    );

    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "tests.types.Readings")]
    struct Readings {
        channels: Vec<MaskedTensor>,
        #[extype(validity_of = times)]
        seen: Tensor,
        times: Tensor,
        label: Tensor,
    }
    let r = Readings {
        channels: vec![x(), x()],
        seen: t(array![true, false]),
        times: t(array![1.0f64, 2.0]),
        label: t(array![0i32, 1]),
    };
    let expected = [
        pair("channels[0].mask", "channels[0].values"),
        pair("channels[1].mask", "channels[1].values"),
        pair("seen", "times"),
    ];
    assert_eq!(r.spec().validity(), expected);
    // Through the object-safe spec of a `Value`.
    let value = Value::from_extension(r.clone());
    let Value::Extension(e) = &value else {
        unreachable!()
    };
    assert_eq!(e.any_spec().dyn_validity(), expected);
    // Specs without declarations declare none.
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "tests.types.Plain")]
    struct Plain {
        a: Tensor,
    }
    assert!(Plain { a: t(arr0(1.0f32)) }.spec().validity().is_empty());
}

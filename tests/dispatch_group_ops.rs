//! Group handlers as a user writes them: the op callables take any operand and give any result
//! type (`apply_as::<ArrayD<f32>>` on an `ArrayD` field, no detour through `Tensor`), apply the
//! op to a nested extension value through dispatch, decline by the op's result dtype, and an
//! error raised inside a handler names the op, the handler and its registration.

use extype::dispatch::table;
use extype::ops::{self, AsOperand, OpArgs, catalog};
use extype::{
    BinaryOp, DType, Error, ExtensionType, Operand, ReductionOp, Result, Tensor, UnaryOp,
    ValueSpec, dispatch,
};
use ndarray::{ArrayD, array};

/// Values held as an `ArrayD<f32>`: the handler keeps the type's one dtype.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.group_ops.F32s")]
pub struct F32s {
    pub values: ArrayD<f32>,
}

/// Declines an op whose result is not `f32` (`is_nan`), so the error lists it as declined.
#[dispatch(unary_elementwise)]
fn f32s_unary(op: &UnaryOp, x: &F32s) -> Result<Option<F32s>> {
    if op.result_dtype(DType::F32)? != DType::F32 {
        return Ok(None);
    }
    Ok(Some(F32s {
        values: op.apply_as::<ArrayD<f32>>(&x.values)?,
    }))
}

/// Values held as a `Tensor`: any result dtype fits.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.group_ops.Boxed")]
pub struct Boxed {
    pub values: Tensor,
}

#[dispatch(unary_elementwise)]
fn boxed_unary(op: &UnaryOp, x: &Boxed) -> Result<Boxed> {
    Ok(Boxed {
        values: op.apply_as(&x.values)?,
    })
}

/// `Boxed` with anything: the other operand (a tensor, an array, a scalar) goes to the op as is.
#[dispatch(binary_elementwise)]
fn boxed_binary(op: &BinaryOp, x: &Boxed, y: &Operand) -> Result<Boxed> {
    Ok(Boxed {
        values: op.apply_as(&x.values, y)?,
    })
}

/// An extension value inside another: its handler applies the op to the inner value, which
/// goes through dispatch to `f32s_unary`.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.group_ops.Outer")]
pub struct Outer {
    pub inner: F32s,
    pub scale: ArrayD<f32>,
}

#[dispatch(unary_elementwise)]
fn outer_unary(op: &UnaryOp, x: &Outer) -> Result<Outer> {
    Ok(Outer {
        inner: op.apply_as(&x.inner)?,
        scale: op.apply_as(&x.scale)?,
    })
}

/// Like `F32s` but its handler does not check the result dtype: `is_nan` fails inside it.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.group_ops.Strict")]
pub struct Strict {
    pub values: ArrayD<f32>,
}

#[dispatch(unary_elementwise)]
fn strict_unary(op: &UnaryOp, x: &Strict) -> Result<Strict> {
    Ok(Strict {
        values: op.apply_as(&x.values)?,
    })
}

/// An exact handler (the call's first lookup) fails the same way.
#[dispatch(Sqrt)]
fn strict_sqrt(_x: &Strict) -> Result<Strict> {
    Err(Error::unsupported("sqrt", "not for Strict"))
}

/// A `Strict` inside another type: a failure in `strict_unary` reaches the user through
/// `nested_unary`, and the error names both.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.group_ops.Nested")]
pub struct Nested {
    pub inner: Strict,
}

#[dispatch(unary_elementwise)]
fn nested_unary(op: &UnaryOp, x: &Nested) -> Result<Nested> {
    Ok(Nested {
        inner: op.apply_as(&x.inner)?,
    })
}

/// A handler that calls itself (the same op on a shorter value) and fails at the bottom: the
/// error names it once, not once per level.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.group_ops.Countdown")]
pub struct Countdown {
    pub values: Tensor,
}

#[dispatch(unary_elementwise, infer = countdown_spec)]
fn countdown(op: &UnaryOp, x: &Countdown) -> Result<Countdown> {
    let n = x.values.len();
    if n <= 1 {
        return Err(Error::unsupported(op.name(), "reached the bottom"));
    }
    let shorter = Countdown {
        values: ops::gather_as(&x.values, &[0], 0)?,
    };
    op.apply_as(&shorter)
}

fn countdown_spec(_: &extype::dispatch::Call, _: &[&ValueSpec]) -> Result<ValueSpec> {
    Err(Error::unsupported("neg", "no spec for a countdown"))
}

/// `name(&T) at file:line` of the handler the table would try first for `op` on `x`.
fn location_of(op: &'static extype::ops::Op, x: &impl AsOperand) -> String {
    let first = table().unwrap().explain(op, &[x.as_operand()])[0].clone();
    let (_, at) = first.rsplit_once(" at ").unwrap();
    at.to_string()
}

fn f32s() -> F32s {
    F32s {
        values: array![1.0f32, -2.0, f32::NAN].into_dyn(),
    }
}

#[test]
fn array_fields_take_the_result_as_an_array() {
    let y: F32s = ops::abs_as(&f32s()).unwrap();
    assert_eq!(
        y.values.mapv(|v| v.is_nan()),
        array![false, false, true].into_dyn()
    );
    assert_eq!(y.values[[1]], 2.0);
}

#[test]
fn tensor_fields_take_a_result_of_another_dtype() {
    let x = Boxed {
        values: Tensor::from(array![1.0f32, f32::NAN]),
    };
    let y: Boxed = ops::is_nan_as(&x).unwrap();
    assert_eq!(y.values, Tensor::from(array![false, true].into_dyn()));
    assert_eq!(y.values.dtype(), DType::Bool);
}

#[test]
fn a_handler_declines_a_result_dtype_its_type_cannot_hold() {
    let err = ops::is_nan(&f32s()).unwrap_err();
    let at = location_of(&catalog::IS_NAN, &f32s());
    assert_eq!(
        err.to_string(),
        format!(
            "is_nan: no handler for arguments (tests.group_ops.F32s); tried: \
             f32s_unary(&dispatch_group_ops::F32s) at {at} (declined); dense default (not \
             applicable: argument 0 is tests.group_ops.F32s, not a tensor)"
        )
    );
    // The dtype an op returns, by kind; a dtype the op refuses is its error.
    let none = OpArgs::none();
    let call = |op| extype::dispatch::Call { op, args: &none };
    let unary = |op| UnaryOp::new(&call(op));
    assert_eq!(
        unary(&catalog::IS_NAN).result_dtype(DType::F64).unwrap(),
        DType::Bool
    );
    assert_eq!(
        unary(&catalog::NEG).result_dtype(DType::I32).unwrap(),
        DType::I32
    );
    let err = unary(&catalog::EXP).result_dtype(DType::I32).unwrap_err();
    assert_eq!(
        err.to_string(),
        "exp: argument 0: expected a float dtype (f16, bf16, f32, f64), found dtype i32"
    );
    let less = BinaryOp::new(&call(&catalog::LESS));
    assert_eq!(
        less.result_dtype(DType::F32, DType::F32).unwrap(),
        DType::Bool
    );
    let err = less.result_dtype(DType::F32, DType::I64).unwrap_err();
    assert_eq!(
        err.to_string(),
        "less: argument 1: expected dtype f32 (the dtype of argument 0; cast first), found dtype i64"
    );
    let reduce = |op| ReductionOp::new(&call(op));
    assert_eq!(
        reduce(&catalog::REDUCE_SUM)
            .result_dtype(DType::I32)
            .unwrap(),
        DType::I64
    );
    assert_eq!(
        reduce(&catalog::REDUCE_MEAN)
            .result_dtype(DType::I32)
            .unwrap(),
        DType::F64
    );
    assert_eq!(
        reduce(&catalog::ARGMAX).result_dtype(DType::F32).unwrap(),
        DType::I64
    );
}

#[test]
fn a_group_op_on_a_nested_extension_value_goes_through_dispatch() {
    let x = Outer {
        inner: f32s(),
        scale: array![[-3.0f32]].into_dyn(),
    };
    let y: Outer = ops::neg_as(&x).unwrap();
    assert_eq!(y.inner.values[[0]], -1.0);
    assert_eq!(y.inner.values[[1]], 2.0);
    assert_eq!(y.scale, array![[3.0f32]].into_dyn());
}

#[test]
fn an_error_in_a_handler_names_the_op_the_handler_and_where() {
    let x = Strict {
        values: array![1.0f32].into_dyn(),
    };
    let at = location_of(&catalog::IS_NAN, &x);
    assert!(at.starts_with("tests/dispatch_group_ops.rs:"), "{at}");
    let err = ops::is_nan(&x).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("is_nan via strict_unary ({at}): into_array: expected dtype f32, found bool")
    );
    // The handler's error stays reachable.
    assert_eq!(
        err.without_context().to_string(),
        "into_array: expected dtype f32, found bool"
    );
    let source = std::error::Error::source(&err).expect("the handler's error");
    assert_eq!(
        source.to_string(),
        "into_array: expected dtype f32, found bool"
    );
    assert!(matches!(err.without_context(), Error::Tensor(_)));
    // From an exact handler.
    let at = location_of(&catalog::SQRT, &x);
    assert!(at.starts_with("tests/dispatch_group_ops.rs:"), "{at}");
    let err = ops::sqrt(&x).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("sqrt via strict_sqrt ({at}): sqrt: not for Strict")
    );
}

#[test]
fn nested_handlers_give_a_chain() {
    let x = Nested {
        inner: Strict {
            values: array![1.0f32].into_dyn(),
        },
    };
    let outer = location_of(&catalog::IS_NAN, &x);
    let inner = location_of(&catalog::IS_NAN, &x.inner);
    let err = ops::is_nan(&x).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "is_nan via nested_unary ({outer}): is_nan via strict_unary ({inner}): into_array: \
             expected dtype f32, found bool"
        )
    );
}

#[test]
fn the_same_handler_failing_again_is_named_once() {
    let x = Countdown {
        values: Tensor::from(array![1.0f32, 2.0, 3.0]),
    };
    let at = location_of(&catalog::NEG, &x);
    let err = ops::neg(&x).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("neg via countdown ({at}): neg: reached the bottom")
    );
    // Spec inference errors say so.
    let spec = extype::Value::from_extension(x).spec();
    let err = ops::infer_spec(&catalog::NEG, &[&spec], &OpArgs::none()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("neg spec inference via countdown ({at}): neg: no spec for a countdown")
    );
}

#[test]
fn scalars_are_operands_on_either_side() {
    let x = array![1.0f32, 2.0];
    let y: Tensor = ops::add_as(&x, &2.0f32).unwrap();
    assert_eq!(y, Tensor::from(array![3.0f32, 4.0].into_dyn()));
    let y: Tensor = ops::sub_as(&10i64, &array![1i64, 2]).unwrap();
    assert_eq!(y, Tensor::from(array![9i64, 8].into_dyn()));
    let y: Tensor = ops::logical_and_as(&array![true, false], &true).unwrap();
    assert_eq!(y, Tensor::from(array![true, false].into_dyn()));
    // A scalar alone is a rank-0 tensor.
    let y: Tensor = ops::neg_as(&3.0f64).unwrap();
    assert_eq!(y, Tensor::from(ndarray::arr0(-3.0f64).into_dyn()));
    // A scalar of another dtype is the op's dtype error (no implicit promotion).
    let err = ops::add(&x, &2.0f64).unwrap_err();
    assert_eq!(
        err.to_string(),
        "add: argument 1: expected dtype f32 (the dtype of argument 0; cast first), found dtype f64"
    );
    // Beside an extension value, through its handler.
    let b = Boxed {
        values: Tensor::from(array![1.0f32, 5.0]),
    };
    let y: Boxed = ops::mul_as(&b, &2.0f32).unwrap();
    assert_eq!(y.values, Tensor::from(array![2.0f32, 10.0].into_dyn()));
}

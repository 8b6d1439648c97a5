//! `#[dispatch(operators)]`: `&a + &b`, `-`, `*`, `/` and `-&a` return the type itself (results
//! chain), numeric scalars go on either side and take the other operand's dtype exactly, and a
//! handler that returns another type is an error that says so.

use std::borrow::Cow;

use extype::ops;
use extype::{BinaryOp, ExtensionType, Operand, Result, Tensor, UnaryOp, dispatch};
use ndarray::{ArrayD, IxDyn, array};

/// Tensor-like (its values' dtype and shape): scalars take the values' dtype.
#[dispatch(operators)]
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_operators.Masked", tensor_like = values)]
pub struct Masked {
    #[extype(shape = "*dims")]
    pub values: Tensor,
    #[extype(shape = "*dims")]
    pub mask: Tensor,
}

/// Not tensor-like: scalars keep their own dtype. Its `div` handler returns a dense tensor.
#[dispatch(operators)]
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_operators.Pair")]
pub struct Pair {
    pub a: Tensor,
    pub b: Tensor,
}

fn t<A: extype::Element, D: ndarray::Dimension>(a: ndarray::Array<A, D>) -> Tensor {
    Tensor::from(a.into_dyn())
}

fn masked<A: extype::Element>(values: ndarray::Array1<A>, mask: ndarray::Array1<bool>) -> Masked {
    Masked::try_new(t(values), t(mask)).unwrap()
}

fn parts<'a>(x: &Operand<'a>) -> Option<(Cow<'a, Tensor>, Option<&'a Tensor>)> {
    if let Some(m) = x.downcast_ref::<Masked>() {
        return Some((Cow::Borrowed(&m.values), Some(&m.mask)));
    }
    x.to_tensor().map(|t| (t, None))
}

#[dispatch(unary_elementwise)]
fn masked_unary(op: &UnaryOp, x: &Masked) -> Result<Masked> {
    Ok(Masked {
        values: op.apply_as(&x.values)?,
        mask: x.mask.clone(),
    })
}

#[dispatch(binary_elementwise)]
fn masked_binary(op: &BinaryOp, x: &Operand, y: &Operand) -> Result<Option<Masked>> {
    let (Some((xv, xm)), Some((yv, ym))) = (parts(x), parts(y)) else {
        return Ok(None);
    };
    let values = op.apply_as::<Tensor>(&*xv, &*yv)?;
    let ones = Tensor::from(ArrayD::from_elem(IxDyn(values.shape()), true));
    let mask = match (xm, ym) {
        (None, None) => return Ok(None),
        (Some(m), None) | (None, Some(m)) => ops::logical_and_as(m, &ones)?,
        (Some(a), Some(b)) => ops::logical_and_as(&ops::logical_and_as::<Tensor>(a, b)?, &ones)?,
    };
    Ok(Some(Masked { values, mask }))
}

/// `Pair (op) dense`: both parts.
#[dispatch(binary_elementwise)]
fn pair_binary(op: &BinaryOp, x: &Pair, y: &Tensor) -> Result<Pair> {
    Ok(Pair {
        a: op.apply_as(&x.a, y)?,
        b: op.apply_as(&x.b, y)?,
    })
}

/// `Pair + Pair`: parts pairwise.
#[dispatch(Add)]
fn pair_add(x: &Pair, y: &Pair) -> Result<Pair> {
    Ok(Pair {
        a: ops::add_as(&x.a, &y.a)?,
        b: ops::add_as(&x.b, &y.b)?,
    })
}

/// `Pair / Pair` returns a dense tensor: the operator cannot give a `Pair`.
#[dispatch(Div)]
fn pair_ratio(x: &Pair, y: &Pair) -> Result<Tensor> {
    ops::div_as(
        &ops::add_as::<Tensor>(&x.a, &x.b)?,
        &ops::add_as::<Tensor>(&y.a, &y.b)?,
    )
}

#[test]
fn operators_return_the_type_and_chain() -> Result<()> {
    let a = masked(array![1.0f32, 2.0, 3.0], array![true, false, true]);
    let b = masked(array![10.0f32, 20.0, 30.0], array![true, true, false]);
    let c = masked(array![2.0f32, 2.0, 2.0], array![true, true, true]);
    let out: Masked = (&(&a + &b)? * &c)?;
    assert_eq!(out.values, t(array![22.0f32, 44.0, 66.0]));
    assert_eq!(out.mask, t(array![true, false, false]));
    let out = (&(&b - &a)? / &c)?;
    assert_eq!(out.values, t(array![4.5f32, 9.0, 13.5]));
    // A dense right-hand side, by reference: a tensor, an ndarray array.
    let out = (&a * &array![2.0f32, 3.0, 4.0])?;
    assert_eq!(out.values, t(array![2.0f32, 6.0, 12.0]));
    let out = (&a - &Tensor::from(array![1.0f32]))?;
    assert_eq!(out.values, t(array![0.0f32, 1.0, 2.0]));
    Ok(())
}

#[test]
fn unary_neg() -> Result<()> {
    let a = masked(array![1.0f32, -2.0], array![true, false]);
    let n: Masked = (-&a)?;
    assert_eq!(n.values, t(array![-1.0f32, 2.0]));
    assert_eq!(n.mask, a.mask);
    let nn = (-&(-&a)?)?;
    assert_eq!(nn, a);
    Ok(())
}

#[test]
fn scalars_on_either_side_take_the_values_dtype() -> Result<()> {
    let x = masked(array![1.0f32, 2.0, 4.0], array![true, true, false]);
    // An f64 literal beside f32 values: the result is f32.
    let y = (&x + 1.0)?;
    assert_eq!(y.values, t(array![2.0f32, 3.0, 5.0]));
    assert_eq!(y.mask, x.mask);
    assert_eq!((&x * 2)?.values, t(array![2.0f32, 4.0, 8.0]));
    assert_eq!((2.0 * &x)?.values, t(array![2.0f32, 4.0, 8.0]));
    assert_eq!((1.0 - &x)?.values, t(array![0.0f32, -1.0, -3.0]));
    assert_eq!((&x / 2.0f32)?.values, t(array![0.5f32, 1.0, 2.0]));
    assert_eq!((8 / &x)?.values, t(array![8.0f32, 4.0, 2.0]));
    assert_eq!((&x - 1i64)?.values, t(array![0.0f32, 1.0, 3.0]));
    // Chained with scalars.
    let z = (&(&(2.0 * &x)? + 1.0)? * &x)?;
    assert_eq!(z.values, t(array![3.0f32, 10.0, 36.0]));
    // Integer values: an integer scalar of another type takes their dtype.
    let i = masked(array![1i32, 2], array![true, true]);
    assert_eq!((&i * 3u64)?.values, t(array![3i32, 6]));
    assert_eq!((10 - &i)?.values, t(array![9i32, 8]));
    assert_eq!((&i + 2.0)?.values, t(array![3i32, 4]));
    // NaN and infinities go into float values.
    let inf = (&x * f64::INFINITY)?;
    assert_eq!(inf.values, t(ndarray::Array1::from_elem(3, f32::INFINITY)));
    Ok(())
}

#[test]
fn inexact_scalars_are_errors_naming_op_scalar_and_dtype() {
    let i = masked(array![1i32, 2], array![true, true]);
    let err = (&i * 1.5).unwrap_err();
    assert_eq!(
        err.to_string(),
        "mul: scalar 1.5 (f64): expected a value exactly representable in i32, the dtype of the \
         other operand (a scalar takes it), found one with a fractional part"
    );
    let err = (1.5 + &i).unwrap_err();
    assert_eq!(
        err.to_string(),
        "add: scalar 1.5 (f64): expected a value exactly representable in i32, the dtype of the \
         other operand (a scalar takes it), found one with a fractional part"
    );
    let err = (&i - 3_000_000_000i64).unwrap_err();
    assert_eq!(
        err.to_string(),
        "sub: scalar 3000000000 (i64): expected a value exactly representable in i32, the dtype \
         of the other operand (a scalar takes it), found one outside i32's range \
         -2147483648..=2147483647"
    );
    let x = masked(array![1.0f32], array![true]);
    let err = (&x + 1e300).unwrap_err();
    assert_eq!(
        err.to_string(),
        "add: scalar 1e300 (f64): expected a value within the finite range of f32, the dtype of \
         the other operand (a scalar takes it), found one that overflows f32"
    );
    let err = (&x * 16_777_217).unwrap_err();
    assert_eq!(
        err.to_string(),
        "mul: scalar 16777217 (i32): expected an integer exactly representable in f32, the dtype \
         of the other operand (a scalar takes it), found one f32 rounds to 16777216"
    );
}

#[test]
fn beside_a_value_that_is_not_tensor_like_a_scalar_keeps_its_dtype() -> Result<()> {
    let p = Pair {
        a: t(array![1.0f64, 2.0]),
        b: t(array![3.0f64, 4.0]),
    };
    let q = (&p + 1.0)?;
    assert_eq!(q.a, t(array![2.0f64, 3.0]));
    assert_eq!(q.b, t(array![4.0f64, 5.0]));
    // f32 parts and an f64 scalar: the scalar stays f64, and the op says the dtypes differ.
    let p32 = Pair {
        a: t(array![1.0f32]),
        b: t(array![2.0f32]),
    };
    let err = (&p32 + 1.0).unwrap_err().to_string();
    // (The error comes from inside the handler, `op.apply`.)
    assert!(
        err.ends_with(
            "argument 1: expected dtype f32 (the dtype of argument 0; cast first), found dtype f64"
        ),
        "{err}"
    );
    assert_eq!((&p32 + 1.0f32)?.a, t(array![2.0f32]));
    Ok(())
}

#[test]
fn a_result_of_another_type_is_an_error_that_says_so() {
    let p = Pair {
        a: t(array![1.0f64, 2.0]),
        b: t(array![3.0f64, 4.0]),
    };
    // `+` reaches `pair_add`, which returns a Pair.
    assert_eq!((&p + &p).unwrap().a, t(array![2.0f64, 4.0]));
    // `/` reaches `pair_ratio`, which returns a Tensor.
    let err = (&p / &p).unwrap_err();
    assert_eq!(
        err.to_string(),
        "div: the operator `/` on test_operators.Pair returns test_operators.Pair, but the \
         handler that took the call returned Tensor(f64[2]); call `extype::ops::div`, which \
         returns any Value"
    );
    // `ops::div` returns it.
    let v = ops::div(&p, &p).unwrap();
    assert_eq!(v.into_tensor().unwrap(), t(array![1.0f64, 1.0]));
}

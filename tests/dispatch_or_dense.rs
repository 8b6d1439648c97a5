//! `&OrDense<T>` handler parameters: one handler for every mix of `T` and dense arguments
//! (tensors, arrays, views, scalars on either side), never for all-dense calls.

use extype::dispatch::table;
use extype::ops::{self, AsOperand, catalog};
use extype::{BinaryOp, ExtensionType, OrDense, Result, Tensor, TensorView, dispatch};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_or_dense.Scaled")]
pub struct Scaled {
    pub values: Tensor,
}

#[dispatch(binary_elementwise)]
fn scaled_binary(op: &BinaryOp, x: &OrDense<Scaled>, y: &OrDense<Scaled>) -> Result<Scaled> {
    let values = op.apply_as(
        &x.values_or_dense(|s| &s.values),
        &y.values_or_dense(|s| &s.values),
    )?;
    Ok(Scaled { values })
}

/// A dense parameter read in place: `&TensorView`.
#[dispatch(Where)]
fn scaled_where(cond: &TensorView, x: &OrDense<Scaled>, y: &OrDense<Scaled>) -> Result<Scaled> {
    let values = ops::where_as(
        cond,
        &x.values_or_dense(|s| &s.values),
        &y.values_or_dense(|s| &s.values),
    )?;
    Ok(Scaled { values })
}

fn scaled(v: &[f32]) -> Scaled {
    Scaled {
        values: Tensor::from(ndarray::Array1::from(v.to_vec()).into_dyn()),
    }
}

#[test]
fn every_mix_of_the_type_and_dense_arguments_reaches_the_handler() -> Result<()> {
    let s = scaled(&[1.0, 2.0]);
    let out: Scaled = ops::mul_as(&s, &ndarray::array![10.0f32, 10.0])?;
    assert_eq!(out, scaled(&[10.0, 20.0]));
    let out: Scaled = ops::mul_as(&ndarray::array![3.0f32, 3.0], &s)?;
    assert_eq!(out, scaled(&[3.0, 6.0]));
    let out: Scaled = ops::add_as(&s, &s)?;
    assert_eq!(out, scaled(&[2.0, 4.0]));
    let t = Tensor::from(ndarray::array![1.0f32, 1.0].into_dyn());
    let out: Scaled = ops::sub_as(&s, &t)?;
    assert_eq!(out, scaled(&[0.0, 1.0]));
    let cond = ndarray::array![true, false];
    let out: Scaled = ops::where_as(&cond, &s, &ndarray::array![9.0f32, 9.0])?;
    assert_eq!(out, scaled(&[1.0, 9.0]));
    let out: Scaled = ops::where_as(&cond, &ndarray::array![7.0f32, 7.0], &s)?;
    assert_eq!(out, scaled(&[7.0, 2.0]));
    Ok(())
}

#[test]
fn all_dense_calls_stay_with_the_dense_default() -> Result<()> {
    let x = ndarray::array![3.0f32];
    let out: Tensor = ops::mul_as(&x, &ndarray::array![2.0f32])?;
    assert_eq!(out, Tensor::from(ndarray::array![6.0f32].into_dyn()));
    let explained = table()?.explain(&catalog::MUL, &[x.as_operand(), x.as_operand()]);
    assert_eq!(explained, vec!["dense default".to_string()]);
    let s = scaled(&[1.0]);
    let explained = table()?.explain(&catalog::MUL, &[s.as_operand(), x.as_operand()]);
    assert!(
        explained[0].starts_with("scaled_binary(&OrDense<"),
        "{explained:?}"
    );
    Ok(())
}

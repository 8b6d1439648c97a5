//! Writing your own extension type with op handlers: a `Quantity` — values with a unit of
//! measure (static data in the spec). The library's `extype::types::MaskedTensor` is written the
//! same way (`src/types/masked/`); this example shows each piece on a smaller type:
//!
//! - `#[derive(ExtensionType)]` with `tensor_like = values` (its dtype and shape are its
//!   values'), and `#[dispatch(operators)]` for `+ - * /`;
//! - a group handler for every unary elementwise op, which declines the ops whose result its
//!   `ArrayD<f64>` field cannot hold (`is_nan` gives bools), using `op.result_dtype`;
//! - a group handler for every binary op, on every mix of `Quantity` and dense operands
//!   (`&OrDense<Quantity>`), with the units checked and combined;
//! - a reduction handler;
//! - spec inference with no code (component-wise, from the handlers' return type).
//!
//! Run with `cargo run --example custom_type`.

use extype::ndarray::{ArrayD, array};
use extype::ops::{self, OpArgs, catalog};
use extype::{
    BinaryOp, DType, Error, ExtensionType, OrDense, ReductionOp, Result, TensorView, UnaryOp,
    Value, dispatch,
};

/// Values in a unit of measure (`"m"`, `"s"`, `"m/s"`): the unit is static data, part of the
/// spec, so two quantities of different units have different specs.
#[dispatch(operators)]
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "example.Quantity", tensor_like = values)]
pub struct Quantity {
    pub values: ArrayD<f64>,
    pub unit: String,
}

impl std::fmt::Display for Quantity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}",
            TensorView::from_array(self.values.view()),
            self.unit
        )
    }
}

/// Unary ops keep the unit (`neg`, `abs`, `floor`, …). An op whose result is not `f64` (`is_nan`)
/// does not fit the `ArrayD<f64>` field: the handler declines it, and the call's error says so.
#[dispatch(unary_elementwise)]
fn quantity_unary(op: &UnaryOp, x: &Quantity) -> Result<Option<Quantity>> {
    if op.result_dtype(DType::F64)? != DType::F64 {
        return Ok(None);
    }
    // `apply_as` takes the result out as an `ArrayD<f64>`, no copy.
    let values = op.apply_as(&x.values)?;
    Ok(Some(Quantity {
        values,
        unit: x.unit.clone(),
    }))
}

/// The unit of a binary op's result: `+`, `-`, `max`, `min` need equal units; `*` and `/`
/// combine them; a dense operand is a plain number (unit `""`).
fn combined_unit(op: &BinaryOp, a: &str, b: &str) -> Result<Option<String>> {
    let name = op.op();
    let unit = if name == &catalog::MUL {
        [a, b]
            .iter()
            .filter(|u| !u.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("*")
    } else if name == &catalog::DIV {
        match (a.is_empty(), b.is_empty()) {
            (_, true) => a.to_string(),
            (true, false) => format!("1/{b}"),
            (false, false) => format!("{a}/{b}"),
        }
    } else if [
        &catalog::ADD,
        &catalog::SUB,
        &catalog::MAXIMUM,
        &catalog::MINIMUM,
    ]
    .contains(&name)
    {
        if a != b && !a.is_empty() && !b.is_empty() {
            return Err(Error::unsupported(
                op.name(),
                format!("units differ: {a} and {b}"),
            ));
        }
        if a.is_empty() { b } else { a }.to_string()
    } else {
        // Comparisons and logical ops give bools, which the f64 field cannot hold.
        return Ok(None);
    };
    Ok(Some(unit))
}

/// Binary ops on every mix of `Quantity` and dense operands (arrays, tensors, scalars).
#[dispatch(binary_elementwise)]
fn quantity_binary(
    op: &BinaryOp,
    x: &OrDense<Quantity>,
    y: &OrDense<Quantity>,
) -> Result<Option<Quantity>> {
    let unit_of = |q: &OrDense<Quantity>| q.ext().map_or("", |q| q.unit.as_str()).to_string();
    let Some(unit) = combined_unit(op, &unit_of(x), &unit_of(y))? else {
        return Ok(None);
    };
    let values = op.apply_as(
        &x.values_or_dense(|q| &q.values),
        &y.values_or_dense(|q| &q.values),
    )?;
    Ok(Some(Quantity { values, unit }))
}

/// Sums, means, maxima keep the unit (`count_nonzero` and `argmax` give integers: declined).
#[dispatch(reduction)]
fn quantity_reduction(op: &ReductionOp, x: &Quantity) -> Result<Option<Quantity>> {
    if op.result_dtype(DType::F64)? != DType::F64 {
        return Ok(None);
    }
    Ok(Some(Quantity {
        values: op.apply_as(&x.values)?,
        unit: x.unit.clone(),
    }))
}

pub fn main() -> Result<()> {
    let distance = Quantity::try_new(array![[100.0, 200.0], [50.0, 80.0]].into_dyn(), "m".into())?;
    let time = Quantity::try_new(array![[10.0, 20.0], [5.0, 4.0]].into_dyn(), "s".into())?;
    println!("distance           = {distance}");
    println!("time               = {time}");
    let speed = (&distance / &time)?;
    println!("distance / time    = {speed}");
    let doubled = (2.0 * &speed)?;
    println!("2 * speed          = {doubled}");
    let total: Quantity = ops::reduce_sum_as(&distance, Some(&[1]), false)?;
    println!("sum over axis 1    = {total}");
    let floor: Quantity = ops::floor_as(&(&speed * &array![1.5, 1.5])?)?;
    println!("floor(speed * 1.5) = {floor}");
    match &distance + &time {
        Err(e) => println!("distance + time    : {e}"),
        Ok(q) => println!("distance + time    = {q} (unexpected)"),
    }
    match ops::is_nan(&distance) {
        Err(e) => println!("is_nan(distance)   : {e}"),
        Ok(v) => println!("is_nan(distance)   = {v} (unexpected)"),
    }
    // Spec inference with no code: the handlers return `Quantity`, which is tensor-like.
    let spec = Value::from_extension(distance.clone()).spec();
    let inferred = ops::infer_spec(&catalog::REDUCE_MEAN, &[&spec], &OpArgs::axes(&[0]))?;
    println!("spec of reduce_mean(distance, axis 0) = {}", inferred.spec);
    Ok(())
}

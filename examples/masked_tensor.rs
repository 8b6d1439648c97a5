//! `extype::types::MaskedTensor`: values with a validity mask, TensorFlow's semantics for every
//! op (the library type; `examples/custom_type.rs` shows how to write such a type yourself).
//!
//! Run with `cargo run --example masked_tensor`.

use extype::ndarray::{arr0, array};
use extype::ops::{self, AsOperand};
use extype::types::MaskedTensor;
use extype::{DType, Result, Tensor};

pub fn main() -> Result<()> {
    let x = MaskedTensor::new(
        array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]],
        array![[true, false, true], [true, true, false]],
    )?;
    let y = MaskedTensor::new(
        array![[10.0f32, 20.0, 30.0], [40.0, 50.0, 60.0]],
        array![[true, true, true], [false, true, true]],
    )?;
    println!("x                        = {x}");
    println!("y                        = {y}");

    println!("\n== Elementwise: masks are ANDed; dense operands are valid everywhere");
    let sum: MaskedTensor = ops::add_as(&x, &y)?;
    println!("x + y                    = {sum}");
    let scaled: MaskedTensor = ops::mul_as(&x, &array![1.0f32, 10.0, 100.0])?;
    println!("x * [1, 10, 100]         = {scaled}");
    let shifted: MaskedTensor = ops::sub_as(&arr0(10.0f32), &x)?;
    println!("10 - x                   = {shifted}");
    let big: MaskedTensor = ops::greater_as(&x, &arr0(2.5f32))?;
    println!("x > 2.5                  = {big}");
    let e: MaskedTensor = ops::exp_as(&x)?;
    println!("exp(x)                   = {e}");
    let picked: MaskedTensor = ops::where_as(&array![true, false, true], &x, &y)?;
    println!("where([T, F, T], x, y)   = {picked}");

    println!("\n== Reductions ignore masked-out values; a row with none is masked out");
    let hidden = MaskedTensor::new(
        array![[f32::NAN, 1.0], [2.0, f32::INFINITY]],
        array![[false, false], [true, false]],
    )?;
    println!("h                        = {hidden}   (NaN and inf under the mask)");
    for (name, op) in [
        ("reduce_sum", &ops::catalog::REDUCE_SUM),
        ("reduce_mean", &ops::catalog::REDUCE_MEAN),
        ("reduce_max", &ops::catalog::REDUCE_MAX),
        ("argmax", &ops::catalog::ARGMAX),
    ] {
        let r: MaskedTensor = ops::call_as(op, &[hidden.as_operand()], &ops::OpArgs::axes(&[1]))?;
        println!("{name:<12}(h, axis 1)   = {r}");
    }
    println!("count(x, axis 0)         = {}", x.count(Some(&[0]), false)?);
    let mean: MaskedTensor = ops::reduce_mean_as(&x, None, false)?;
    println!("reduce_mean(x)           = {mean}");

    println!("\n== Shape ops move values and mask alike; cast converts the values");
    let t: MaskedTensor = ops::transpose_as(&x, None)?;
    println!("transpose(x)             = {t}");
    let c: MaskedTensor = ops::cast_as(&x, DType::I32)?;
    println!("cast(x, i32)             = {c}");
    let s: MaskedTensor = ops::stack_as(&[x.as_operand(), y.as_operand()], 0)?;
    println!("stack([x, y])            = {s}");
    println!("to_dense(x, 0)           = {}", x.to_dense(&arr0(0.0f32))?);

    println!("\n== A value like any other: its spec, batches and files");
    println!(
        "spec                     = {}",
        extype::ExtensionType::spec(&x)
    );
    let path = std::env::temp_dir().join(format!("masked-{}.safetensors", std::process::id()));
    extype::io::save(&path, &x)?;
    let loaded: MaskedTensor = extype::io::load_as(&path)?;
    println!("loaded back              = {loaded}");
    std::fs::remove_file(&path).ok();
    let shape: Tensor = ops::shape_as(&x)?;
    println!("shape(x), rank(x)        = {shape}, {}", ops::rank(&x)?);
    Ok(())
}

//! A tour of extype. Run with `cargo run --example tour` at the repository root.

use extype::batch::{self, BatchIterExt};
use extype::shape::{Bindings, Sizes};
use extype::{
    ExtensionType, Policy, Shape, ShapeError, TypeSpec, Unifier, broadcast_shapes,
    broadcast_static, enforce_shape, registry,
};
use ndarray::{ArrayD, IxDyn, array};

/// Your own struct of tensors becomes an extension type: a spec, components, a registry entry.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tour.MaskedTensor", batchable)]
pub struct MaskedTensor {
    #[extype(shape = "*dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

fn main() -> extype::Result<()> {
    println!("== Deriving an extension type");
    let m = MaskedTensor::try_new(
        ArrayD::from_elem(IxDyn(&[2, 3]), 1.0),
        ArrayD::from_elem(IxDyn(&[2, 3]), true),
    )?;
    let spec = m.spec();
    println!("spec: {spec}");
    let components = m.clone().into_components();
    println!("{} components, moved out without copying", components.len());
    let rebuilt = registry().rebuild(&spec.serialize(), components)?;
    println!(
        "rebuilt by name {:?}: equal = {}",
        rebuilt.type_name(),
        rebuilt.downcast_ref::<MaskedTensor>()? == &m
    );
    let mismatched = MaskedTensor::try_new(
        ArrayD::zeros(IxDyn(&[2, 3])),
        ArrayD::from_elem(IxDyn(&[2, 4]), true),
    );
    println!("a mask of the wrong shape: {}", mismatched.unwrap_err());

    library_types()?;

    println!("\n== Partial shapes");
    let a: Shape = "[8, ?, 3]".parse()?;
    let b: Shape = "[?, 5, 3]".parse()?;
    println!("{a} merged with {b} = {}", a.merge_with(&b)?);
    let c: Shape = "[8, 4]".parse()?;
    let d: Shape = "[8, 7]".parse()?;
    println!("{c} relaxed with {d} = {}", c.most_specific_compatible(&d));

    println!("\n== Broadcasting");
    let out = broadcast_shapes(&[&[8, 1, 6, 1], &[7, 1, 5]])?;
    println!("(8, 1, 6, 1) with (7, 1, 5) -> {out:?}");
    let shapes: Vec<Shape> = ["[!1, 3]", "[?, 1]", "[?]"]
        .iter()
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let stat = broadcast_static(&shapes, Policy::Numpy)?;
    println!("static [!1, 3] with [?, 1] with [?] -> {}", stat.shape);
    println!("  runtime checks: {}", stat.checks);
    println!(
        "  on (4, 3), (1, 1), (3): {:?}",
        stat.checks.run(&[&[4, 3], &[1, 1], &[3]])?
    );
    if let Err(e) = stat.checks.run(&[&[4, 3], &[5, 1], &[3]]) {
        println!("  on (4, 3), (5, 1), (3): {e}");
    }

    println!("\n== Files (safetensors; more in `cargo run --example files`)");
    let dir = std::env::temp_dir().join(format!("extype-tour-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| extype::IoError::at(dir.display(), "", e.to_string()))?;
    let path = dir.join("m.safetensors");
    extype::io::save(&path, &m)?;
    let info = extype::io::inspect(&path)?;
    println!("saved a {}: {}", info.types[0], info.specs[0]);
    let back: MaskedTensor = extype::io::load_as(&path)?;
    println!("loaded back equal: {}", back == m);
    // SAFETY: nothing writes to the file while it is mapped (this program just wrote it and
    // only reads it).
    let mapped = unsafe { extype::io::map(&path)? };
    println!(
        "mapped, `mask` viewing the file in place: {}",
        mapped.tensor("mask")?
    );
    let _ = std::fs::remove_dir_all(&dir);

    println!("\n== Shape patterns");
    let got = enforce_shape(&[1, 7, 2, 5, 3], "1 _ ... 3")?;
    println!("(1, 7, 2, 5, 3) against `1 _ ... 3`: {:?}", got.dims);

    println!("\n== Batching (#[extype(batchable)])");
    let items: Vec<MaskedTensor> = (0..4)
        .map(|i| {
            MaskedTensor::try_new(
                ArrayD::from_elem(IxDyn(&[3]), i as f32),
                ArrayD::from_elem(IxDyn(&[3]), i % 2 == 0),
            )
        })
        .collect::<extype::Result<_>>()?;
    let b = batch::stack(&items)?;
    println!("4 items of {} stack into {}", items[0].spec(), b.spec());
    println!(
        "unstacked again: equal = {}",
        batch::unstack(b.clone())? == items
    );
    let batches: Vec<MaskedTensor> = items
        .into_iter()
        .batched(3)
        .collect::<extype::Result<_>>()?;
    println!(
        "batched(3): batch sizes {:?}",
        batches
            .iter()
            .map(|b| b.values.shape()[0])
            .collect::<Vec<_>>()
    );
    let counts: extype::Tensor = batch::map_fn(&b, |m: MaskedTensor| {
        Ok(extype::Tensor::from(ndarray::arr0(
            m.mask.iter().filter(|&&k| k).count() as i64,
        )))
    })?;
    println!("map_fn (present values per item): {counts}");

    println!("\n== Joint unification (conv1d)");
    let conv1d = Unifier::new()
        .input("x", "b c_in n")?
        .input("w", "c_out c_in k")?
        .batch("b")?;
    let bound = conv1d.unify(&[&[8, 3, 100], &[16, 3, 5]])?;
    println!("bound: {bound}");
    let calc = |output: &str, b: &Bindings| -> Result<Sizes, ShapeError> {
        let (n, k) = (b.require("n")?, b.require("k")?);
        let len = (n + 1)
            .checked_sub(k)
            .ok_or_else(|| ShapeError::Calculation {
                output: output.into(),
                message: format!("kernel size {k} exceeds input length {n}"),
            })?;
        Ok(Sizes::from_slice(&[
            b.require("b")?,
            b.require("c_out")?,
            len,
        ]))
    };
    println!(
        "y = conv1d(x: (8, 3, 100), w: (16, 3, 5)) has shape {:?}",
        bound.output_shape("y", &calc)?
    );
    if let Err(e) = conv1d.unify(&[&[8, 3, 100], &[16, 4, 5]]) {
        println!("with w: (16, 4, 5): {e}");
    }
    Ok(())
}

/// A type of the library, written with the same derive and `#[dispatch]`: every op through
/// dispatch, operators, spec inference (more in `cargo run --example masked_tensor`).
fn library_types() -> extype::Result<()> {
    use extype::ops::{self, OpArgs, catalog};
    use extype::types::MaskedTensor;
    println!("\n== A library type through dispatch: extype::types::MaskedTensor");
    let x = MaskedTensor::new(
        array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]],
        array![[true, false, true], [true, true, false]],
    )?;
    println!("x                      = {x}");
    let y = (&(&x * 2.0)? + &array![10.0f32, 20.0, 30.0])?;
    println!("x * 2 + [10, 20, 30]   = {y}");
    let sum: MaskedTensor = ops::reduce_sum_as(&x, Some(&[1]), false)?;
    println!("reduce_sum(x, axis 1)  = {sum}");
    let max: MaskedTensor = ops::reduce_max_as(&x, Some(&[0]), false)?;
    println!("reduce_max(x, axis 0)  = {max}");
    let spec = extype::Value::from_extension(x.clone()).spec();
    let mean = ops::infer_spec(&catalog::REDUCE_MEAN, &[&spec], &OpArgs::axes(&[0]))?;
    println!("reduce_mean's spec     = {} (inferred, no data)", mean.spec);
    let names: Vec<&str> = ops::supported(&x)?.iter().map(|op| op.name()).collect();
    println!(
        "{} ops run on it: {}, …",
        names.len(),
        names[..8].join(", ")
    );

    use extype::types::{RaggedTensor, SparseTensor};
    println!("\n== Rows of different lengths: extype::types::RaggedTensor (tf.RaggedTensor)");
    let r = RaggedTensor::from_row_lengths(
        array![3.0f32, 1.0, 4.0, 1.0, 5.0, 9.0],
        array![3i64, 0, 2, 1],
    )?;
    println!("r                      = {r}");
    let row_sums: extype::Tensor = ops::reduce_sum_as(&r, Some(&[1]), false)?;
    println!("reduce_sum(r, axis 1)  = {row_sums} (an empty row sums to 0, as in TF)");
    let squared: RaggedTensor = ops::mul_as(&r, &r)?;
    println!("r * r                  = {squared} (the same row splits, shared)");
    println!("to_tensor(r)           = {}", r.to_tensor(None, None)?);

    println!("\n== Mostly zeros: extype::types::SparseTensor (tf.sparse)");
    let s = SparseTensor::new(array![[0i64, 1], [2, 0]], array![7.0f64, -2.0], &[3, 3])?;
    println!("s                      = {s}");
    println!("to_dense(s)            = {}", s.to_dense(&0.0f64, false)?);
    let cols = s.reduce_sum(Some(&[0]), false, false)?;
    println!("reduce_sum(s, axis 0)  = {cols} (bit for bit TF's)");
    let b = extype::Tensor::from(array![[1.0f64], [2.0], [3.0]]);
    let product = extype::types::sparse::sparse_dense_matmul(&s, &b, false, false)?;
    println!("s @ [[1], [2], [3]]    = {product}");
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The tour runs to completion (its output is for people; the behaviour it shows is tested
    /// where it is implemented).
    #[test]
    fn the_tour_runs() {
        super::main().unwrap();
    }
}

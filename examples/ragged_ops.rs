//! The library's `extype::types::RaggedTensor` (TensorFlow's `tf.RaggedTensor`): constructors,
//! derived encodings shared by the values built on one partition, elementwise ops with
//! per-row broadcasting, reductions over the ragged axis (the kernels' segment reductions) and
//! TF's errors, spec inference, batching (`ragged_batch`, `dense_to_ragged_batch`).
//!
//! Run with `cargo run --example ragged_ops`.

use extype::ops::{self, OpArgs, catalog};
use extype::types::RaggedTensor;
use extype::{DType, ExtensionType, Tensor, ValueSpec, batch};
use ndarray::{arr0, array};

pub fn main() -> extype::Result<()> {
    println!("== RaggedTensor (extype.RaggedTensor)");
    let r = RaggedTensor::from_row_lengths(
        array![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0],
        array![3i64, 0, 2, 1],
    )?;
    println!("r                       = {r}");
    println!("row_splits              = {}", r.row_splits());
    println!("value_rowids            = {}", r.value_rowids()?);
    println!("bounding_shape          = {:?}", r.bounding_shape());
    println!(
        "to_tensor(-1)           = {}",
        r.to_tensor(Some(&arr0(-1.0f32).into()), None)?
    );

    println!("\n== elementwise (the partition is kept and shared: no check between r and 2r)");
    let doubled = (&r * 2.0)?;
    println!("r * 2                   = {doubled}");
    println!(
        "shares r's partition    = {}",
        doubled.shares_partitions_with(&r)
    );
    let diff: RaggedTensor = ops::sub_as(&doubled, &r)?;
    println!("2r - r                  = {diff}");
    let per_row: RaggedTensor = ops::add_as(&r, &array![[100.0f32], [200.0], [300.0], [400.0]])?;
    println!("r + [[100], …, [400]]   = {per_row}");
    let small: RaggedTensor = ops::less_as(&r, &arr0(3.0f32))?;
    println!("r < 3                   = {small}");
    if let Err(e) = ops::add(&r, &array![1.0f32, 2.0, 3.0]) {
        println!("r + [1, 2, 3]           : {}", e.without_context());
    }

    println!("\n== reductions (TF: empty rows give sum 0, mean NaN, max the lowest finite value)");
    let sum: Tensor = ops::reduce_sum_as(&r, Some(&[1]), false)?;
    println!("reduce_sum(axis 1)      = {sum}");
    let mean: Tensor = ops::reduce_mean_as(&r, Some(&[-1]), false)?;
    println!("reduce_mean(axis -1)    = {mean}");
    let max: Tensor = ops::reduce_max_as(&r, Some(&[1]), false)?;
    println!("reduce_max(axis 1)      = {max}");
    let cols: Tensor = ops::reduce_sum_as(&r, Some(&[0]), false)?;
    println!("reduce_sum(axis 0)      = {cols}");
    let total: Tensor = ops::reduce_sum_as(&r, None, false)?;
    println!("reduce_sum(all)         = {total}");

    println!("\n== spec inference (checked before any data exists)");
    let spec = ValueSpec::Extension(Box::new(r.spec()));
    let out = ops::infer_spec(&catalog::REDUCE_MEAN, &[&spec], &OpArgs::axes(&[1]))?;
    println!(
        "reduce_mean(axis 1) of {} -> {}",
        spec.tensor_like()
            .map(|s| s.shape().to_string())
            .unwrap_or_default(),
        out.spec
    );
    let cast = ops::infer_spec(
        &catalog::CAST,
        &[&spec],
        &OpArgs::none().with_dtype(DType::I32),
    )?;
    println!(
        "cast(i32) -> {}",
        cast.spec
            .tensor_like()
            .map(|s| s.tensor_like_spec().to_string())
            .unwrap_or_default()
    );

    println!("\n== batching (TF's ragged_batch and dense_to_ragged_batch)");
    let b = batch::stack(&[
        r.clone(),
        RaggedTensor::from_row_lengths(array![7.0f32], array![1i64])?,
    ])?;
    println!("stack([r, [[7]]])       = {b}");
    let items = batch::unstack(b)?;
    println!("unstack()[0] == r       = {}", items[0] == r);
    let dense = [
        Tensor::from(array![1, 2, 3]),
        Tensor::from(array![4]),
        Tensor::from(array![5, 6]),
    ];
    println!(
        "dense_to_ragged_batch   = {}",
        RaggedTensor::from_dense_batch(&dense)?
    );
    Ok(())
}

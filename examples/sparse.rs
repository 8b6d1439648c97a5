//! `extype::types::SparseTensor`: an N-d sparse tensor in coordinate form with TensorFlow's
//! `tf.sparse` semantics. `cargo run --example sparse`.

use extype::batch::{stack, unstack};
use extype::ops;
use extype::types::{SparseTensor, sparse::sparse_dense_matmul};
use extype::{ExtensionType, Tensor};
use ndarray::array;

pub fn main() -> extype::Result<()> {
    // Indices [nnz, rank], values [nnz], dense shape: TensorFlow's checks on construction.
    let a = SparseTensor::new(array![[0i64, 1], [2, 3]], array![1.0f32, 5.0], &[3, 4])?;
    println!("a = {a}");
    println!("its spec: {}", a.spec());
    let err = SparseTensor::new(array![[0i64, 5]], array![1.0f32], &[3, 4]).unwrap_err();
    println!("out of bounds: {err}");

    // Dense and back; unordered or repeated indices are errors when validating, as in TF.
    let dense = a.to_dense(&0.0f32, true)?;
    println!("to_dense = {dense}");
    assert_eq!(SparseTensor::from_dense(&dense)?, a);
    let unordered = SparseTensor::new(array![[2i64, 0], [0, 0]], array![1.0f32, 2.0], &[3, 4])?;
    println!(
        "unordered, validated: {}",
        unordered.to_dense(&0.0f32, true).unwrap_err()
    );
    println!("reordered: {}", unordered.reorder()?);

    // Arithmetic through dispatch: union of entries, dense results, the sparse operand's entries.
    let b = SparseTensor::new(array![[0i64, 1], [1, 1]], array![-1.0f32, 2.0], &[3, 4])?;
    println!("a + b = {}", (&a + &b)?);
    println!("a + b (threshold 0.5) = {}", a.add(&b, 0.5)?);
    let row = array![f32::NAN, 10.0, 100.0, 1000.0];
    println!(
        "a * row = {} (the NaN sits at an implicit zero: never read)",
        ops::mul_as::<SparseTensor>(&a, &row)?
    );
    println!("-a = {}", (-&a)?);
    println!("exp(a): {}", ops::exp(&a).unwrap_err());

    // Matrix products and reductions.
    let w = Tensor::from(ndarray::Array2::from_shape_fn((4, 2), |(i, j)| {
        (i + j) as f32
    }));
    println!("a @ w = {}", sparse_dense_matmul(&a, &w, false, false)?);
    println!(
        "reduce_sum(a, 1) = {}",
        a.reduce_sum(Some(&[1]), false, false)?
    );
    println!(
        "reduce_max(a, 0, sparse) = {}",
        a.reduce_max(Some(&[0]), false, true)?
    );
    println!("reduce_mean(a) = {}", a.reduce_mean(None, false)?);

    // Moves.
    println!("transpose(a) = {}", a.transpose(None)?);
    println!("reshape(a, [2, 6]) = {}", a.reshape(&[2, 6])?);
    println!(
        "concat([a, b], 1) = {}",
        SparseTensor::concat(&[&a, &b], 1, false)?
    );

    // Batching: rank + 1, the item in the first index column.
    let batch = stack(&[a.clone(), b.clone()])?;
    println!("stack([a, b]) = {batch}");
    assert_eq!(unstack(batch)?, vec![a, b]);
    Ok(())
}

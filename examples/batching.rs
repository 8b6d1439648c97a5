//! Batching extension values: a masked tensor (the default encoder, `#[extype(batchable)]`) and
//! a ragged tensor (a custom encoder, `#[extype(batchable = RaggedEncoder)]`) are stacked into
//! batches, split back, grouped by an iterator and mapped item by item.
//!
//! Run with `cargo run --example batching`. The types are defined in
//! `tests/common/batching.rs` (shared with the tests and the benches); read it for how a custom
//! encoder is written.

#[path = "../tests/common/batching.rs"]
mod types;

use extype::batch::{self, BatchIterExt, BatchableSpec};
use extype::{ExtensionType, Tensor, Value};
use types::{Masked, Ragged};

fn show<T: ExtensionType>(value: &T) -> String {
    Value::from_extension(value.clone()).to_string()
}

fn main() -> extype::Result<()> {
    println!("== MaskedTensor (default encoder: every component gains a leading axis)");
    let items = vec![
        Masked::new(vec![1.0, -2.0, 3.0]),
        Masked::new(vec![4.0, 5.0, -6.0]),
        Masked::new(vec![-7.0, 8.0, 9.0]),
    ];
    println!("item 0:  {}", show(&items[0]));
    let b = batch::stack(&items)?;
    println!("batch:   {}", show(&b));
    println!(
        "law:     spec == item spec batched(3): {}",
        b.spec() == items[0].spec().batched(Some(3))
    );
    let back = batch::unstack(b.clone())?;
    println!("unstack: {} items, equal = {}", back.len(), back == items);

    let sums: Tensor = batch::map_fn(&b, |m: Masked| Ok(m.present_sum()))?;
    println!("map_fn (sum of present values): {sums}");

    let stream = (0..5).map(|i| Masked::new(vec![i as f32, -1.0]));
    for (i, batch) in stream.batched(2).enumerate() {
        println!("batched(2) #{i}: {}", show(&batch?));
    }
    let mut bad = items.clone();
    bad[1] = Masked::new(vec![1.0]);
    if let Some(Err(e)) = bad.into_iter().batched(3).next() {
        println!("a bad item: {e}");
    }

    println!("\n== RaggedTensor (custom encoder: values concatenated, new row splits)");
    let rows = vec![
        Ragged::row(vec![1.0, 2.0, 3.0]),
        Ragged::row(vec![]),
        Ragged::row(vec![4.0, 5.0]),
    ];
    let rb = batch::stack(&rows)?;
    println!("batch:   {}", show(&rb));
    let back = batch::unstack(rb.clone())?;
    println!("unstack: {} rows, equal = {}", back.len(), back == rows);
    let lengths: Tensor = batch::map_fn(&rb, |row: Ragged| {
        Ok(Tensor::from(extype::ndarray::arr0(row.nrows() as i64)))
    })?;
    println!("map_fn (row lengths): {lengths}");
    let nested = batch::stack(&[rb.clone(), batch::stack(&rows[..1])?])?;
    println!("a batch of ragged batches: {}", show(&nested));
    Ok(())
}

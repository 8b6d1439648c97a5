//! Batching speed: `cargo bench -p extype --bench batching`.
//!
//! Each case is timed next to a yardstick doing the least work that gives the same result,
//! measured in the same run, and the summary after criterion's report prints both medians and
//! their ratio (so the figures of one run are comparable):
//! - `stack_masked`: `batch::stack` of 1024 masked tensors of 128 f32 + 128 bool, against
//!   allocating the two batch buffers and copying the same bytes into them (target: ≥ 80% of the
//!   yardstick's speed);
//! - `unstack_shared`: `batch::unstack` of a 1024-item batch with `Tensor` fields, per item
//!   (target ≤ 100 ns; each item views the batch's buffer);
//! - `stack_ragged`: `batch::stack` of 1024 ragged rows of 0–255 f32 (custom encoder), against
//!   allocating and copying the same values and building the row splits (target ≥ 80%);
//! - `map_fn`: `batch::map_fn` over a 1024-item batch with a function summing each item, against
//!   calling the function on 1024 items already split off; the difference per item is map_fn's
//!   overhead (target ≤ 1 µs).
//!
//! The types are those of the batching tests (`tests/common/batching.rs`).

#[path = "../tests/common/batching.rs"]
mod types;

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;

use criterion::Criterion;
use extype::Tensor;
use extype::batch;
use timing::medians;
use types::{Masked, Ragged, SharedMasked};

const N: usize = 1024;
const LEN: usize = 128;

fn masked_items() -> Vec<Masked> {
    (0..N)
        .map(|i| Masked::new((0..LEN).map(|j| (i * LEN + j) as f32 - 7.0).collect()))
        .collect()
}

fn ragged_rows() -> Vec<Ragged> {
    (0..N)
        .map(|i| Ragged::row((0..(i * 37) % 256).map(|j| j as f32).collect()))
        .collect()
}

/// The yardstick of `stack_masked`: two allocations, each item's bytes copied once.
fn copy_masked(items: &[Masked]) -> (Vec<f32>, Vec<bool>) {
    let mut values = Vec::with_capacity(items.len() * LEN);
    let mut mask = Vec::with_capacity(items.len() * LEN);
    for m in items {
        values.extend_from_slice(m.values.as_slice().unwrap());
        mask.extend_from_slice(m.mask.as_slice().unwrap());
    }
    (values, mask)
}

/// The yardstick of `stack_ragged`: the values copied into one allocation, the row splits built.
fn copy_ragged(rows: &[Ragged]) -> (Vec<f32>, Vec<i64>) {
    let total: usize = rows.iter().map(Ragged::nrows).sum();
    let mut values = Vec::with_capacity(total);
    let mut splits = Vec::with_capacity(rows.len() + 1);
    splits.push(0i64);
    for r in rows {
        let v = r.values.as_arc_array::<f32>().unwrap();
        values.extend_from_slice(v.as_slice().unwrap());
        splits.push(values.len() as i64);
    }
    (values, splits)
}

fn item_sum(m: SharedMasked) -> extype::Result<Tensor> {
    let v = m.values.as_arc_array::<f32>()?;
    Ok(Tensor::from(extype::ndarray::arr0(v.sum())))
}

fn benches(c: &mut Criterion) {
    let items = masked_items();
    let mut g = c.benchmark_group("stack_masked");
    g.bench_function("batch::stack", |b| {
        b.iter(|| batch::stack(black_box(&items)).unwrap())
    });
    g.bench_function("yardstick: allocate and copy", |b| {
        b.iter(|| copy_masked(black_box(&items)))
    });
    g.finish();

    let shared: Vec<SharedMasked> = (0..N)
        .map(|i| SharedMasked::new((0..LEN).map(|j| (i + j) as f32).collect()))
        .collect();
    let shared_batch = batch::stack(&shared).unwrap();
    c.bench_function("unstack_shared/batch::unstack (1024 items)", |b| {
        b.iter(|| batch::unstack(black_box(shared_batch.clone())).unwrap())
    });

    let rows = ragged_rows();
    let mut g = c.benchmark_group("stack_ragged");
    g.bench_function("batch::stack", |b| {
        b.iter(|| batch::stack(black_box(&rows)).unwrap())
    });
    g.bench_function("yardstick: allocate and copy", |b| {
        b.iter(|| copy_ragged(black_box(&rows)))
    });
    g.finish();

    let split = batch::unstack(shared_batch.clone()).unwrap();
    let mut g = c.benchmark_group("map_fn");
    g.bench_function("batch::map_fn", |b| {
        b.iter(|| batch::map_fn::<_, Tensor, _>(black_box(&shared_batch), item_sum).unwrap())
    });
    g.bench_function("yardstick: the function on split items", |b| {
        b.iter(|| {
            for item in black_box(&split) {
                black_box(item_sum(item.clone()).unwrap());
            }
        })
    });
    g.finish();
}

fn us(ns: f64) -> String {
    format!("{:.1} µs", ns / 1e3)
}

fn summary() {
    println!("\nsummary (medians of interleaved rounds, this run)");
    let items = masked_items();
    let t = medians(
        301,
        &mut [
            &mut || drop(black_box(batch::stack(black_box(&items)).unwrap())),
            &mut || drop(black_box(copy_masked(black_box(&items)))),
        ],
    );
    println!(
        "  stack 1024 masked (128 f32 + 128 bool): batch::stack {}, allocate-and-copy {}; \
         speed ratio {:.2} (target >= 0.80)",
        us(t[0]),
        us(t[1]),
        t[1] / t[0]
    );

    let shared: Vec<SharedMasked> = (0..N)
        .map(|i| SharedMasked::new((0..LEN).map(|j| (i + j) as f32).collect()))
        .collect();
    let b = batch::stack(&shared).unwrap();
    let t = medians(
        301,
        &mut [&mut || drop(black_box(batch::unstack(black_box(b.clone())).unwrap()))],
    );
    println!(
        "  unstack a shared 1024-item batch: {} ({:.0} ns per item; target <= 100)",
        us(t[0]),
        t[0] / N as f64
    );

    let rows = ragged_rows();
    let t = medians(
        301,
        &mut [
            &mut || drop(black_box(batch::stack(black_box(&rows)).unwrap())),
            &mut || drop(black_box(copy_ragged(black_box(&rows)))),
        ],
    );
    println!(
        "  ragged stack of 1024 rows of 0-255 f32: batch::stack {}, allocate-and-copy {}; \
         speed ratio {:.2} (target >= 0.80)",
        us(t[0]),
        us(t[1]),
        t[1] / t[0]
    );

    let split = batch::unstack(b.clone()).unwrap();
    let t = medians(
        301,
        &mut [
            &mut || {
                drop(black_box(
                    batch::map_fn::<_, Tensor, _>(black_box(&b), item_sum).unwrap(),
                ))
            },
            &mut || {
                for item in black_box(&split) {
                    drop(black_box(item_sum(item.clone()).unwrap()));
                }
            },
        ],
    );
    println!(
        "  map_fn over 1024 items: {}, the function alone {}; overhead {:.0} ns per item \
         (target <= 1000)",
        us(t[0]),
        us(t[1]),
        (t[0] - t[1]) / N as f64
    );
}

fn main() {
    timing::run(benches, summary);
}

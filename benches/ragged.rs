//! `extype::types::RaggedTensor` speed: `cargo bench -p extype --bench ragged`.
//!
//! Each case is timed next to its yardstick in the same run; the summary after criterion's
//! report prints both medians and their ratio (`benches/ragged_tf.py` does the same work in
//! TensorFlow, for the second column of BENCHMARKS.md):
//! - `row_sums`: `ops::reduce_sum(rt, [1])` of 1 Mi rows over 16 Mi f32, against the all-core
//!   read yardstick (a plain 16-lane sum of the same 64 MiB on every core; target ≥ 0.90 of its
//!   speed). A second ratio, printed beside it and not replacing it, takes as yardstick an
//!   all-core read of the bytes the op must read: the values and the 8 MiB of row splits; a
//!   third, the one-core read, is what an adaptive split must reach with a core busy elsewhere;
//! - `build`: `from_row_lengths` from 16 Mi fresh values (a `Vec` copied in) and 1 Mi row lengths,
//!   against copying the values alone (target ≤ 1.2×); and from a shared tensor (no copy);
//! - `small_op`: one op on a 4-row ragged tensor end to end (`ops::add_as`, `&r * 2.0`,
//!   `reduce_sum` over the ragged axis; target ≤ 1 µs);
//! - `stack`: `batch::stack` of 1024 ragged tensors (16 rows of 0–31 f32 each), against
//!   allocating and copying the same values and building the same splits (target ≥ 0.80).

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;

use criterion::Criterion;
use extype::ops;
use extype::types::RaggedTensor;
use extype::{Tensor, batch};
use ndarray::Array1;
use timing::medians;

const ROWS: usize = 1 << 20;
const VALUES: usize = 1 << 24;

/// Deterministic row lengths (0–31, mean ~16) that sum to exactly `total`.
fn lengths(rows: usize, total: usize, seed: u64) -> Vec<i64> {
    let mut x = seed;
    let mut out: Vec<i64> = (0..rows)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % 32) as i64
        })
        .collect();
    let mut sum: i64 = out.iter().sum();
    let mut i = 0;
    while sum != total as i64 {
        if sum < total as i64 {
            out[i % rows] += 1;
            sum += 1;
        } else if out[i % rows] > 0 {
            out[i % rows] -= 1;
            sum -= 1;
        }
        i += 1;
    }
    out
}

fn values(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 1000) as f32 * 0.001).collect()
}

/// The all-core read yardstick: a plain 16-lane sum of `xs` split across every core.
fn read_all_cores(xs: &[f32]) -> f32 {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = xs.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> = xs
            .chunks(chunk)
            .map(|c| s.spawn(move || read_one_core(c)))
            .collect();
        parts.into_iter().map(|p| p.join().unwrap_or(0.0)).sum()
    })
}

/// The one-core read: the same plain 16-lane sum on the calling thread alone. With another
/// process busy on one of two cores, a split of work that adapts to the cores actually free
/// reaches at least this; an even split into one half per core does not (its busy half waits).
fn read_one_core(xs: &[f32]) -> f32 {
    let mut acc = [0.0f32; 16];
    let blocks = xs.chunks_exact(16);
    let tail: f32 = blocks.remainder().iter().sum();
    for b in blocks {
        for (a, v) in acc.iter_mut().zip(b) {
            *a += v;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// The second yardstick, reading the bytes the op reads: the values (64 MiB) and the row splits
/// (8 MiB), each split evenly across every core. Reported beside the yardstick, not in
/// its place (the op must also read the splits; it writes 4 MiB more, which neither counts).
fn read_all_cores_with_splits(xs: &[f32], splits: &[i64]) -> f32 {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (cx, cs) = (xs.len().div_ceil(threads), splits.len().div_ceil(threads));
    std::thread::scope(|s| {
        let parts: Vec<_> = xs
            .chunks(cx)
            .zip(splits.chunks(cs))
            .map(|(c, sp)| {
                s.spawn(move || {
                    let mut acc = [0.0f32; 16];
                    let mut iacc = [0i64; 8];
                    let blocks = c.chunks_exact(16);
                    let tail: f32 = blocks.remainder().iter().sum();
                    for b in blocks {
                        for (a, v) in acc.iter_mut().zip(b) {
                            *a += v;
                        }
                    }
                    let sblocks = sp.chunks_exact(8);
                    let stail: i64 = sblocks.remainder().iter().sum();
                    for b in sblocks {
                        for (a, v) in iacc.iter_mut().zip(b) {
                            *a = a.wrapping_add(*v);
                        }
                    }
                    let ints = iacc.iter().fold(stail, |a, &v| a.wrapping_add(v));
                    acc.iter().sum::<f32>() + tail + (ints & 1) as f32
                })
            })
            .collect();
        parts.into_iter().map(|p| p.join().unwrap_or(0.0)).sum()
    })
}

fn big() -> RaggedTensor {
    RaggedTensor::from_row_lengths(
        Array1::from(values(VALUES)),
        Array1::from(lengths(ROWS, VALUES, 1)),
    )
    .unwrap()
}

fn row_sums(r: &RaggedTensor) -> Tensor {
    ops::reduce_sum_as(r, Some(&[1]), false).unwrap()
}

fn small() -> RaggedTensor {
    RaggedTensor::from_row_lengths(
        Array1::from(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]),
        Array1::from(vec![3i64, 0, 2, 1]),
    )
    .unwrap()
}

/// 1024 ragged tensors of 16 rows of 0–31 values each.
fn items() -> Vec<RaggedTensor> {
    (0..1024u64)
        .map(|k| {
            let l = lengths(16, 256, k + 7);
            RaggedTensor::from_row_lengths(Array1::from(values(256)), Array1::from(l)).unwrap()
        })
        .collect()
}

/// The yardstick of `stack`: the values copied into one allocation, the two levels of splits built.
fn copy_items(items: &[RaggedTensor]) -> (Vec<f32>, Vec<i64>, Vec<i64>) {
    let total: usize = items.iter().map(|r| r.flat_values().len()).sum();
    let rows: usize = items.iter().map(RaggedTensor::nrows).sum();
    let mut values = Vec::with_capacity(total);
    let mut outer = Vec::with_capacity(items.len() + 1);
    let mut inner = Vec::with_capacity(rows + 1);
    outer.push(0i64);
    inner.push(0i64);
    for r in items {
        let s = r.row_splits().as_array::<i64, ndarray::Ix1>().unwrap();
        let base = values.len() as i64;
        inner.extend(s.iter().skip(1).map(|&v| v + base));
        outer.push(inner.len() as i64 - 1);
        values.extend_from_slice(
            r.flat_values()
                .as_arc_array::<f32>()
                .unwrap()
                .as_slice()
                .unwrap(),
        );
    }
    (values, outer, inner)
}

fn benches(c: &mut Criterion) {
    let r = big();
    let raw = values(VALUES);
    let mut g = c.benchmark_group("row_sums");
    g.sample_size(10);
    g.bench_function("ops::reduce_sum axis 1, 1 Mi rows / 16 Mi f32", |b| {
        b.iter(|| row_sums(black_box(&r)))
    });
    g.bench_function("yardstick: all-core read of 16 Mi f32", |b| {
        b.iter(|| read_all_cores(black_box(&raw)))
    });
    g.finish();
    let s = small();
    let mut g = c.benchmark_group("small_op");
    g.bench_function("ops::add_as of two 4-row tensors", |b| {
        b.iter(|| ops::add_as::<RaggedTensor>(black_box(&s), black_box(&s)).unwrap())
    });
    g.bench_function("&r * 2.0", |b| b.iter(|| (black_box(&s) * 2.0).unwrap()));
    g.finish();
    let its = items();
    let mut g = c.benchmark_group("stack");
    g.bench_function("batch::stack of 1024 ragged tensors", |b| {
        b.iter(|| batch::stack(black_box(&its)).unwrap())
    });
    g.bench_function("yardstick: allocate and copy", |b| {
        b.iter(|| copy_items(black_box(&its)))
    });
    g.finish();
}

fn summary() {
    println!("\nsummary (medians of interleaved rounds, this run)");
    let r = big();
    let raw = values(VALUES);
    let want: f32 = read_all_cores(&raw);
    let got: f32 = row_sums(&r)
        .as_array::<f32, ndarray::IxDyn>()
        .unwrap()
        .sum();
    assert!((got - want).abs() <= 1e-3 * want.abs(), "{got} vs {want}");
    let splits = r
        .row_splits()
        .as_array::<i64, ndarray::Ix1>()
        .unwrap()
        .to_vec();
    let flat = r.flat_values().as_array::<f32, ndarray::Ix1>().unwrap();
    let t = medians(
        31,
        &mut [
            &mut || drop(black_box(row_sums(black_box(&r)))),
            &mut || {
                drop(black_box(
                    extype_kernels::reduce::segment::segment_sum(
                        black_box(&flat),
                        black_box(&splits),
                    )
                    .unwrap(),
                ))
            },
            &mut || {
                black_box(read_all_cores(black_box(&raw)));
            },
            &mut || {
                black_box(read_all_cores_with_splits(
                    black_box(&raw),
                    black_box(&splits),
                ));
            },
            &mut || {
                black_box(read_one_core(black_box(&raw)));
            },
        ],
    );
    println!(
        "  row sums of 1 Mi rows / 16 Mi f32: ops::reduce_sum {:.2} ms, all-core read {:.2} ms; \
         speed ratio {:.3} (target >= 0.90); the kernels' segment_sum alone {:.2} ms ({:.3}); \
         all-core read of the values and the splits (the bytes the op reads) {:.2} ms, \
         ratio {:.3}",
        t[0] / 1e6,
        t[2] / 1e6,
        t[2] / t[0],
        t[1] / 1e6,
        t[2] / t[1],
        t[3] / 1e6,
        t[3] / t[0]
    );
    // With a core busy elsewhere the even split of the all-core read lags, and the one-core
    // read is the floor an adaptive split must reach (see `read_one_core`).
    let best = t[2].min(t[4]);
    println!(
        "  … against the one-core read {:.2} ms: ratio to the faster read {:.3} (the split \
         adapts to the free cores when it is >= 0.90 with one core busy)",
        t[4] / 1e6,
        best / t[0]
    );
    drop(r);

    let lens = Tensor::from(Array1::from(lengths(ROWS, VALUES, 1)));
    let shared = Tensor::from(Array1::from(values(VALUES)));
    let t = medians(
        11,
        &mut [
            &mut || {
                let v = Array1::from(black_box(&raw).clone());
                drop(black_box(
                    RaggedTensor::from_row_lengths(v, black_box(&lens).clone()).unwrap(),
                ));
            },
            &mut || drop(black_box(black_box(&raw).clone())),
            &mut || {
                drop(black_box(
                    RaggedTensor::from_row_lengths(
                        black_box(&shared).clone(),
                        black_box(&lens).clone(),
                    )
                    .unwrap(),
                ))
            },
        ],
    );
    println!(
        "  build from 16 Mi fresh values + 1 Mi row lengths: {:.2} ms, copying the values {:.2} ms; \
         ratio {:.2} (target <= 1.2); from a shared tensor (no copy): {:.2} ms",
        t[0] / 1e6,
        t[1] / 1e6,
        t[0] / t[1],
        t[2] / 1e6
    );
    drop(raw);

    let s = small();
    const CALLS: usize = 1000;
    let t = medians(
        201,
        &mut [
            &mut || {
                for _ in 0..CALLS {
                    drop(black_box(
                        ops::add_as::<RaggedTensor>(black_box(&s), black_box(&s)).unwrap(),
                    ));
                }
            },
            &mut || {
                for _ in 0..CALLS {
                    drop(black_box((black_box(&s) * 2.0).unwrap()));
                }
            },
            &mut || {
                for _ in 0..CALLS {
                    drop(black_box(row_sums(black_box(&s))));
                }
            },
        ],
    );
    println!(
        "  one op on a 4-row tensor, end to end: ops::add_as {:.0} ns, &r * 2.0 {:.0} ns, \
         reduce_sum axis 1 {:.0} ns (target <= 1000)",
        t[0] / CALLS as f64,
        t[1] / CALLS as f64,
        t[2] / CALLS as f64
    );

    let its = items();
    let batch = batch::stack(&its).unwrap();
    assert_eq!(batch.flat_values().len(), copy_items(&its).0.len());
    let t = medians(
        51,
        &mut [
            &mut || drop(black_box(batch::stack(black_box(&its)).unwrap())),
            &mut || drop(black_box(copy_items(black_box(&its)))),
        ],
    );
    println!(
        "  batch::stack of 1024 ragged tensors (16 rows, 256 f32 each): {:.1} µs, allocate-and-copy \
         {:.1} µs; speed ratio {:.2} (target >= 0.80)",
        t[0] / 1e3,
        t[1] / 1e3,
        t[1] / t[0]
    );
}

fn main() {
    timing::run(benches, summary);
}

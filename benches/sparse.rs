//! SparseTensor's speed: `cargo bench -p extype --bench sparse`.
//!
//! Each case is timed next to its yardstick, in the same run; the summary after criterion's
//! report prints both medians and their ratio (`benches/sparse_ref.py` runs the same work on the
//! same data in SciPy and TensorFlow, for the columns of BENCHMARKS.md):
//! - `add`: `sparse + sparse` of two `[65536, 65536]` f32 tensors of 1 Mi canonical entries each,
//!   against a merge of the two sorted `(row, col)` lists written by hand (target: ≥ 1×), and
//!   beside its floor: the bytes it must move copied on two threads, into touched memory and
//!   into a fresh allocation;
//! - `sparse_dense_matmul`: a `[100000, 100000]` f32 SparseTensor of 1 Mi entries times a dense
//!   `[100000, 64]`, against the same loop on one core written by hand;
//! - `to_dense`: a `[4096, 4096]` f32 SparseTensor of 1 Mi entries, against a zero fill plus a
//!   scatter written by hand (target: ≥ 80% of its speed).
//!
//! Memory: the add's 32 MiB index array is above glibc's largest adaptive `mmap` threshold, so
//! under glibc's defaults every call takes fresh pages from the kernel (SciPy's smaller arrays
//! are recycled by the heap). To time both sides with recycled memory, run with
//! `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=268435456`;
//! the summary prints the setting it ran under.
//!
//! The data: entry `k` of a tensor sits at row-major offset `(k * P + 12345) mod N` (`N` the dense
//! size, `P` odd and prime to it, so offsets are distinct), value `k % 997 + 1`; sorted by offset.

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;

use criterion::Criterion;
use extype::ndarray::{Array1, Array2, ArrayD, ArrayView1, IxDyn};
use extype::types::{SparseTensor, sparse::sparse_dense_matmul};
use extype::{ExtensionType, Tensor};
use timing::medians;

const NNZ: usize = 1 << 20;

/// The entries of the module docs, canonical: (rows, cols, values).
fn entries(rows: u64, cols: u64, p: u64) -> (Vec<i64>, Vec<i64>, Vec<f32>) {
    let n = rows * cols;
    let mut e: Vec<(u64, f32)> = (0..NNZ as u64)
        .map(|k| ((k * p + 12345) % n, (k % 997 + 1) as f32))
        .collect();
    e.sort_unstable_by_key(|x| x.0);
    let r = e.iter().map(|x| (x.0 / cols) as i64).collect();
    let c = e.iter().map(|x| (x.0 % cols) as i64).collect();
    let v = e.iter().map(|x| x.1).collect();
    (r, c, v)
}

fn sparse(rows: u64, cols: u64, p: u64) -> SparseTensor {
    let (r, c, v) = entries(rows, cols, p);
    let idx = Array2::from_shape_fn((NNZ, 2), |(k, j)| if j == 0 { r[k] } else { c[k] });
    let x = SparseTensor::new(idx, Array1::from(v), &[rows as usize, cols as usize]).unwrap();
    assert!(x.is_canonical());
    x
}

/// The yardstick of `add`: a merge of two sorted `(row, col)` lists with their values.
fn hand_merge(
    a: &(Vec<i64>, Vec<i64>, Vec<f32>),
    b: &(Vec<i64>, Vec<i64>, Vec<f32>),
) -> (Vec<i64>, Vec<f32>) {
    let (na, nb) = (a.2.len(), b.2.len());
    let mut idx = Vec::with_capacity(2 * (na + nb));
    let mut val = Vec::with_capacity(na + nb);
    let (mut i, mut j) = (0, 0);
    while i < na && j < nb {
        let (ka, kb) = ((a.0[i], a.1[i]), (b.0[j], b.1[j]));
        if ka < kb {
            idx.extend([ka.0, ka.1]);
            val.push(a.2[i]);
            i += 1;
        } else if kb < ka {
            idx.extend([kb.0, kb.1]);
            val.push(b.2[j]);
            j += 1;
        } else {
            idx.extend([ka.0, ka.1]);
            val.push(a.2[i] + b.2[j]);
            i += 1;
            j += 1;
        }
    }
    for k in i..na {
        idx.extend([a.0[k], a.1[k]]);
        val.push(a.2[k]);
    }
    for k in j..nb {
        idx.extend([b.0[k], b.1[k]]);
        val.push(b.2[k]);
    }
    (idx, val)
}

/// The floor under `add`: the bytes it must move (both inputs' indices and values read, as many
/// written), copied on two threads (one input each) into `idx` and `vals`, which have room for
/// both inputs. Into touched memory this is the add at copy bandwidth; into a fresh allocation,
/// that plus the page faults.
fn copy_floor(d: &Data, idx: &mut Vec<i64>, vals: &mut Vec<f32>) {
    let (ia, ib) = (d.a.indices_array(), d.b.indices_array());
    let (va, vb): (ArrayView1<f32>, ArrayView1<f32>) = (
        d.a.values().as_array().unwrap(),
        d.b.values().as_array().unwrap(),
    );
    let (ia, ib, va, vb) = (
        ia.as_slice().unwrap(),
        ib.as_slice().unwrap(),
        va.as_slice().unwrap(),
        vb.as_slice().unwrap(),
    );
    idx.clear();
    vals.clear();
    let (oia, oib) = idx.spare_capacity_mut().split_at_mut(ia.len());
    let (ova, ovb) = vals.spare_capacity_mut().split_at_mut(va.len());
    rayon::join(
        || {
            oia.write_copy_of_slice(ia);
            ova.write_copy_of_slice(va);
        },
        || {
            oib[..ib.len()].write_copy_of_slice(ib);
            ovb[..vb.len()].write_copy_of_slice(vb);
        },
    );
    // SAFETY: both halves of each buffer were written above, `ia.len() + ib.len()` and
    // `va.len() + vb.len()` elements from the start.
    unsafe {
        idx.set_len(ia.len() + ib.len());
        vals.set_len(va.len() + vb.len());
    }
}

/// The yardstick of `sparse_dense_matmul`: the same product on one core, entries in order.
fn hand_matmul(a: &SparseTensor, b: &[f32], m: usize) -> Vec<f32> {
    let n = a.dense_shape()[0];
    let idx = a.indices_array();
    let v: ArrayView1<f32> = a.values().as_array().unwrap();
    let mut out = vec![0.0f32; n * m];
    for (row, &x) in idx.outer_iter().zip(v.iter()) {
        let (r, c) = (row[0] as usize, row[1] as usize);
        let o = &mut out[r * m..(r + 1) * m];
        for (o, &y) in o.iter_mut().zip(&b[c * m..(c + 1) * m]) {
            *o += x * y;
        }
    }
    out
}

/// The yardstick of `to_dense`: zeros, then each value at its offset.
fn hand_to_dense(a: &SparseTensor) -> Vec<f32> {
    let cols = a.dense_shape()[1];
    let mut out = vec![0.0f32; a.dense_shape()[0] * cols];
    let idx = a.indices_array();
    let v: ArrayView1<f32> = a.values().as_array().unwrap();
    for (row, &x) in idx.outer_iter().zip(v.iter()) {
        out[row[0] as usize * cols + row[1] as usize] = x;
    }
    out
}

struct Data {
    a: SparseTensor,
    b: SparseTensor,
    ea: (Vec<i64>, Vec<i64>, Vec<f32>),
    eb: (Vec<i64>, Vec<i64>, Vec<f32>),
    mm: SparseTensor,
    dense: Tensor,
    dense_flat: Vec<f32>,
    small: SparseTensor,
}

const P_A: u64 = 2654435761;
const P_B: u64 = 2246822519;

fn data() -> Data {
    let dense_flat: Vec<f32> = (0..100_000 * 64).map(|i| (i % 101) as f32 * 0.01).collect();
    let dense =
        Tensor::from(ArrayD::from_shape_vec(IxDyn(&[100_000, 64]), dense_flat.clone()).unwrap());
    Data {
        a: sparse(65536, 65536, P_A),
        b: sparse(65536, 65536, P_B),
        ea: entries(65536, 65536, P_A),
        eb: entries(65536, 65536, P_B),
        mm: sparse(100_000, 100_000, P_A),
        dense,
        dense_flat,
        small: sparse(4096, 4096, P_A),
    }
}

fn add(d: &Data) -> SparseTensor {
    (&d.a + &d.b).unwrap()
}

fn matmul(d: &Data) -> Tensor {
    sparse_dense_matmul(&d.mm, &d.dense, false, false).unwrap()
}

fn to_dense(d: &Data) -> Tensor {
    d.small.to_dense(&0.0f32, false).unwrap()
}

fn benches(c: &mut Criterion) {
    let d = data();
    let mut g = c.benchmark_group("sparse");
    g.sample_size(10);
    g.bench_function("add (1 Mi + 1 Mi)", |b| b.iter(|| add(black_box(&d))));
    g.bench_function("yardstick: hand merge", |b| {
        b.iter(|| hand_merge(black_box(&d.ea), black_box(&d.eb)))
    });
    g.bench_function("sparse_dense_matmul", |b| b.iter(|| matmul(black_box(&d))));
    g.bench_function("yardstick: hand matmul (1 core)", |b| {
        b.iter(|| hand_matmul(black_box(&d.mm), black_box(&d.dense_flat), 64))
    });
    g.bench_function("to_dense", |b| b.iter(|| to_dense(black_box(&d))));
    g.bench_function("yardstick: zero fill + scatter", |b| {
        b.iter(|| hand_to_dense(black_box(&d.small)))
    });
    g.finish();
}

fn summary() {
    println!("\nsummary (medians of interleaved rounds, this run)");
    println!(
        "  GLIBC_TUNABLES: {}",
        std::env::var("GLIBC_TUNABLES").unwrap_or_else(|_| "unset (glibc's defaults)".into())
    );
    let d = data();
    // The results agree with their yardsticks.
    let (idx, val) = hand_merge(&d.ea, &d.eb);
    let sum = add(&d);
    assert_eq!(sum.indices_array().as_slice().unwrap(), &idx[..]);
    assert_eq!(sum.values(), &Tensor::from(Array1::from(val)));
    let mm: Vec<f32> = matmul(&d)
        .into_array::<f32, IxDyn>()
        .unwrap()
        .into_iter()
        .collect();
    assert_eq!(mm, hand_matmul(&d.mm, &d.dense_flat, 64));
    let td: Vec<f32> = to_dense(&d)
        .into_array::<f32, IxDyn>()
        .unwrap()
        .into_iter()
        .collect();
    assert_eq!(td, hand_to_dense(&d.small));
    let _ = d.a.spec();
    let rounds = 11;
    let t = medians(
        rounds,
        &mut [&mut || drop(black_box(add(&d))), &mut || {
            drop(black_box(hand_merge(&d.ea, &d.eb)))
        }],
    );
    println!(
        "  add of two [65536, 65536] f32 of 1 Mi entries: SparseTensor {:.2} ms, hand merge {:.2} ms; speed ratio {:.2} (target >= 1)",
        t[0] / 1e6,
        t[1] / 1e6,
        t[1] / t[0]
    );
    // The floor: the same bytes copied on two threads, into memory touched before (recycled)
    // and into a fresh allocation each call (the add's own regime under glibc's defaults).
    let (mut idx, mut vals) = (vec![0i64; 4 * NNZ], vec![0f32; 2 * NNZ]);
    let t = medians(
        rounds,
        &mut [
            &mut || drop(black_box(add(&d))),
            &mut || copy_floor(&d, black_box(&mut idx), black_box(&mut vals)),
            &mut || {
                let (mut i, mut v) = (Vec::with_capacity(4 * NNZ), Vec::with_capacity(2 * NNZ));
                copy_floor(&d, &mut i, &mut v);
                drop(black_box((i, v)));
            },
        ],
    );
    println!(
        "  the add's bytes (80 MiB read and written) copied on 2 threads: into touched memory {:.2} ms, into a fresh allocation {:.2} ms; the add {:.2} ms is {:.2}x and {:.2}x of them",
        t[1] / 1e6,
        t[2] / 1e6,
        t[0] / 1e6,
        t[0] / t[1],
        t[0] / t[2]
    );
    let t = medians(
        rounds,
        &mut [&mut || drop(black_box(matmul(&d))), &mut || {
            drop(black_box(hand_matmul(&d.mm, &d.dense_flat, 64)))
        }],
    );
    println!(
        "  sparse_dense_matmul [100000, 100000] (1 Mi entries) x [100000, 64] f32: {:.2} ms ({} threads), hand loop on one core {:.2} ms; speed ratio {:.2}",
        t[0] / 1e6,
        rayon::current_num_threads(),
        t[1] / 1e6,
        t[1] / t[0]
    );
    let t = medians(
        rounds,
        &mut [&mut || drop(black_box(to_dense(&d))), &mut || {
            drop(black_box(hand_to_dense(&d.small)))
        }],
    );
    println!(
        "  to_dense of [4096, 4096] f32 (1 Mi entries): {:.2} ms, zero fill + scatter {:.2} ms; speed ratio {:.2} (target >= 0.80)",
        t[0] / 1e6,
        t[1] / 1e6,
        t[1] / t[0]
    );
}

fn main() {
    timing::run(benches, summary);
}

//! Casts to and from the half-precision floats against the yardsticks of the same run: a fresh
//! copy of the same input bytes (`to_vec`: allocate and copy, what any cast producing a new
//! array must at least do) and the obvious loop a user writes with `half`'s own conversions.
//!
//! `cargo bench -p extype-kernels --bench half`: criterion's report, then a summary of medians
//! measured interleaved (each function once per round, so machine noise hits all alike).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use extype_kernels::cast::cast;
use half::{bf16, f16};
use ndarray::Array1;

const N: usize = 1 << 20;

fn input() -> Array1<f32> {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    Array1::from_shape_fn(N, |_| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 1000.0
    })
}

/// Median nanoseconds of one call of each of `fs`, run in turn for `rounds` rounds.
fn medians(rounds: usize, fs: &mut [(&str, &mut dyn FnMut())]) -> Vec<(String, f64)> {
    let mut times: Vec<Vec<f64>> = fs.iter().map(|_| Vec::with_capacity(rounds)).collect();
    for _ in 0..rounds {
        for ((_, f), t) in fs.iter_mut().zip(times.iter_mut()) {
            let start = Instant::now();
            f();
            t.push(start.elapsed().as_secs_f64() * 1e9);
        }
    }
    fs.iter()
        .zip(times.iter_mut())
        .map(|((name, _), t)| {
            t.sort_by(f64::total_cmp);
            (name.to_string(), t[rounds / 2])
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let x = input();
    let h: Array1<f16> = cast(&x);
    let mut g = c.benchmark_group("half 1Mi");
    g.bench_function("cast f32 -> f16", |b| {
        b.iter(|| cast::<f32, f16, _, _>(black_box(&x)))
    });
    g.bench_function("cast f16 -> f32", |b| {
        b.iter(|| cast::<f16, f32, _, _>(black_box(&h)))
    });
    g.bench_function("cast f32 -> bf16", |b| {
        b.iter(|| cast::<f32, bf16, _, _>(black_box(&x)))
    });
    g.bench_function("fresh copy of the f32 input", |b| {
        b.iter(|| black_box(x.as_slice().unwrap()).to_vec())
    });
    g.finish();
}

fn summary() {
    let x = input();
    let x64 = x.mapv(f64::from);
    let h: Array1<f16> = cast(&x);
    let hs = h.as_slice().unwrap().to_vec();
    let xs = x.as_slice().unwrap().to_vec();
    let mut fs: Vec<(&str, &mut dyn FnMut())> = Vec::new();
    let mut a = || drop(black_box(black_box(&xs).to_vec()));
    let mut b = || drop(black_box(black_box(&hs).to_vec()));
    let mut c1 = || drop(black_box(cast::<f32, f16, _, _>(black_box(&x))));
    let mut c2 = || {
        drop(black_box(
            black_box(&xs)
                .iter()
                .map(|&v| f16::from_f32(v))
                .collect::<Vec<_>>(),
        ))
    };
    let mut c3 = || drop(black_box(cast::<f16, f32, _, _>(black_box(&h))));
    let mut c4 = || {
        drop(black_box(
            black_box(&hs)
                .iter()
                .map(|v| v.to_f32())
                .collect::<Vec<_>>(),
        ))
    };
    let mut c5 = || drop(black_box(cast::<f32, bf16, _, _>(black_box(&x))));
    let mut c6 = || drop(black_box(cast::<f64, f16, _, _>(black_box(&x64))));
    let mut c7 = || drop(black_box(cast::<f16, bf16, _, _>(black_box(&h))));
    fs.push(("fresh copy, f32 bytes (4 MiB)", &mut a));
    fs.push(("fresh copy, f16 bytes (2 MiB)", &mut b));
    fs.push(("cast f32 -> f16", &mut c1));
    fs.push(("loop f16::from_f32", &mut c2));
    fs.push(("cast f16 -> f32", &mut c3));
    fs.push(("loop f16::to_f32", &mut c4));
    fs.push(("cast f32 -> bf16", &mut c5));
    fs.push(("cast f64 -> f16", &mut c6));
    fs.push(("cast f16 -> bf16", &mut c7));
    let m = medians(31, &mut fs);
    let copy32 = m[0].1;
    println!("\nhalf casts, 1Mi elements, medians of 31 interleaved rounds:");
    for (name, ns) in &m {
        println!(
            "  {name:<32} {:>9.1} µs  {:>5.2} ns/elem  {:>5.1}x the f32 fresh copy",
            ns / 1e3,
            ns / N as f64,
            ns / copy32
        );
    }
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    benches(&mut c);
    c.final_summary();
    summary();
}

//! Criterion benchmarks of the kernels against memory bandwidth and the obvious ndarray code.
//!
//! Run with `cargo bench -p extype-kernels` (add a filter such as `-- 1Mi` for one size).
//! Every benchmark records its per-iteration times as criterion measures them; at the end a
//! summary prints, per size, each kernel's median time, its input bandwidth, its fraction of
//! the yardsticks measured in the same run — `/copy`: a copy into already-touched memory
//! (`copy_from_slice`, the bandwidth ceiling); `/fresh`: allocate-and-copy (`to_vec`, what a
//! kernel producing a new output of the same bytes must do; the header also gives it returned as
//! an `ArrayD`, the floor for stack/concat); `/read1`, `/readN`: a plain
//! AVX-512 sum on one core and on all cores — and its speed-up over the ndarray equivalent.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use criterion::{BenchmarkGroup, Criterion, measurement::WallTime};
use extype_kernels::elementwise::{binary, unary};
use extype_kernels::reduce::{full, masked, segment};
use extype_kernels::{compact, select, stack_concat};
use ndarray::{Array1, Axis, Zip, s};
use rayon::prelude::*;

/// (size label, bench name) → per-iteration times in seconds.
static TIMES: Mutex<BTreeMap<(usize, String), Vec<f64>>> = Mutex::new(BTreeMap::new());

fn record(group: &mut BenchmarkGroup<'_, WallTime>, n: usize, name: &str, mut f: impl FnMut()) {
    let key = (n, name.to_string());
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                f();
            }
            let elapsed = start.elapsed();
            TIMES
                .lock()
                .unwrap()
                .entry(key.clone())
                .or_default()
                .push(elapsed.as_secs_f64() / iters as f64);
            elapsed
        })
    });
}

/// Plain AVX-512 sum (8 independent 16-lane accumulators), the read-bandwidth yardstick and
/// the evidence that the crate's autovectorised virtual-lane sum matches hand-written code.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn plain_sum_avx512(xs: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let mut acc = [_mm512_setzero_ps(); 8];
    let chunks = xs.chunks_exact(128);
    let tail: f32 = chunks.remainder().iter().sum();
    for c in chunks {
        for (j, a) in acc.iter_mut().enumerate() {
            // SAFETY: `c` has 128 elements, so `c[16 * j..16 * j + 16]` is in bounds for j < 8.
            *a = _mm512_add_ps(*a, unsafe { _mm512_loadu_ps(c.as_ptr().add(16 * j)) });
        }
    }
    let mut v = acc[0];
    for a in &acc[1..] {
        v = _mm512_add_ps(v, *a);
    }
    _mm512_reduce_add_ps(v) + tail
}

fn plain_sum(xs: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: AVX-512F support was just checked.
        return unsafe { plain_sum_avx512(xs) };
    }
    xs.iter().sum()
}

fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 40) as f32) / (1u64 << 24) as f32 - 0.5
        })
        .collect()
}

fn bench_size(c: &mut Criterion, n: usize, label: &str) {
    let mut group = c.benchmark_group(label);
    if n >= 1 << 24 {
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2));
    } else {
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(700));
    }
    let a = Array1::from(data(n, 1));
    let b = Array1::from(data(n, 2));
    let mask = Array1::from_iter(a.iter().map(|&x| x > 0.0));
    let cols = 1024.min(n);
    let a2 = a.view().into_shape_with_order((n / cols, cols)).unwrap();
    let row = Array1::from(data(cols, 3));
    let splits: Vec<i64> = (0..=n as i64).step_by(100).chain([n as i64]).collect();
    let splits: Vec<i64> = {
        let mut s = splits;
        s.dedup();
        s
    };
    let mut dst = vec![0.0f32; n];
    // The same data at a 64-byte boundary and 1 and 3 elements past one (a `Vec` is only
    // guaranteed 4-byte aligned, in practice 16), to measure the sum at controlled alignments.
    let mut padded = vec![0.0f32; n + 32];
    let boundary = padded.as_ptr().align_offset(64);

    let (ha, hb) = (a.slice(s![..n / 2]), a.slice(s![n / 2..]));
    // The kernels take dynamic-rank views: convert once, outside the timed loop (the ndarray
    // calls get their static-rank views the same way).
    let halves = [ha.into_dyn(), hb.into_dyn()];

    // Yardsticks.
    record(&mut group, n, "copy (memcpy)", || {
        dst.copy_from_slice(a.as_slice().unwrap());
        black_box(&dst);
    });
    record(&mut group, n, "copy (alloc+memcpy)", || {
        black_box(a.as_slice().unwrap().to_vec());
    });
    // The same, returned as a dynamic-rank array (the cheapest construction measured: static
    // rank, then `into_dyn`): what stack/concat, which return an `ArrayD`, cannot go below.
    record(&mut group, n, "copy (alloc+memcpy, ArrayD)", || {
        black_box(Array1::from_vec(a.as_slice().unwrap().to_vec()).into_dyn());
    });
    record(&mut group, n, "read: plain SIMD sum, 1 core", || {
        black_box(plain_sum(a.as_slice().unwrap()));
    });
    record(&mut group, n, "read: plain SIMD sum, all cores", || {
        black_box(
            a.as_slice()
                .unwrap()
                .par_chunks(1 << 18)
                .map(plain_sum)
                .sum::<f32>(),
        );
    });

    // Kernels and their ndarray equivalents.
    record(&mut group, n, "sum", || {
        black_box(full::sum(&a));
    });
    record(&mut group, n, "ndarray: sum", || {
        black_box(a.sum());
    });
    if n <= 1 << 20 {
        for (offset, name) in [
            (0, "sum (64-byte aligned)"),
            (1, "sum (offset 1)"),
            (3, "sum (offset 3)"),
        ] {
            // Copy the data in place for each offset (the copies overlap).
            padded[boundary + offset..boundary + offset + n].copy_from_slice(a.as_slice().unwrap());
            let v = ndarray::ArrayView1::from(&padded[boundary + offset..][..n]);
            record(&mut group, n, name, || {
                black_box(full::sum(&v));
            });
            record(&mut group, n, &format!("ndarray: {name}"), || {
                black_box(v.sum());
            });
        }
    }
    record(&mut group, n, "max", || {
        black_box(full::max(&a).unwrap());
    });
    record(&mut group, n, "ndarray: max", || {
        black_box(a.fold(
            f32::NEG_INFINITY,
            |m, &x| if x > m || x.is_nan() { x } else { m },
        ));
    });
    record(&mut group, n, "argmax", || {
        black_box(full::argmax(&a).unwrap());
    });
    record(&mut group, n, "ndarray: argmax", || {
        // First maximum, first NaN wins (the kernel's semantics).
        let mut best = (0usize, f32::NEG_INFINITY);
        for (i, &x) in a.iter().enumerate() {
            if x.is_nan() {
                best = (i, x);
                break;
            }
            if x > best.1 || i == 0 {
                best = (i, x);
            }
        }
        black_box(best.0);
    });
    record(&mut group, n, "masked max", || {
        black_box(masked::masked_max(&a, &mask).unwrap());
    });
    record(&mut group, n, "ndarray: masked max", || {
        black_box(
            Zip::from(&a)
                .and(&mask)
                .fold(f32::NEG_INFINITY, |s, &x, &m| {
                    if m && (x > s || x.is_nan()) { x } else { s }
                }),
        );
    });
    record(&mut group, n, "masked sum", || {
        black_box(masked::masked_sum(&a, &mask).unwrap());
    });
    record(&mut group, n, "ndarray: masked sum", || {
        black_box(
            Zip::from(&a)
                .and(&mask)
                .fold(0.0f32, |s, &x, &m| if m { s + x } else { s }),
        );
    });
    record(&mut group, n, "add", || {
        black_box(binary::add(&a, &b).unwrap());
    });
    record(&mut group, n, "ndarray: add", || {
        black_box(&a + &b);
    });
    record(&mut group, n, "add (row broadcast)", || {
        black_box(binary::add(&a2, &row).unwrap());
    });
    record(&mut group, n, "ndarray: add (row broadcast)", || {
        black_box(&a2 + &row);
    });
    record(&mut group, n, "exp", || {
        black_box(unary::exp(&a));
    });
    record(&mut group, n, "ndarray: exp", || {
        black_box(a.mapv(f32::exp));
    });
    record(&mut group, n, "abs", || {
        black_box(unary::abs(&a));
    });
    record(&mut group, n, "ndarray: abs", || {
        black_box(a.mapv(f32::abs));
    });
    record(&mut group, n, "segment sum", || {
        black_box(segment::segment_sum(&a, &splits).unwrap());
    });
    record(&mut group, n, "ndarray: segment sum", || {
        black_box(Array1::from_iter(
            splits
                .windows(2)
                .map(|w| a.slice(s![w[0] as usize..w[1] as usize]).sum()),
        ));
    });
    record(&mut group, n, "select", || {
        black_box(select::select(&mask, &a, &b).unwrap());
    });
    record(&mut group, n, "ndarray: select", || {
        black_box(
            Zip::from(&mask)
                .and(&a)
                .and(&b)
                .map_collect(|&m, &x, &y| if m { x } else { y }),
        );
    });
    record(&mut group, n, "compaction", || {
        black_box(compact::boolean_mask(&a, &mask).unwrap());
    });
    record(&mut group, n, "ndarray: compaction", || {
        black_box(Array1::from_iter(
            a.iter()
                .zip(mask.iter())
                .filter(|(_, m)| **m)
                .map(|(&x, _)| x),
        ));
    });
    record(&mut group, n, "stack", || {
        black_box(stack_concat::stack(0, &halves).unwrap());
    });
    record(&mut group, n, "ndarray: stack", || {
        black_box(ndarray::stack(Axis(0), &[ha, hb]).unwrap());
    });
    record(&mut group, n, "concat", || {
        black_box(stack_concat::concat(0, &halves).unwrap());
    });
    record(&mut group, n, "ndarray: concat", || {
        black_box(ndarray::concatenate(Axis(0), &[ha, hb]).unwrap());
    });
    group.finish();
}

/// Input bytes each benchmark reads per element (for GB/s).
fn input_bytes(name: &str) -> f64 {
    let name = name.trim_start_matches("ndarray: ");
    match name {
        "masked sum" | "masked max" | "compaction" => 5.0,
        "add" | "select" => {
            if name == "select" {
                9.0
            } else {
                8.0
            }
        }
        _ => 4.0,
    }
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn summary() {
    let times = TIMES.lock().unwrap();
    // Medians for `bench/compare_numpy.py`: size label, name, seconds.
    let mut tsv = String::from("size\tname\tmedian_s\n");
    for ((n, name), v) in times.iter() {
        tsv += &format!("{}\t{}\t{:e}\n", label(*n), name, median(&mut v.clone()));
    }
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/extype-kernels-bench.tsv");
    if let Err(e) = std::fs::write(&path, tsv) {
        eprintln!("could not write {}: {e}", path.display());
    }
    let sizes: Vec<usize> = {
        let mut v: Vec<usize> = times.keys().map(|k| k.0).collect();
        v.dedup();
        v
    };
    for n in sizes {
        let get = |name: &str| {
            times
                .get(&(n, name.to_string()))
                .map(|v| median(&mut v.clone()))
        };
        let gbs = |name: &str| get(name).map(|t| input_bytes(name) * n as f64 / t / 1e9);
        let (Some(copy), Some(copy_alloc), Some(read1), Some(read_all)) = (
            gbs("copy (memcpy)"),
            gbs("copy (alloc+memcpy)"),
            gbs("read: plain SIMD sum, 1 core"),
            gbs("read: plain SIMD sum, all cores"),
        ) else {
            continue;
        };
        let dyn_fresh = gbs("copy (alloc+memcpy, ArrayD)").unwrap_or(f64::NAN);
        println!(
            "\n== {} f32 elements: copy {copy:.1} GB/s (alloc+copy {copy_alloc:.1}, into an ArrayD {dyn_fresh:.1}), read 1 core {read1:.1} GB/s, all cores {read_all:.1} GB/s",
            label(n)
        );
        println!(
            "{:<22} {:>11} {:>9} {:>8} {:>8} {:>8} {:>8} {:>11} {:>9}",
            "kernel",
            "median",
            "GB/s in",
            "/copy",
            "/fresh",
            "/read1",
            "/readN",
            "ndarray",
            "speed-up"
        );
        for name in [
            "sum",
            "sum (64-byte aligned)",
            "sum (offset 1)",
            "sum (offset 3)",
            "max",
            "argmax",
            "masked sum",
            "masked max",
            "add",
            "add (row broadcast)",
            "exp",
            "abs",
            "segment sum",
            "select",
            "compaction",
            "stack",
            "concat",
        ] {
            let (Some(t), Some(g)) = (get(name), gbs(name)) else {
                continue;
            };
            let nd = get(&format!("ndarray: {name}"));
            println!(
                "{:<22} {:>11} {:>9.2} {:>7.0}% {:>7.0}% {:>7.0}% {:>7.0}% {:>11} {:>8.2}x",
                name,
                fmt_t(t),
                g,
                100.0 * g / copy,
                100.0 * g / copy_alloc,
                100.0 * g / read1,
                100.0 * g / read_all,
                nd.map(fmt_t).unwrap_or_default(),
                nd.map(|x| x / t).unwrap_or(f64::NAN)
            );
        }
    }
}

fn fmt_t(t: f64) -> String {
    if t < 1e-6 {
        format!("{:.1} ns", t * 1e9)
    } else if t < 1e-3 {
        format!("{:.2} µs", t * 1e6)
    } else {
        format!("{:.2} ms", t * 1e3)
    }
}

fn label(n: usize) -> String {
    if n >= 1 << 20 {
        format!("{} Mi", n >> 20)
    } else {
        format!("{} Ki", n >> 10)
    }
}

/// Times `full::sum` on 1 thread and on all threads for sizes around the parallel threshold,
/// forcing one split at each size: prints the medians so the crossover (where splitting starts
/// to pay) can be read off.
fn parallel_crossover() {
    println!(
        "\n== parallel crossover: f32 sum, median of 201 runs (no split vs one split in two halves)"
    );
    for shift in 16..=23 {
        let n = 1usize << shift;
        let a = Array1::from(data(n, 9));
        let time = |f: &dyn Fn() -> f32| {
            let mut t: Vec<f64> = (0..201)
                .map(|_| {
                    let s = Instant::now();
                    black_box(f());
                    s.elapsed().as_secs_f64()
                })
                .collect();
            median(&mut t)
        };
        // Same calling thread both ways: no split, then exactly one split into two halves.
        extype_kernels::parallel::set_parallel_min_bytes(usize::MAX / 4);
        let serial = time(&|| full::sum(&a));
        extype_kernels::parallel::set_parallel_min_bytes(n * 4 / 2);
        let parallel = time(&|| full::sum(&a));
        extype_kernels::parallel::set_parallel_min_bytes(extype_kernels::parallel::PAR_MIN_BYTES);
        println!(
            "{:>8} elements ({:>5} KiB): serial {:>10}, split {:>10}, speed-up {:.2}x",
            n,
            (n * 4) >> 10,
            fmt_t(serial),
            fmt_t(parallel),
            serial / parallel
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    for n in [4 << 10, 1 << 20, 64 << 20] {
        bench_size(&mut c, n, &label(n));
    }
    c.final_summary();
    summary();
    parallel_crossover();
}

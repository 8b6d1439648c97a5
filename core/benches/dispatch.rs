//! Dispatch overhead and dense-path cost. Run with
//! `cargo bench -p extype-core --bench dispatch`.
//!
//! - `masked_add_16/ops_add` vs `masked_add_16/direct`: `ops::add` on two 16-element
//!   MaskedTensors through the table (exact handler), and the same handler called directly. The
//!   difference is the dispatch overhead (target ≤ 20 ns; TensorFlow takes ~44 µs for the
//!   dispatched add and ~19 µs for a plain eager add of two 16-element tensors). The summary also
//!   times the handler's result wrapped into a `Value` (the one allocation every op returns).
//! - `dense_add_1Mi/ops_add` vs `dense_add_1Mi/kernel`: `ops::add` on two 1 Mi-element `f32`
//!   tensors vs the kernel called directly (target: within 5%).
//! - `dense_add_16/*`: the same on 16 elements, i.e. the fixed cost of the dense path (target
//!   ≤ 30 ns over the kernel); `kernel_to_tensor` adds wrapping the kernel's result into a
//!   shared `Tensor`.
//!
//! After criterion's report, a summary prints medians of its own interleaved batches and the
//! overheads and ratios (so the figures of one run are comparable).

extern crate extype_core as extype;

#[path = "../tests/common/masked.rs"]
#[allow(dead_code)]
mod masked;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use extype::dispatch::{Call, DispatchEntry, Handled, IntoHandled, ParamKind, Target};
use extype::ops::{self, Operand, catalog};
use extype::{Result, Tensor, Value};
use extype_kernels::elementwise::binary as kb;
use masked::MaskedTensor;
use ndarray::{ArrayD, IxDyn};

/// The handler, as a user would write it.
fn masked_add(x: &MaskedTensor, y: &MaskedTensor) -> Result<MaskedTensor> {
    let values =
        kb::add(&x.values, &y.values).map_err(|e| extype::Error::invalid(e.to_string()))?;
    let mask =
        kb::logical_and(&x.mask, &y.mask).map_err(|e| extype::Error::invalid(e.to_string()))?;
    Ok(MaskedTensor { values, mask })
}

/// The wrapper `#[dispatch(Add)]` generates for it (core cannot use the macro crate).
fn masked_add_wrapper<'a>(_: &Call<'_>, args: &[Operand<'a>]) -> Result<Handled> {
    let (Some(x), Some(y)) = (
        args[0].downcast_ref::<MaskedTensor>(),
        args[1].downcast_ref::<MaskedTensor>(),
    ) else {
        return Ok(Handled::Declined);
    };
    IntoHandled::into_handled(masked_add(x, y))
}

const PARAMS: &[ParamKind] = &[
    ParamKind::extension::<MaskedTensor>(),
    ParamKind::extension::<MaskedTensor>(),
];

inventory::submit! {
    DispatchEntry::new(
        Target::Op(&catalog::ADD),
        PARAMS,
        masked_add_wrapper,
        None,
        "masked_add",
        file!(),
        line!(),
    )
}

fn masked(n: usize) -> MaskedTensor {
    MaskedTensor {
        values: ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] as f32),
        mask: ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] % 3 != 0),
    }
}

fn dense(n: usize) -> Tensor {
    Tensor::from(ArrayD::from_shape_fn(IxDyn(&[n]), |i| (i[0] % 1000) as f32))
}

fn kernel_add(a: &Tensor, b: &Tensor) -> ArrayD<f32> {
    let (Tensor::F32(a), Tensor::F32(b)) = (a, b) else {
        unreachable!("f32 inputs")
    };
    kb::add(a, b).expect("same shapes")
}

fn benches(c: &mut Criterion) {
    let (x, y) = (masked(16), masked(16));
    let mut g = c.benchmark_group("masked_add_16");
    g.bench_function("ops_add", |b| {
        b.iter(|| ops::add(black_box(&x), black_box(&y)))
    });
    g.bench_function("direct", |b| {
        b.iter(|| masked_add(black_box(&x), black_box(&y)))
    });
    g.finish();

    for (label, n) in [("dense_add_16", 16usize), ("dense_add_1Mi", 1 << 20)] {
        let (a, b2) = (dense(n), dense(n));
        let mut g = c.benchmark_group(label);
        if n > 16 {
            g.sample_size(30);
        }
        g.bench_function("ops_add", |b| {
            b.iter(|| ops::add(black_box(&a), black_box(&b2)))
        });
        g.bench_function("kernel", |b| {
            b.iter(|| kernel_add(black_box(&a), black_box(&b2)))
        });
        // The kernel plus wrapping its result into a shared `Tensor` (what every op returns).
        g.bench_function("kernel_to_tensor", |b| {
            b.iter(|| Tensor::from(kernel_add(black_box(&a), black_box(&b2))))
        });
        g.finish();
    }
}

/// Median time per call of `f`, over `rounds` batches of `batch` calls.
fn median_ns(rounds: usize, batch: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..batch {
                f();
            }
            t.elapsed().as_nanos() as f64 / batch as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[rounds / 2]
}

/// Interleaves the measurements (A, B, C, A, B, C, …) so that machine noise hits all alike;
/// returns each one's median time per call.
fn interleaved(rounds: usize, batch: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let mut times = vec![Vec::with_capacity(rounds); fs.len()];
    for _ in 0..rounds {
        for (f, t) in fs.iter_mut().zip(&mut times) {
            t.push(median_ns(1, batch, &mut **f));
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[rounds / 2]
        })
        .collect()
}

fn summary() {
    let (x, y) = (masked(16), masked(16));
    let t = interleaved(
        201,
        2000,
        &mut [
            &mut || {
                black_box(ops::add(black_box(&x), black_box(&y)).ok());
            },
            &mut || {
                black_box(masked_add(black_box(&x), black_box(&y)).ok());
            },
            // The handler's result as the `Value` every op returns (one allocation).
            &mut || {
                black_box(
                    masked_add(black_box(&x), black_box(&y))
                        .map(Value::from_extension)
                        .ok(),
                );
            },
        ],
    );
    let (dispatched, direct, direct_value) = (t[0], t[1], t[2]);
    println!("\nsummary (medians of interleaved batches)");
    println!(
        "  masked add, 16 elements: ops::add {dispatched:.0} ns, direct {direct:.0} ns, \
         direct into a Value {direct_value:.0} ns; dispatch overhead {:.0} ns ({:.0} ns past \
         the Value)",
        dispatched - direct,
        dispatched - direct_value
    );
    for (label, n, rounds, batch) in [("16", 16usize, 201, 2000), ("1 Mi", 1 << 20, 41, 3)] {
        let (a, b) = (dense(n), dense(n));
        let t = interleaved(
            rounds,
            batch,
            &mut [
                &mut || {
                    black_box(ops::add(black_box(&a), black_box(&b)).ok());
                },
                &mut || {
                    black_box(kernel_add(black_box(&a), black_box(&b)));
                },
                &mut || {
                    black_box(Tensor::from(kernel_add(black_box(&a), black_box(&b))));
                },
            ],
        );
        let (ops_t, kernel_t, kernel_tensor) = (t[0], t[1], t[2]);
        println!(
            "  dense f32 add, {label} elements: ops::add {}, kernel {}, kernel into a Tensor {}; \
             overhead {} ({} past the Tensor), ratio {:.3}",
            show(ops_t),
            show(kernel_t),
            show(kernel_tensor),
            show(ops_t - kernel_t),
            show(ops_t - kernel_tensor),
            ops_t / kernel_t
        );
    }
}

fn show(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    benches(&mut c);
    c.final_summary();
    summary();
}

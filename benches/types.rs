//! The library types' speed: `cargo bench -p extype --bench types`.
//!
//! Each case is timed next to its yardstick, in the same run; the summary after criterion's
//! report prints both medians and their ratio:
//! - `masked_sum`: `ops::reduce_sum` of an `extype::types::MaskedTensor` of 64 Mi f32 (over all
//!   axes), against the kernels' masked sum on the same arrays (target: ≥ 90% of its speed);
//! - `masked_add`: `ops::add` of two MaskedTensors of 16 f32 through dispatch (its result a
//!   `Value`), against calling its handler (`masked_binary`) directly (target: ≤ 30 ns more);
//!   the summary also times `ops::add_as::<MaskedTensor>` (what the operators call), which adds
//!   taking the value back out of the `Value`.

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;

use criterion::Criterion;
use extype::dispatch::Call;
use extype::ndarray::{ArrayD, IxDyn};
use extype::ops::{self, OpArgs, catalog};
use extype::types::{MaskedTensor, masked};
use extype::{BinaryOp, OrDense, Tensor};
use timing::medians;

const BIG: usize = 64 << 20;
const SMALL: usize = 16;

fn masked_of(n: usize) -> MaskedTensor {
    let values = ArrayD::from_shape_fn(IxDyn(&[n]), |i| (i[0] % 1000) as f32 * 0.5);
    let mask = ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] % 3 != 0);
    MaskedTensor::new(values, mask).unwrap()
}

/// The yardstick of `masked_sum`: the kernel on the tensors' arrays.
fn kernel_sum(x: &MaskedTensor) -> f32 {
    let v = x.values().as_array::<f32, IxDyn>().unwrap();
    let m = x.mask().as_array::<bool, IxDyn>().unwrap();
    extype_kernels::reduce::masked::masked_sum(&v, &m).unwrap()
}

fn dispatched_sum(x: &MaskedTensor) -> MaskedTensor {
    ops::reduce_sum_as(x, None, false).unwrap()
}

fn direct_add(a: &MaskedTensor, b: &MaskedTensor) -> MaskedTensor {
    let args = OpArgs::none();
    let op = BinaryOp::new(&Call {
        op: &catalog::ADD,
        args: &args,
    });
    masked::masked_binary(&op, &OrDense::Ext(a), &OrDense::Ext(b)).unwrap()
}

fn dispatched_add(a: &MaskedTensor, b: &MaskedTensor) -> extype::Value {
    ops::add(a, b).unwrap()
}

fn dispatched_add_as(a: &MaskedTensor, b: &MaskedTensor) -> MaskedTensor {
    ops::add_as(a, b).unwrap()
}

fn benches(c: &mut Criterion) {
    let big = masked_of(BIG);
    let mut g = c.benchmark_group("masked_sum");
    g.sample_size(10);
    g.bench_function("ops::reduce_sum", |b| {
        b.iter(|| dispatched_sum(black_box(&big)))
    });
    g.bench_function("yardstick: kernels' masked_sum", |b| {
        b.iter(|| kernel_sum(black_box(&big)))
    });
    g.finish();
    drop(big);

    let (x, y) = (masked_of(SMALL), masked_of(SMALL));
    let mut g = c.benchmark_group("masked_add");
    g.bench_function("ops::add", |b| {
        b.iter(|| dispatched_add(black_box(&x), black_box(&y)))
    });
    g.bench_function("yardstick: the handler called directly", |b| {
        b.iter(|| direct_add(black_box(&x), black_box(&y)))
    });
    g.finish();
}

fn summary() {
    println!("\nsummary (medians of interleaved rounds, this run)");
    let big = masked_of(BIG);
    assert_eq!(
        dispatched_sum(&big).values(),
        &Tensor::from(extype::ndarray::arr0(kernel_sum(&big)))
    );
    let t = medians(
        31,
        &mut [
            &mut || drop(black_box(dispatched_sum(black_box(&big)))),
            &mut || {
                black_box(kernel_sum(black_box(&big)));
            },
        ],
    );
    println!(
        "  masked sum of 64 Mi f32: ops::reduce_sum {:.1} ms, kernels' masked_sum {:.1} ms; \
         speed ratio {:.3} (target >= 0.90)",
        t[0] / 1e6,
        t[1] / 1e6,
        t[1] / t[0]
    );
    drop(big);

    let (x, y) = (masked_of(SMALL), masked_of(SMALL));
    assert_eq!(dispatched_add_as(&x, &y), direct_add(&x, &y));
    // Many calls per round: one call is a few tens of nanoseconds.
    const CALLS: usize = 1000;
    let t = medians(
        301,
        &mut [
            &mut || {
                for _ in 0..CALLS {
                    drop(black_box(dispatched_add(black_box(&x), black_box(&y))));
                }
            },
            &mut || {
                for _ in 0..CALLS {
                    drop(black_box(direct_add(black_box(&x), black_box(&y))));
                }
            },
            &mut || {
                for _ in 0..CALLS {
                    drop(black_box(dispatched_add_as(black_box(&x), black_box(&y))));
                }
            },
        ],
    );
    let [dispatched, direct, typed] = [t[0], t[1], t[2]].map(|t| t / CALLS as f64);
    println!(
        "  masked add of 16 f32: ops::add {dispatched:.1} ns, the handler directly {direct:.1} ns; \
         dispatch overhead {:.1} ns (target <= 30); ops::add_as {typed:.1} ns ({:.1} ns over \
         the handler)",
        dispatched - direct,
        typed - direct
    );
}

fn main() {
    timing::run(benches, summary);
}

//! Runtime overheads of specs and decomposition: `cargo bench -p extype --bench runtime`.
//!
//! Each group times the extype operation next to a direct baseline doing the same data movement
//! by hand, so the figures show the cost of the abstraction itself. The types are the derived
//! ones of the integration tests (`tests/common`).

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use common::{MaskedTensor, MaskedTensorSpec, RaggedTensor, SharedPair};
use criterion::{Criterion, criterion_group, criterion_main};
use extype::nest::{flatten, pack_sequence_as};
use extype::{ExtensionType, Tensor, TypeSpec};
use ndarray::{Array1, ArrayD, IxDyn, array};

fn masked() -> MaskedTensor {
    MaskedTensor {
        values: ArrayD::from_elem(IxDyn(&[8, 3]), 1.0f32),
        mask: ArrayD::from_elem(IxDyn(&[8, 3]), true),
    }
}

fn ragged() -> RaggedTensor {
    RaggedTensor {
        values: Tensor::from(Array1::from_elem(6, 1.0f32)),
        row_splits: array![0, 2, 3, 6].into_shared(),
    }
}

fn shared_pair() -> SharedPair {
    SharedPair {
        values: Tensor::from(ArrayD::from_elem(IxDyn(&[8, 3]), 1.0f32)),
        mask: Tensor::from(ArrayD::from_elem(IxDyn(&[8, 3]), true)),
    }
}

fn round_trip(c: &mut Criterion) {
    let mut group = c.benchmark_group("round_trip");
    let pair_spec = shared_pair().spec();
    let mut slot = Some(shared_pair());
    group.bench_function(
        "pair (Tensor fields): into_components + from_components",
        |b| {
            b.iter(|| {
                let value = slot.take().unwrap();
                let parts = black_box(value.into_components());
                slot = Some(black_box(&pair_spec).from_components(parts).unwrap());
            })
        },
    );
    let mut slot = Some(shared_pair());
    group.bench_function(
        "pair: direct baseline (Vec of the two tensors and back)",
        |b| {
            b.iter(|| {
                let SharedPair { values, mask } = slot.take().unwrap();
                let parts = black_box(vec![values, mask]);
                let mut parts = parts.into_iter();
                let values = parts.next().unwrap();
                let mask = parts.next().unwrap();
                slot = Some(SharedPair { values, mask });
            })
        },
    );
    let spec = masked().spec();
    let mut slot = Some(masked());
    group.bench_function(
        "masked (Array fields): into_components + from_components",
        |b| {
            b.iter(|| {
                let value = slot.take().unwrap();
                let parts = black_box(value.into_components());
                slot = Some(black_box(&spec).from_components(parts).unwrap());
            })
        },
    );
    let mut slot = Some(masked());
    group.bench_function("masked: direct baseline (wrap + unwrap arrays)", |b| {
        b.iter(|| {
            let MaskedTensor { values, mask } = slot.take().unwrap();
            let parts = black_box(vec![Tensor::from(values), Tensor::from(mask)]);
            let mut parts = parts.into_iter();
            let values = parts.next().unwrap().into_array::<f32, IxDyn>().unwrap();
            let mask = parts.next().unwrap().into_array::<bool, IxDyn>().unwrap();
            slot = Some(MaskedTensor { values, mask });
        })
    });
    let ragged_spec = ragged().spec();
    let mut slot = Some(ragged());
    group.bench_function(
        "ragged (Tensor + ArcArray fields): into_components + from_components",
        |b| {
            b.iter(|| {
                let value = slot.take().unwrap();
                let parts = black_box(value.into_components());
                slot = Some(black_box(&ragged_spec).from_components(parts).unwrap());
            })
        },
    );
    let value = masked();
    group.bench_function("masked: to_components (views)", |b| {
        b.iter(|| black_box(&spec).to_components(black_box(&value)).len())
    });
    group.finish();
}

fn specs(c: &mut Criterion) {
    let mut group = c.benchmark_group("spec");
    let value = masked();
    group.bench_function("spec from value", |b| b.iter(|| black_box(&value).spec()));
    group.bench_function("direct baseline: copy both shapes", |b| {
        b.iter(|| {
            let v = black_box(&value);
            (v.values.shape().to_vec(), v.mask.shape().to_vec())
        })
    });
    let exact = value.spec();
    let loose = MaskedTensorSpec {
        values: extype::TensorSpec::new("[?, 3]".parse().unwrap(), extype::DType::F32),
        mask: extype::TensorSpec::new("[?, 3]".parse().unwrap(), extype::DType::Bool),
    };
    let other = MaskedTensor {
        values: ArrayD::from_elem(IxDyn(&[8, 5]), 1.0f32),
        mask: ArrayD::from_elem(IxDyn(&[8, 5]), true),
    }
    .spec();
    group.bench_function("is_compatible_with", |b| {
        b.iter(|| black_box(&exact).is_compatible_with(black_box(&loose)))
    });
    group.bench_function("most_specific_compatible", |b| {
        b.iter(|| black_box(&exact).most_specific_compatible(black_box(&other)))
    });
    group.bench_function("strict eq", |b| {
        b.iter(|| black_box(&exact) == black_box(&loose))
    });
    group.finish();
}

fn nest(c: &mut Criterion) {
    let mut group = c.benchmark_group("nest");
    let structure = masked();
    let mut slot = Some(masked());
    group.bench_function("flatten + pack_sequence_as (expand_composites)", |b| {
        b.iter(|| {
            let leaves = black_box(flatten(slot.take().unwrap(), true));
            slot = Some(pack_sequence_as(black_box(&structure), leaves, true).unwrap());
        })
    });
    let mut slot = Some(masked());
    group.bench_function("flatten + pack_sequence_as (composites as leaves)", |b| {
        b.iter(|| {
            let leaves = black_box(flatten(slot.take().unwrap(), false));
            slot = Some(pack_sequence_as(black_box(&structure), leaves, false).unwrap());
        })
    });
    group.finish();
}

fn json(c: &mut Criterion) {
    let mut group = c.benchmark_group("json");
    let spec = masked().spec();
    let text = extype::serial::spec_to_json(&spec).unwrap();
    group.bench_function("spec to json", |b| {
        b.iter(|| extype::serial::spec_to_json(black_box(&spec)).unwrap())
    });
    group.bench_function("spec from json", |b| {
        b.iter(|| extype::serial::spec_from_json::<MaskedTensorSpec>(black_box(&text)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, round_trip, specs, nest, json);
criterion_main!(benches);

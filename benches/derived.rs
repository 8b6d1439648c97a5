//! Runtime cost of derived types (`cargo bench -p extype --bench derived`): derived structs
//! (field-by-field work through their tables, `__private_v1::derived`) side by side with the
//! MaskedTensor implemented by hand on the public API (`core/tests/common/masked.rs`), in one run.

#[path = "../core/tests/common/masked.rs"]
mod hand;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use extype::{ExtensionType, Tensor, TypeSpec};
use ndarray::{ArrayD, IxDyn};

/// Derived types: a pair of shared tensors, and the twin of `hand::MaskedTensor`.
mod derived {
    use extype::{ExtensionType, Tensor};
    use ndarray::ArrayD;

    #[derive(Clone, Debug, ExtensionType)]
    #[extype(name = "bench.SharedPair")]
    pub struct SharedPair {
        pub values: Tensor,
        pub mask: Tensor,
    }

    /// Validated by the same function as the hand-written one.
    #[derive(Clone, Debug, ExtensionType)]
    #[extype(name = "bench.MaskedTensor", validate = check_same_shape)]
    pub struct MaskedTensor {
        pub values: ArrayD<f32>,
        pub mask: ArrayD<bool>,
    }

    fn check_same_shape(value: &MaskedTensor) -> extype::Result<()> {
        if value.values.shape() == value.mask.shape() {
            Ok(())
        } else {
            Err(extype::Error::invalid("values and mask differ in shape"))
        }
    }

    /// The same, checked by a shape contract instead.
    #[derive(Clone, Debug, ExtensionType)]
    #[extype(name = "bench.MaskedContract")]
    pub struct MaskedContract {
        #[extype(shape = "*dims")]
        pub values: ArrayD<f32>,
        #[extype(shape = "*dims")]
        pub mask: ArrayD<bool>,
    }
}

fn tensors() -> (Tensor, Tensor) {
    (
        Tensor::from(ArrayD::from_elem(IxDyn(&[8, 3]), 1.0f32)),
        Tensor::from(ArrayD::from_elem(IxDyn(&[8, 3]), true)),
    )
}

fn arrays() -> (ArrayD<f32>, ArrayD<bool>) {
    (
        ArrayD::from_elem(IxDyn(&[8, 3]), 1.0f32),
        ArrayD::from_elem(IxDyn(&[8, 3]), true),
    )
}

/// Times `into_components` + `from_components` of `value`, moving it through a slot.
fn round_trip<T: ExtensionType>(c: &mut Criterion, name: &str, value: T) {
    let spec = value.spec();
    let mut slot = Some(value);
    c.bench_function(name, |b| {
        b.iter(|| {
            let parts = black_box(slot.take().unwrap().into_components());
            slot = Some(black_box(&spec).from_components(parts).unwrap());
        })
    });
}

/// Times `spec()`, `is_compatible_with` and `most_specific_compatible` of `value`.
fn spec_ops<T: ExtensionType>(c: &mut Criterion, name: &str, value: T) {
    let spec = value.spec();
    c.bench_function(&format!("{name}: spec"), |b| {
        b.iter(|| black_box(&value).spec())
    });
    c.bench_function(&format!("{name}: is_compatible_with"), |b| {
        b.iter(|| black_box(&spec).is_compatible_with(black_box(&spec)))
    });
    c.bench_function(&format!("{name}: most_specific_compatible"), |b| {
        b.iter(|| black_box(&spec).most_specific_compatible(black_box(&spec)))
    });
}

fn bench(c: &mut Criterion) {
    let (values, mask) = tensors();
    round_trip(
        c,
        "round trip, 2 Tensor fields: derived",
        derived::SharedPair { values, mask },
    );
    let (values, mask) = arrays();
    round_trip(
        c,
        "round trip, 2 Array fields + validate: derived",
        derived::MaskedTensor::try_new(values, mask).unwrap(),
    );
    let (values, mask) = arrays();
    round_trip(
        c,
        "round trip, 2 Array fields + validate: hand-written",
        hand::MaskedTensor { values, mask },
    );
    let (values, mask) = arrays();
    round_trip(
        c,
        "round trip, 2 Array fields + shape contract: derived",
        derived::MaskedContract::try_new(values, mask).unwrap(),
    );
    let (values, mask) = arrays();
    spec_ops(
        c,
        "derived",
        derived::MaskedTensor::try_new(values, mask).unwrap(),
    );
    let (values, mask) = arrays();
    spec_ops(c, "hand-written", hand::MaskedTensor { values, mask });
}

criterion_group!(benches, bench);
criterion_main!(benches);

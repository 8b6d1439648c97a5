//! Batching: stack/unstack of derived types (default and custom encoders), spec laws, every
//! error path, iterator adapters, map_fn, erased values and the ops fallback.

#[path = "common/batching.rs"]
mod types;

use std::collections::BTreeMap;

use extype::batch::{self, BatchIterExt, BatchableSpec};
use extype::ndarray::{ArcArray, ArrayD, IxDyn, array};
use extype::{ExtensionType, Shape, Tensor, TypeSpec, Value};
use types::{Masked, Ragged, Record};

fn record(v: f32, frame: &[usize]) -> Record {
    let mut attrs = BTreeMap::new();
    attrs.insert("h".to_string(), Tensor::from(array![v, v]));
    Record {
        inner: Masked::new(vec![v, -v, 1.0]),
        frame: Shape::known(frame),
        label: "x".into(),
        weight: Some(Tensor::from(extype::ndarray::arr0(v))),
        parts: vec![Tensor::from(array![[v]]), Tensor::from(array![1i32, 2, 3])],
        attrs,
        pair: (Tensor::from(array![v as i64]), 7),
    }
}

#[test]
fn masked_round_trip() {
    let items = vec![Masked::new(vec![1.0, -2.0]), Masked::new(vec![3.0, 4.0])];
    let b = batch::stack(&items).unwrap();
    assert_eq!(b.values.shape(), &[2, 2]);
    assert_eq!(b.spec(), items[0].spec().batched(Some(2)));
    assert_eq!(batch::unstack(b).unwrap(), items);
}

#[test]
fn record_round_trip() {
    let items = vec![record(1.0, &[2]), record(2.0, &[2]), record(3.0, &[2])];
    let b = batch::stack(&items).unwrap();
    assert_eq!(b.frame, Shape::known(&[3, 2]));
    assert_eq!(b.spec(), items[0].spec().batched(Some(3)));
    assert_eq!(batch::unstack(b).unwrap(), items);
}

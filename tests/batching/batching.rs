//! Batching: stack/unstack of derived types (default and custom encoders), spec laws, every
//! error path, iterator adapters, map_fn, erased values and the ops fallback.

use crate::types;

use std::collections::BTreeMap;

use extype::batch::{self, BatchIterExt, BatchableSpec};
use extype::ndarray::{ArcArray, ArrayD, IxDyn, array};
use extype::{ExtensionType, Shape, Tensor, TypeSpec, Value};
use types::{Masked, MaskedSpec, Ragged, Record, SharedMasked};

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

fn err_text<T: std::fmt::Debug>(r: extype::Result<T>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn masked_round_trip_and_spec_law() {
    let items = vec![Masked::new(vec![1.0, -2.0]), Masked::new(vec![3.0, 4.0])];
    let b = batch::stack(&items).unwrap();
    assert_eq!(b.values.shape(), &[2, 2]);
    assert_eq!(b.spec(), items[0].spec().batched(Some(2)));
    assert_eq!(b.spec().unbatched().unwrap(), items[0].spec());
    assert_eq!(batch::batch_len(&b).unwrap(), 2);
    assert_eq!(batch::unstack(b).unwrap(), items);
}

#[test]
fn record_round_trip_every_field_kind() {
    let items = vec![record(1.0, &[2]), record(2.0, &[2]), record(3.0, &[2])];
    let b = batch::stack(&items).unwrap();
    assert_eq!(b.frame, Shape::known(&[3, 2]));
    assert_eq!(b.parts[1].shape(), &[3, 3]);
    assert_eq!(b.pair.1, 7);
    assert_eq!(b.spec(), items[0].spec().batched(Some(3)));
    assert_eq!(b.spec().unbatched().unwrap(), items[0].spec());
    assert_eq!(batch::unstack(b).unwrap(), items);
}

#[test]
fn static_shapes_relax() {
    let items = vec![record(1.0, &[2]), record(2.0, &[3])];
    let b = batch::stack(&items).unwrap();
    assert_eq!(b.frame.to_string(), "[2, !1]");
    // The batch's spec: item 0's, batched, with the relaxed frame.
    let mut expected = items[0].spec().batched(Some(2));
    expected.frame = "[2, !1]".parse().unwrap();
    assert_eq!(b.spec(), expected);
    // Each item gets the relaxed shape back.
    let back = batch::unstack(b).unwrap();
    assert_eq!(back[1].frame.to_string(), "[!1]");
    assert_eq!(back[1].inner, items[1].inner);
    // What `batch`'s docs say: a 1 among the sizes gives `?`, ranks that differ an unknown rank.
    let b = batch::stack(&[record(1.0, &[1]), record(2.0, &[3])]).unwrap();
    assert_eq!(b.frame.to_string(), "[2, ?]");
    let b = batch::stack(&[record(1.0, &[2]), record(2.0, &[2, 3])]).unwrap();
    assert_eq!(b.frame.to_string(), "*");
}

#[test]
fn unknown_batch_size_spec() {
    let spec = Masked::new(vec![1.0]).spec().batched(None);
    assert_eq!(spec.values.shape.to_string(), "[?, 1]");
    assert_eq!(spec.unbatched().unwrap().values.shape.to_string(), "[1]");
}

#[test]
fn shared_unstack_views_the_batch() {
    let items = vec![Masked::new(vec![1.0, 2.0]), Masked::new(vec![3.0, 4.0])];
    let b = batch::stack(&items).unwrap();
    let mask_ptr = b.mask.as_ptr();
    let back = batch::unstack(b).unwrap();
    // The shared mask of item 1 starts 2 elements into the batch's buffer: no copy.
    assert_eq!(back[1].mask.as_ptr(), mask_ptr.wrapping_add(2));
    let t = Tensor::from(array![[1.0f32, 2.0], [3.0, 4.0]]);
    let rows = batch::unstack(t.clone()).unwrap();
    let base = t.as_arc_array::<f32>().unwrap().as_ptr();
    assert_eq!(
        rows[1].as_arc_array::<f32>().unwrap().as_ptr(),
        base.wrapping_add(2)
    );
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn mismatched_static_field_names_path_and_values() {
    let mut other = record(2.0, &[2]);
    other.label = "y".into();
    let e = err_text(batch::stack(&[record(1.0, &[2]), other]));
    assert!(e.contains("static field label"), "{e}");
    assert!(e.contains("item 0 has \"x\", item 1 has \"y\""), "{e}");
    let mut other = record(2.0, &[2]);
    other.pair.1 = 8;
    let e = err_text(batch::stack(&[record(1.0, &[2]), other]));
    assert!(
        e.contains("pair.1") && e.contains("7") && e.contains("8"),
        "{e}"
    );
}

#[test]
fn incompatible_component_shapes_name_the_path() {
    let mut other = record(2.0, &[2]);
    other.inner = Masked::new(vec![1.0]);
    let e = err_text(batch::stack(&[record(1.0, &[2]), other]));
    assert!(
        e.contains("inner.values of item 1 is f32[1], item 0's is f32[3]"),
        "{e}"
    );
    let mut other = record(2.0, &[2]);
    other.parts[1] = Tensor::from(array![1i64, 2, 3]);
    let e = err_text(batch::stack(&[record(1.0, &[2]), other]));
    assert!(e.contains("parts[1]") && e.contains("i64[3]"), "{e}");
}

/// The derive feeds each field's stacker the items a chunk at a time: an item far from the
/// first, in a later chunk and in a later field, is still the one named.
#[test]
fn a_late_mismatch_names_its_item() {
    let mut items: Vec<Masked> = (0..40).map(|i| Masked::new(vec![i as f32; 3])).collect();
    items[37].mask = ndarray::ArcArray::from_elem(ndarray::IxDyn(&[2]), true);
    let e = err_text(batch::stack(&items));
    assert!(
        e.contains("mask of item 37 is bool[2], item 0's is bool[3]"),
        "{e}"
    );
    items[37].mask = ndarray::ArcArray::from_elem(ndarray::IxDyn(&[3]), true);
    items[21].values = ndarray::ArrayD::zeros(ndarray::IxDyn(&[4]));
    let e = err_text(batch::stack(&items));
    assert!(e.contains("values of item 21 is f32[4]"), "{e}");
}

#[test]
fn containers_must_agree() {
    let mut other = record(2.0, &[2]);
    other.weight = None;
    let e = err_text(batch::stack(&[record(1.0, &[2]), other]));
    assert!(
        e.contains("weight of item 1 is None, item 0's is Some"),
        "{e}"
    );
    let mut other = record(2.0, &[2]);
    other.parts.pop();
    let e = err_text(batch::stack(&[record(1.0, &[2]), other]));
    assert!(e.contains("parts of item 1 is a list of 1"), "{e}");
    let mut other = record(2.0, &[2]);
    other.attrs.insert("w".into(), Tensor::from(array![1.0f32]));
    let e = err_text(batch::stack(&[record(1.0, &[2]), other]));
    assert!(e.contains("attrs") && e.contains("key set"), "{e}");
    // All None is fine.
    let (mut a, mut b) = (record(1.0, &[2]), record(2.0, &[2]));
    a.weight = None;
    b.weight = None;
    let s = batch::stack(&[a.clone(), b]).unwrap();
    assert!(s.weight.is_none());
    assert_eq!(batch::unstack(s).unwrap()[0], a);
}

#[test]
fn scalar_components_cannot_be_unbatched() {
    // Read as a batch of 3 (its first component, inner.values, has 3 rows), the record's
    // scalar weight has no batch axis.
    let e = err_text(batch::unstack(record(1.0, &[3])));
    assert!(e.contains("weight has shape [] (rank 0)"), "{e}");
    assert!(e.contains("no leading batch axis"), "{e}");
    let e = err_text(record(1.0, &[2]).spec().unbatched());
    assert!(e.contains("weight"), "{e}");
    let e = err_text(batch::unstack(Tensor::from(extype::ndarray::arr0(1.0f32))));
    assert!(e.contains("rank 0"), "{e}");
}

#[test]
fn leading_axes_must_agree_when_unstacking() {
    let b = Masked {
        values: ArrayD::zeros(IxDyn(&[3, 2])),
        mask: ArcArray::from_elem(IxDyn(&[2, 2]), true),
    };
    // The validation does not run on a value built by hand; unstacking checks the sizes.
    let e = err_text(batch::unstack(b));
    assert!(
        e.contains("mask has 2 items on its leading axis, expected 3"),
        "{e}"
    );
}

#[test]
fn items_are_validated() {
    let items = vec![Masked::new(vec![1.0]), Masked::new(vec![2.0])];
    let mut b = batch::stack(&items).unwrap();
    b.mask = ArcArray::from_elem(IxDyn(&[2, 2]), true);
    b.values = ArrayD::zeros(IxDyn(&[2, 1]));
    let e = err_text(batch::unstack(b));
    assert!(
        e.contains("unstack: item 0") && e.contains("invalid value"),
        "{e}"
    );
}

#[test]
fn empty_input_needs_a_spec() {
    let e = err_text(batch::stack::<Masked>(&[]));
    assert!(e.contains("stack_with_spec"), "{e}");
    let spec = Masked::new(vec![1.0, 2.0]).spec();
    let empty = batch::stack_with_spec::<Masked>(&[], &spec).unwrap();
    assert_eq!(empty.values.shape(), &[0, 2]);
    assert_eq!(empty.spec(), spec.batched(Some(0)));
    assert!(batch::unstack(empty).unwrap().is_empty());
    // Unknown sizes become 0; an item that does not fit the spec is an error.
    let loose: MaskedSpec = "[?]"
        .parse::<Shape>()
        .map(|s| MaskedSpec {
            values: extype::TensorSpec::new(s.clone(), extype::DType::F32),
            mask: extype::TensorSpec::new(s, extype::DType::Bool),
        })
        .unwrap();
    let empty = batch::stack_with_spec::<Masked>(&[], &loose).unwrap();
    assert_eq!(empty.values.shape(), &[0, 0]);
    let e = err_text(batch::stack_with_spec(&[Masked::new(vec![1.0])], &spec));
    assert!(e.contains("item 0") && e.contains("compatible with"), "{e}");
}

#[test]
fn no_batch_size_without_components() {
    let e = err_text(batch::unstack(Ragged::row(vec![])));
    assert!(e.contains("ragged rank 0"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// concat, split

#[test]
fn concat_and_split() {
    let items: Vec<Masked> = (0..5).map(|i| Masked::new(vec![i as f32, 1.0])).collect();
    let a = batch::stack(&items[..2]).unwrap();
    let b = batch::stack(&items[2..]).unwrap();
    let all = batch::concat(&[a, b]).unwrap();
    assert_eq!(all, batch::stack(&items).unwrap());
    let parts = batch::split(all, &[1, 0, 4]).unwrap();
    assert_eq!(parts[0], batch::stack(&items[..1]).unwrap());
    assert_eq!(parts[1].values.shape(), &[0, 2]);
    assert_eq!(parts[2], batch::stack(&items[1..]).unwrap());
    let e = err_text(batch::split(batch::stack(&items).unwrap(), &[2, 2]));
    assert!(
        e.contains("adding up to the batch size 5") && e.contains("[2, 2]"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------------
// The ragged encoder

#[test]
fn ragged_rows_stack_into_a_ragged_batch() {
    let rows = vec![
        Ragged::row(vec![1.0, 2.0]),
        Ragged::row(vec![]),
        Ragged::row(vec![3.0]),
    ];
    let b = batch::stack(&rows).unwrap();
    assert_eq!(b.values.shape(), &[3]);
    assert_eq!(b.row_splits[0].to_vec(), vec![0, 2, 2, 3]);
    assert!(
        b.spec()
            .is_compatible_with(&rows[0].spec().batched(Some(3)))
    );
    let back = batch::unstack(b.clone()).unwrap();
    assert_eq!(back, rows);

    // Batching again nests: a batch of ragged batches.
    let b2 = batch::stack(&[b.clone(), batch::stack(&rows[..1]).unwrap()]).unwrap();
    assert_eq!(b2.row_splits[0].to_vec(), vec![0, 3, 4]);
    assert_eq!(b2.row_splits[1].to_vec(), vec![0, 2, 2, 3, 5]);
    let back2 = batch::unstack(b2).unwrap();
    assert_eq!(back2[0], b);
    assert_eq!(
        batch::unstack(back2[1].clone()).unwrap(),
        rows[..1].to_vec()
    );
}

#[test]
fn ragged_errors() {
    let b = batch::stack(&[Ragged::row(vec![1.0])]).unwrap();
    let e = err_text(batch::stack(&[b, Ragged::row(vec![1.0])]));
    assert!(e.contains("ragged rank 1") && e.contains("item 1"), "{e}");
    let e = err_text(Ragged::row(vec![1.0]).spec().unbatched());
    assert!(e.contains("ragged rank 0"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Iterators, map_fn

#[test]
fn iterator_batched_and_unbatched() {
    let items: Vec<Masked> = (0..7).map(|i| Masked::new(vec![i as f32])).collect();
    let batches: Vec<Masked> = items
        .clone()
        .into_iter()
        .batched(3)
        .collect::<extype::Result<_>>()
        .unwrap();
    assert_eq!(batches.len(), 3);
    assert_eq!(batches[2].values.shape(), &[1, 1]);
    let dropped = items
        .clone()
        .into_iter()
        .batched(3)
        .drop_remainder()
        .count();
    assert_eq!(dropped, 2);
    let back: Vec<Masked> = batches
        .into_iter()
        .unbatched()
        .collect::<extype::Result<_>>()
        .unwrap();
    assert_eq!(back, items);
}

#[test]
fn iterator_errors_are_lazy_and_name_the_item() {
    let mut items: Vec<Masked> = (0..6).map(|i| Masked::new(vec![i as f32])).collect();
    items[4] = Masked::new(vec![1.0, 2.0]);
    let mut it = items.into_iter().batched(3);
    assert!(it.next().unwrap().is_ok());
    let e = it.next().unwrap().unwrap_err().to_string();
    assert!(e.starts_with("batched: item 4:"), "{e}");
    assert!(it.next().is_none());
    let e = vec![Masked::new(vec![1.0])]
        .into_iter()
        .batched(0)
        .next()
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(e.contains("batch size of at least 1"), "{e}");
    let scalar = Masked {
        values: ArrayD::zeros(IxDyn(&[])),
        mask: ArcArray::from_elem(IxDyn(&[]), true),
    };
    let batches = vec![batch::stack(&[Masked::new(vec![1.0])]).unwrap(), scalar];
    let out: Vec<_> = batches.into_iter().unbatched().collect();
    assert!(out[0].is_ok());
    let e = out[1].as_ref().unwrap_err().to_string();
    assert!(e.starts_with("unbatched: item 1:"), "{e}");
}

#[test]
fn iterator_adapters_compose_and_take_results() {
    let items: Vec<Masked> = (0..7).map(|i| Masked::new(vec![i as f32])).collect();
    // `batched` yields `Result`s, which `unbatched` (and `batched` again) takes.
    let back: Vec<Masked> = items
        .clone()
        .into_iter()
        .batched(3)
        .unbatched()
        .collect::<extype::Result<_>>()
        .unwrap();
    assert_eq!(back, items);
    let rebatched: Vec<Masked> = items
        .clone()
        .into_iter()
        .batched(2)
        .unbatched()
        .batched(4)
        .collect::<extype::Result<_>>()
        .unwrap();
    assert_eq!(rebatched.len(), 2);
    assert_eq!(rebatched[1].values.shape(), &[3, 1]);

    // An error mid-stream is yielded as it is and ends the stream.
    let stream = items.clone().into_iter().enumerate().map(|(i, m)| {
        if i == 4 {
            Err(extype::Error::invalid("item 4 is unreadable"))
        } else {
            Ok(m)
        }
    });
    let out: Vec<extype::Result<Masked>> = stream.clone().batched(3).collect();
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0].as_ref().unwrap().values.shape(), &[3, 1]);
    assert_eq!(
        out[1].as_ref().unwrap_err().to_string(),
        "invalid value: item 4 is unreadable"
    );
    let out: Vec<extype::Result<Masked>> = stream.clone().batched(3).unbatched().collect();
    assert_eq!(out.len(), 4, "{out:?}");
    assert!(out[..3].iter().all(Result::is_ok));
    assert_eq!(
        out[3].as_ref().unwrap_err().to_string(),
        "invalid value: item 4 is unreadable"
    );
    // `unbatched` on a stream of `Result` batches.
    let batches = vec![
        batch::stack(&items[..2]),
        Err(extype::Error::invalid("lost")),
        batch::stack(&items[2..4]),
    ];
    let out: Vec<extype::Result<Masked>> = batches.into_iter().unbatched().collect();
    assert_eq!(out.len(), 3, "{out:?}");
    assert_eq!(out[1].as_ref().unwrap(), &items[1]);
    assert_eq!(
        out[2].as_ref().unwrap_err().to_string(),
        "invalid value: lost"
    );
    // `collect` into a `Result` stops at the first error.
    let e = err_text(
        stream
            .batched(2)
            .unbatched()
            .collect::<extype::Result<Vec<Masked>>>(),
    );
    assert_eq!(e, "invalid value: item 4 is unreadable");
}

fn masked_sum(m: Masked) -> extype::Result<Tensor> {
    // A batch of rank-0 sums would be rank 1; keep one axis per item to test shapes too.
    Ok(Tensor::from(array![
        m.present_sum().as_arc_array::<f32>()?.sum()
    ]))
}

#[test]
fn map_fn_changes_the_type() {
    let items = vec![
        Masked::new(vec![1.0, -2.0, 3.0]),
        Masked::new(vec![4.0, 5.0, -6.0]),
    ];
    let b = batch::stack(&items).unwrap();
    let sums: Tensor = batch::map_fn(&b, masked_sum).unwrap();
    assert_eq!(sums, Tensor::from(array![[4.0f32], [9.0]]));
    let par: Tensor = batch::map_fn_par(&b, masked_sum).unwrap();
    assert_eq!(par, sums);
    let e = err_text(batch::map_fn(&b, |m: Masked| -> extype::Result<Tensor> {
        if m.values[[0]] > 2.0 {
            Err(extype::Error::invalid("too big"))
        } else {
            masked_sum(m)
        }
    }));
    assert_eq!(
        e,
        "map_fn over test.BatchMasked, item 1: invalid value: too big"
    );
    let e = err_text(batch::map_fn_par(
        &b,
        |_: Masked| -> extype::Result<Tensor> { Err(extype::Error::invalid("no")) },
    ));
    assert_eq!(
        e,
        "map_fn_par over test.BatchMasked, item 0: invalid value: no"
    );
    // A batch that is not a registered type: its Rust name.
    let e = err_text(batch::map_fn(
        &sums,
        |_: Tensor| -> extype::Result<Tensor> { Err(extype::Error::invalid("boom")) },
    ));
    assert_eq!(e, "map_fn over Tensor, item 0: invalid value: boom");
}

// ---------------------------------------------------------------------------------------------
// Values, ops

#[test]
fn erased_values_and_ops_fallback() {
    let items = vec![
        Masked::new(vec![1.0]),
        Masked::new(vec![2.0]),
        Masked::new(vec![3.0]),
    ];
    let values: Vec<Value> = items.iter().cloned().map(Value::from_extension).collect();
    let b = batch::stack_values(&values).unwrap();
    assert_eq!(
        b.downcast_ref::<Masked>().unwrap(),
        &batch::stack(&items).unwrap()
    );
    let back = batch::unstack_value(b.clone()).unwrap();
    assert_eq!(back.len(), 3);
    assert_eq!(back[2].downcast_ref::<Masked>().unwrap(), &items[2]);

    // ops::stack / ops::concat fall back to the encoder for any number of values.
    let operands: Vec<_> = values.iter().map(extype::Operand::value).collect();
    let stacked = extype::ops::stack(&operands, 0).unwrap();
    assert_eq!(
        stacked.downcast_ref::<Masked>().unwrap(),
        b.downcast_ref::<Masked>().unwrap()
    );
    let batches = [b.clone(), b];
    let joined = extype::ops::concat(
        &batches
            .iter()
            .map(extype::Operand::value)
            .collect::<Vec<_>>(),
        0,
    )
    .unwrap();
    assert_eq!(
        joined.downcast_ref::<Masked>().unwrap().values.shape(),
        &[6, 1]
    );
    // Other axes are not the encoder's: the dispatch error stays.
    assert!(extype::ops::stack(&operands, 1).is_err());
    // The fallback is the catalog entry's data, run where the dense default runs: a call of the
    // op through `ops::call` batches too; `stack` and `concat` have one, and `shape` (which
    // reads a tensor-like value's shape).
    use extype::ops::{OpArgs, catalog};
    let called = extype::ops::call(&catalog::STACK, &operands, &OpArgs::none()).unwrap();
    assert_eq!(
        called.downcast_ref::<Masked>().unwrap(),
        stacked.downcast_ref::<Masked>().unwrap()
    );
    let with: Vec<&str> = catalog::ALL
        .iter()
        .filter(|op| op.has_fallback())
        .map(|op| op.name())
        .collect();
    assert_eq!(with, ["shape", "concat", "stack"]);
    let table = extype::dispatch::table().unwrap();
    assert_eq!(table.explain(&catalog::STACK, &operands), ["fallback"]);
    assert!(table.explain(&catalog::ADD, &operands[..2]).is_empty());
    let err = err_text(extype::ops::call(
        &catalog::STACK,
        &operands,
        &OpArgs::none().with_axis(1),
    ));
    assert!(err.starts_with("stack: no handler for arguments"), "{err}");

    let mixed = [values[0].clone(), Value::from(Tensor::from(array![1.0f32]))];
    let e = err_text(batch::stack_values(&mixed));
    assert!(e.contains("item 1"), "{e}");
}

/// A generic batchable type: its field types are bounded per instantiation.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(batchable)]
struct Generic<T: extype::Element> {
    x: ArrayD<T>,
    tag: u8,
}

#[test]
fn generic_types_batch() {
    let items = vec![
        Generic {
            x: ArrayD::from_elem(IxDyn(&[2]), 1i32),
            tag: 3,
        },
        Generic {
            x: ArrayD::from_elem(IxDyn(&[2]), 2i32),
            tag: 3,
        },
    ];
    let b = batch::stack(&items).unwrap();
    assert_eq!(b.x.shape(), &[2, 2]);
    assert_eq!(batch::unstack(b).unwrap(), items);
}

/// `#[extype(static)]` data must be equal across items (kept once in the batch); a skipped
/// field is rebuilt with `Default` in the batch and in every item.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.batching.Calibrated", batchable)]
struct Calibrated {
    values: ArrayD<f32>,
    #[extype(static)]
    coefficients: Vec<f32>,
    #[extype(skip)]
    cache: Option<String>,
}

#[test]
fn static_and_skipped_fields_batch() {
    let item = |x: f32, c: f32| Calibrated {
        values: array![x, x + 1.0].into_dyn(),
        coefficients: vec![c, 0.25],
        cache: Some("scratch".into()),
    };
    let batch = batch::stack(&[item(1.0, 0.5), item(2.0, 0.5)]).unwrap();
    assert_eq!(batch.values, array![[1.0f32, 2.0], [2.0, 3.0]].into_dyn());
    assert_eq!(batch.coefficients, vec![0.5, 0.25]);
    assert_eq!(batch.cache, None);
    let items = batch::unstack(batch).unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[1].values, array![2.0f32, 3.0].into_dyn());
    assert_eq!(items[1].coefficients, vec![0.5, 0.25]);
    let text = batch::stack(&[item(1.0, 0.5), item(2.0, 0.75)])
        .unwrap_err()
        .to_string();
    assert!(text.contains("coefficients"), "{text}");
}

/// A batch is a value: it saves, loads (by type and by the registry) and unstacks back.
#[test]
fn batches_save_and_load_like_any_value() {
    let items: Vec<Masked> = (0..3)
        .map(|i| Masked {
            values: ArrayD::from_elem(IxDyn(&[2]), i as f32),
            mask: ArcArray::from_elem(IxDyn(&[2]), i % 2 == 0),
        })
        .collect();
    let batch = batch::stack(&items).unwrap();
    let dir = std::env::temp_dir().join(format!("extype-batching-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("batch.safetensors");
    extype::io::save(&path, &batch).unwrap();
    let loaded: Masked = extype::io::load_as(&path).unwrap();
    assert_eq!(loaded, batch);
    assert_eq!(batch::unstack(loaded).unwrap(), items);
    let value = extype::io::load(&path).unwrap();
    assert_eq!(batch::unstack_value(value).unwrap().len(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Tensors viewing a mapped file (`Tensor::External`) batch like any: a mapped batch unstacks
/// into items viewing the map, and mapped items stack (with array items too).
#[test]
fn mapped_tensors_stack_and_unstack() {
    let items: Vec<SharedMasked> = (0..3)
        .map(|i| SharedMasked::new(vec![i as f32, -1.0, 2.0]))
        .collect();
    let dir = std::env::temp_dir().join(format!("extype-batching-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("batch.safetensors");
    extype::io::save(&path, &batch::stack(&items).unwrap()).unwrap();
    // SAFETY: the file is this test's own and is not written while mapped.
    let mapped: SharedMasked = unsafe { extype::io::map(&path) }
        .unwrap()
        .to_type()
        .unwrap();
    assert!(matches!(mapped.values, Tensor::External(_)));
    let back = batch::unstack(mapped).unwrap();
    assert_eq!(back, items);
    assert!(back.iter().all(|m| matches!(m.values, Tensor::External(_))));
    // Rows of a mapped tensor are mapped tensors too.
    let rows = batch::slice_rows(&back[0].values, 1, 3).unwrap();
    assert!(matches!(rows, Tensor::External(_)));
    assert_eq!(rows, Tensor::from(array![-1.0f32, 2.0]));
    // Mapped items stack, alone or beside array items, into the same batch.
    let mixed = vec![back[0].clone(), items[1].clone(), back[2].clone()];
    assert_eq!(batch::stack(&back).unwrap(), batch::stack(&items).unwrap());
    assert_eq!(batch::stack(&mixed).unwrap(), batch::stack(&items).unwrap());
    let flat = batch::concat_rows(&[&back[0].values, &items[1].values], "values").unwrap();
    assert_eq!(
        flat,
        Tensor::from(array![0.0f32, -1.0, 2.0, 1.0, -1.0, 2.0])
    );
    // A dtype mismatch is still named, external or not.
    let text = err_text(batch::concat_rows(
        &[&back[0].values, &back[0].mask],
        "values",
    ));
    assert!(text.contains("values"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `rebatched_spec` resizes a batch spec of a type known only at run time: the spec of a batch
/// of other size, static shapes included, as `unbatched().batched(n)` gives it.
#[test]
fn rebatched_spec_resizes_a_batch_spec_through_the_registry() {
    let items: Vec<Record> = (0..5).map(|i| record(i as f32, &[2])).collect();
    let b = batch::stack(&items).unwrap();
    let spec = b.spec();
    let resized = batch::rebatched_spec(&spec, Some(2)).unwrap();
    let expected = batch::stack(&items[..2]).unwrap().spec();
    assert_eq!(resized.as_any().downcast_ref(), Some(&expected));
    assert_eq!(spec.unbatched().unwrap().batched(Some(2)), expected);
    // A spec without a batch axis is refused.
    let item = items[0].spec();
    assert!(batch::rebatched_spec(&item, Some(2)).is_err());
}

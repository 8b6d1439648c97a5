//! Batch: nested extension values in containers plus static fields, derived
//! (`common/batch.rs`).

use crate::common;

use std::collections::BTreeMap;

use common::{Batch, BatchSpec, MaskedTensor, MaskedTensorSpec};
use extype::nest::{flatten, pack_sequence_as};
use extype::{DType, ExtensionType, SpecTree, Tensor, TypeSpec};
use ndarray::{ArrayD, array};

fn masked(n: usize) -> MaskedTensor {
    MaskedTensor {
        values: ArrayD::from_elem(vec![n], 1.0f32),
        mask: ArrayD::from_elem(vec![n], true),
    }
}

fn batch() -> Batch {
    let mut attrs = BTreeMap::new();
    attrs.insert("width".to_string(), array![2.0f32]);
    attrs.insert("height".to_string(), array![1.0f32, 3.0]);
    Batch {
        children: vec![masked(2), masked(3)],
        attrs,
        weights: Some((array![0.5f64], Tensor::from(array![[1u8]]))),
        label: "train".into(),
        scale: 0.5,
        kind: DType::F32,
    }
}

#[test]
fn component_order_and_paths() {
    let spec = batch().spec();
    assert_eq!(
        spec.component_paths(),
        [
            "children[0].values",
            "children[0].mask",
            "children[1].values",
            "children[1].mask",
            "attrs.height",
            "attrs.width",
            "weights.0",
            "weights.1",
        ]
    );
    assert_eq!(spec.component_specs().len(), 8);
    assert_eq!(spec.label, "train");
    assert_eq!(spec.kind, DType::F32);
    let back = spec.from_components(batch().into_components()).unwrap();
    assert_eq!(back, batch());
}

#[test]
fn errors_name_paths_inside_containers() {
    let spec = batch().spec();
    let mut parts = batch().into_components();
    parts[3] = Tensor::from(ArrayD::from_elem(vec![3], 0u8));
    let err = spec.from_components(parts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "component children[1].mask: expected dtype bool, found u8"
    );
    let mut parts = batch().into_components();
    parts[4] = Tensor::from(array![1.0f32]);
    let err = spec.from_components(parts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "component attrs.height: shape [1] is not compatible with spec shape [2]"
    );
    let mut relaxed = spec.clone();
    relaxed.children[1].mask.shape = extype::Shape::unknown_rank();
    let mut parts = batch().into_components();
    parts[3] = Tensor::from(ArrayD::from_elem(vec![4], true));
    let err = relaxed.from_components(parts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value of test.MaskedTensor at children[1]: values shape [3] differs from mask shape [4]"
    );
}

#[test]
fn static_data_must_be_equal_for_compatibility() {
    let a = batch().spec();
    let mut other_label = batch();
    other_label.label = "eval".into();
    assert!(!a.is_compatible_with(&other_label.spec()));
    assert_eq!(a.most_specific_compatible(&other_label.spec()), None);
    let mut other_scale = batch();
    other_scale.scale = 0.25;
    assert!(!a.is_compatible_with(&other_scale.spec()));
    let mut fewer = batch();
    fewer.children.pop();
    assert_eq!(
        a.most_specific_compatible(&fewer.spec()),
        None,
        "Vec length is static"
    );
    let mut no_weights = batch();
    no_weights.weights = None;
    assert!(!a.is_compatible_with(&no_weights.spec()));
    let mut longer = batch();
    longer.children[0] = masked(5);
    let joined = a.most_specific_compatible(&longer.spec()).unwrap();
    assert_eq!(joined.children[0].values.shape.to_string(), "[!1]");
    assert_eq!(joined.label, "train");
    assert!(joined.is_compatible_with(&a) && joined.is_compatible_with(&longer.spec()));
}

#[test]
fn serialization_names_nested_types_and_checks_static_kinds() {
    let spec = batch().spec();
    let json = spec.serialize().to_json_pretty().unwrap();
    assert_eq!(
        extype::serial::spec_from_json::<BatchSpec>(&json).unwrap(),
        spec
    );
    assert_eq!(
        json.matches("\"spec\": \"test.MaskedTensor\"").count(),
        2,
        "{json}"
    );
    let mut value = spec.serialize();
    if let SpecTree::Spec(named) = &mut value
        && let SpecTree::Map(fields) = &mut named.value
    {
        fields.insert("label".into(), SpecTree::Int(3));
    }
    let err = BatchSpec::deserialize(&value).unwrap_err();
    assert_eq!(
        err.to_string(),
        "spec label: expected a string, found int 3"
    );
    let mut value = spec.serialize();
    if let SpecTree::Spec(named) = &mut value
        && let SpecTree::Map(fields) = &mut named.value
        && let Some(SpecTree::List(children)) = fields.get_mut("children")
    {
        children[1] = SpecTree::spec("test.Other", SpecTree::None);
    }
    let err = BatchSpec::deserialize(&value).unwrap_err();
    assert_eq!(
        err.to_string(),
        "spec children[1]: expected spec \"test.MaskedTensor\", found spec \"test.Other\""
    );
}

#[test]
fn validation_of_the_outer_value() {
    let mut bad = batch();
    bad.scale = -1.0;
    let err = bad
        .spec()
        .from_components(bad.clone().into_components())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value of test.Batch: scale must be positive, found -1"
    );
}

#[test]
fn nest_expands_nested_values() {
    let leaves = flatten(batch(), true);
    assert_eq!(leaves.len(), 8);
    assert_eq!(pack_sequence_as(&batch(), leaves, true).unwrap(), batch());
    let leaves = flatten(vec![batch()], false);
    assert_eq!(leaves.len(), 1);
    assert_eq!(leaves[0].type_name(), "test.Batch");
}

/// The same checks as core's `spec_json_props.rs` runs on its hand-written MaskedTensor, here on
/// the derived one (decoded through its table).
#[test]
fn wrong_kinds_in_a_derived_spec_name_the_field() {
    let spec = MaskedTensorSpec {
        values: extype::TensorSpec::new(extype::Shape::unknown(2), DType::F32),
        mask: extype::TensorSpec::new(extype::Shape::unknown(2), DType::Bool),
    };
    let text = extype::serial::spec_to_json(&spec).unwrap();
    assert_eq!(
        extype::serial::spec_from_json::<MaskedTensorSpec>(&text).unwrap(),
        spec
    );
    let with_fields = |edit: &dyn Fn(&mut extype::spec_tree::Fields)| {
        let mut value = spec.serialize();
        if let SpecTree::Spec(named) = &mut value
            && let SpecTree::Map(fields) = &mut named.value
        {
            edit(fields);
        }
        MaskedTensorSpec::deserialize(&value)
    };
    let err = with_fields(&|f| {
        f.insert("mask".into(), SpecTree::Str("oops".into()));
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "spec mask: expected a tensor spec, found string \"oops\""
    );
    let err = with_fields(&|f| {
        f.remove("mask");
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "spec mask: expected a field, found nothing (missing field)"
    );
    let err = with_fields(&|f| {
        f.insert("extra".into(), SpecTree::None);
    })
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("spec extra: expected one of the fields"),
        "{err}"
    );
}

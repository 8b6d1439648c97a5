//! Generated specs implement serde's `Serialize` / `Deserialize` as exactly the versioned JSON
//! document of `extype::spec_to_json` / `extype::spec_from_json`.

use extype::serial::{spec_from_json, spec_to_json};
use extype::{ExtensionType, TypeSpec};
use ndarray::{Array1, ArrayD, IxDyn};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.serde.Masked")]
pub struct Masked {
    #[extype(shape = "n")]
    pub values: Array1<f32>,
    #[extype(shape = "n")]
    pub mask: Array1<bool>,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.serde.Outer")]
pub struct Outer {
    pub inner: Vec<Masked>,
    pub extra: ArrayD<i64>,
    pub label: String,
    pub scale: f64,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.serde.Other")]
pub struct Other {
    pub values: Array1<f32>,
}

/// A generic type's spec gets the impls too (bounded like its other impls).
#[derive(Clone, Debug, ExtensionType)]
pub struct Generic<T: extype::Element> {
    pub values: ArrayD<T>,
}

fn masked(n: usize) -> Masked {
    Masked::try_new(
        Array1::from_iter((0..n).map(|i| i as f32)),
        Array1::from_elem(n, true),
    )
    .unwrap()
}

fn outer() -> Outer {
    Outer {
        inner: vec![masked(2), masked(3)],
        extra: ArrayD::zeros(IxDyn(&[2, 0])),
        label: "x\"y".into(),
        scale: 0.1,
    }
}

#[test]
fn serde_json_writes_the_spec_document() {
    let spec = outer().spec();
    let via_serde = serde_json::to_string(&spec).unwrap();
    assert_eq!(via_serde, spec_to_json(&spec).unwrap());
    assert!(via_serde.starts_with("{\"extype_spec\":1,"), "{via_serde}");
    let masked_spec = masked(4).spec();
    assert_eq!(
        serde_json::to_string(&masked_spec).unwrap(),
        spec_to_json(&masked_spec).unwrap()
    );
}

#[test]
fn serde_json_reads_the_spec_document() {
    let spec = outer().spec();
    let text = spec_to_json(&spec).unwrap();
    let back: OuterSpec = serde_json::from_str(&text).unwrap();
    assert_eq!(back, spec);
    // Pretty-printed, or inside another document: the same spec.
    let pretty = serde_json::to_string_pretty(&spec).unwrap();
    assert_eq!(serde_json::from_str::<OuterSpec>(&pretty).unwrap(), spec);
    let wrapped = serde_json::json!({ "input": spec, "n": 3 });
    let back: OuterSpec = serde_json::from_value(wrapped["input"].clone()).unwrap();
    assert_eq!(back, spec);
    assert_eq!(spec_from_json::<OuterSpec>(&text).unwrap(), back);
    // A relaxed (partial) spec round trips too.
    let relaxed = masked(2)
        .spec()
        .most_specific_compatible(&masked(5).spec())
        .unwrap();
    let back: MaskedSpec = serde_json::from_str(&serde_json::to_string(&relaxed).unwrap()).unwrap();
    assert_eq!(back, relaxed);
    assert_eq!(back.values.shape.to_string(), "[!1]");
}

#[test]
fn generic_specs_serialize_too() {
    let value = Generic {
        values: ArrayD::<i32>::zeros(IxDyn(&[3])),
    };
    let spec = value.spec();
    let text = serde_json::to_string(&spec).unwrap();
    assert_eq!(text, spec_to_json(&spec).unwrap());
    let back: GenericSpec<i32> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, spec);
}

#[test]
fn a_wrong_document_is_a_serde_error_with_extype_message() {
    let other = Other {
        values: Array1::zeros(2),
    };
    let text = serde_json::to_string(&other.spec()).unwrap();
    let err = serde_json::from_str::<MaskedSpec>(&text).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("tests.serde.Masked") && message.contains("tests.serde.Other"),
        "{message}"
    );
    let err =
        serde_json::from_str::<MaskedSpec>("{\"extype_spec\": 2, \"spec\": null}").unwrap_err();
    assert!(err.to_string().contains("format version 1"), "{err}");
    let err = serde_json::from_str::<MaskedSpec>("[1, 2]").unwrap_err();
    assert!(err.to_string().contains("document object"), "{err}");
    // The shape contract still refines and checks what serde reads.
    let bad = spec_to_json(&masked(2).spec())
        .unwrap()
        .replacen("[2]", "[3]", 1);
    let err = serde_json::from_str::<MaskedSpec>(&bad).unwrap_err();
    assert!(err.to_string().contains("mask"), "{err}");
}

//! Property tests of the JSON form: arbitrary JSON never panics the reader, arbitrary spec values
//! round-trip exactly, and typed specs survive JSON (the hand-written `common/masked.rs`; derived
//! specs are checked the same way in the facade's `tests/batching/batch.rs`).

use crate::common;

use common::MaskedTensorSpec;
use extype::{DType, Dim, Shape, SpecTree, TensorSpec, TypeSpec};
use proptest::prelude::*;

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        prop_oneof![
            Just("f32".to_string()),
            Just("[8, ?, !1]".to_string()),
            Just("[-1]".to_string()),
            Just("[184467440737095516150]".to_string()),
            Just("*".to_string()),
            ".{0,12}",
        ]
        .prop_map(serde_json::Value::from),
    ];
    let keys = prop_oneof![
        Just("spec".to_string()),
        Just("value".to_string()),
        Just("map".to_string()),
        Just("tuple".to_string()),
        Just("dtype".to_string()),
        Just("shape".to_string()),
        Just("tensor_spec".to_string()),
        Just("float".to_string()),
        Just("extype_spec".to_string()),
        "[a-z]{1,3}",
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(keys.clone(), inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

fn dim() -> impl Strategy<Value = Dim> {
    prop_oneof![
        (0usize..10).prop_map(Dim::Known),
        Just(Dim::Known(isize::MAX as usize)),
        Just(Dim::NotOne),
        Just(Dim::Unknown),
        (
            prop::sample::select(vec!["n", "batch_size", "_x1"]),
            any::<bool>()
        )
            .prop_map(|(name, not_one)| Dim::Symbol {
                name: extype::shape::Symbol::new(name).unwrap(),
                not_one,
            }),
    ]
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::unknown_rank()),
        prop::collection::vec(dim(), 0..5).prop_map(Shape::from_dims),
    ]
}

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

fn spec_value() -> impl Strategy<Value = SpecTree> {
    let finite_or_special = prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-0.0),
    ];
    let leaf = prop_oneof![
        Just(SpecTree::None),
        any::<bool>().prop_map(SpecTree::Bool),
        any::<i64>().prop_map(|i| SpecTree::Int(i.into())),
        any::<u64>().prop_map(|i| SpecTree::Int(i.into())),
        finite_or_special.prop_map(SpecTree::Float),
        ".{0,10}".prop_map(SpecTree::Str),
        dtype().prop_map(SpecTree::DType),
        shape().prop_map(SpecTree::Shape),
        (shape(), dtype()).prop_map(|(s, d)| SpecTree::TensorSpec(TensorSpec::new(s, d))),
    ];
    leaf.prop_recursive(5, 64, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(SpecTree::List),
            prop::collection::vec(inner.clone(), 0..5).prop_map(SpecTree::Tuple),
            prop::collection::vec((".{0,6}", inner.clone()), 0..4)
                .prop_map(|entries| SpecTree::Map(entries.into_iter().collect())),
            ("[a-z.]{1,12}", inner).prop_map(|(name, v)| SpecTree::spec(name, v)),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_json_never_panics(value in json_value()) {
        let _ = SpecTree::from_json(&value.to_string());
        let mut document = serde_json::Map::new();
        document.insert("extype_spec".into(), 1.into());
        document.insert("spec".into(), value);
        let text = serde_json::Value::Object(document).to_string();
        if let Ok(spec) = SpecTree::from_json(&text) {
            // Whatever reads must also write and read back to the same value.
            let again = SpecTree::from_json(&spec.to_json().unwrap()).unwrap();
            prop_assert_eq!(again, spec.clone());
            // And typed deserialization of it must not panic either.
            let _ = MaskedTensorSpec::deserialize(&spec);
            let _ = extype::serial::any_spec_from_json(&text);
        } else {
            let err = SpecTree::from_json(&text).unwrap_err().to_string();
            prop_assert!(err.starts_with("spec json at $"), "{}", err);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(text in ".{0,64}") {
        prop_assert!(SpecTree::from_json(&text).is_err() || text.contains("extype_spec"));
    }

    #[test]
    fn spec_values_round_trip_exactly(value in spec_value()) {
        let text = value.to_json().unwrap();
        prop_assert_eq!(SpecTree::from_json(&text).unwrap(), value);
    }

    #[test]
    fn derived_specs_round_trip(values in shape(), mask in shape()) {
        let spec = MaskedTensorSpec {
            values: TensorSpec::new(values, DType::F32),
            mask: TensorSpec::new(mask, DType::Bool),
        };
        let text = extype::serial::spec_to_json(&spec).unwrap();
        prop_assert_eq!(extype::serial::spec_from_json::<MaskedTensorSpec>(&text).unwrap(), spec);
    }
}

#[test]
fn wrong_kinds_in_a_derived_spec_name_the_field() {
    let spec = MaskedTensorSpec {
        values: TensorSpec::new(Shape::unknown(2), DType::F32),
        mask: TensorSpec::new(Shape::unknown(2), DType::Bool),
    };
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

//! RaggedTensor (generic, with a nested ragged field), derived (`common/ragged.rs`).

mod common;

use common::{RaggedTensor, RaggedTensorSpec};
use extype::{
    DType, ExtensionType, Field, FieldPath, Shape, SpecTree, Tensor, TensorSpec, TypeSpec,
    registered_name,
};
use ndarray::array;

type Ragged2 = RaggedTensor<RaggedTensor<Tensor>>;

/// `[[[1, 2], [3]], [], [[4, 5, 6]]]`
fn ragged2() -> Ragged2 {
    RaggedTensor {
        values: RaggedTensor {
            values: Tensor::from(array![1i32, 2, 3, 4, 5, 6]),
            row_splits: array![0, 2, 3, 6].into_shared(),
        },
        row_splits: array![0, 2, 2, 3].into_shared(),
    }
}

#[test]
fn nested_spec_and_components() {
    let value = ragged2();
    let spec = value.spec();
    assert_eq!(
        spec.values.values,
        TensorSpec::new(Shape::known(&[6]), DType::I32)
    );
    assert_eq!(
        spec.row_splits,
        TensorSpec::new(Shape::known(&[4]), DType::I64)
    );
    let mut named = extype::PathSink::default();
    <Ragged2 as Field>::component_specs(&spec, &FieldPath::Root, &mut named);
    let paths: Vec<&str> = named.0.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["values.values", "values.row_splits", "row_splits"]);
    assert_eq!(spec.component_paths(), paths);
    let back = spec
        .from_components(value.clone().into_components())
        .unwrap();
    assert_eq!(back, value);
}

#[test]
fn errors_name_nested_paths() {
    let value = ragged2();
    let spec = value.spec();
    let mut parts = value.into_components();
    parts[1] = Tensor::from(array![0i32, 2, 3, 6]);
    let err = spec.from_components(parts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "component values.row_splits: expected dtype i64, found i32"
    );
}

#[test]
fn validation_runs_on_nested_values() {
    let value = ragged2();
    let mut relaxed = value.spec();
    relaxed.values.row_splits.shape = "[?]".parse().unwrap();
    let mut parts = value.into_components();
    parts[1] = Tensor::from(array![0i64, 2, 3, 5]);
    let err = relaxed.from_components(parts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value of test.RaggedTensor at values: row_splits ends at 5 but values have Some(6) rows"
    );
    let bad = RaggedTensor {
        values: Tensor::from(array![1.0f32]),
        row_splits: array![1, 1].into_shared(),
    };
    let err = bad
        .spec()
        .from_components(bad.into_components())
        .unwrap_err();
    assert!(err.to_string().contains("must start with 0"), "{err}");
}

#[test]
fn generic_instantiations_have_their_registered_names() {
    assert_eq!(registered_name::<RaggedTensor>(), "test.RaggedTensor");
    assert_eq!(registered_name::<Ragged2>(), "test.RaggedTensor2");
    let serialized = ragged2().spec().serialize();
    let SpecTree::Spec(outer) = &serialized else {
        panic!()
    };
    assert_eq!(outer.name, "test.RaggedTensor2");
    let SpecTree::Map(fields) = &outer.value else {
        panic!()
    };
    let SpecTree::Spec(inner) = &fields["values"] else {
        panic!()
    };
    assert_eq!(
        inner.name, "test.RaggedTensor",
        "nested registered types are named"
    );
    assert_eq!(
        <RaggedTensorSpec<RaggedTensor>>::deserialize(&serialized).unwrap(),
        ragged2().spec()
    );
    let json = serialized.to_json().unwrap();
    assert_eq!(SpecTree::from_json(&json).unwrap(), serialized);
    // A rank-1 spec is not a rank-2 spec.
    let rank1 = ragged2().values.spec().serialize();
    let err = <RaggedTensorSpec<RaggedTensor>>::deserialize(&rank1).unwrap_err();
    assert!(err.to_string().contains("test.RaggedTensor2"), "{err}");
}

#[test]
fn relaxation_through_the_nested_field() {
    let a = ragged2().spec();
    let other = RaggedTensor {
        values: RaggedTensor {
            values: Tensor::from(array![1i32, 2]),
            row_splits: array![0, 1, 2].into_shared(),
        },
        row_splits: array![0, 2].into_shared(),
    };
    let b = other.spec();
    assert!(!a.is_compatible_with(&b));
    let joined = a.most_specific_compatible(&b).unwrap();
    assert_eq!(joined.values.values.shape.to_string(), "[!1]");
    assert_eq!(joined.row_splits.shape.to_string(), "[!1]");
    assert!(joined.is_compatible_with(&a) && joined.is_compatible_with(&b));
    let float = RaggedTensor {
        values: RaggedTensor {
            values: Tensor::from(array![1.0f32, 2.0]),
            row_splits: array![0, 1, 2].into_shared(),
        },
        row_splits: array![0, 2].into_shared(),
    };
    assert_eq!(a.most_specific_compatible(&float.spec()), None);
}

//! MaskedTensor, implemented by hand on the public API (`common/masked.rs`), through every job
//! of a spec.

use crate::common;

use common::{MaskedTensor, MaskedTensorSpec};
use extype::{
    DType, ExtensionType, Shape, SpecTree, Tensor, TensorSpec, TensorView, TypeSpec, Value,
};
use ndarray::{ArrayD, array};

fn masked(values: ArrayD<f32>, mask: ArrayD<bool>) -> MaskedTensor {
    MaskedTensor { values, mask }
}

fn sample() -> MaskedTensor {
    masked(
        array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]].into_dyn(),
        array![[true, false, true], [false, true, true]].into_dyn(),
    )
}

fn spec(shape: &str) -> MaskedTensorSpec {
    let shape: Shape = shape.parse().unwrap();
    MaskedTensorSpec {
        values: TensorSpec::new(shape.clone(), DType::F32),
        mask: TensorSpec::new(shape, DType::Bool),
    }
}

#[test]
fn spec_stores_static_data() {
    let value = sample();
    let s = value.spec();
    assert_eq!(s, spec("[2, 3]"));
    assert_eq!(
        s.component_specs(),
        vec![
            TensorSpec::new(Shape::known(&[2, 3]), DType::F32),
            TensorSpec::new(Shape::known(&[2, 3]), DType::Bool),
        ]
    );
}

#[test]
fn components_round_trip_without_copies() {
    let value = sample();
    let (values_ptr, mask_ptr) = (value.values.as_ptr(), value.mask.as_ptr());
    let s = value.spec();
    let views = s.to_components(&value);
    assert_eq!(views.len(), 2);
    assert_eq!(views[0].dtype(), DType::F32);
    let TensorView::F32(values_view) = &views[0] else {
        panic!("{views:?}")
    };
    assert_eq!(
        values_view.as_ptr(),
        values_ptr,
        "views borrow, they do not copy"
    );
    let parts = value.clone().into_components();
    let back = s.from_components(parts).unwrap();
    assert_eq!(back, value);
    let moved = s.from_components(value.into_components()).unwrap();
    assert_eq!(
        moved.values.as_ptr(),
        values_ptr,
        "values must be moved, not copied"
    );
    assert_eq!(
        moved.mask.as_ptr(),
        mask_ptr,
        "mask must be moved, not copied"
    );
}

#[test]
fn from_components_checks_count_dtype_shape_and_validation() {
    let s = spec("[?, 3]");
    let values = Tensor::from(array![[1.0f32, 2.0, 3.0]].into_dyn());
    let mask = Tensor::from(array![[true, true, false]].into_dyn());

    let err = s.from_components(vec![values.clone()]).unwrap_err();
    assert!(
        err.to_string().contains("expected 2 components, found 1"),
        "{err}"
    );

    let err = s
        .from_components(vec![
            values.clone(),
            Tensor::from(array![[1u8, 2, 3]].into_dyn()),
        ])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "component mask: expected dtype bool, found u8"
    );

    let err = s
        .from_components(vec![
            Tensor::from(array![[1.0f32, 2.0]].into_dyn()),
            mask.clone(),
        ])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "component values: shape [1, 2] is not compatible with spec shape [?, 3]"
    );

    let loose = spec("*");
    let err = loose
        .from_components(vec![
            values.clone(),
            Tensor::from(array![true, true, false].into_dyn()),
        ])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value of test.MaskedTensor: values shape [1, 3] differs from mask shape [3]"
    );

    assert!(s.from_components(vec![values, mask]).is_ok());
}

#[test]
fn serialization_round_trips_and_names_the_type() {
    let s = spec("[?, 3]");
    let serialized = s.serialize();
    let SpecTree::Spec(named) = &serialized else {
        panic!("{serialized:?}")
    };
    assert_eq!(named.name, "test.MaskedTensor");
    assert_eq!(MaskedTensorSpec::deserialize(&serialized).unwrap(), s);

    let mut wrong = serialized.clone();
    if let SpecTree::Spec(named) = &mut wrong
        && let SpecTree::Map(fields) = &mut named.value
    {
        fields.insert(
            "mask".into(),
            SpecTree::TensorSpec(TensorSpec::new(Shape::unknown_rank(), DType::F32)),
        );
    }
    let err = MaskedTensorSpec::deserialize(&wrong).unwrap_err();
    assert!(
        err.to_string()
            .contains("spec mask: expected a tensor spec of dtype bool"),
        "{err}"
    );

    let mut renamed = serialized.clone();
    if let SpecTree::Spec(named) = &mut renamed {
        named.name = "test.Other".into();
    }
    let err = MaskedTensorSpec::deserialize(&renamed).unwrap_err();
    assert!(err.to_string().contains("test.MaskedTensor"), "{err}");
}

#[test]
fn compatibility_and_relaxation() {
    let a = spec("[8, 3]");
    let b = spec("[?, 3]");
    let c = spec("[8, 5]");
    assert_ne!(a, b);
    assert!(a.is_compatible_with(&b) && b.is_compatible_with(&a));
    assert!(!a.is_compatible_with(&c));
    assert_eq!(a.most_specific_compatible(&c), Some(spec("[8, !1]")));
    let mut other_dtype = a.clone();
    other_dtype.values.dtype = DType::F64;
    assert!(!a.is_compatible_with(&other_dtype));
    assert_eq!(a.most_specific_compatible(&other_dtype), None);
}

#[test]
fn dynamic_twins_and_value() {
    let value = sample();
    let v = Value::from_extension(value.clone());
    assert_eq!(v.type_name(), "test.MaskedTensor");
    assert_eq!(v.downcast_ref::<MaskedTensor>().unwrap(), &value);
    let err = Value::from(Tensor::from(array![1.0f32]))
        .downcast::<MaskedTensor>()
        .unwrap_err();
    assert!(
        err.to_string().contains("MaskedTensor") && err.to_string().contains("a tensor (f32[1])"),
        "{err}"
    );
    let Value::Extension(any) = &v else { panic!() };
    let any_spec = any.any_spec();
    assert_eq!(any_spec.name(), "test.MaskedTensor");
    assert_eq!(any_spec.dyn_component_specs().len(), 2);
    assert!(any_spec.dyn_eq(&value.spec()));
    assert!(any_spec.dyn_is_compatible_with(&spec("[?, ?]")));
    let rebuilt = any_spec
        .dyn_from_components(any.clone_components())
        .unwrap();
    assert_eq!(rebuilt.downcast::<MaskedTensor>().unwrap(), value);
    assert_eq!(v.downcast::<MaskedTensor>().unwrap(), value);
}

#[test]
fn a_hand_written_spec_does_not_rebuild_from_component_specs_unless_it_says_how() {
    let spec = spec("[2, 3]");
    let err = spec
        .with_component_specs(spec.component_specs())
        .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "spec <root>: expected a spec type that rebuilds itself from component specs"
        ) && err.to_string().ends_with("MaskedTensorSpec"),
        "{err}"
    );
    let any: Box<dyn extype::AnySpec> = Box::new(spec.clone());
    let err = any
        .dyn_with_component_specs(spec.component_specs())
        .unwrap_err();
    assert!(err.to_string().contains("MaskedTensorSpec"), "{err}");
}

//! Derived types are registered by name (in debug and release builds: `.ci/run` runs this test in
//! both), generic types once per `register!`ed instantiation; values rebuild from a serialized
//! spec and components, or stay anonymous until reinterpreted.

use extype::{Element, ExtensionType, SpecTree, TypeSpec, Value, registry};
use ndarray::{Array1, ArrayD, IxDyn, arr1};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.registry.Masked")]
pub struct Masked {
    #[extype(shape = "*d")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*d")]
    pub mask: ArrayD<bool>,
}

/// Without `name`, the registered name is the module path plus the type name.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
pub struct Unnamed {
    pub x: Array1<i32>,
}

/// A generic type: no entry of its own; each instantiation registered by hand.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
pub struct Generic<T: Element> {
    pub values: Array1<T>,
    pub lengths: Array1<i64>,
}

extype::register!(Generic<f32>, "tests.registry.GenericF32");
extype::register!(Generic<i64>, "tests.registry.GenericI64");

fn masked() -> Masked {
    Masked::try_new(
        ArrayD::from_elem(IxDyn(&[2, 2]), 0.5),
        ArrayD::from_elem(IxDyn(&[2, 2]), true),
    )
    .unwrap()
}

#[test]
fn derived_types_are_registered() {
    let registry = registry();
    let names = registry.names();
    for name in [
        "tests.registry.Masked",
        "derive_registry::Unnamed",
        "tests.registry.GenericF32",
        "tests.registry.GenericI64",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    assert_eq!(
        extype::registered_name::<Generic<f32>>(),
        "tests.registry.GenericF32"
    );
    assert_eq!(
        extype::registered_name::<Generic<i64>>(),
        "tests.registry.GenericI64"
    );
}

#[test]
fn rebuild_by_name() {
    let registry = registry();
    let value = masked();
    let spec = value.spec().serialize();
    let rebuilt = registry
        .rebuild(&spec, value.clone().into_components())
        .unwrap();
    assert_eq!(rebuilt.downcast_ref::<Masked>().unwrap(), &value);

    let generic = Generic {
        values: arr1(&[1.5f32, 2.5]),
        lengths: arr1(&[2]),
    };
    let spec = generic.spec().serialize();
    let SpecTree::Spec(named) = &spec else {
        panic!("a derived spec serializes as a named spec")
    };
    assert_eq!(named.name, "tests.registry.GenericF32");
    let rebuilt = registry
        .rebuild(&spec, generic.clone().into_components())
        .unwrap();
    assert_eq!(rebuilt.downcast::<Generic<f32>>().unwrap(), generic);
}

#[test]
fn unknown_names_stay_anonymous_until_reinterpreted() {
    let registry = registry();
    let value = masked();
    let mut foreign = value.spec().serialize();
    let SpecTree::Spec(named) = &mut foreign else {
        panic!("a derived spec serializes as a named spec")
    };
    named.name = "elsewhere.Masked".into();
    let anonymous = registry
        .rebuild(&foreign, value.clone().into_components())
        .unwrap();
    assert!(matches!(anonymous, Value::Extension(_)));
    // It keeps the name it was saved under.
    assert_eq!(anonymous.type_name(), "elsewhere.Masked");
    assert_eq!(
        anonymous
            .downcast_ref::<extype::AnonymousExtension>()
            .unwrap()
            .components
            .len(),
        2
    );
    // Reinterpreting checks the name: the foreign name is not ours.
    let err = anonymous
        .clone()
        .reinterpret::<Masked>()
        .unwrap_err()
        .to_string();
    assert!(err.contains("elsewhere.Masked"), "{err}");

    let spec = value.spec().serialize();
    let direct = extype::AnonymousExtension::new(spec, value.clone().into_components()).unwrap();
    assert_eq!(direct.reinterpret::<Masked>().unwrap(), value);
}

#[test]
fn reinterpret_validates() {
    let value = masked();
    let spec = value.spec().serialize();
    let mut components = value.into_components();
    components[1] = extype::Tensor::from(ArrayD::from_elem(IxDyn(&[2, 3]), true));
    let anonymous = extype::AnonymousExtension::new(spec, components).unwrap();
    let err = anonymous.reinterpret::<Masked>().unwrap_err().to_string();
    assert!(err.contains("mask"), "{err}");
}

/// A generic type whose parameter is any field, not a scalar: `Clone` is required of the type as
/// a whole (the derived `Clone` bounds `V: Clone`), not of `V` by the macro.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
pub struct Ragged<V: extype::Field> {
    pub values: V,
    pub row_splits: Array1<i64>,
}

extype::register!(Ragged<Array1<f32>>, "tests.registry.RaggedF32");
extype::register!(
    Ragged<Ragged<Array1<f32>>>,
    "tests.registry.RaggedRaggedF32"
);

#[test]
fn generic_over_any_field_nests() {
    let inner = Ragged {
        values: arr1(&[1.0f32, 2.0, 3.0]),
        row_splits: arr1(&[0, 1, 3]),
    };
    let outer = Ragged {
        values: inner.clone(),
        row_splits: arr1(&[0, 2]),
    };
    let spec = outer.spec();
    assert_eq!(
        spec.component_paths(),
        ["values.values", "values.row_splits", "row_splits"]
    );
    assert_eq!(spec.num_components(), 3);
    let registry = registry();
    let rebuilt = registry
        .rebuild(&spec.serialize(), outer.clone().into_components())
        .unwrap();
    assert_eq!(
        rebuilt.downcast::<Ragged<Ragged<Array1<f32>>>>().unwrap(),
        outer
    );
    assert!(
        extype::serial::spec_to_json(&spec)
            .unwrap()
            .contains("tests.registry.RaggedF32"),
        "the nested instantiation is named by its own registration"
    );
}

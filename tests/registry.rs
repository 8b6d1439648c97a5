//! The registry: entries collected at link time (derived and `register!`ed types), lookups,
//! unknown names, anonymous values and reinterpretation. Run in release too:
//! `cargo test --release -p extype --test registry`.

mod common;

use common::{MaskedTensor, RaggedTensor};
use extype::{
    AnonymousExtension, DType, Error, ExtensionType, RegistryError, Shape, SpecTree, Tensor,
    TensorSpec, TypeSpec, Value, registered_name, registry,
};
use ndarray::array;

/// Never registered: a generic instantiation without `register!`.
type Ragged3 = RaggedTensor<RaggedTensor<RaggedTensor<Tensor>>>;

fn masked() -> MaskedTensor {
    MaskedTensor {
        values: array![[1.0f32, 2.0]].into_dyn(),
        mask: array![[true, false]].into_dyn(),
    }
}

fn ragged3() -> Ragged3 {
    RaggedTensor {
        values: RaggedTensor {
            values: RaggedTensor {
                values: Tensor::from(array![1u8, 2, 3]),
                row_splits: array![0, 1, 3].into_shared(),
            },
            row_splits: array![0, 2].into_shared(),
        },
        row_splits: array![0, 0, 1].into_shared(),
    }
}

#[test]
fn entries_are_collected() {
    let registry = registry();
    assert_eq!(
        registry.names(),
        [
            "extype.Anonymous",
            "extype.MaskedTensor",
            "extype.RaggedShape",
            "extype.RaggedTensor",
            "extype.SparseTensor",
            "test.Batch",
            "test.MaskedTensor",
            "test.RaggedTensor",
            "test.RaggedTensor2",
            "test.SharedPair"
        ]
    );
    let entry = registry.get("test.MaskedTensor").unwrap();
    assert_eq!(entry.type_id, std::any::TypeId::of::<MaskedTensor>());
    assert!(entry.file.ends_with("masked.rs"), "{}", entry.file);
    assert_eq!((entry.type_name)(), std::any::type_name::<MaskedTensor>());
    assert_eq!(
        registry.entry_of::<MaskedTensor>().unwrap().name,
        "test.MaskedTensor"
    );
}

#[test]
fn unknown_names_list_the_known_ones() {
    let err = registry().get("test.Nope").unwrap_err();
    assert_eq!(
        err.to_string(),
        "no extension type is registered as \"test.Nope\"; registered: [extype.Anonymous, \
         extype.MaskedTensor, extype.RaggedShape, extype.RaggedTensor, extype.SparseTensor, test.Batch, test.MaskedTensor, test.RaggedTensor, test.RaggedTensor2, test.SharedPair]"
    );
    let json = SpecTree::spec("test.Nope", SpecTree::None)
        .to_json()
        .unwrap();
    let err = extype::serial::any_spec_from_json(&json).unwrap_err();
    assert!(
        err.to_string().contains("registered: [extype.Anonymous"),
        "{err}"
    );
    let err = registry().entry_of::<Ragged3>().unwrap_err();
    assert!(
        matches!(&err, Error::Registry(e) if matches!(**e, RegistryError::NotRegistered { .. }))
    );
    assert!(
        err.to_string()
            .contains("one `register!` per concrete instantiation"),
        "{err}"
    );
}

#[test]
fn specs_and_values_by_name() {
    let value = masked();
    let json = value.spec().serialize().to_json().unwrap();
    let spec = extype::serial::any_spec_from_json(&json).unwrap();
    assert_eq!(spec.name(), "test.MaskedTensor");
    assert!(spec.dyn_eq(&value.spec()));
    let rebuilt = registry()
        .rebuild(&value.spec().serialize(), value.clone().into_components())
        .unwrap();
    assert_eq!(rebuilt.type_name(), "test.MaskedTensor");
    assert_eq!(rebuilt.downcast::<MaskedTensor>().unwrap(), value);
    // The registered type's checks still run on load.
    let err = registry()
        .rebuild(
            &value.spec().serialize(),
            vec![Tensor::from(array![1.0f32])],
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("expected 2 components, found 1"),
        "{err}"
    );
}

#[test]
fn unlinked_names_load_as_anonymous_and_reinterpret() {
    let value = ragged3();
    let serialized = value.spec().serialize();
    let SpecTree::Spec(named) = &serialized else {
        panic!()
    };
    assert_eq!(
        named.name,
        Ragged3::NAME,
        "unregistered types serialize under NAME"
    );
    assert!(registry().lookup(&named.name).is_none());

    let loaded = registry()
        .rebuild(&serialized, value.clone().into_components())
        .unwrap();
    assert_eq!(loaded.type_name(), Ragged3::NAME);
    let anonymous = loaded.downcast_ref::<AnonymousExtension>().unwrap();
    assert_eq!(anonymous.components.len(), 4);
    let Value::Extension(any) = &loaded else {
        panic!()
    };
    assert_eq!(any.any_spec().name(), Ragged3::NAME);

    // Wrong target type: the names differ.
    let err = loaded.clone().reinterpret::<MaskedTensor>().unwrap_err();
    assert!(
        err.to_string().contains("cannot reinterpret anonymous"),
        "{err}"
    );
    // Right target type: validated and rebuilt.
    assert_eq!(loaded.clone().reinterpret::<Ragged3>().unwrap(), value);
    // Components that break the type's invariants are rejected on reinterpret.
    let mut parts = value.clone().into_components();
    parts[3] = Tensor::from(array![0i64, 1, 2]);
    let broken = AnonymousExtension::new(serialized.clone(), parts).unwrap();
    let err = broken.reinterpret::<Ragged3>().unwrap_err();
    assert!(err.to_string().contains("invalid value"), "{err}");
}

#[test]
fn anonymous_values_have_a_round_tripping_spec() {
    let value = ragged3();
    let anonymous =
        AnonymousExtension::new(value.spec().serialize(), value.into_components()).unwrap();
    let spec = anonymous.spec();
    assert_eq!(spec.component_specs.len(), 4);
    assert_eq!(
        spec.component_specs[0],
        TensorSpec::new(Shape::known(&[3]), DType::U8)
    );
    let serialized = spec.serialize();
    let SpecTree::Spec(named) = &serialized else {
        panic!()
    };
    assert_eq!(named.name, "extype.Anonymous");
    let json = serialized.to_json().unwrap();
    let back = extype::serial::any_spec_from_json(&json).unwrap();
    assert!(back.dyn_eq(&spec));
    let rebuilt = spec
        .from_components(anonymous.clone().into_components())
        .unwrap();
    assert_eq!(rebuilt.components, anonymous.components);
    let err = spec.from_components(vec![]).unwrap_err();
    assert!(
        err.to_string().contains("expected 4 components, found 0"),
        "{err}"
    );
}

#[test]
fn built_once_and_shared_across_threads() {
    let first = registry() as *const _ as usize;
    let handles: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                assert_eq!(registered_name::<MaskedTensor>(), "test.MaskedTensor");
                registry() as *const _ as usize
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), first);
    }
}

//! A name given to two types, and a type under two names: each breaks only itself. Using the
//! name (or type) is an error naming both definitions; everything else works; `check()` reports
//! every conflict up front.

extern crate extype_core as extype;

mod common;

use common::MaskedTensor;
use extype::{ExtensionType, Registry, RegistryEntry, TypeSpec, registry};
use ndarray::ArrayD;

// A second type under the name the common MaskedTensor is registered with.
extype::register!(extype::AnonymousExtension, "test.MaskedTensor");

fn masked() -> MaskedTensor {
    MaskedTensor {
        values: ArrayD::from_elem(vec![2], 1.0f32),
        mask: ArrayD::from_elem(vec![2], true),
    }
}

#[test]
fn using_a_duplicated_name_is_an_error_naming_both_definitions() {
    for _ in 0..2 {
        let err = registry().get("test.MaskedTensor").unwrap_err().to_string();
        assert!(
            err.starts_with("extension type name \"test.MaskedTensor\" is registered twice"),
            "{err}"
        );
        assert!(err.contains("masked.rs:"), "{err}");
        assert!(err.contains("registry_duplicates.rs:14"), "{err}");
    }
    assert!(registry().lookup("test.MaskedTensor").is_none());
    // Loading a value by that name: the same error, not an anonymous value.
    let spec = masked().spec().serialize();
    let err = registry()
        .rebuild(&spec, masked().into_components())
        .unwrap_err();
    assert!(err.to_string().contains("is registered twice"), "{err}");
    // Names fall back to NAME; nothing panics.
    assert_eq!(
        extype::registered_name::<MaskedTensor>(),
        "test.MaskedTensor"
    );
}

#[test]
fn check_reports_every_conflict() {
    let err = extype::check().unwrap_err().to_string();
    assert!(
        err.starts_with("extension type name \"test.MaskedTensor\" is registered twice"),
        "{err}"
    );
    assert_eq!(registry().check().unwrap_err().to_string(), err);
    assert_eq!(registry().conflicts().len(), 1);
}

static FIRST: RegistryEntry = RegistryEntry::new::<MaskedTensor>("a.One", "x.rs", 1);
static SECOND: RegistryEntry = RegistryEntry::new::<MaskedTensor>("a.Two", "y.rs", 2);
static OTHER: RegistryEntry = RegistryEntry::new::<extype::AnonymousExtension>("a.Two", "z.rs", 3);

#[test]
fn one_type_under_two_names_breaks_that_type_only() {
    let built = Registry::build([&FIRST, &SECOND]);
    let expected = format!(
        "type {} is registered under two names: \"a.One\" at x.rs:1 and \"a.Two\" at y.rs:2",
        std::any::type_name::<MaskedTensor>()
    );
    assert_eq!(built.check().unwrap_err().to_string(), expected);
    assert_eq!(
        built.entry_of::<MaskedTensor>().unwrap_err().to_string(),
        expected
    );
    // Either name still loads the type.
    assert!(built.get("a.One").is_ok() && built.get("a.Two").is_ok());
    assert!(Registry::build([&FIRST]).check().is_ok());
}

#[test]
fn several_conflicts_are_listed_together() {
    let built = Registry::build([&FIRST, &SECOND, &OTHER]);
    let err = built.check().unwrap_err();
    assert!(
        matches!(err, extype::Error::Many(ref all) if all.len() == 2),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.starts_with("2 errors:\n- "), "{text}");
    assert!(text.contains("\"a.Two\" is registered twice"), "{text}");
    assert!(text.contains("registered under two names"), "{text}");
    // The name given twice breaks only itself.
    assert!(built.get("a.Two").is_err());
    assert!(built.get("a.One").is_ok());
}

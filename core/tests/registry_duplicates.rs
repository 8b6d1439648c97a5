//! Two types registered under one name: the registry refuses to build, naming both definitions,
//! on every access.

extern crate extype_core as extype;

mod common;

use common::MaskedTensor;
use extype::{Registry, RegistryEntry, registry};

extype::register!(extype::AnonymousExtension, "test.MaskedTensor");

#[test]
fn duplicate_names_are_an_error_naming_both_definitions() {
    for _ in 0..2 {
        let err = registry().unwrap_err().to_string();
        assert!(
            err.starts_with("extension type name \"test.MaskedTensor\" is registered twice"),
            "{err}"
        );
        assert!(err.contains("masked.rs:"), "{err}");
        assert!(err.contains("registry_duplicates.rs:11"), "{err}");
    }
    // Names fall back to NAME while the registry is broken; nothing panics.
    assert_eq!(
        extype::registered_name::<MaskedTensor>(),
        "test.MaskedTensor"
    );
}

static FIRST: RegistryEntry = RegistryEntry::new::<MaskedTensor>("a.One", "x.rs", 1);
static SECOND: RegistryEntry = RegistryEntry::new::<MaskedTensor>("a.Two", "y.rs", 2);

#[test]
fn one_type_under_two_names_is_an_error() {
    let err = Registry::build([&FIRST, &SECOND]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "type {} is registered under two names: \"a.One\" at x.rs:1 and \"a.Two\" at y.rs:2",
            std::any::type_name::<MaskedTensor>()
        )
    );
    assert_eq!(Registry::build([&FIRST]).unwrap().len(), 1);
}

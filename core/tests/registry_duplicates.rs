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

/// The conflict's error, as every path that resolves the name reports it.
fn assert_conflict(what: &str, text: &str) {
    assert!(
        text.contains(
            "extension type name \"test.MaskedTensor\" is registered twice: \
             registry_duplicates::common::masked::MaskedTensor at"
        ) && text.contains("registry_duplicates.rs:14"),
        "{what}: {text}"
    );
}

fn err_text<T>(what: &str, r: extype::Result<T>) -> String {
    match r {
        Ok(_) => panic!("{what}: resolved a name registered twice"),
        Err(e) => e.to_string(),
    }
}

/// An anonymous value of the name given twice (as a file written by another program reads).
fn anonymous() -> extype::AnonymousExtension {
    extype::AnonymousExtension::new(masked().spec().serialize(), masked().into_components())
        .unwrap()
}

#[test]
fn every_path_that_resolves_the_name_reports_the_conflict() {
    let dir = std::env::temp_dir().join(format!("extype-dup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.safetensors");
    extype::io::save(&path, &masked()).unwrap();
    let file = path.display().to_string();
    for (what, text) in [
        ("load", err_text("load", extype::io::load(&path))),
        (
            "load_as",
            err_text("load_as", extype::io::load_as::<MaskedTensor>(&path)),
        ),
        // SAFETY: the file is this test's own and is not written while mapped.
        ("map", err_text("map", unsafe { extype::io::map(&path) })),
    ] {
        assert!(text.starts_with(&file), "{what}: {text}");
        assert_conflict(what, &text);
    }
    // Shards: the value's record names the type.
    let mut writer = extype::io::ShardWriter::new(&dir, "part", 1 << 20).unwrap();
    writer.append(&masked()).unwrap();
    writer.finish().unwrap();
    let mut reader = extype::io::ShardReader::open(&dir, "part").unwrap();
    assert_conflict("shards", &err_text("shards", reader.next().unwrap()));
    assert!(reader.next().is_none());
    std::fs::remove_dir_all(&dir).unwrap();
    // Spec JSON, by the name the document carries.
    let json = extype::serial::spec_to_json(&masked().spec()).unwrap();
    assert_conflict(
        "any_spec_from_json",
        &err_text(
            "any_spec_from_json",
            extype::serial::any_spec_from_json(&json),
        ),
    );
    // Reinterpreting an anonymous value, on its own or as a `Value`.
    assert_conflict(
        "reinterpret",
        &err_text("reinterpret", anonymous().reinterpret::<MaskedTensor>()),
    );
    assert_conflict(
        "Value::reinterpret",
        &err_text(
            "Value::reinterpret",
            extype::Value::from_extension(anonymous()).reinterpret::<MaskedTensor>(),
        ),
    );
    // Ops on an anonymous value (dispatched as its registered type), and what they support.
    let value = extype::Value::from_extension(anonymous());
    assert_conflict(
        "ops::add",
        &err_text("ops::add", extype::ops::add(&value, &value)),
    );
    assert_conflict(
        "ops::supported",
        &err_text("ops::supported", extype::ops::supported(&value)),
    );
    // Packing an anonymous leaf into a structure of the type.
    assert_conflict(
        "nest::pack_sequence_as",
        &err_text(
            "nest::pack_sequence_as",
            extype::nest::pack_sequence_as(&masked(), vec![value.clone()], false),
        ),
    );
    let spec = anonymous().spec();
    assert_conflict(
        "ops::supported_for_spec",
        &err_text(
            "ops::supported_for_spec",
            extype::ops::supported_for_spec(&spec),
        ),
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

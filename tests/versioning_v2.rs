//! Version 2 of `golden.Signal` (version 1: `versioning_v1.rs`): the field `values` renamed
//! `samples` (`alias`), a validity mask added with a default computed from the samples, a
//! static `unit` added with the type's `Default`. It loads the version-1 golden file and spec
//! document, and refuses the version-3 golden file naming both versions.

use extype::versioning::Stored;
use extype::{ExtensionType, TypeSpec};
use ndarray::{ArrayD, array};

/// An all-true mask shaped like the samples.
fn all_valid(stored: &Stored) -> extype::Result<ArrayD<bool>> {
    let samples = stored.tensor("samples")?;
    Ok(ArrayD::from_elem(samples.shape(), true))
}

fn finite(s: &Signal) -> extype::Result<()> {
    if s.samples.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(extype::Error::invalid("samples must be finite"))
    }
}

/// Version 2.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "golden.Signal", version = 2, validate = finite)]
pub struct Signal {
    #[extype(shape = "n", alias = "values")]
    pub samples: ArrayD<f32>,
    #[extype(shape = "n", validity_of = samples, default = all_valid)]
    pub mask: ArrayD<bool>,
    #[extype(static)]
    pub rate: u32,
    #[extype(static, default)]
    pub unit: String,
}

fn golden(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/versioning")
        .join(name)
}

fn expected() -> Signal {
    Signal::try_new(
        array![1.0f32, 2.0, 3.0].into_dyn(),
        array![true, true, true].into_dyn(),
        100,
        String::new(),
    )
    .unwrap()
}

#[test]
fn a_version_1_file_loads_with_the_rename_and_the_defaults() {
    let path = golden("signal_v1.safetensors");
    let typed: Signal = extype::io::load_as(&path).unwrap();
    assert_eq!(typed, expected());
    // By the registry, too.
    let value = extype::io::load(&path).unwrap();
    assert_eq!(value.downcast_ref::<Signal>().unwrap(), &expected());
}

#[test]
fn a_version_1_spec_document_gives_the_version_2_spec() {
    let text = std::fs::read_to_string(golden("signal_v1.spec.json")).unwrap();
    let spec: SignalSpec = extype::serial::spec_from_json(&text).unwrap();
    // The mask's spec comes from its type (bool, any shape), refined by the shape contract.
    assert_eq!(spec, expected().spec());
    assert_eq!(spec.unit, String::new());
    let any = extype::serial::any_spec_from_json(&text).unwrap();
    assert_eq!(any.name(), "golden.Signal");
    // Written back, it is a version-2 document.
    let json = extype::serial::spec_to_json(&spec).unwrap();
    assert!(json.contains(r#""version":2"#), "{json}");
    // Compatible with the spec of the loaded value.
    assert!(spec.is_compatible_with(&expected().spec()));
}

#[test]
fn version_2_round_trips() {
    let dir = std::env::temp_dir().join(format!("extype-versioning-v2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("v2.safetensors");
    extype::io::save(&path, &expected()).unwrap();
    assert_eq!(extype::io::load_as::<Signal>(&path).unwrap(), expected());
    let info = extype::io::inspect(&path).unwrap();
    assert_eq!(info.type_version(), Some(2), "{info:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_of_a_newer_version_is_an_error_naming_both_versions_and_the_file() {
    // A version-2 file, its header's version raised to 9 (same length: the header stays valid).
    let dir = std::env::temp_dir().join(format!("extype-versioning-new-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("from_the_future.safetensors");
    extype::io::save(&path, &expected()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let (from, to) = (br#"\"version\":2"#, br#"\"version\":9"#);
    let at = bytes.windows(from.len()).position(|w| w == from).unwrap();
    let mut patched = bytes.clone();
    patched[at..at + from.len()].copy_from_slice(to);
    std::fs::write(&path, patched).unwrap();
    for err in [
        extype::io::load_as::<Signal>(&path).unwrap_err(),
        extype::io::load(&path).unwrap_err(),
    ] {
        let text = err.to_string();
        assert!(text.contains("from_the_future.safetensors"), "{text}");
        assert!(
            text.contains("version 9") && text.contains("up to 2"),
            "{text}"
        );
        assert!(text.contains("golden.Signal"), "{text}");
    }
    assert_eq!(extype::io::inspect(&path).unwrap().type_version(), Some(9));
    std::fs::remove_dir_all(&dir).unwrap();
    let doc = r#"{"extype_spec":1,"spec":{"spec":"golden.Signal","version":7,"value":{"map":{}}}}"#;
    let err = extype::serial::spec_from_json::<SignalSpec>(doc)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("version 7") && err.contains("up to 2"),
        "{err}"
    );
    assert!(err.contains("golden.Signal"), "{err}");
}

/// Version 3 renamed the type (`golden.Waveform`, with `aliases = ["golden.Signal"]`): this
/// program does not know that name, so its file loads as an anonymous value, and as a `Signal`
/// it is an error naming both names.
#[test]
fn a_file_of_the_renamed_version_3_is_another_type_here() {
    let path = golden("signal_v3.safetensors");
    let err = extype::io::load_as::<Signal>(&path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds golden.Waveform"), "{err}");
    let value = extype::io::load(&path).unwrap();
    assert!(value.downcast_ref::<extype::AnonymousExtension>().is_ok());
}

#[test]
fn hostile_versions_are_errors() {
    for version in [
        "0",
        "-1",
        "4294967296",
        "1e3",
        "2.5",
        "\"2\"",
        "null",
        "[2]",
    ] {
        let doc = format!(
            r#"{{"extype_spec":1,"spec":{{"spec":"golden.Signal","version":{version},"value":{{"map":{{}}}}}}}}"#
        );
        let err = extype::serial::spec_from_json::<SignalSpec>(&doc)
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected a type version"), "{version}: {err}");
    }
}

#[test]
fn a_default_that_breaks_validation_is_an_error() {
    // A version-1 document with a sample that is not finite: loads fill the mask, then validate.
    let dir = std::env::temp_dir().join(format!("extype-versioning-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.safetensors");
    let bytes = std::fs::read(golden("signal_v1.safetensors")).unwrap();
    // Patch the first sample (1.0f32) to NaN.
    let one = 1.0f32.to_le_bytes();
    let at = bytes.windows(4).rposition(|w| w == one).unwrap();
    let mut patched = bytes.clone();
    patched[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    std::fs::write(&path, patched).unwrap();
    let err = extype::io::load_as::<Signal>(&path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("finite"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_compat_names_both_versions_of_a_newer_file() {
    let compat = extype::io::check_compat(golden("signal_v1.safetensors")).unwrap();
    assert!(compat.loads(), "{compat}");
    assert_eq!(compat.current, Some(("golden.Signal".to_string(), 2)));
    // Version 3 renamed the type: not one of this program's.
    let newer = extype::io::check_compat(golden("signal_v3.safetensors")).unwrap();
    assert!(!newer.loads() && newer.current.is_none(), "{newer}");
}

/// Version 1 of `golden.Recording` is unversioned and unchanged: its nested `Signal` is the
/// value of an older version.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "golden.Recording")]
pub struct Recording {
    pub signal: Signal,
    pub takes: Vec<Signal>,
    #[extype(static)]
    pub take: u32,
}

#[test]
fn a_nested_version_1_value_loads_with_the_rename_and_the_defaults() {
    let path = golden("recording_v1.safetensors");
    let expected = Recording::try_new(expected(), vec![expected(), expected()], 7).unwrap();
    let typed: Recording = extype::io::load_as(&path).unwrap();
    assert_eq!(typed, expected);
    let value = extype::io::load(&path).unwrap();
    assert_eq!(value.downcast_ref::<Recording>().unwrap(), &expected);
    // The spec document the file stores, alone, upgrades too.
    let report = extype::io::check_compat(&path).unwrap();
    assert!(report.loads(), "{report:?}");
}

#[test]
fn version_1_files_load_mapped_and_from_shards() {
    // SAFETY: the golden file is not modified while mapped.
    let mapped = unsafe { extype::io::map(golden("signal_v1.safetensors")) }.unwrap();
    assert_eq!(mapped.to_type::<Signal>().unwrap(), expected());
    assert_eq!(
        mapped.to_value().unwrap().downcast_ref::<Signal>().unwrap(),
        &expected()
    );
    let shards: Vec<extype::Value> = extype::io::ShardReader::open(golden("shards_v1"), "signal")
        .unwrap()
        .collect::<extype::Result<_>>()
        .unwrap();
    assert_eq!(shards.len(), 2);
    for value in &shards {
        assert_eq!(value.downcast_ref::<Signal>().unwrap(), &expected());
    }
}

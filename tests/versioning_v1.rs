//! Version 1 of `golden.Signal`, as today's code writes it: the golden files under
//! `tests/golden/versioning/` (loaded by versions 2 and 3 in `versioning_v2.rs` and
//! `versioning_v3.rs`, separate test binaries, since one program has one version of a type).
//!
//! `EXTYPE_WRITE_GOLDEN=1 cargo test -p extype --test versioning_v1` rewrites the files; without
//! it, the test checks that today's code still writes them as they are (the same header, the
//! same data bytes; so a version-1 type's files and spec documents did not change when versions
//! came).

use extype::ExtensionType;
use ndarray::{ArrayD, array};

/// Version 1: values and a sample rate.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "golden.Signal")]
pub struct Signal {
    pub values: ArrayD<f32>,
    #[extype(static)]
    pub rate: u32,
}

fn golden() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/versioning")
}

fn signal() -> Signal {
    Signal::try_new(array![1.0f32, 2.0, 3.0].into_dyn(), 100).unwrap()
}

/// A safetensors file's header, as JSON, and its data bytes.
fn split(bytes: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    (header, bytes[8 + n..].to_vec())
}

#[test]
fn version_1_files_and_documents_are_what_they_were() {
    let dir = std::env::temp_dir().join(format!("extype-versioning-v1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let written = dir.join("signal_v1.safetensors");
    extype::io::save(&written, &signal()).unwrap();
    let json = extype::serial::spec_to_json(&signal().spec()).unwrap();
    // No "version" key: version 1 is the absence of one.
    assert!(!json.contains("version"), "{json}");
    let golden_file = golden().join("signal_v1.safetensors");
    let golden_spec = golden().join("signal_v1.spec.json");
    if std::env::var_os("EXTYPE_WRITE_GOLDEN").is_some() {
        std::fs::copy(&written, &golden_file).unwrap();
        std::fs::write(&golden_spec, &json).unwrap();
    }
    // The same header (as JSON: the safetensors writer orders `__metadata__`'s keys as its
    // hash map does, which varies from run to run) and the same data, byte for byte.
    assert_eq!(
        split(&std::fs::read(&written).unwrap()),
        split(&std::fs::read(&golden_file).unwrap()),
        "a version-1 file is no longer written as before"
    );
    assert_eq!(json, std::fs::read_to_string(&golden_spec).unwrap());
    let back: Signal = extype::io::load_as(&golden_file).unwrap();
    assert_eq!(back, signal());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An unversioned type holding a `Signal`, and a `Vec` of them: its file, read by version 2 of
/// `Signal`, upgrades the nested values.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "golden.Recording")]
pub struct Recording {
    pub signal: Signal,
    pub takes: Vec<Signal>,
    #[extype(static)]
    pub take: u32,
}

#[test]
fn a_version_1_value_nested_in_another_type() {
    let recording = Recording::try_new(signal(), vec![signal(), signal()], 7).unwrap();
    let file = golden().join("recording_v1.safetensors");
    if std::env::var_os("EXTYPE_WRITE_GOLDEN").is_some() {
        extype::io::save(&file, &recording).unwrap();
    }
    let back: Recording = extype::io::load_as(&file).unwrap();
    assert_eq!(back, recording);
}

/// A stream of version-1 values in shard files (`shards_v1/signal-*.safetensors`).
#[test]
fn version_1_shards() {
    let dir = golden().join("shards_v1");
    if std::env::var_os("EXTYPE_WRITE_GOLDEN").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut writer = extype::io::ShardWriter::new(&dir, "signal", 1 << 20).unwrap();
        writer.append(&signal()).unwrap();
        writer.append(&signal()).unwrap();
        writer.finish().unwrap();
    }
    let back: Vec<extype::Value> = extype::io::ShardReader::open(&dir, "signal")
        .unwrap()
        .collect::<extype::Result<_>>()
        .unwrap();
    assert_eq!(back.len(), 2);
    assert_eq!(back[1].downcast_ref::<Signal>().unwrap(), &signal());
}

/// The values of `ArrayD<f32>` in the golden file (the later versions' tests compare with it).
#[test]
fn the_golden_values() {
    assert_eq!(signal().values, array![1.0f32, 2.0, 3.0].into_dyn());
    let _: ArrayD<f32> = signal().values;
}

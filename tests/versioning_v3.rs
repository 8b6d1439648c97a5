//! Version 3 of the type that was `golden.Signal` (version 1: `versioning_v1.rs`; version 2:
//! `versioning_v2.rs`), renamed `golden.Waveform` (`aliases`), with migrations chained across
//! versions: from 1, the field `values` becomes `samples` (what version 2's `alias` did); from
//! 2, the static rate in Hz becomes a period in microseconds. The mask and unit of version 2
//! keep their defaults. It loads the version-1 golden file and document, and writes the
//! version-3 golden file that version 2 refuses.

use extype::ExtensionType;
use extype::field::Static;
use extype::versioning::Stored;
use ndarray::{ArrayD, array};

fn all_valid(stored: &Stored) -> extype::Result<ArrayD<bool>> {
    Ok(ArrayD::from_elem(stored.tensor("samples")?.shape(), true))
}

/// Version 1 → 2: `values` is now `samples`.
fn from_v1(stored: &mut Stored) -> extype::Result<()> {
    stored.rename("values", "samples")
}

/// Version 2 → 3: the rate (Hz) becomes a period (µs).
fn from_v2(stored: &mut Stored) -> extype::Result<()> {
    let Static(rate) = stored.get::<Static<u32>>("rate")?;
    if rate == 0 {
        return Err(extype::Error::invalid("a rate of 0 Hz has no period"));
    }
    stored.remove("rate");
    stored.set("period_us", Static(1_000_000 / u64::from(rate)))
}

/// Version 3.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(
    name = "golden.Waveform",
    version = 3,
    aliases = ["golden.Signal"],
    migrate(from = 1, with = from_v1),
    migrate(from = 2, with = from_v2)
)]
pub struct Waveform {
    #[extype(shape = "n")]
    pub samples: ArrayD<f32>,
    #[extype(shape = "n", validity_of = samples, default = all_valid)]
    pub mask: ArrayD<bool>,
    #[extype(static)]
    pub period_us: u64,
    #[extype(static, default)]
    pub unit: String,
}

fn golden(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/versioning")
        .join(name)
}

fn expected() -> Waveform {
    Waveform::try_new(
        array![1.0f32, 2.0, 3.0].into_dyn(),
        array![true, true, true].into_dyn(),
        10_000,
        String::new(),
    )
    .unwrap()
}

#[test]
fn a_version_1_file_under_the_old_name_migrates_through_2_to_3() {
    let path = golden("signal_v1.safetensors");
    assert_eq!(extype::io::load_as::<Waveform>(&path).unwrap(), expected());
    let value = extype::io::load(&path).unwrap();
    assert_eq!(value.downcast_ref::<Waveform>().unwrap(), &expected());
    // The registry knows the old name as this type.
    let entry = extype::registry().get("golden.Signal").unwrap();
    assert_eq!(entry.name, "golden.Waveform");
    assert_eq!(entry.version(), 3);
}

#[test]
fn a_version_1_document_migrates_when_the_migrations_need_no_data() {
    let text = std::fs::read_to_string(golden("signal_v1.spec.json")).unwrap();
    let spec: WaveformSpec = extype::serial::spec_from_json(&text).unwrap();
    assert_eq!(spec, expected().spec());
    let json = extype::serial::spec_to_json(&spec).unwrap();
    assert!(
        json.contains(r#""version":3"#) && json.contains("golden.Waveform"),
        "{json}"
    );
}

#[test]
fn a_failing_migration_names_the_versions() {
    let text = std::fs::read_to_string(golden("signal_v1.spec.json"))
        .unwrap()
        .replace(r#""rate":100"#, r#""rate":0"#);
    let err = extype::serial::spec_from_json::<WaveformSpec>(&text)
        .unwrap_err()
        .to_string();
    assert!(err.contains("migration from version 2 to 3"), "{err}");
    assert!(err.contains("0 Hz"), "{err}");
}

/// The version-3 golden file (which version 2 refuses); rewritten with `EXTYPE_WRITE_GOLDEN=1`.
#[test]
fn the_version_3_golden_file() {
    let path = golden("signal_v3.safetensors");
    if std::env::var_os("EXTYPE_WRITE_GOLDEN").is_some() {
        extype::io::save(&path, &expected()).unwrap();
    }
    assert_eq!(extype::io::load_as::<Waveform>(&path).unwrap(), expected());
    assert_eq!(extype::io::inspect(&path).unwrap().type_version(), Some(3));
}

#[test]
fn check_compat_says_what_a_file_loads_as() {
    let compat = extype::io::check_compat(golden("signal_v1.safetensors")).unwrap();
    assert!(compat.loads(), "{compat}");
    assert_eq!(compat.stored_version, 1);
    assert_eq!(compat.current, Some(("golden.Waveform".to_string(), 3)));
    assert_eq!(
        compat.to_string(),
        "golden.Signal version 1: loads, upgraded to golden.Waveform version 3"
    );
    let current = extype::io::check_compat(golden("signal_v3.safetensors")).unwrap();
    assert!(
        current.to_string().ends_with("loads (the current version)"),
        "{current}"
    );
}

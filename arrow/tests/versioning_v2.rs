//! Version 2 of `golden.Reading` (version 1: `versioning_v1.rs`), renamed `golden.Measure`
//! (`aliases`) with a static `unit` added (`default`): the version-1 Arrow IPC and Parquet golden
//! files load as it, through the column's extension metadata (the spec document, upgraded as
//! any stored spec is); a column written by a newer version is an error naming both.

use std::collections::HashMap;
use std::sync::Arc;

use extype::ExtensionType;
use extype::ndarray::array;
use extype_arrow::arrow_array::RecordBatch;
use extype_arrow::arrow_schema::Schema;
use extype_arrow::{EXTENSION_METADATA, read_ipc_file, read_parquet, to_record_batch};

/// Version 2.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "golden.Measure", version = 2, aliases = ["golden.Reading"], batchable)]
pub struct Measure {
    pub values: extype::ndarray::ArrayD<f32>,
    #[extype(static)]
    pub rate: u32,
    #[extype(static, default)]
    pub unit: String,
}

fn golden(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/versioning")
        .join(name)
}

fn expected() -> Measure {
    Measure::try_new(
        array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn(),
        50,
        String::new(),
    )
    .unwrap()
}

#[test]
fn version_1_arrow_and_parquet_files_load_as_version_2() {
    for read in [
        read_ipc_file(golden("reading_v1.arrow")).unwrap(),
        read_parquet(golden("reading_v1.parquet")).unwrap(),
    ] {
        let back: Measure = extype_arrow::column_as(&read[0], "r").unwrap();
        assert_eq!(back, expected());
        // By the registry, too.
        let value = extype_arrow::column(&read[0], "r").unwrap();
        assert_eq!(value.downcast_ref::<Measure>().unwrap(), &expected());
    }
}

#[test]
fn version_2_writes_its_version_into_the_extension_metadata() {
    let rb = to_record_batch(&[("m", &extype::Value::from_extension(expected()))]).unwrap();
    let json = rb.schema().field(0).metadata()[EXTENSION_METADATA].clone();
    assert!(json.contains(r#""version":2"#), "{json}");
    let back: Measure = extype_arrow::column_as(&rb, "m").unwrap();
    assert_eq!(back, expected());
}

#[test]
fn a_column_of_a_newer_version_is_an_error_naming_both() {
    let read = read_parquet(golden("reading_v1.parquet")).unwrap();
    let rb = &read[0];
    let field = rb.schema().field(0).clone();
    let mut meta: HashMap<String, String> = field.metadata().clone();
    let json = meta[EXTENSION_METADATA].replace(
        r#""spec":"golden.Reading""#,
        r#""spec":"golden.Reading","version":5"#,
    );
    meta.insert(EXTENSION_METADATA.into(), json);
    let schema = Schema::new(vec![field.with_metadata(meta)]);
    let newer = RecordBatch::try_new(Arc::new(schema), rb.columns().to_vec()).unwrap();
    let err = extype_arrow::column_as::<Measure>(&newer, "r")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("version 5") && err.contains("up to 2"),
        "{err}"
    );
    assert!(err.contains("golden.Measure"), "{err}");
}

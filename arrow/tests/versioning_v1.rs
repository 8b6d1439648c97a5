//! Version 1 of `golden.Reading` as today's code writes it to Arrow IPC and Parquet: the
//! golden files `tests/golden/versioning/reading_v1.{arrow,parquet}` of the repository (read by
//! version 2 in `versioning_v2.rs`, a separate test binary: one program has one version of a
//! type). `EXTYPE_WRITE_GOLDEN=1` rewrites them; without it, the test checks they still load.

use extype::ExtensionType;
use extype::ndarray::{ArrayD, array};
use extype_arrow::{read_ipc_file, read_parquet, to_record_batch, write_ipc_file, write_parquet};

/// Version 1: readings and a sample rate.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "golden.Reading", batchable)]
pub struct Reading {
    pub values: ArrayD<f32>,
    #[extype(static)]
    pub rate: u32,
}

fn golden(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/versioning")
        .join(name)
}

#[test]
fn version_1_arrow_and_parquet_golden_files() {
    let a = Reading::try_new(array![1.0f32, 2.0].into_dyn(), 50).unwrap();
    let b = Reading::try_new(array![3.0f32, 4.0].into_dyn(), 50).unwrap();
    let batch = extype::batch::stack(&[a, b]).unwrap();
    let rb = to_record_batch(&[("r", &extype::Value::from_extension(batch.clone()))]).unwrap();
    let json = rb.schema().field(0).metadata()["ARROW:extension:metadata"].clone();
    assert!(!json.contains("version"), "{json}");
    // The same batch in the row layout (one variable-shape tensor per item), as a batch whose
    // components do not stack is written.
    let (field, array) =
        extype_arrow::to_row_array(&batch as &dyn extype::AnyExtension, "r").unwrap();
    let schema = std::sync::Arc::new(extype_arrow::arrow_schema::Schema::new(vec![field]));
    let rows = extype_arrow::arrow_array::RecordBatch::try_new(schema, vec![array]).unwrap();
    if std::env::var_os("EXTYPE_WRITE_GOLDEN").is_some() {
        write_ipc_file(golden("reading_v1.arrow"), std::slice::from_ref(&rb)).unwrap();
        write_parquet(golden("reading_v1.parquet"), std::slice::from_ref(&rb)).unwrap();
        write_ipc_file(golden("reading_rows_v1.arrow"), std::slice::from_ref(&rows)).unwrap();
    }
    for read in [
        read_ipc_file(golden("reading_v1.arrow")).unwrap(),
        read_parquet(golden("reading_v1.parquet")).unwrap(),
        read_ipc_file(golden("reading_rows_v1.arrow")).unwrap(),
    ] {
        let back: Reading = extype_arrow::column_as(&read[0], "r").unwrap();
        assert_eq!(back, batch);
    }
    let _: ArrayD<f32> = batch.values;
}

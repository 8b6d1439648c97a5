//! A version 2 of `golden.Reading` (version 1: `versioning_v1.rs`) that adds a tensor field: an
//! Arrow column's data is not upgraded (only its spec is), so reading the version-1 golden
//! files is an error naming the components, never a silent partial load.

use extype::ExtensionType;
use extype::ndarray::ArrayD;
use extype::versioning::Stored;
use extype_arrow::{read_ipc_file, read_parquet};

fn all_valid(stored: &Stored) -> extype::Result<ArrayD<bool>> {
    Ok(ArrayD::from_elem(stored.tensor("values")?.shape(), true))
}

/// Version 2, with a mask.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "golden.Reading", version = 2, batchable)]
pub struct Reading {
    pub values: ArrayD<f32>,
    #[extype(default = all_valid)]
    pub mask: ArrayD<bool>,
    #[extype(static)]
    pub rate: u32,
}

#[test]
fn a_tensor_field_added_since_is_an_error_in_an_arrow_column() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/versioning");
    for read in [
        read_ipc_file(dir.join("reading_v1.arrow")).unwrap(),
        read_parquet(dir.join("reading_v1.parquet")).unwrap(),
    ] {
        let err = extype_arrow::column_as::<Reading>(&read[0], "r")
            .unwrap_err()
            .to_string();
        assert!(err.contains("mask") && err.contains("values"), "{err}");
    }
}

//! A version 2 of `golden.Reading` (version 1: `versioning_v1.rs`) that adds a tensor field
//! whose default reads the other fields (an all-true mask shaped like the values): the
//! version-1 golden columns load with it filled, batch by batch (a column's leaves are read by
//! the names it gives, then upgraded as a file's components are), in each Arrow layout and for
//! part of a stored batch; validation runs on the result.

use extype::ExtensionType;
use extype::ndarray::{ArrayD, array};
use extype::versioning::Stored;
use extype_arrow::{read_ipc_file, read_parquet};

fn all_valid(stored: &Stored) -> extype::Result<ArrayD<bool>> {
    Ok(ArrayD::from_elem(stored.tensor("values")?.shape(), true))
}

/// Version 2, with a mask (each item's mask has its values' shape).
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "golden.Reading", version = 2, batchable, validate = same_shape)]
pub struct Reading {
    pub values: ArrayD<f32>,
    #[extype(default = all_valid)]
    pub mask: ArrayD<bool>,
    #[extype(static)]
    pub rate: u32,
}

fn same_shape(r: &Reading) -> extype::Result<()> {
    if r.values.shape() == r.mask.shape() {
        Ok(())
    } else {
        Err(extype::Error::invalid(
            "the mask is not shaped like the values",
        ))
    }
}

fn golden(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/versioning")
        .join(name)
}

fn expected(values: ArrayD<f32>) -> Reading {
    let mask = ArrayD::from_elem(values.shape(), true);
    Reading::try_new(values, mask, 50).unwrap()
}

#[test]
fn a_tensor_field_added_since_is_filled_in_arrow_and_parquet_columns() {
    let whole = expected(array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn());
    for (file, read) in [
        ("IPC", read_ipc_file(golden("reading_v1.arrow")).unwrap()),
        (
            "Parquet",
            read_parquet(golden("reading_v1.parquet")).unwrap(),
        ),
        (
            "IPC, row layout",
            read_ipc_file(golden("reading_rows_v1.arrow")).unwrap(),
        ),
    ] {
        let back: Reading =
            extype_arrow::column_as(&read[0], "r").unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(back, whole, "{file}");
        // By the registry, too.
        let value = extype_arrow::column(&read[0], "r").unwrap();
        assert_eq!(value.downcast_ref::<Reading>().unwrap(), &whole, "{file}");
        // Part of the stored batch (a chunk, an engine's slice): the spec's batch axis follows
        // the rows, and so does the filled mask.
        let second: Reading = extype_arrow::column_as(&read[0].slice(1, 1), "r")
            .unwrap_or_else(|e| panic!("{file}, row 1: {e}"));
        assert_eq!(second, expected(array![[3.0f32, 4.0]].into_dyn()), "{file}");
    }
}

#[test]
fn a_column_with_a_component_the_type_lost_is_an_error_naming_it() {
    // The version-1 column with an extra leaf `gain`: no field of version 2 has it.
    use extype_arrow::arrow_array::{ArrayRef, Float32Array, RecordBatch, StructArray};
    use extype_arrow::arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let read = read_ipc_file(golden("reading_v1.arrow")).unwrap();
    let field = read[0].schema().field(0).clone();
    let column = read[0]
        .column(0)
        .as_any()
        .downcast_ref::<StructArray>()
        .unwrap();
    let DataType::Struct(children) = field.data_type() else {
        panic!("a struct column")
    };
    let mut fields: Vec<Arc<Field>> = children.iter().cloned().collect();
    let mut arrays: Vec<ArrayRef> = column.columns().to_vec();
    fields.push(Arc::new(Field::new("gain", DataType::Float32, false)));
    arrays.push(Arc::new(Float32Array::from(vec![1.0f32, 2.0])));
    let st = StructArray::new(fields.clone().into(), arrays, None);
    let field = Field::new("r", DataType::Struct(fields.into()), false)
        .with_metadata(field.metadata().clone());
    let rb = RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![Arc::new(st)]).unwrap();
    let err = extype_arrow::column_as::<Reading>(&rb, "r")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("gain") && err.contains("no such field"),
        "{err}"
    );
}

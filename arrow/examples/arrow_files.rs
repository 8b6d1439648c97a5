//! A batch of masked tensors as an Arrow column, written as an IPC file and a Parquet file that
//! pyarrow, DuckDB, Polars or DataFusion read, and read back: `cargo run -p extype-arrow
//! --example arrow_files`.

use extype::ndarray::array;
use extype::types::MaskedTensor;
use extype::{Value, batch};
use extype_arrow::{
    column_as, read_ipc_file, read_parquet, to_record_batch, write_ipc_file, write_parquet,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let items = vec![
        MaskedTensor::new(array![1.0f32, 2.0, 3.0], array![true, false, true])?,
        MaskedTensor::new(array![4.0f32, 5.0, 6.0], array![false, true, true])?,
    ];
    let readings = batch::stack(&items)?; // one value: values [2, 3], mask [2, 3]
    let rb = to_record_batch(&[("readings", &Value::from_extension(readings.clone()))])?;
    let field = rb.schema().field(0).clone();
    println!("column `readings`: {}", field.data_type());
    println!(
        "  ARROW:extension:name = {}",
        field.metadata()["ARROW:extension:name"]
    );
    println!(
        "  ARROW:extension:metadata = {}",
        field.metadata()["ARROW:extension:metadata"]
    );

    let dir = std::env::temp_dir().join(format!("extype-arrow-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    write_ipc_file(dir.join("readings.arrow"), std::slice::from_ref(&rb))?;
    write_parquet(dir.join("readings.parquet"), std::slice::from_ref(&rb))?;
    // The mask is the values' validity bitmap: IPC keeps the values under it exactly; Parquet
    // stores no value for a null element, so those read back as zero.
    let back: MaskedTensor = column_as(&read_ipc_file(dir.join("readings.arrow"))?[0], "readings")?;
    assert_eq!(back, readings);
    let back: MaskedTensor =
        column_as(&read_parquet(dir.join("readings.parquet"))?[0], "readings")?;
    assert_eq!(back, readings.filled(&extype::ndarray::arr0(0.0f32))?);
    println!("read back from Parquet: {back}");
    println!(
        "in Python: pyarrow.parquet.read_table({:?}); duckdb.sql(\"SELECT list_avg(readings.values) FROM '{}'\") (masked readings are NULL)",
        dir.join("readings.parquet"),
        dir.join("readings.parquet").display()
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

//! SQL over a table of `extype.MaskedTensor` readings with DataFusion: filters and aggregates on
//! the components, the extension column kept on output, and extype ops as UDFs
//! (`cargo run -p extype-datafusion --example sql`).
//!
//! `tests/sql.rs` runs this same `main`.

use extype::types::MaskedTensor;
use extype_arrow::{EXTENSION_NAME, column_as, to_record_batch};
use extype_core::{Tensor, Value, batch, ops};
use extype_datafusion::datafusion::arrow::util::pretty::pretty_format_batches;
use extype_datafusion::datafusion::prelude::SessionContext;
use extype_datafusion::{register_batches, register_udfs};
use ndarray::array;

/// Four sensors, three readings each; `false` in the mask marks a failed reading.
fn readings() -> Result<MaskedTensor, Box<dyn std::error::Error>> {
    let rows = [
        ([20.5f32, 21.0, 99.0], [true, true, false]),
        ([18.0, 18.5, 19.0], [true, true, true]),
        ([-40.0, 22.0, 23.0], [false, true, true]),
        ([25.0, 24.0, 26.5], [true, true, true]),
    ];
    let items = rows
        .iter()
        .map(|(v, m)| {
            MaskedTensor::new(
                array![v[0], v[1], v[2]].into_dyn(),
                array![m[0], m[1], m[2]].into_dyn(),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(batch::stack(&items)?)
}

/// Runs the queries, prints their results and checks them against extype's own ops.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let m = readings()?;
    let site = Tensor::from(array![1i64, 2, 1, 2].into_dyn());
    let rb = to_record_batch(&[
        ("site", &Value::Tensor(site)),
        ("m", &Value::from_extension(m.clone())),
    ])?;

    let ctx = SessionContext::new();
    register_batches(&ctx, "readings", &[rb])?;
    register_udfs(&ctx);
    let sql = |q: &str| {
        println!("> {q}");
        let out = extype_datafusion::sql(&ctx, q)?;
        println!("{}", pretty_format_batches(&out)?);
        Ok::<_, Box<dyn std::error::Error>>(out)
    };

    // A filter on a component; the extension column comes back as itself.
    let hot = sql("SELECT m FROM readings WHERE m['values'][2] > 20.0")?;
    let field = hot[0].schema().field(0).clone();
    assert_eq!(field.metadata()[EXTENSION_NAME], "extype.MaskedTensor");
    let hot: MaskedTensor = column_as(&hot[0], "m")?;
    assert_eq!(hot, ops::gather_as(&m, &[0, 2, 3], 0)?);

    // An aggregate over a component, of the valid readings only (the mask is the values'
    // validity: a failed reading is NULL), grouped by a plain column.
    let first = sql(
        "SELECT site, count(*) AS n, max(m['values'][1]) AS first_max \
         FROM readings WHERE m['values'][1] IS NOT NULL GROUP BY site ORDER BY site",
    )?;
    let first_max = extype_arrow::column(&first[0], "first_max")?.into_tensor()?;
    assert_eq!(first_max, Tensor::from(array![20.5f32, 25.0].into_dyn()));

    // extype ops as UDFs: the masked mean of each row (an extype.MaskedTensor per row, valid
    // where the row has a valid reading), its values and mask by field access, and an aggregate
    // over the UDF's result.
    let means = sql("SELECT site, extype_reduce_mean(m) AS mean FROM readings")?;
    let mean: MaskedTensor = column_as(&means[0], "mean")?;
    assert_eq!(mean, ops::reduce_mean_as(&m, Some(&[1]), false)?);
    assert_eq!(
        means[0].schema().field(1).metadata()[EXTENSION_NAME],
        "extype.MaskedTensor"
    );
    sql(
        "SELECT site, avg(extype_reduce_mean(m)['values']) AS mean_of_means, \
         sum(extype_count_nonzero(m)['values']) AS nonzero \
         FROM readings GROUP BY site ORDER BY site",
    )?;
    Ok(())
}

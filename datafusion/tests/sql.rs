//! SQL over registered batches of extension values, and the extype-op UDFs, checked against
//! the same ops computed with extype directly.
//!
//! One test binary for the crate (and `test = false` for the library's empty unit tests): each
//! binary links DataFusion, about 300 MB in a debug build.

use std::collections::HashMap;
use std::sync::Arc;

use extype_datafusion::datafusion;

use datafusion::arrow::array::{Array, Int32Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::DataFusionError;
use datafusion::prelude::SessionContext;
use extype::types::{MaskedTensor, RaggedTensor, SparseTensor};
use extype_arrow::{
    EXTENSION_METADATA, EXTENSION_NAME, column, column_as, to_record_batch, value_to_array,
};
use extype_core::ops::{self, OpArgs};
use extype_core::{OpKind, Tensor, Value, batch};
use extype_datafusion::{ExtypeOpUdf, register_batches, register_parquet, register_udfs, udf_ops};
use ndarray::{ArrayD, IxDyn, array};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn run(ctx: &SessionContext, q: &str) -> Result<Vec<RecordBatch>, DataFusionError> {
    extype_datafusion::sql(ctx, q)
}

/// One record batch of the output (the queries here give few rows).
fn one(batches: Vec<RecordBatch>) -> RecordBatch {
    let schema = batches[0].schema();
    datafusion::arrow::compute::concat_batches(&schema, &batches).unwrap()
}

/// `n` MaskedTensor items of shape [2, 3], each with at least one valid element, values
/// distinct per item; and an `id` column 0..n.
fn masked_items(n: usize) -> MaskedTensor {
    let items: Vec<MaskedTensor> = (0..n)
        .map(|i| {
            let values = ArrayD::from_shape_fn(IxDyn(&[2, 3]), |ix| {
                ((i * 7 + ix[0] * 3 + ix[1]) % 11) as f32 - 4.0
            });
            let mask = ArrayD::from_shape_fn(IxDyn(&[2, 3]), |ix| (i + ix[0] + 2 * ix[1]) % 3 != 0);
            MaskedTensor::new(values, mask).unwrap()
        })
        .collect();
    batch::stack(&items).unwrap()
}

fn table(ctx: &SessionContext, m: &MaskedTensor) -> TestResult {
    let n = m.values().shape()[0];
    let id = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[n]), |ix| ix[0] as i64));
    let g = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[n]), |ix| (ix[0] % 2) as i64));
    let rb = to_record_batch(&[
        ("id", &Value::Tensor(id)),
        ("g", &Value::Tensor(g)),
        ("m", &Value::from_extension(m.clone())),
    ])?;
    // Two batches (two slices of the same one), so queries see more than one input batch.
    let half = n / 2;
    register_batches(ctx, "t", &[rb.slice(0, half), rb.slice(half, n - half)])?;
    register_udfs(ctx);
    Ok(())
}

#[test]
fn a_filter_keeps_the_extension_column_and_its_metadata() -> TestResult {
    let m = masked_items(6);
    let ctx = SessionContext::new();
    table(&ctx, &m)?;
    let out = one(run(
        &ctx,
        "SELECT m FROM t WHERE m['values'][1] > 0.0 ORDER BY id",
    )?);
    let field = out.schema().field(0).clone();
    assert_eq!(field.metadata()[EXTENSION_NAME], "extype.MaskedTensor");
    assert!(field.metadata().contains_key(EXTENSION_METADATA));
    // A masked-out element is NULL (the mask is the values' validity): never `> 0.0`.
    let first = m.values().as_array::<f32, IxDyn>()?;
    let valid = m.mask().as_array::<bool, IxDyn>()?;
    let keep: Vec<i64> = (0..6)
        .filter(|&i| valid[[i, 0, 0]] && first[[i, 0, 0]] > 0.0)
        .map(|i| i as i64)
        .collect();
    assert!(
        !keep.is_empty() && keep.len() < 6,
        "the filter must keep some rows: {keep:?}"
    );
    let back: MaskedTensor = column_as(&out, "m")?;
    assert_eq!(back, ops::gather_as(&m, &keep, 0)?);
    Ok(())
}

#[test]
fn aggregates_over_components_match_the_values() -> TestResult {
    let m = masked_items(8);
    let ctx = SessionContext::new();
    table(&ctx, &m)?;
    let out = one(run(
        &ctx,
        "SELECT g, count(*) AS n, sum(m['values'][1]) AS s FROM t GROUP BY g ORDER BY g",
    )?);
    let s = column(&out, "s")?.into_tensor()?;
    // The sum of the valid elements: a masked-out one is NULL.
    let first = m.values().as_array::<f32, IxDyn>()?;
    let valid = m.mask().as_array::<bool, IxDyn>()?;
    let expect = |g: usize| {
        (0..8)
            .filter(|&i| i % 2 == g && valid[[i, 0, 0]])
            .map(|i| first[[i, 0, 0]] as f64)
            .sum::<f64>()
    };
    // SQL's sum of a float column is f64.
    assert_eq!(s, Tensor::from(array![expect(0), expect(1)].into_dyn()));
    assert_eq!(
        column(&out, "n")?.into_tensor()?,
        Tensor::from(array![4i64, 4].into_dyn())
    );
    Ok(())
}

/// Every UDF whose op MaskedTensor supports gives, row by row, exactly extype's op over the item
/// axes; the output field carries the result's extension metadata.
#[test]
fn every_udf_matches_extype_directly() -> TestResult {
    let m = masked_items(6);
    let ctx = SessionContext::new();
    table(&ctx, &m)?;
    let supported = ops::supported(&m)?;
    let mut checked = Vec::new();
    for op in udf_ops().filter(|op| supported.contains(op)) {
        let name = format!("extype_{}", op.name());
        let args = match op.kind() {
            OpKind::Reduction => OpArgs::axes(&[1, 2]),
            _ => OpArgs::none(),
        };
        let query = format!("SELECT {name}(m) AS r FROM t ORDER BY id");
        let Ok(direct) = ops::call(op, &[extype_core::AsOperand::as_operand(&m)], &args) else {
            // An op the values' dtype does not take: a planning error naming the function.
            let e = plan_error(&ctx, &query);
            assert!(e.contains(&format!("{name}: argument 0")), "{e}");
            continue;
        };
        let out = one(run(&ctx, &query)?);
        let (field, expected) = value_to_array(&direct, "r")?;
        assert_eq!(out.column(0).to_data(), expected.to_data(), "{name}");
        assert_eq!(
            out.schema().field(0).metadata().get(EXTENSION_NAME),
            field.metadata().get(EXTENSION_NAME),
            "{name}"
        );
        checked.push(name);
    }
    for name in [
        "extype_reduce_sum",
        "extype_reduce_mean",
        "extype_reduce_max",
        "extype_reduce_min",
        "extype_abs",
    ] {
        assert!(
            checked.iter().any(|c| c == name),
            "{name} not checked: {checked:?}"
        );
    }
    Ok(())
}

#[test]
fn the_masked_mean_per_row_is_a_masked_tensor_column() -> TestResult {
    let m = masked_items(5);
    let ctx = SessionContext::new();
    table(&ctx, &m)?;
    let out = one(run(
        &ctx,
        "SELECT extype_reduce_mean(m) AS mean FROM t ORDER BY id",
    )?);
    assert_eq!(
        out.schema().field(0).metadata()[EXTENSION_NAME],
        "extype.MaskedTensor"
    );
    let mean: MaskedTensor = column_as(&out, "mean")?;
    assert_eq!(mean, ops::reduce_mean_as(&m, Some(&[1, 2]), false)?);
    // After a filter (rows taken out of both input batches) and in an aggregate.
    let out = one(run(
        &ctx,
        "SELECT extype_reduce_sum(m) AS s FROM t WHERE id % 2 = 1 ORDER BY id",
    )?);
    let s: MaskedTensor = column_as(&out, "s")?;
    let odd: MaskedTensor = ops::gather_as(&m, &[1, 3], 0)?;
    assert_eq!(s, ops::reduce_sum_as(&odd, Some(&[1, 2]), false)?);
    let out = one(run(
        &ctx,
        "SELECT max(extype_reduce_max(m)['values']) AS top FROM t",
    )?);
    let top = ops::reduce_max_as::<MaskedTensor>(&m, None, false)?;
    let got = column(&out, "top")?.into_tensor()?;
    let got: Vec<f32> = got.as_array::<f32, IxDyn>()?.iter().copied().collect();
    let want: Vec<f32> = top
        .values()
        .as_array::<f32, IxDyn>()?
        .iter()
        .copied()
        .collect();
    assert_eq!(got, want);
    Ok(())
}

#[test]
fn a_dense_tensor_column_dispatches_to_the_dense_op() -> TestResult {
    let x = Tensor::from(array![[1.0f64, -2.0, 3.0], [4.0, 5.0, -6.0]].into_dyn());
    let rb = to_record_batch(&[("x", &Value::Tensor(x.clone()))])?;
    let ctx = SessionContext::new();
    register_batches(&ctx, "d", &[rb])?;
    register_udfs(&ctx);
    let out = one(run(
        &ctx,
        "SELECT extype_reduce_sum(extype_abs(x)) AS s FROM d",
    )?);
    let direct: Tensor = ops::reduce_sum_as(&ops::abs(&x)?, Some(&[1]), false)?;
    assert_eq!(column(&out, "s")?.into_tensor()?, direct);
    Ok(())
}

#[path = "support/weighted.rs"]
mod weighted;
use weighted::Weighted;

/// Three items of a RaggedTensor batch (ragged rank 2: each item a ragged tensor of rows of
/// varying length), one with an empty row.
fn ragged_batch() -> RaggedTensor {
    let item = |values: Vec<f32>, splits: Vec<i64>| {
        RaggedTensor::from_row_splits(
            Tensor::from(ArrayD::from_shape_vec(IxDyn(&[values.len()]), values).unwrap()),
            Tensor::from(ArrayD::from_shape_vec(IxDyn(&[splits.len()]), splits).unwrap()),
        )
        .unwrap()
    };
    batch::stack(&[
        item(vec![1.0, -2.0, 3.0], vec![0, 2, 3]),
        item(vec![-4.0, 5.5, -6.0, 7.0], vec![0, 0, 1, 4]),
        item(vec![-8.0], vec![0, 1]),
    ])
    .unwrap()
}

/// Three sparse items of dense shape [2, 3] as one SparseTensor batch (dense shape [3, 2, 3]).
fn sparse_batch() -> SparseTensor {
    let items = [
        SparseTensor::new(array![[0i64, 1]], array![-1.5f32], &[2, 3]).unwrap(),
        SparseTensor::new(array![[1i64, 0], [1, 2]], array![2.0f32, -3.0], &[2, 3]).unwrap(),
        SparseTensor::new(
            ndarray::Array2::<i64>::zeros((0, 2)),
            ndarray::Array1::<f32>::zeros(0),
            &[2, 3],
        )
        .unwrap(),
    ];
    batch::stack(&items).unwrap()
}

fn weighted_batch() -> Weighted {
    let values = Tensor::from(array![[1.0f32, -2.0], [3.0, -4.0], [-5.0, 6.0]].into_dyn());
    let weights = Tensor::from(array![[1.0f32, 0.5], [2.0, 0.0], [1.0, 1.0]].into_dyn());
    Weighted::try_new(values, weights).unwrap()
}

/// A table `t` of one column `c`, the batch `b`.
fn one_column(b: Value) -> Result<SessionContext, Box<dyn std::error::Error>> {
    let ctx = SessionContext::new();
    register_batches(&ctx, "t", &[to_record_batch(&[("c", &b)])?])?;
    register_udfs(&ctx);
    Ok(ctx)
}

/// `extype_reduce_sum(c)` (over the item axes) equals `reduce_sum` called directly, as a dense
/// column.
fn check_reduce_sum(ctx: &SessionContext, direct: Tensor) -> TestResult {
    let out = one(run(ctx, "SELECT extype_reduce_sum(c) AS s FROM t")?);
    assert_eq!(column(&out, "s")?.into_tensor()?, direct);
    Ok(())
}

#[test]
fn udfs_on_a_ragged_tensor_column_match_extype_directly() -> TestResult {
    let r = ragged_batch();
    let ctx = one_column(Value::from_extension(r.clone()))?;
    // Planning reads the row layout's empty column as an empty batch.
    check_reduce_sum(&ctx, ops::reduce_sum_as(&r, Some(&[1, 2]), false)?)?;
    let out = one(run(&ctx, "SELECT extype_abs(c) AS a FROM t")?);
    assert_eq!(
        out.schema().field(0).metadata()[EXTENSION_NAME],
        "extype.RaggedTensor"
    );
    let a: RaggedTensor = column_as(&out, "a")?;
    assert_eq!(a, ops::abs_as::<RaggedTensor>(&r)?);
    Ok(())
}

#[test]
fn udfs_on_a_sparse_tensor_column_match_extype_directly() -> TestResult {
    let st = sparse_batch();
    let ctx = one_column(Value::from_extension(st.clone()))?;
    check_reduce_sum(&ctx, ops::reduce_sum_as(&st, Some(&[1, 2]), false)?)?;
    let out = one(run(&ctx, "SELECT extype_abs(c) AS a FROM t")?);
    assert_eq!(
        out.schema().field(0).metadata()[EXTENSION_NAME],
        "extype.SparseTensor"
    );
    let a: SparseTensor = column_as(&out, "a")?;
    assert_eq!(a, ops::abs_as::<SparseTensor>(&st)?);
    Ok(())
}

#[test]
fn udfs_on_a_derived_user_type_match_extype_directly() -> TestResult {
    let w = weighted_batch();
    let ctx = one_column(Value::from_extension(w.clone()))?;
    check_reduce_sum(&ctx, ops::reduce_sum_as(&w, Some(&[1]), false)?)?;
    let out = one(run(&ctx, "SELECT extype_abs(c) AS a FROM t")?);
    assert_eq!(
        out.schema().field(0).metadata()[EXTENSION_NAME],
        "test.Weighted"
    );
    let a: Weighted = column_as(&out, "a")?;
    assert_eq!(a, ops::abs_as::<Weighted>(&w)?);
    Ok(())
}

fn plan_error(ctx: &SessionContext, q: &str) -> String {
    run(ctx, q).expect_err(q).to_string()
}

#[test]
fn errors_name_the_function_the_argument_and_what_was_found() -> TestResult {
    let m = masked_items(2);
    let ctx = SessionContext::new();
    table(&ctx, &m)?;
    // A plain column.
    let e = plan_error(&ctx, "SELECT extype_reduce_mean(id) FROM t");
    assert!(e.contains("extype_reduce_mean: argument 0"), "{e}");
    assert!(
        e.contains("field `id` of type Int64 without extension metadata"),
        "{e}"
    );

    // An extension name no type of this program registers.
    let meta = HashMap::from([(EXTENSION_NAME.to_string(), "acme.Unknown".to_string())]);
    let schema = Schema::new(vec![
        Field::new("u", DataType::Int32, false).with_metadata(meta),
    ]);
    let rb = RecordBatch::try_new(
        Arc::new(schema),
        vec![Arc::new(Int32Array::from(vec![1, 2]))],
    )?;
    register_batches(&ctx, "u", &[rb])?;
    let e = plan_error(&ctx, "SELECT extype_reduce_sum(u) FROM u");
    assert!(
        e.contains("extype_reduce_sum: argument 0: unknown extension name `acme.Unknown`"),
        "{e}"
    );
    assert!(
        e.contains("extype.MaskedTensor"),
        "lists the registered names: {e}"
    );

    // No handler: a mean of booleans.
    let b = Tensor::from(array![[true, false], [true, true]].into_dyn());
    register_batches(&ctx, "b", &[to_record_batch(&[("b", &Value::Tensor(b))])?])?;
    let e = plan_error(&ctx, "SELECT extype_reduce_mean(b) FROM b");
    assert!(
        e.contains("extype_reduce_mean: argument 0 (field `b`): no handler of `reduce_mean`"),
        "{e}"
    );

    // Not an op a UDF is made of; an empty table.
    let e = ExtypeOpUdf::new(&extype_core::ops::catalog::ADD)
        .unwrap_err()
        .to_string();
    assert!(e.contains("op `add` is of kind BinaryElementwise"), "{e}");
    let e = register_batches(&ctx, "e", &[]).unwrap_err().to_string();
    assert!(e.contains("register_batches: table `e`"), "{e}");
    Ok(())
}

#[test]
fn block_on_inside_a_runtime_is_an_error_not_a_stall() -> TestResult {
    let inner = extype_datafusion::block_on(async { extype_datafusion::block_on(async {}) })?;
    let e = inner.unwrap_err().to_string();
    assert!(e.contains("block_on: called inside a tokio runtime"), "{e}");
    Ok(())
}

/// Parquet files and datasets as tables.
#[path = "sql/datasets.rs"]
mod datasets;

/// `examples/sql.rs` (its queries check their results against extype's own ops), so the
/// README's `cargo run -p extype-datafusion --example sql` is tested by `cargo test`.
#[path = "../examples/sql.rs"]
mod example;

#[test]
fn the_sql_example_runs_and_its_checks_pass() {
    example::main().unwrap();
}

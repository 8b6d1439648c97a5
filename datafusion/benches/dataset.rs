//! A query over a Parquet dataset with an extype UDF against the same op over the batches read
//! by hand: `cargo bench -p extype-datafusion --bench dataset`.
//!
//! A partitioned dataset (`part=0` … `part=3`, one file each, as [`extype_arrow::write_parquet`]
//! writes them) is written once per case, then timed in interleaved rounds:
//! - `query`: `SELECT extype_reduce_sum(c) FROM t`, the dataset registered with
//!   [`register_parquet`] and the UDFs with [`register_udfs`], planned and run to its batches
//!   each round ([`extype_datafusion::sql`]: the dataset's scan, a row group at a time with
//!   extype-arrow's reader, DataFusion's default session);
//! - `by hand`: each file read with [`extype_arrow::read_parquet`], the column read as an
//!   extype batch ([`extype_arrow::from_array`]), `reduce_sum` over the item axes, the result
//!   back to Arrow ([`extype_arrow::value_to_array`]): the UDF's own steps, files one after
//!   the other.
//!
//! Cases: 1 Mi `MaskedTensor` items of 8 `f32` (the Arrow bench's batch), and 64 Ki
//! `RaggedTensor` items of ragged rank 2 (~7 Mi `f32`, the Arrow bench's `ragged` batch).
//! The summary prints both medians and their ratio (target: the query at least as fast).

#[path = "../../benches/common/timing.rs"]
mod timing;

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::Criterion;
use extype::ndarray::{Array1, ArrayD, IxDyn};
use extype::types::{MaskedTensor, RaggedTensor};
use extype::{Tensor, TensorView, Value};
use extype_arrow::arrow_array::RecordBatch;
use extype_core::ops::{self, OpArgs, catalog};
use extype_core::{AsOperand, ExtensionType};
use extype_datafusion::datafusion::prelude::SessionContext;
use extype_datafusion::{register_parquet, register_udfs, sql};
use timing::medians;

const PARTS: usize = 4;

fn masked() -> MaskedTensor {
    let (items, width) = (1usize << 20, 8usize);
    let values = ArrayD::from_shape_fn(IxDyn(&[items, width]), |i| {
        ((i[0] * width + i[1]) % 1000) as f32 * 0.5
    });
    let mask = ArrayD::from_shape_fn(IxDyn(&[items, width]), |i| {
        !(i[0] * width + i[1]).is_multiple_of(3)
    });
    MaskedTensor::new(values, mask).unwrap()
}

/// The Arrow bench's ragged batch: item `i` has `i % 16` rows, row `k` `(i + 7k) % 32` values.
fn ragged() -> RaggedTensor {
    let (mut outer, mut inner, mut n) = (vec![0i64], vec![0i64], 0i64);
    for i in 0..(1usize << 16) {
        for k in 0..i % 16 {
            n += ((i + 7 * k) % 32) as i64;
            inner.push(n);
        }
        outer.push(inner.len() as i64 - 1);
    }
    let values: Vec<f32> = (0..n).map(|v| (v % 1000) as f32 * 0.5).collect();
    let t = |v: Vec<i64>| Tensor::from(Array1::from(v).into_dyn());
    RaggedTensor::from_nested_row_splits(
        Tensor::from(Array1::from(values).into_dyn()),
        vec![t(outer), t(inner)],
    )
    .unwrap()
}

/// `b` split into [`PARTS`] files `dir/part=k/data.parquet`, column `c`.
fn write_dataset<T: ExtensionType>(b: T, dir: &Path) {
    let rb = extype_arrow::to_record_batch(&[("c", &Value::from_extension(b))]).unwrap();
    let share = rb.num_rows().div_ceil(PARTS);
    for k in 0..PARTS {
        let start = (k * share).min(rb.num_rows());
        let len = share.min(rb.num_rows() - start);
        let part = dir.join(format!("part={k}"));
        std::fs::create_dir_all(&part).unwrap();
        extype_arrow::write_parquet(part.join("data.parquet"), &[rb.slice(start, len)]).unwrap();
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = (0..PARTS)
        .map(|k| dir.join(format!("part={k}")).join("data.parquet"))
        .collect();
    out.sort();
    out
}

/// The query, to its rows (and the sum of every row's result, to check against by hand).
fn query(ctx: &SessionContext) -> (usize, f64) {
    let out = sql(ctx, "SELECT extype_reduce_sum(c) AS s FROM t").unwrap();
    totals(&out, "s")
}

/// The UDF's steps on every batch of every file, read with extype-arrow's reader.
fn by_hand(files: &[PathBuf]) -> (usize, f64) {
    let mut results = Vec::new();
    for f in files {
        for rb in extype_arrow::read_parquet(f).unwrap() {
            let schema = rb.schema();
            let i = schema.index_of("c").unwrap();
            let value = extype_arrow::from_array(schema.field(i), rb.column(i).as_ref()).unwrap();
            let rank = ops::rank(&value).unwrap();
            let axes: Vec<isize> = (1..rank as isize).collect();
            let sum = ops::call(
                &catalog::REDUCE_SUM,
                &[value.as_operand()],
                &OpArgs::axes(&axes),
            )
            .unwrap();
            let (field, array) = extype_arrow::value_to_array(&sum, "s").unwrap();
            results.push(
                RecordBatch::try_new(
                    std::sync::Arc::new(extype_arrow::arrow_schema::Schema::new(vec![field])),
                    vec![array],
                )
                .unwrap(),
            );
        }
    }
    totals(&results, "s")
}

/// The rows of `batches` and the sum of their column `name`'s values (a `MaskedTensor`'s
/// masked-out elements as zero).
fn totals(batches: &[RecordBatch], name: &str) -> (usize, f64) {
    let mut rows = 0;
    let mut total = 0.0f64;
    for b in batches {
        rows += b.num_rows();
        let value = extype_arrow::column(b, name).unwrap();
        let dense = match &value {
            Value::Tensor(t) => t.clone(),
            Value::Extension(_) => {
                let m = value.downcast_ref::<MaskedTensor>().unwrap();
                m.filled(&extype::ndarray::arr0(0.0f32))
                    .unwrap()
                    .values()
                    .clone()
            }
        };
        total += match dense.view() {
            TensorView::F32(a) => a.iter().map(|&x| f64::from(x)).sum::<f64>(),
            other => panic!("a sum of dtype {:?}", other.dtype()),
        };
    }
    (rows, total)
}

fn dataset_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("extype-df-bench-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn case(name: &str, dir: &Path) {
    let ctx = SessionContext::new();
    register_parquet(&ctx, "t", dir).unwrap();
    register_udfs(&ctx);
    let files = files(dir);
    let (a, b) = (query(&ctx), by_hand(&files));
    assert_eq!(a.0, b.0, "{name}: rows");
    assert!(
        (a.1 - b.1).abs() <= 1e-9 * b.1.abs().max(1.0),
        "{name}: totals {} and {}",
        a.1,
        b.1
    );
    let t = medians(
        9,
        &mut [
            &mut || {
                black_box(query(&ctx));
            },
            &mut || {
                black_box(by_hand(&files));
            },
        ],
    );
    println!(
        "  {name}: query {:.1} ms, by hand {:.1} ms; speed ratio {:.2} (target >= 1.00)",
        t[0] / 1e6,
        t[1] / 1e6,
        t[1] / t[0]
    );
}

fn benches(c: &mut Criterion) {
    let dir = dataset_dir("criterion");
    write_dataset(masked(), &dir);
    let ctx = SessionContext::new();
    register_parquet(&ctx, "t", &dir).unwrap();
    register_udfs(&ctx);
    let files = files(&dir);
    let mut g = c.benchmark_group("dataset");
    g.sample_size(10);
    g.bench_function("masked: query", |x| x.iter(|| query(&ctx)));
    g.bench_function("masked: by hand", |x| x.iter(|| by_hand(&files)));
    g.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}

fn summary() {
    println!(
        "\nsummary (medians of interleaved rounds, this run; {PARTS} partitions, one file each)"
    );
    let dir = dataset_dir("masked");
    write_dataset(masked(), &dir);
    case("1 Mi MaskedTensor items of 8 f32, extype_reduce_sum", &dir);
    std::fs::remove_dir_all(&dir).unwrap();
    let dir = dataset_dir("ragged");
    write_dataset(ragged(), &dir);
    case(
        "64 Ki RaggedTensor items (7.2 Mi f32), extype_reduce_sum",
        &dir,
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn main() {
    timing::run(benches, summary);
}

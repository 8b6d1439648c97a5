//! Parquet files and Hive-partitioned datasets as tables (`register_parquet`): queries over
//! them match the same queries over the values in memory, whatever the partitions and batch
//! sizes; filters on partition columns skip files; the errors name the file.

use super::*;

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("extype-df-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `m` as a Hive-partitioned Parquet dataset under `dir`: `files` files, each a slice of the
/// rows (`part=0/…`, `part=1/…` in turn), written by `extype_arrow::write_parquet`. Returns the
/// in-memory Arrow size of the record batches written.
fn write_dataset(
    dir: &std::path::Path,
    m: &MaskedTensor,
    files: usize,
) -> Result<usize, Box<dyn std::error::Error>> {
    let n = m.values().shape()[0];
    let id = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[n]), |ix| ix[0] as i64));
    let rb = to_record_batch(&[
        ("id", &Value::Tensor(id)),
        ("m", &Value::from_extension(m.clone())),
    ])?;
    let per = n.div_ceil(files);
    // The whole batch's buffers (a slice reports the buffers it shares with the others).
    for f in 0..files {
        let part = dir.join(format!("part={}", f % 2));
        std::fs::create_dir_all(&part)?;
        let slice = rb.slice(f * per, per.min(n - f * per));
        extype_arrow::write_parquet(part.join(format!("f{f}.parquet")), &[slice])?;
    }
    Ok(rb.get_array_memory_size())
}

#[test]
fn sql_on_a_parquet_dataset_matches_the_values_in_memory() -> TestResult {
    let m = masked_items(40);
    let dir = TempDir::new("dataset");
    write_dataset(&dir.0, &m, 4)?;
    let ctx = SessionContext::new();
    register_parquet(&ctx, "ds", &dir.0)?;
    register_udfs(&ctx);
    // The dataset's masked means, row by row (ordered by id across files and partitions).
    let out = one(run(
        &ctx,
        "SELECT id, part, extype_reduce_mean(m) AS mean FROM ds ORDER BY id",
    )?);
    assert_eq!(out.num_rows(), 40);
    let mean: MaskedTensor = column_as(&out, "mean")?;
    assert_eq!(mean, ops::reduce_mean_as(&m, Some(&[1, 2]), false)?);
    // The same query over the batches in memory.
    let mem = SessionContext::new();
    table(&mem, &m)?;
    let in_memory = one(run(
        &mem,
        "SELECT extype_reduce_mean(m) AS mean FROM t ORDER BY id",
    )?);
    assert_eq!(out.column(2).to_data(), in_memory.column(0).to_data());
    // The extension column selected from the dataset reads back as itself; a partition column
    // filters.
    let out = one(run(&ctx, "SELECT m FROM ds WHERE part = '1' ORDER BY id")?);
    assert_eq!(
        out.schema().field(0).metadata()[EXTENSION_NAME],
        "extype.MaskedTensor"
    );
    let back: MaskedTensor = column_as(&out, "m")?;
    // Files 1 and 3 (rows 10..20 and 30..40) are under part=1. Parquet stores no value under a
    // false mask (a null), and DataFusion's reader leaves what it likes there: compared filled.
    let rows: Vec<i64> = (10..20).chain(30..40).collect();
    let zero = ndarray::arr0(0.0f32);
    let want: MaskedTensor = ops::gather_as(&m, &rows, 0)?;
    assert_eq!(back.filled(&zero)?, want.filled(&zero)?);

    // One file alone.
    let file = dir.0.join("part=0").join("f0.parquet");
    register_parquet(&ctx, "one", &file)?;
    let out = one(run(&ctx, "SELECT m FROM one ORDER BY id")?);
    let back: MaskedTensor = column_as(&out, "m")?;
    let want: MaskedTensor = ops::gather_as(&m, &(0..10).collect::<Vec<i64>>(), 0)?;
    assert_eq!(back.filled(&zero)?, want.filled(&zero)?);
    Ok(())
}

#[test]
fn register_parquet_errors_say_what_where_expected_and_found() -> TestResult {
    let ctx = SessionContext::new();
    let dir = TempDir::new("errors");
    let missing = dir.0.join("missing");
    let e = register_parquet(&ctx, "x", &missing)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("register_parquet: table `x`") && e.contains("missing"),
        "{e}"
    );
    assert!(
        e.contains("expected a Parquet file or a directory of them"),
        "{e}"
    );
    let e = register_parquet(&ctx, "x", &dir.0).unwrap_err().to_string();
    assert!(e.contains("found none in it"), "{e}");
    // A dataset with a non-Parquet file.
    write_dataset(&dir.0, &masked_items(4), 2)?;
    let notes = dir.0.join("part=0").join("notes.txt");
    std::fs::write(&notes, "not parquet")?;
    let e = register_parquet(&ctx, "x", &dir.0).unwrap_err().to_string();
    assert!(
        e.contains("notes.txt") && e.contains("expected a Parquet file"),
        "{e}"
    );
    // An Arrow IPC file named .parquet: what it is.
    std::fs::remove_file(&notes)?;
    let ipc = dir.0.join("part=1").join("x.parquet");
    let rb = to_record_batch(&[("m", &Value::from_extension(masked_items(2)))])?;
    extype_arrow::write_ipc_file(&ipc, &[rb])?;
    let e = register_parquet(&ctx, "x", &dir.0).unwrap_err().to_string();
    assert!(
        e.contains("x.parquet") && e.contains("is an Arrow IPC file"),
        "{e}"
    );
    Ok(())
}

/// The dataset is scanned as the query runs: a memory pool a quarter of the dataset's in-memory
/// size runs an aggregate over all of it (8,000 rows, 8 files: 262,592 bytes, a pool of
/// 65,648); a grouping by row in a 4 KiB pool is DataFusion's resources-exhausted error.
#[test]
fn an_aggregate_over_a_dataset_runs_in_a_quarter_of_its_memory() -> TestResult {
    use datafusion::execution::runtime_env::RuntimeEnvBuilder;
    use datafusion::prelude::SessionConfig;
    let m = masked_items(8000);
    let dir = TempDir::new("streaming");
    let bytes = write_dataset(&dir.0, &m, 8)?;
    let pool = bytes / 4;
    let on_disk: u64 = ["part=0", "part=1"]
        .iter()
        .flat_map(|p| std::fs::read_dir(dir.0.join(p)).unwrap())
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    println!("dataset: {bytes} bytes in memory, {on_disk} in its files; pool: {pool} bytes");
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_limit(pool, 1.0)
        .build_arc()?;
    let ctx =
        SessionContext::new_with_config_rt(SessionConfig::new().with_batch_size(1024), runtime);
    register_parquet(&ctx, "ds", &dir.0)?;
    register_udfs(&ctx);
    let out = one(run(
        &ctx,
        "SELECT count(*) AS n, sum(extype_reduce_sum(m)['values']) AS s FROM ds",
    )?);
    assert_eq!(
        column(&out, "n")?.into_tensor()?,
        Tensor::from(array![8000i64].into_dyn())
    );
    let sums: MaskedTensor = ops::reduce_sum_as(&m, Some(&[1, 2]), false)?;
    let want: f64 = sums
        .values()
        .as_array::<f32, IxDyn>()?
        .iter()
        .map(|&v| v as f64)
        .sum();
    let got = column(&out, "s")?.into_tensor()?;
    assert_eq!(got, Tensor::from(array![want].into_dyn()));
    // For contrast: a grouping by every row's id holds a hash table of all the groups, which a
    // pool of 4 KiB does not take.
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_limit(4096, 1.0)
        .build_arc()?;
    let small = SessionContext::new_with_config_rt(SessionConfig::new(), runtime);
    register_parquet(&small, "ds", &dir.0)?;
    register_udfs(&small);
    let e = run(
        &small,
        "SELECT id, sum(extype_reduce_sum(m)['values']) AS s FROM ds GROUP BY id",
    )
    .expect_err("a 4 KiB pool");
    assert!(e.to_string().contains("Resources exhausted"), "{e}");
    Ok(())
}

/// `n` RaggedTensor items of ragged rank 2: item `i` has `i % 4` rows, its row `k` has
/// `(i + k) % 3` values (empty items and empty rows among them).
fn ragged_items(n: usize) -> RaggedTensor {
    let items: Vec<RaggedTensor> = (0..n)
        .map(|i| {
            let mut splits = vec![0i64];
            for k in 0..i % 4 {
                splits.push(splits[k] + ((i + k) % 3) as i64);
            }
            let len = *splits.last().unwrap() as usize;
            let values: Vec<f32> = (0..len).map(|v| (i * 5 + v) as f32 * 0.25 - 3.0).collect();
            RaggedTensor::from_row_splits(
                Tensor::from(ArrayD::from_shape_vec(IxDyn(&[len]), values).unwrap()),
                Tensor::from(ArrayD::from_shape_vec(IxDyn(&[splits.len()]), splits).unwrap()),
            )
            .unwrap()
        })
        .collect();
    batch::stack(&items).unwrap()
}

/// `r` with an `id` column as a dataset under `dir`: `part=a/plain.parquet` (the first third of
/// the rows, plain pages, row groups of 97 rows), `part=b/dict.parquet` (the second third,
/// dictionary-encoded pages: arrow-rs's reader reads those) and `part=b/plain.parquet` (the
/// rest, one row group).
fn write_ragged_dataset(dir: &std::path::Path, r: &RaggedTensor) -> TestResult {
    use extype_arrow::parquet::file::properties::WriterProperties;
    let n = r.nrows();
    let id = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[n]), |ix| ix[0] as i64));
    let rb = to_record_batch(&[
        ("id", &Value::Tensor(id)),
        ("r", &Value::from_extension(r.clone())),
    ])?;
    let third = n / 3;
    for part in ["part=a", "part=b"] {
        std::fs::create_dir_all(dir.join(part))?;
    }
    let small_groups = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_max_row_group_row_count(Some(97))
        .build();
    extype_arrow::write_parquet_with(
        dir.join("part=a/plain.parquet"),
        &[rb.slice(0, third)],
        small_groups,
    )?;
    let dictionary = WriterProperties::builder()
        .set_dictionary_enabled(true)
        .build();
    extype_arrow::write_parquet_with(
        dir.join("part=b/dict.parquet"),
        &[rb.slice(third, third)],
        dictionary,
    )?;
    extype_arrow::write_parquet(
        dir.join("part=b/plain.parquet"),
        &[rb.slice(2 * third, n - 2 * third)],
    )?;
    Ok(())
}

/// A session with `partitions` target partitions and batches of `batch_size` rows, the dataset
/// at `dir` registered as `ds`, the UDFs too.
fn dataset_session(
    dir: &std::path::Path,
    partitions: usize,
    batch_size: usize,
) -> Result<SessionContext, Box<dyn std::error::Error>> {
    use datafusion::prelude::SessionConfig;
    let config = SessionConfig::new()
        .with_target_partitions(partitions)
        .with_batch_size(batch_size);
    let ctx = SessionContext::new_with_config(config);
    register_parquet(&ctx, "ds", dir)?;
    register_udfs(&ctx);
    Ok(ctx)
}

#[test]
fn ragged_row_sums_over_a_dataset_match_extype_whatever_the_partitions_and_batches() -> TestResult {
    let r = ragged_items(1000);
    let dir = TempDir::new("ragged");
    write_ragged_dataset(&dir.0, &r)?;
    let want: Tensor = ops::reduce_sum_as(&r, Some(&[1, 2]), false)?;
    for (partitions, batch_size) in [(1, 8192), (2, 8192), (3, 7), (8, 50)] {
        let ctx = dataset_session(&dir.0, partitions, batch_size)?;
        let plan = one(run(&ctx, "EXPLAIN SELECT extype_reduce_sum(r) FROM ds")?);
        let text = datafusion::arrow::util::pretty::pretty_format_batches(&[plan])?.to_string();
        assert!(text.contains("ExtypeParquetScan"), "{text}");
        let out = one(run(
            &ctx,
            "SELECT id, extype_reduce_sum(r) AS s FROM ds ORDER BY id",
        )?);
        assert_eq!(
            column(&out, "s")?.into_tensor()?,
            want,
            "{partitions} partitions, batches of {batch_size}"
        );
        // The ragged column itself reads back as written, in batches of at most the batch size.
        let batches = run(&ctx, "SELECT r FROM ds")?;
        assert!(
            batches.iter().all(|b| b.num_rows() <= batch_size),
            "batches of {batch_size} rows at most"
        );
        let out = one(run(&ctx, "SELECT r FROM ds ORDER BY id")?);
        let back: RaggedTensor = column_as(&out, "r")?;
        assert_eq!(back, r);
        // A count reads no column.
        let out = one(run(&ctx, "SELECT count(*) AS n FROM ds")?);
        assert_eq!(
            column(&out, "n")?.into_tensor()?,
            Tensor::from(array![1000i64].into_dyn())
        );
    }
    Ok(())
}

#[test]
fn a_filter_on_partition_columns_skips_the_files_it_excludes() -> TestResult {
    let r = ragged_items(300);
    let dir = TempDir::new("pruning");
    write_ragged_dataset(&dir.0, &r)?;
    // A file under part=a that is not a valid Parquet file beyond its magic bytes.
    std::fs::write(dir.0.join("part=a/zz.parquet"), b"PAR1 not a footer PAR1")?;
    let ctx = dataset_session(&dir.0, 2, 8192)?;
    let out = one(run(
        &ctx,
        "SELECT id, part, extype_reduce_sum(r) AS s FROM ds WHERE part = 'b' ORDER BY id",
    )?);
    assert_eq!(out.num_rows(), 200);
    let rows: Vec<i64> = (100..300).collect();
    let want: Tensor = ops::reduce_sum_as(
        &ops::gather_as::<RaggedTensor>(&r, &rows, 0)?,
        Some(&[1, 2]),
        false,
    )?;
    assert_eq!(column(&out, "s")?.into_tensor()?, want);
    // Without the filter the scan opens it: an error naming the file.
    let e = run(&ctx, "SELECT count(*) FROM ds")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("register_parquet: table `ds`") && e.contains("zz.parquet"),
        "{e}"
    );
    Ok(())
}

#[test]
fn a_file_of_another_schema_is_an_error_naming_it() -> TestResult {
    let dir = TempDir::new("schemas");
    write_dataset(&dir.0, &masked_items(20), 2)?;
    let other = to_record_batch(&[(
        "x",
        &Value::Tensor(Tensor::from(array![1.0f32, 2.0].into_dyn())),
    )])?;
    extype_arrow::write_parquet(dir.0.join("part=1").join("z.parquet"), &[other])?;
    let ctx = dataset_session(&dir.0, 2, 8192)?;
    let e = run(&ctx, "SELECT count(*) FROM ds")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("z.parquet") && e.contains("expected the schema of the dataset's first file"),
        "{e}"
    );
    Ok(())
}

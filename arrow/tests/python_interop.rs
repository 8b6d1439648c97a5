//! Interop with pyarrow, DuckDB, Polars and awkward.
//!
//! - Always: the golden files pyarrow wrote (`tests/python/golden/`, made by
//!   `tests/python/make_golden.py`) load: `pa.fixed_shape_tensor` columns with and without
//!   `dim_names` and with a `permutation` into tensors and into a derived type, and a column of a
//!   registered `pa.ExtensionType` into `extype.MaskedTensor`; from the IPC file and the Parquet
//!   file.
//! - When `EXTYPE_PYTHON` names a Python with pyarrow, numpy, duckdb, polars and awkward
//!   (`.ci/run` makes one):
//!   pyarrow reads the IPC and Parquet files extype writes and sees the extension name, the
//!   spec JSON and the tensor shapes (the tensor children come back as
//!   `pa.FixedShapeTensorType`); DuckDB reads the Parquet file as a table of its components;
//!   and the files today's pyarrow writes load as the golden ones do.
//! - Masks are validity: DuckDB's `list_avg` and `avg`, pyarrow's `compute.mean` and Polars'
//!   `arr.mean` and `mean` over a `MaskedTensor` column's values (Parquet and IPC) give
//!   extype's own masked `reduce_mean`;
//!   a pyarrow column with null tensor elements loads as a `MaskedTensor`.
//! - Ragged is nested lists: on a `RaggedTensor` column (IPC and Parquet), pyarrow's
//!   `list_flatten` / `list_value_length` / `list_parent_indices`, DuckDB's `list_sum` per row
//!   and per item, Polars' `list.eval(…list.sum())` and awkward (`var * var * float32`,
//!   `ak.sum`) give extype's own `reduce_sum`; pyarrow's `list<list<float>>` (i32 offsets)
//!   loads back as the batch.

use std::path::{Path, PathBuf};
use std::process::Command;

use extype::ndarray::{Array1, Array2, Array3, ArrayD, IxDyn, array};
use extype::types::{MaskedTensor, RaggedTensor, SparseTensor};
use extype::{Tensor, Value, batch, ops};
use extype_arrow::arrow_array::RecordBatch;
use extype_arrow::{
    FIXED_SHAPE_TENSOR, FixedShapeTensor, column, column_as, from_columns_as, read_ipc_file,
    read_parquet, to_record_batch, write_ipc_file, write_parquet,
};

const N: usize = 4;

/// What `interop.py` writes: values arange(24) / 2 as [4, 2, 3], mask arange(24) % 4 != 0.
fn python_masked() -> MaskedTensor {
    let values = ArrayD::from_shape_vec(
        IxDyn(&[N, 2, 3]),
        (0..N * 6).map(|i| i as f32 / 2.0).collect(),
    )
    .unwrap();
    let mask = ArrayD::from_shape_vec(IxDyn(&[N, 2, 3]), (0..N * 6).map(|i| i % 4 != 0).collect())
        .unwrap();
    MaskedTensor::new(values, mask).unwrap()
}

/// The logical value of `perm`: arange(24).reshape(4, 3, 2).transpose(0, 2, 1).
fn python_perm() -> Tensor {
    let a = Array3::from_shape_vec((N, 3, 2), (0..N as i32 * 6).collect()).unwrap();
    Tensor::from(a.permuted_axes([0, 2, 1]).as_standard_layout().into_owned())
}

fn check_python_batch(batches: &[RecordBatch], file: &Path) {
    assert_eq!(batches.len(), 1, "{}", file.display());
    let rb = &batches[0];
    let schema = rb.schema();
    let values = schema.field_with_name("values").unwrap();
    let meta = FixedShapeTensor::from_field(values, "values")
        .unwrap()
        .unwrap();
    assert_eq!(meta.dim_names, Some(vec!["h".into(), "w".into()]));
    let perm = schema.field_with_name("perm").unwrap();
    let meta = FixedShapeTensor::from_field(perm, "perm").unwrap().unwrap();
    assert_eq!(
        (meta.shape, meta.permutation),
        (vec![3, 2], Some(vec![1, 0]))
    );
    // Plain fixed-shape tensor columns into a derived type, by component path.
    let from_columns: MaskedTensor = from_columns_as(rb).unwrap();
    assert_eq!(from_columns, python_masked(), "{}", file.display());
    // A registered pa.ExtensionType column.
    let registered: MaskedTensor = column_as(rb, "masked").unwrap();
    assert_eq!(registered, python_masked(), "{}", file.display());
    // A permuted tensor, in its logical order.
    let perm = column(rb, "perm").unwrap().into_tensor().unwrap();
    assert_eq!(perm, python_perm(), "{}", file.display());
    let mask = column(rb, "mask").unwrap().into_tensor().unwrap();
    assert_eq!(&mask, python_masked().mask());
}

fn check_python_files(dir: &Path) {
    let arrow = dir.join("from_python.arrow");
    check_python_batch(&read_ipc_file(&arrow).unwrap(), &arrow);
    let parquet = dir.join("from_python.parquet");
    check_python_batch(&read_parquet(&parquet).unwrap(), &parquet);
}

#[test]
fn golden_files_pyarrow_wrote_load() {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/golden");
    check_python_files(&golden);
}

/// What extype writes: `m`, masked items values i + j, mask (i + j) % 3 != 0, of shape [3]; `t`,
/// an f64 tensor [4, 2, 2] of 0..16.
fn extype_batch() -> RecordBatch {
    let items: Vec<MaskedTensor> = (0..N)
        .map(|i| {
            let v: Vec<f32> = (0..3).map(|j| (i + j) as f32).collect();
            let k: Vec<bool> = (0..3).map(|j| (i + j) % 3 != 0).collect();
            MaskedTensor::new(
                ArrayD::from_shape_vec(IxDyn(&[3]), v).unwrap(),
                ArrayD::from_shape_vec(IxDyn(&[3]), k).unwrap(),
            )
            .unwrap()
        })
        .collect();
    let m = Value::from_extension(batch::stack(&items).unwrap());
    let t = Value::from(Tensor::from(
        ArrayD::from_shape_vec(IxDyn(&[N, 2, 2]), (0..16).map(f64::from).collect()).unwrap(),
    ));
    to_record_batch(&[("m", &m), ("t", &t)]).unwrap()
}

#[test]
fn pyarrow_and_duckdb_read_extype_files_and_extype_reads_pyarrow_files() {
    let Some(python) = std::env::var_os("EXTYPE_PYTHON") else {
        eprintln!("EXTYPE_PYTHON is not set: skipped (.ci/run sets it)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("extype-arrow-python-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rb = extype_batch();
    assert_eq!(
        rb.schema().field(1).metadata()["ARROW:extension:name"],
        FIXED_SHAPE_TENSOR
    );
    write_ipc_file(dir.join("from_extype.arrow"), std::slice::from_ref(&rb)).unwrap();
    write_parquet(dir.join("from_extype.parquet"), std::slice::from_ref(&rb)).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/interop.py");
    for command in ["check", "write"] {
        let out = Command::new(&python)
            .arg(&script)
            .arg(command)
            .arg(&dir)
            .output()
            .expect("run python");
        assert!(
            out.status.success(),
            "python {command} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        print!("{}", String::from_utf8_lossy(&out.stdout));
    }
    check_python_files(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Readings, four rows of five, some masked out (outliers of 1000 under a false mask; row 2
/// all masked, row 3 one valid reading).
fn readings() -> MaskedTensor {
    let valid = [
        [true, true, true, true, true],
        [true, false, true, false, true],
        [false, false, false, false, false],
        [false, false, false, true, false],
    ];
    let values = ArrayD::from_shape_fn(IxDyn(&[N, 5]), |d| {
        if valid[d[0]][d[1]] {
            (d[0] * 5 + d[1]) as f32 * 0.5
        } else {
            1000.0
        }
    });
    let mask = ArrayD::from_shape_fn(IxDyn(&[N, 5]), |d| valid[d[0]][d[1]]);
    MaskedTensor::new(values, mask).unwrap()
}

/// `python interop.py COMMAND DIR`, its output printed; a failure panics with it.
fn run_python(python: &std::ffi::OsStr, command: &str, dir: &Path) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/interop.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(command)
        .arg(dir)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python {command} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    print!("{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn engines_skip_masked_values_and_null_elements_load_as_masks() {
    let Some(python) = std::env::var_os("EXTYPE_PYTHON") else {
        eprintln!("EXTYPE_PYTHON is not set: skipped (.ci/run sets it)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("extype-arrow-engines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // extype's own masked means: per row, and over everything.
    let r = readings();
    let rows: MaskedTensor = ops::reduce_mean_as(&r, Some(&[1]), false).unwrap();
    let total: MaskedTensor = ops::reduce_mean_as(&r, None, false).unwrap();
    let row_means: Vec<Option<f64>> = rows
        .values()
        .as_array::<f32, IxDyn>()
        .unwrap()
        .iter()
        .zip(rows.mask().as_array::<bool, IxDyn>().unwrap().iter())
        .map(|(&v, &valid)| valid.then_some(f64::from(v)))
        .collect();
    assert_eq!(row_means, [Some(1.0), Some(3.5), None, Some(9.0)]);
    let total = f64::from(total.values().as_array::<f32, IxDyn>().unwrap()[[]]);
    assert!((total - (0.0 + 0.5 + 1.0 + 1.5 + 2.0 + 2.5 + 3.5 + 4.5 + 9.0) / 9.0).abs() < 1e-6);
    let expected = serde_json::json!({ "rows": row_means, "total": total });
    std::fs::write(dir.join("expected.json"), expected.to_string()).unwrap();
    let rb = to_record_batch(&[("r", &Value::from_extension(r.clone()))]).unwrap();
    write_ipc_file(dir.join("readings.arrow"), std::slice::from_ref(&rb)).unwrap();
    write_parquet(dir.join("readings.parquet"), std::slice::from_ref(&rb)).unwrap();
    run_python(&python, "engines", &dir);
    // A pyarrow column with null elements: a MaskedTensor (null = masked out), through the
    // IPC file and Parquet.
    run_python(&python, "write_nulls", &dir);
    let flat: Vec<f32> = (0..N * 6).map(|i| i as f32 / 2.0).collect();
    let valid: Vec<bool> = (0..N * 6).map(|i| i % 5 != 0).collect();
    let mask = ArrayD::from_shape_vec(IxDyn(&[N, 2, 3]), valid).unwrap();
    let values = ArrayD::from_shape_vec(IxDyn(&[N, 2, 3]), flat).unwrap();
    let zero = extype::ndarray::arr0(0.0f32);
    let want = MaskedTensor::new(values, mask)
        .unwrap()
        .filled(&zero)
        .unwrap();
    for batches in [
        read_ipc_file(dir.join("nulls.arrow")).unwrap(),
        read_parquet(dir.join("nulls.parquet")).unwrap(),
    ] {
        let m: MaskedTensor = from_columns_as(&batches[0]).unwrap();
        assert_eq!(m.mask(), want.mask());
        assert_eq!(m.filled(&zero).unwrap(), want);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Four ragged items (ragged rank 1 each, so a batch of ragged rank 2, f32):
/// `[[1, 2], []]`, `[]`, `[[3], [4, 5, 6]]`, `[[0.5, 0.25, 0.125]]`.
fn ragged_items() -> RaggedTensor {
    let splits = |v: &[i64]| Tensor::from(extype::ndarray::Array1::from(v.to_vec()).into_dyn());
    RaggedTensor::from_nested_row_splits(
        extype::ndarray::array![1.0f32, 2., 3., 4., 5., 6., 0.5, 0.25, 0.125],
        vec![splits(&[0, 2, 2, 4, 5]), splits(&[0, 2, 2, 3, 6, 9])],
    )
    .unwrap()
}

#[test]
fn engines_compute_ragged_row_sums_natively() {
    let Some(python) = std::env::var_os("EXTYPE_PYTHON") else {
        eprintln!("EXTYPE_PYTHON is not set: skipped (.ci/run sets it)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("extype-arrow-ragged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let r = ragged_items();
    // extype's own answers: each inner row's sum (over the innermost ragged axis: a ragged
    // tensor of ragged rank 1, one row per item) and each item's sum (over both ragged axes).
    let rows: RaggedTensor = ops::reduce_sum_as(&r, Some(&[2]), false).unwrap();
    let sums = rows.flat_values().as_array::<f32, IxDyn>().unwrap();
    let splits = rows.nested_row_splits()[0]
        .as_array::<i64, IxDyn>()
        .unwrap()
        .to_owned();
    let row_sums: Vec<Vec<f64>> = (0..N)
        .map(|i| {
            (splits[i] as usize..splits[i + 1] as usize)
                .map(|k| f64::from(sums[k]))
                .collect()
        })
        .collect();
    let want: Vec<Vec<f64>> = vec![vec![3.0, 0.0], vec![], vec![3.0, 15.0], vec![0.875]];
    assert_eq!(row_sums, want);
    let items: Tensor = ops::reduce_sum_as(&rows, Some(&[1]), false).unwrap();
    let item_sums: Vec<f64> = items
        .as_array::<f32, IxDyn>()
        .unwrap()
        .iter()
        .map(|&x| f64::from(x))
        .collect();
    assert_eq!(item_sums, [3.0, 0.0, 18.0, 0.875]);
    // A sparse batch beside it (the row layout): each item's sum is the sum of its stored values.
    let sparse = [
        SparseTensor::new(array![[0i64, 1]], array![1.5f32], &[2, 3]).unwrap(),
        SparseTensor::new(array![[1i64, 0], [1, 2]], array![2.0f32, 3.0], &[2, 3]).unwrap(),
        SparseTensor::new(
            Array2::<i64>::zeros((0, 2)),
            Array1::<f32>::zeros(0),
            &[2, 3],
        )
        .unwrap(),
        SparseTensor::new(array![[0i64, 0]], array![4.0f32], &[2, 3]).unwrap(),
    ];
    let st: SparseTensor = batch::stack(&sparse).unwrap();
    let sums: Tensor = ops::reduce_sum_as(&st, Some(&[1, 2]), false).unwrap();
    let sparse_sums: Vec<f64> = sums
        .as_array::<f32, IxDyn>()
        .unwrap()
        .iter()
        .map(|&x| f64::from(x))
        .collect();
    assert_eq!(sparse_sums, [1.5, 5.0, 0.0, 4.0]);
    let expected =
        serde_json::json!({ "rows": row_sums, "items": item_sums, "sparse": sparse_sums });
    std::fs::write(dir.join("expected_ragged.json"), expected.to_string()).unwrap();
    let rb = to_record_batch(&[
        ("r", &Value::from_extension(r.clone())),
        ("s", &Value::from_extension(st.clone())),
    ])
    .unwrap();
    write_ipc_file(dir.join("ragged.arrow"), std::slice::from_ref(&rb)).unwrap();
    write_parquet(dir.join("ragged.parquet"), std::slice::from_ref(&rb)).unwrap();
    run_python(&python, "ragged", &dir);
    // What Python wrote (pyarrow's `list<list<float>>`, i32 offsets, no extype metadata but
    // the column's, copied from ours) loads back as the same batch.
    for batches in [
        read_ipc_file(dir.join("ragged_py.arrow")).unwrap(),
        read_parquet(dir.join("ragged_py.parquet")).unwrap(),
    ] {
        let back: RaggedTensor = column_as(&batches[0], "r").unwrap();
        assert_eq!(back, r);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

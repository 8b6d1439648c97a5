//! A SparseTensor saved by `extype::io` is read in Python from the file alone: NumPy for any
//! rank, `scipy.sparse.coo_array` for rank 2 (`tests/python/sparse.py`). Runs when
//! `EXTYPE_PYTHON` names a Python with NumPy (and SciPy for the coo_array check; `.ci/run` makes
//! a virtual environment with both); skipped otherwise.

use std::path::PathBuf;
use std::process::Command;

use extype::io;
use extype::types::SparseTensor;
use ndarray::array;

#[test]
fn python_reads_saved_sparse_tensors() {
    let Some(python) = std::env::var_os("EXTYPE_PYTHON") else {
        eprintln!("EXTYPE_PYTHON is not set: skipped (.ci/run sets it)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("extype-sparse-python-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (rank2, rank3) = (dir.join("rank2.safetensors"), dir.join("rank3.safetensors"));
    // Unordered on purpose: the file holds the entries as stored.
    let x = SparseTensor::new(
        array![[1i64, 3], [0, 1], [2, 0]],
        array![-2.0f32, 1.5, 4.0],
        &[3, 4],
    )
    .unwrap();
    io::save(&rank2, &x).unwrap();
    let y = SparseTensor::new(
        array![[0i64, 1, 2], [1, 2, 3]],
        array![7i64, -1],
        &[2, 3, 4],
    )
    .unwrap();
    io::save(&rank3, &y).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/sparse.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&rank2)
        .arg(&rank3)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("sparse interop ok"));
    std::fs::remove_dir_all(&dir).unwrap();
}

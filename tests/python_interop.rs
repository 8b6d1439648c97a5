//! Interop with Python's `safetensors`, both ways: a file extype saves opens in Python (numpy
//! flavour) with the expected names, dtypes, shapes, values and metadata; a file Python saves
//! loads into a derived type, as the numpy flavour writes it and as the torch flavour does
//! (`{"format": "pt"}` metadata); a file of half-precision weights (bf16, f16 beside f32) is
//! inspected whole and its f32 tensor read. Runs when `EXTYPE_PYTHON` names a Python with `safetensors` and
//! `numpy` (`.ci/run` makes a virtual environment for it); skipped otherwise.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{MaskedTensor, MaskedTensorSpec};
use extype::{ExtensionType, TensorSpec, io};
use ndarray::{ArrayD, IxDyn};

/// One field per extype dtype, plus a nested extension value.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.python.Interop")]
pub struct Interop {
    pub b: ArrayD<bool>,
    pub i8: ArrayD<i8>,
    pub i16: ArrayD<i16>,
    pub i32: ArrayD<i32>,
    pub i64: ArrayD<i64>,
    pub u8: ArrayD<u8>,
    pub u16: ArrayD<u16>,
    pub u32: ArrayD<u32>,
    pub u64: ArrayD<u64>,
    pub f32: ArrayD<f32>,
    pub f64: ArrayD<f64>,
    pub nested: MaskedTensor,
}

/// `f(i)` for element i of a 2×3 array.
fn fill<T>(f: impl Fn(u8) -> T) -> ArrayD<T> {
    ArrayD::from_shape_vec(IxDyn(&[2, 3]), (0..6).map(f).collect()).unwrap()
}

/// The value extype writes: element i is i (bool: i is even).
fn extype_value() -> Interop {
    Interop {
        b: fill(|i| i % 2 == 0),
        i8: fill(|i| i as i8),
        i16: fill(|i| i as i16),
        i32: fill(|i| i as i32),
        i64: fill(|i| i as i64),
        u8: fill(|i| i),
        u16: fill(|i| i as u16),
        u32: fill(|i| i as u32),
        u64: fill(|i| i as u64),
        f32: fill(|i| i as f32),
        f64: fill(|i| i as f64),
        nested: MaskedTensor {
            values: ArrayD::from_elem(IxDyn(&[1, 2]), 0.5),
            mask: ArrayD::from_elem(IxDyn(&[1, 2]), true),
        },
    }
}

/// The value Python writes: 3 i + 1 (bool: i is odd).
fn python_value() -> Interop {
    Interop {
        b: fill(|i| i % 2 == 1),
        i8: fill(|i| (3 * i + 1) as i8),
        i16: fill(|i| (3 * i + 1) as i16),
        i32: fill(|i| (3 * i + 1) as i32),
        i64: fill(|i| (3 * i + 1) as i64),
        u8: fill(|i| 3 * i + 1),
        u16: fill(|i| (3 * i + 1) as u16),
        u32: fill(|i| (3 * i + 1) as u32),
        u64: fill(|i| (3 * i + 1) as u64),
        f32: fill(|i| (3 * i + 1) as f32),
        f64: fill(|i| (3 * i + 1) as f64),
        nested: MaskedTensor {
            values: ndarray::array![[1.5f32, 2.5]].into_dyn(),
            mask: ndarray::array![[true, false]].into_dyn(),
        },
    }
}

/// The spec the Python file is read under: every field `[?, ?]`.
fn loose_spec() -> InteropSpec {
    let s = |d: &str| -> TensorSpec { format!("{d}[?, ?]").parse().unwrap() };
    InteropSpec {
        b: s("bool"),
        i8: s("i8"),
        i16: s("i16"),
        i32: s("i32"),
        i64: s("i64"),
        u8: s("u8"),
        u16: s("u16"),
        u32: s("u32"),
        u64: s("u64"),
        f32: s("f32"),
        f64: s("f64"),
        nested: MaskedTensorSpec {
            values: s("f32"),
            mask: s("bool"),
        },
    }
}

#[test]
fn python_reads_extype_files_and_extype_reads_python_files() {
    let Some(python) = std::env::var_os("EXTYPE_PYTHON") else {
        eprintln!("EXTYPE_PYTHON is not set: skipped (.ci/run sets it)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("extype-python-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let from_extype = dir.join("from_extype.safetensors");
    let from_python = dir.join("from_python.safetensors");
    let from_python_pt = dir.join("from_python_pt.safetensors");
    let halves = dir.join("halves.safetensors");
    io::save(&from_extype, &extype_value()).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/interop.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&from_extype)
        .arg(&from_python)
        .arg(&from_python_pt)
        .arg(&halves)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let loaded = io::load_components_as::<Interop>(&from_python, &loose_spec()).unwrap();
    assert_eq!(loaded, python_value());
    // Or with no spec at all: dtypes and shapes from the file.
    let loaded = io::load_components_inferred::<Interop>(&from_python).unwrap();
    assert_eq!(loaded, python_value());
    // The torch flavour's metadata is not extype's: the file reads like any other.
    let loaded = io::load_components_as::<Interop>(&from_python_pt, &loose_spec()).unwrap();
    assert_eq!(loaded, python_value());
    let text = io::load(&from_python_pt).unwrap_err().to_string();
    assert!(text.contains("has no extype metadata"), "{text}");
    // The mapped path reads it too, zero-copy: Python aligns every tensor.
    // SAFETY: the file is this test's own and is not written while mapped.
    let mapped = unsafe { io::map(&from_python) }.unwrap();
    assert_eq!(mapped.type_name(), None);
    let f64s = mapped.tensor("f64").unwrap();
    assert!(matches!(f64s, extype::Tensor::External(_)));
    assert_eq!(f64s, extype::Tensor::from(python_value().f64));
    assert_eq!(
        mapped.to_type_with::<Interop>(&loose_spec()).unwrap(),
        python_value()
    );

    // Half-precision weights: every tensor listed, the f32 one read, the bf16 one named.
    let info = io::inspect(&halves).unwrap();
    let listed: Vec<(String, String, Vec<usize>)> = info
        .tensors
        .iter()
        .map(|t| (t.path.to_string(), t.dtype.to_string(), t.shape.to_vec()))
        .collect();
    let mut expected = [
        ("half_b", "unsupported dtype BF16", vec![2]),
        ("half_f", "unsupported dtype F16", vec![1, 2]),
        ("weight", "f32", vec![2]),
    ]
    .map(|(p, d, s)| (p.to_string(), d.to_string(), s))
    .to_vec();
    let mut sorted = listed.clone();
    sorted.sort();
    expected.sort();
    assert_eq!(sorted, expected);
    // SAFETY: the file is this test's own and is not written while mapped.
    let mapped = unsafe { io::map(&halves) }.unwrap();
    assert_eq!(
        mapped.tensor("weight").unwrap(),
        extype::Tensor::from(ndarray::array![1.5f32, 2.5])
    );
    let text = mapped.tensor("half_b").unwrap_err().to_string();
    assert!(
        text.contains("half_b") && text.contains("dtype BF16"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `RaggedTensor` saved by `extype::io` is plain arrays (flat values, one splits array per
/// ragged dimension): Python rebuilds its rows with NumPy from the file alone.
#[test]
fn python_rebuilds_ragged_rows_from_the_file_alone() {
    use extype::types::RaggedTensor;
    let r = RaggedTensor::from_nested_row_splits(
        ndarray::array![1.5f32, 2.5, 3.5, 4.5],
        vec![
            extype::Tensor::from(ndarray::array![0i64, 2, 3]),
            extype::Tensor::from(ndarray::array![0i64, 1, 1, 4]),
        ],
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("extype-python-ragged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ragged.safetensors");
    io::save(&path, &r).unwrap();
    // extype reads it back whole, by its registered name.
    let back: RaggedTensor = io::load(&path).unwrap().downcast().unwrap();
    assert_eq!(back, r);
    let Some(python) = std::env::var_os("EXTYPE_PYTHON") else {
        eprintln!("EXTYPE_PYTHON is not set: the Python half is skipped (.ci/run sets it)");
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/ragged_rows.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&path)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        got,
        serde_json::json!({"type": "extype.RaggedTensor", "rows": [[[1.5], []], [[2.5, 3.5, 4.5]]]})
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

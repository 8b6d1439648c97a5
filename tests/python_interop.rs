//! Interop with Python's `safetensors`, both ways: a file extype saves opens in Python (numpy
//! flavour) with the expected names, dtypes, shapes, values and metadata; a file Python saves
//! loads into a derived type, as the numpy flavour writes it and as the torch flavour does
//! (`{"format": "pt"}` metadata); a file of half-precision weights (bf16, f16 beside f32, values
//! at the edges of the formats) is inspected, loaded, mapped and cast with the bits Python wrote,
//! and Python reads the half-precision tensors extype writes (f16 as numpy's float16, bf16 bits). Runs when `EXTYPE_PYTHON` names a Python with `safetensors` and
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
    pub f16: ArrayD<extype::half::f16>,
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
        f16: fill(extype::half::f16::from),
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
        f16: fill(|i| extype::half::f16::from(3 * i + 1)),
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
        f16: s("f16"),
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
    let halves_from_extype = dir.join("halves_from_extype.safetensors");
    io::save(&from_extype, &extype_value()).unwrap();
    io::save(&halves_from_extype, &extype_halves()).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/interop.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&from_extype)
        .arg(&from_python)
        .arg(&from_python_pt)
        .arg(&halves)
        .arg(&halves_from_extype)
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

    check_halves(&halves);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The values of the half-precision tensors Python writes (`HALF_F`, `HALF_B` of
/// `tests/python/interop.py`), as `f64`.
const HALF_F: [f64; 16] = [
    0.5,
    1.5,
    -0.0,
    1.0 / 3.0,
    0.1,
    65504.0,
    65519.0,
    65520.0,
    1e5,
    -1e5,
    5.960464477539063e-8, // 2^-24, the smallest subnormal
    1e-5,
    1.4901161193847656e-8, // 2^-26, rounds to 0
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];
const HALF_B: [f64; 13] = [
    1.0,
    2.0,
    -2.5,
    1.0 / 3.0,
    0.1,
    3.0e38,
    3.4e38,
    1e-40,
    -1e-45,
    9.183549615799121e-41, // 2^-133, the smallest bf16 subnormal
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

/// Bits of floats for comparing with NaN (any NaN is `u64::MAX`, -0 differs from 0).
fn bits<T: Copy + Into<f64>>(xs: impl IntoIterator<Item = T>) -> Vec<u64> {
    xs.into_iter()
        .map(|x| {
            let x: f64 = x.into();
            if x.is_nan() { u64::MAX } else { x.to_bits() }
        })
        .collect()
}

/// The file of half-precision weights Python wrote: inspected as real dtypes, loaded, mapped
/// and cast with the values Python wrote (numpy rounds `f64` → `f16` to nearest even, as
/// extype's casts do; the bf16 bits are `f32`'s rounded to nearest even).
fn check_halves(halves: &std::path::Path) {
    use extype::DType;
    use extype::half::{bf16, f16};
    let info = io::inspect(halves).unwrap();
    let mut listed: Vec<(String, String, Vec<usize>)> = info
        .tensors
        .iter()
        .map(|t| (t.path.to_string(), t.dtype.to_string(), t.shape.to_vec()))
        .collect();
    listed.sort();
    let expected = [
        ("half_b", "bf16", vec![13]),
        ("half_f", "f16", vec![2, 8]),
        ("weight", "f32", vec![2]),
    ]
    .map(|(p, d, s)| (p.to_string(), d.to_string(), s))
    .to_vec();
    assert_eq!(listed, expected);

    // What Python meant, rounded by extype: the same bits as Python wrote.
    let want_f: Vec<f16> = HALF_F
        .iter()
        .map(|&x| extype_kernels::cast::f16_from_f64(x))
        .collect();
    let want_b: Vec<bf16> = HALF_B.iter().map(|&x| bf16::from_f32(x as f32)).collect();
    assert_eq!(want_f[6], f16::MAX, "65519 rounds down to the largest f16");
    assert!(
        want_f[7].is_infinite() && want_b[6].is_infinite(),
        "ties and overflow to inf"
    );
    assert_eq!(want_f[10].to_bits(), 1, "the smallest f16 subnormal");
    assert_eq!(want_b[9].to_bits(), 1, "the smallest bf16 subnormal");

    let weights = io::load_components_inferred::<HalfWeights>(halves).unwrap();
    assert_eq!(weights.half_f.shape(), &[2, 8]);
    assert_eq!(
        bits(weights.half_f.iter().copied()),
        bits(want_f.iter().copied())
    );
    assert_eq!(
        bits(weights.half_b.iter().copied()),
        bits(want_b.iter().copied())
    );
    assert_eq!(weights.weight, ndarray::array![1.5f32, 2.5].into_dyn());
    // SAFETY: the file is this test's own and is not written while mapped.
    let mapped = unsafe { io::map(halves) }.unwrap();
    let half_b = mapped.tensor("half_b").unwrap();
    assert_eq!(half_b.dtype(), DType::BF16);

    // Cast in Rust: to f32 and f64 exactly, to integers truncating (NaN → 0, ±inf saturating).
    let to_f32: ArrayD<f32> = extype::ops::cast_as(&half_b, DType::F32).unwrap();
    assert_eq!(
        bits(to_f32.iter().copied()),
        bits(want_b.iter().map(|b| b.to_f32()))
    );
    let to_f64: ArrayD<f64> = extype::ops::cast_as(&weights.half_f, DType::F64).unwrap();
    assert_eq!(
        bits(to_f64.iter().copied()),
        bits(want_f.iter().map(|h| h.to_f64()))
    );
    let to_i32: ArrayD<i32> = extype::ops::cast_as(&weights.half_f, DType::I32).unwrap();
    assert_eq!(
        to_i32.iter().copied().collect::<Vec<_>>(),
        want_f.iter().map(|h| h.to_f32() as i32).collect::<Vec<_>>()
    );
    assert_eq!(to_i32[[0, 5]], 65504);
    assert_eq!(to_i32[[1, 7]], 0, "NaN → 0");
    // And between the half formats: f16 → bf16 rounds once.
    let to_bf16: ArrayD<bf16> = extype::ops::cast_as(&weights.half_f, DType::BF16).unwrap();
    assert_eq!(
        bits(to_bf16.iter().copied()),
        bits(want_f.iter().map(|h| bf16::from_f32(h.to_f32())))
    );
}

/// Half-precision weights extype writes for Python to read: bf16 [1, -2.5, 1/3, inf, NaN, the
/// smallest subnormal], f16 [[0.1, 65504, -0]] (`tests/python/interop.py` checks the bits).
fn extype_halves() -> HalfWeights {
    use extype::half::{bf16, f16};
    HalfWeights {
        half_b: ndarray::array![
            bf16::ONE,
            bf16::from_f32(-2.5),
            bf16::from_f32(1.0 / 3.0),
            bf16::INFINITY,
            bf16::NAN,
            bf16::from_bits(1)
        ]
        .into_dyn(),
        half_f: ndarray::array![[f16::from_f32(0.1), f16::MAX, f16::NEG_ZERO]].into_dyn(),
        weight: ndarray::array![0.5f32].into_dyn(),
    }
}

/// Model weights in half precision, as the Python file names them.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.python.HalfWeights")]
pub struct HalfWeights {
    pub half_b: ArrayD<extype::half::bf16>,
    pub half_f: ArrayD<extype::half::f16>,
    pub weight: ArrayD<f32>,
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

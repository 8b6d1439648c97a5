//! `extype inspect` on files extype saved: the text and the JSON report, and a clear error; on
//! a file holding dtypes extype cannot read: every tensor listed; on Arrow IPC and Parquet files
//! of extension columns: rows, batches, columns and specs.

use std::process::Command;

use extype_core::{Tensor, io};

fn extype(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_extype"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn inspect_prints_type_spec_and_components() {
    let dir = std::env::temp_dir().join(format!("extype-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.safetensors");
    io::save(
        &path,
        &Tensor::from(ndarray::array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    )
    .unwrap();
    let file = path.to_str().unwrap();

    let (ok, text, _) = extype(&["inspect", file]);
    assert!(ok);
    assert!(text.contains("type: Tensor"), "{text}");
    assert!(text.contains("spec: f32[2, 3]"), "{text}");
    assert!(text.contains("tensor  f32   [2, 3]  24 bytes"), "{text}");

    let (ok, json, _) = extype(&["inspect", "--json", file]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["types"][0], "Tensor");
    assert_eq!(v["specs"][0], "f32[2, 3]");
    assert_eq!(v["tensors"][0]["path"], "tensor");
    assert_eq!(v["tensors"][0]["dtype"], "f32");
    assert_eq!(v["tensors"][0]["shape"], serde_json::json!([2, 3]));
    assert_eq!(v["tensors"][0]["bytes"], 24);

    let missing = dir.join("missing.safetensors");
    let (ok, _, err) = extype(&["inspect", missing.to_str().unwrap()]);
    assert!(
        !ok && err.contains("missing.safetensors") && err.contains("cannot open"),
        "{err}"
    );
    let (ok, _, err) = extype(&["frobnicate"]);
    assert!(!ok && err.contains("unknown command"), "{err}");
    // A NumPy file is named as one (its magic bytes), not reported as a huge header length; a
    // file with Parquet's magic but no Parquet in it is reported by the Parquet reader.
    let npy = dir.join("t.npy");
    std::fs::write(&npy, b"\x93NUMPY\x01\0v\0{'descr': '<f4'}").unwrap();
    let (ok, _, err) = extype(&["inspect", npy.to_str().unwrap()]);
    assert!(
        !ok && err.contains("is a NumPy .npy file") && err.contains("not a safetensors file"),
        "{err}"
    );
    let parquet = dir.join("t.parquet");
    std::fs::write(&parquet, b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02PAR1").unwrap();
    let (ok, _, err) = extype(&["inspect", parquet.to_str().unwrap()]);
    assert!(!ok && err.contains("t.parquet"), "{err}");
    let (ok, out, _) = extype(&["--version"]);
    assert!(
        ok && out.trim() == format!("extype {}", env!("CARGO_PKG_VERSION")),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A value whose type is not linked into the command (as every user type is), with fields
/// declared `zeta, alpha, mid`: a tensor, static data, a tensor.
fn declared_out_of_key_order() -> extype_core::AnonymousExtension {
    use extype_core::spec_tree::Fields;
    use extype_core::{DType, Shape, SpecTree, TensorSpec};
    let fields: Fields = [
        (
            "zeta",
            SpecTree::TensorSpec(TensorSpec::new(Shape::known(&[2]), DType::F32)),
        ),
        ("alpha", SpecTree::Int(3)),
        (
            "mid",
            SpecTree::TensorSpec(TensorSpec::new(Shape::known(&[1]), DType::I64)),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let spec = SpecTree::spec("cli_test.Ordered", SpecTree::Map(fields));
    let components = vec![
        Tensor::from(ndarray::array![1.0f32, 2.0].into_dyn()),
        Tensor::from(ndarray::array![7i64].into_dyn()),
    ];
    extype_core::AnonymousExtension::new(spec, components).unwrap()
}

#[test]
fn inspect_and_anonymous_values_show_fields_in_declaration_order() {
    let dir = std::env::temp_dir().join(format!("extype-cli-order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ordered.safetensors");
    io::save(&path, &declared_out_of_key_order()).unwrap();
    let file = path.to_str().unwrap();

    let (ok, text, err) = extype(&["inspect", file]);
    assert!(ok, "{err}");
    let spec = "cli_test.Ordered { zeta: f32[2], alpha: 3, mid: i64[1] }";
    assert!(text.contains(&format!("spec: {spec}")), "{text}");
    let (ok, json, _) = extype(&["inspect", "--json", file]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["specs"][0], spec);

    // Loaded where the type is unknown: an anonymous value, its spec in the same order.
    let value = io::load(&path).unwrap();
    assert_eq!(
        value.to_string(),
        format!(
            "extype.Anonymous {{ name: \"cli_test.Ordered\", spec: {spec}, \
             components: [f32[2], i64[1]] }} {{0: [1.0, 2.0], 1: [7]}}"
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn inspect_lists_half_floats_as_dtypes_and_names_ones_it_cannot_read() {
    let dir = std::env::temp_dir().join(format!("extype-cli-half-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("halves.safetensors");
    let header = concat!(
        r#"{"b":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},"#,
        r#""h":{"dtype":"F16","shape":[1,2],"data_offsets":[4,8]},"#,
        r#""w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},"#,
        r#""x":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[16,20]}}"#
    );
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(&[0u8; 20]);
    std::fs::write(&path, bytes).unwrap();
    let file = path.to_str().unwrap();

    let (ok, text, err) = extype(&["inspect", file]);
    assert!(ok, "{err}");
    // Columns are padded to the widest entry: compare with single spaces.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("b bf16 [2] 4 bytes"), "{text}");
    assert!(words.contains("h f16 [1, 2] 4 bytes"), "{text}");
    assert!(words.contains("w f32 [2] 8 bytes"), "{text}");
    assert!(
        words.contains("x unsupported dtype F8_E4M3 [4] 4 bytes"),
        "{text}"
    );
    let (ok, json, _) = extype(&["inspect", "--json", file]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let dtypes: Vec<&str> = (0..4)
        .map(|i| v["tensors"][i]["dtype"].as_str().unwrap())
        .collect();
    assert_eq!(dtypes, ["bf16", "f16", "f32", "F8_E4M3"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file of half-precision weights written by Python's `safetensors` (bf16 and f16 beside f32,
/// `tests/python/interop.py --halves`): `extype inspect` shows the half floats as dtypes. Runs
/// when `EXTYPE_PYTHON` names a Python with `safetensors` and `numpy` (`.ci/run` sets it).
#[test]
fn inspect_shows_half_floats_of_a_python_written_file() {
    let Some(python) = std::env::var_os("EXTYPE_PYTHON") else {
        eprintln!("EXTYPE_PYTHON is not set: skipped (.ci/run sets it)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("extype-cli-py-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("halves.safetensors");
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/python/interop.py");
    let out = Command::new(python)
        .arg(script)
        .arg("--halves")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (ok, text, err) = extype(&["inspect", path.to_str().unwrap()]);
    assert!(ok, "{err}");
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("half_b bf16 [13] 26 bytes"), "{text}");
    assert!(words.contains("half_f f16 [2, 8] 32 bytes"), "{text}");
    assert!(words.contains("weight f32 [2] 8 bytes"), "{text}");
    assert!(!text.contains("unsupported"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A record batch of a `MaskedTensor` column (3 rows of `[2]`) and a plain `i64` column.
fn masked_batch() -> extype_arrow::arrow_array::RecordBatch {
    use extype::types::MaskedTensor;
    use extype_core::{Value, batch};
    let items: Vec<MaskedTensor> = (0..3)
        .map(|i| {
            MaskedTensor::new(
                ndarray::array![i as f32, 1.0].into_dyn(),
                ndarray::array![true, i != 1].into_dyn(),
            )
            .unwrap()
        })
        .collect();
    let readings = Value::from_extension(batch::stack(&items).unwrap());
    let ids = Value::from(Tensor::from(ndarray::array![7i64, 8, 9]));
    extype_arrow::to_record_batch(&[("readings", &readings), ("id", &ids)]).unwrap()
}

#[test]
fn inspect_describes_arrow_ipc_and_parquet_files() {
    let dir = std::env::temp_dir().join(format!("extype-cli-arrow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rb = masked_batch();
    let ipc = dir.join("readings.arrow");
    extype_arrow::write_ipc_file(&ipc, &[rb.clone(), rb.clone()]).unwrap();
    let stream = dir.join("readings.arrows");
    let out = std::fs::File::create(&stream).unwrap();
    extype_arrow::write_ipc_stream(out, std::slice::from_ref(&rb)).unwrap();
    let parquet = dir.join("readings.parquet");
    extype_arrow::write_parquet(&parquet, &[rb]).unwrap();
    let spec = "extype.MaskedTensor { values: f32[3, 2], mask: bool[3, 2] }";
    for (path, format, rows, batches) in [
        (&ipc, "Arrow IPC file", 6, "2 record batches"),
        (&stream, "Arrow IPC stream", 3, "1 record batch"),
        (&parquet, "Parquet", 3, "1 row group"),
    ] {
        let file = path.to_str().unwrap();
        let (ok, text, err) = extype(&["inspect", file]);
        assert!(ok, "{err}");
        assert!(
            text.contains(&format!("{format}, "))
                && text.contains(&format!("{rows} rows in {batches}")),
            "{text}"
        );
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains(&format!("readings spec: {spec}")), "{text}");
        assert!(words.contains("id Int64"), "{text}");

        let (ok, json, err) = extype(&["inspect", "--json", file]);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["format"], format);
        assert_eq!(v["rows"], rows);
        assert_eq!(v["columns"][0]["name"], "readings");
        assert_eq!(v["columns"][0]["extension"], "extype.MaskedTensor");
        assert_eq!(v["columns"][0]["spec"], spec);
        assert_eq!(v["columns"][1]["name"], "id");
        assert_eq!(v["columns"][1]["extension"], serde_json::Value::Null);
    }
    // The Arrow readers name a safetensors file given to them, and the reader that takes it.
    let st = dir.join("t.safetensors");
    io::save(&st, &Tensor::from(ndarray::array![1.0f32])).unwrap();
    let err = extype_arrow::read_parquet(&st).unwrap_err().to_string();
    assert!(
        err.contains("is a safetensors file (read it with extype::io::load), not a Parquet file"),
        "{err}"
    );
    let err = extype_arrow::read_ipc_file(&st).unwrap_err().to_string();
    assert!(err.contains("not an Arrow IPC file"), "{err}");
    let err = extype_arrow::read_ipc_file(&parquet)
        .unwrap_err()
        .to_string();
    assert!(err.contains("is a Parquet file"), "{err}");
    let err = extype_arrow::inspect(&st).unwrap_err().to_string();
    assert!(err.contains("not an Arrow IPC or Parquet file"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The version of a file's type: in the text and JSON reports, and in `check-compat`, which
/// answers for the types linked into the command (none of the user's: the golden files of
/// `tests/versioning_v*.rs` name theirs and their versions).
#[test]
fn inspect_and_check_compat_show_the_type_version() {
    let golden =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/versioning");
    let v1 = golden.join("signal_v1.safetensors");
    let v3 = golden.join("signal_v3.safetensors");
    let (ok, text, err) = extype(&["inspect", v1.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(text.contains("type: golden.Signal, version 1\n"), "{text}");
    let (ok, text, err) = extype(&["inspect", v3.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        text.contains("type: golden.Waveform, version 3\n"),
        "{text}"
    );
    let (ok, json, _) = extype(&["inspect", "--json", v3.to_str().unwrap()]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["versions"], serde_json::json!([3]));

    let (ok, out, err) = extype(&["check-compat", v3.to_str().unwrap()]);
    assert!(!ok && err.contains("do not load"), "{err}");
    assert!(
        out.contains("golden.Waveform version 3: not a type of this program"),
        "{out}"
    );
    let dir = std::env::temp_dir().join(format!("extype-cli-compat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.safetensors");
    io::save(&path, &Tensor::from(ndarray::array![1.0f32])).unwrap();
    let (ok, out, err) = extype(&["check-compat", path.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("Tensor version 1: loads"), "{out}");
    let (ok, _, err) = extype(&["check-compat"]);
    assert!(!ok && err.contains("no file"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

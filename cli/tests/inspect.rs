//! `extype inspect` on files extype saved: the text and the JSON report, and a clear error.

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
    std::fs::remove_dir_all(&dir).unwrap();
}

//! `extype`: the command-line tool of extype.
//!
//! ```text
//! extype inspect [--json] FILE...
//! extype check-compat FILE...
//! extype --version
//! ```
//!
//! prints what each file holds, from its metadata alone (no tensor byte is decoded), the format
//! told by the file's first bytes:
//!
//! - a **safetensors** file: its registered type, its spec compactly (`f32[2, 3]`) and each
//!   component's path, dtype, shape and byte size; a tensor of a dtype extype cannot read
//!   (`F8_E4M3`, `C64`, …) is listed as `unsupported dtype F8_E4M3` (half precision, `F16` and
//!   `BF16`, are extype's `f16` and `bf16`);
//! - an **Arrow IPC** file or stream, or a **Parquet** file: its rows, its record batches (row
//!   groups), and each column's name, Arrow type, extension type and, for an extype extension
//!   column, its spec;
//! - anything else: what it is, when its magic bytes say (a NumPy `.npy` file, a zip archive),
//!   and that it is none of the three.
//!
//! A safetensors file's report names the version of its type that wrote it (`type: pkg.Foo,
//! version 2`). `extype check-compat FILE` says whether each value file loads into the types
//! linked into this command (`io::check_compat`): the command links no user type, so it answers
//! for `Tensor` files and tells the stored type and version of the others; call
//! `extype::io::check_compat` in a program of your own to check against its types.
//!
//! `--json` prints the same as one JSON object per file. Install with `cargo install --path cli`.

#![deny(clippy::undocumented_unsafe_blocks)]

use std::process::ExitCode;

use extype_arrow::{ArrowFileInfo, inspect as arrow_inspect};
use extype_core::io::{self, FileInfo, FileKind};

const USAGE: &str = "usage: extype inspect [--json] FILE...\n       extype check-compat FILE...\n       \
    extype --version\n\n\
    Prints what a safetensors file holds (its registered type, its spec and each component's\n\
    path, dtype, shape and size in bytes), or an Arrow IPC or Parquet file (its rows, batches\n\
    and columns, with their extension types and specs); --json: the same as JSON.\n\
    check-compat: whether each value file loads into this program's types (its type version).";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("extype: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let Some((command, rest)) = args.split_first() else {
        return Err(format!("no command\n{USAGE}"));
    };
    match command.as_str() {
        "inspect" => {
            let json = rest.iter().any(|a| a == "--json");
            let files: Vec<&String> = rest.iter().filter(|a| *a != "--json").collect();
            if let Some(flag) = files.iter().find(|f| f.starts_with("--")) {
                return Err(format!("unknown option {flag}\n{USAGE}"));
            }
            if files.is_empty() {
                return Err(format!("inspect: no file\n{USAGE}"));
            }
            for file in files {
                print!("{}", report(file, json)?);
            }
            Ok(())
        }
        "check-compat" => {
            if rest.is_empty() {
                return Err(format!("check-compat: no file\n{USAGE}"));
            }
            let mut all = true;
            for file in rest {
                let compat = io::check_compat(file).map_err(|e| e.to_string())?;
                all &= compat.loads();
                println!("{file}: {compat}");
            }
            if all {
                Ok(())
            } else {
                Err("some files do not load into this program's types".into())
            }
        }
        "-V" | "--version" | "version" => {
            println!("extype {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command {other:?}\n{USAGE}")),
    }
}

/// The report of one file (text, or one line of JSON), by the format its first bytes tell: Arrow
/// IPC and Parquet files through the Arrow crate, anything else through the safetensors reader,
/// which names a file of another known format.
fn report(file: &str, json: bool) -> Result<String, String> {
    let kind = FileKind::of_file(file).map_err(|e| format!("{file}: cannot open: {e}"))?;
    if let Some(FileKind::ArrowIpcFile | FileKind::ArrowIpcStream | FileKind::Parquet) = kind {
        let info = arrow_inspect(file).map_err(|e| e.to_string())?;
        return Ok(if json {
            format!("{}\n", arrow_json(file, &info))
        } else {
            arrow_text(file, &info)
        });
    }
    let info = io::inspect(file).map_err(|e| e.to_string())?;
    Ok(if json {
        let mut value = serde_json::to_value(&info).map_err(|e| e.to_string())?;
        value["file"] = serde_json::Value::from(file);
        value["format"] = serde_json::Value::from("safetensors");
        format!("{value}\n")
    } else {
        text(file, &info)
    })
}

/// The format's short name in reports.
fn format_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::ArrowIpcFile => "Arrow IPC file",
        FileKind::ArrowIpcStream => "Arrow IPC stream",
        FileKind::Parquet => "Parquet",
        _ => "safetensors",
    }
}

/// The text report of an Arrow IPC or Parquet file.
fn arrow_text(file: &str, info: &ArrowFileInfo) -> String {
    let batches = match (info.kind == FileKind::Parquet, info.batches == 1) {
        (true, true) => "row group",
        (true, false) => "row groups",
        (false, true) => "record batch",
        (false, false) => "record batches",
    };
    let mut out = format!(
        "{file}: {}, {} bytes, {} rows in {} {batches}\ncolumns:\n",
        format_name(info.kind),
        info.file_bytes,
        info.rows,
        info.batches
    );
    let width = info.columns.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in &info.columns {
        let what = match (&c.extension, &c.spec) {
            (Some(_), Some(spec)) => format!("spec: {spec}"),
            (Some(ext), None) => format!("extension {ext}: {}", c.data_type),
            (None, _) => c.data_type.clone(),
        };
        let nulls = if c.nullable { "" } else { " (non-null)" };
        out.push_str(&format!("  {:<width$}  {what}{nulls}\n", c.name));
    }
    out
}

/// The JSON report of an Arrow IPC or Parquet file.
fn arrow_json(file: &str, info: &ArrowFileInfo) -> serde_json::Value {
    let columns: Vec<serde_json::Value> = info
        .columns
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name,
                "data_type": c.data_type,
                "nullable": c.nullable,
                "extension": c.extension,
                "spec": c.spec,
            })
        })
        .collect();
    serde_json::json!({
        "file": file,
        "format": format_name(info.kind),
        "file_bytes": info.file_bytes,
        "rows": info.rows,
        "batches": info.batches,
        "columns": columns,
    })
}

/// The text report of a safetensors file.
fn text(file: &str, info: &FileInfo) -> String {
    let mut out = format!("{file}: {} bytes\n", info.file_bytes);
    if info.types.is_empty() {
        out.push_str("type: (none: no extype metadata)\n");
    }
    for ((t, s), v) in info.types.iter().zip(&info.specs).zip(&info.versions) {
        if t == io::TENSOR_TYPE {
            out.push_str(&format!("type: {t}\nspec: {s}\n"));
        } else {
            out.push_str(&format!("type: {t}, version {v}\nspec: {s}\n"));
        }
    }
    let width = info.tensors.iter().map(|t| t.path.len()).max().unwrap_or(0);
    out.push_str("components:\n");
    for t in &info.tensors {
        out.push_str(&format!(
            "  {:<width$}  {:<4}  {}  {} bytes\n",
            t.path,
            t.dtype.to_string(),
            t.shape,
            t.bytes
        ));
    }
    out
}

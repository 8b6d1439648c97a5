//! `extype`: the command-line tool of extype.
//!
//! ```text
//! extype inspect [--json] FILE...
//! extype --version
//! ```
//!
//! prints each file's registered type, its spec compactly (`f32[2, 3]`) and each component's
//! path, dtype, shape and byte size, from the header alone (no tensor byte is read); a tensor of
//! a dtype extype cannot read (`F8_E4M3`, `C64`, …) is listed as `unsupported dtype F8_E4M3`
//! (half precision, `F16` and `BF16`, are extype's `f16` and `bf16`). `--json`
//! prints the same as one JSON object per file. Install with `cargo install --path cli`.

#![deny(clippy::undocumented_unsafe_blocks)]

use std::process::ExitCode;

use extype_core::io::{self, FileInfo};

const USAGE: &str = "usage: extype inspect [--json] FILE...\n       extype --version\n\n\
    Prints what a safetensors file holds: its registered type, its spec and each component's\n\
    path, dtype, shape and size in bytes (--json: the same as JSON).";

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
                let info = io::inspect(file).map_err(|e| e.to_string())?;
                if json {
                    let mut value = serde_json::to_value(&info).map_err(|e| e.to_string())?;
                    value["file"] = serde_json::Value::from(file.as_str());
                    println!("{value}");
                } else {
                    print!("{}", text(file, &info));
                }
            }
            Ok(())
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

/// The text report of one file.
fn text(file: &str, info: &FileInfo) -> String {
    let mut out = format!("{file}: {} bytes\n", info.file_bytes);
    if info.types.is_empty() {
        out.push_str("type: (none: no extype metadata)\n");
    }
    for (t, s) in info.types.iter().zip(&info.specs) {
        out.push_str(&format!("type: {t}\nspec: {s}\n"));
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

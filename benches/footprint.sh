#!/usr/bin/env bash
# The size of a user's debug binary (BENCHMARKS.md, "Build footprint"): a throwaway crate under
# target/footprint/ that depends on extype by path and uses a derived type, ops and io, built
# with `cargo build` (dev profile) under three [profile.dev] settings of the *user's* manifest
# (a workspace's profiles do not reach crates that depend on it): none (cargo's default, full
# debug info), line tables only, line tables for the crate and none for its dependencies, and
# the same with dependencies optimized (`opt-level = 1`). Prints each binary's size. Each
# variant has its own target directory (about 0.5-1.1 GB each).
#
#     bash benches/footprint.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/target/footprint"
mkdir -p "$dir/src"
cat > "$dir/src/main.rs" <<'RS'
use extype::ops;
use extype::types::MaskedTensor;
use extype::{ExtensionType, io};
use ndarray::{ArrayD, array};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "footprint.Pair")]
pub struct Pair {
    #[extype(shape = "*dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dims")]
    pub weights: ArrayD<f32>,
}

fn main() -> extype::Result<()> {
    let pair = Pair::try_new(array![[1.0f32, 2.0]].into_dyn(), array![[0.5f32, 0.5]].into_dyn())?;
    let path = std::env::temp_dir().join(format!("footprint-{}.safetensors", std::process::id()));
    io::save(&path, &pair)?;
    let back: Pair = io::load_as(&path)?;
    std::fs::remove_file(&path).ok();
    let x = MaskedTensor::new(back.values.clone(), back.values.mapv(|v| v > 1.0))?;
    let sum: MaskedTensor = ops::reduce_sum_as(&x, Some(&[1]), false)?;
    println!("{sum} {}", back.spec());
    Ok(())
}
RS
for variant in default line-tables-only no-dep-debug dep-opt-1; do
    case "$variant" in
        default) profile="" ;;
        line-tables-only) profile=$'[profile.dev]\ndebug = "line-tables-only"\n' ;;
        no-dep-debug) profile=$'[profile.dev]\ndebug = "line-tables-only"\n\n[profile.dev.package."*"]\ndebug = false\n' ;;
        dep-opt-1) profile=$'[profile.dev]\ndebug = "line-tables-only"\n\n[profile.dev.package."*"]\ndebug = false\nopt-level = 1\n' ;;
    esac
    cat > "$dir/Cargo.toml" <<TOML
[package]
name = "footprint"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
extype = { path = "$root" }
ndarray = "0.17"

$profile
[workspace]
TOML
    cp "$root/Cargo.lock" "$dir/Cargo.lock"
    (cd "$dir" && CARGO_TARGET_DIR="$dir/target-$variant" cargo build -q)
    bin="$dir/target-$variant/debug/footprint"
    "$bin" > /dev/null
    echo "$variant: $(stat -c %s "$bin") bytes ($(du -sh "$dir/target-$variant" | cut -f1) target dir)"
done

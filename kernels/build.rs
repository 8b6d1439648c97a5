//! Whether the kernels are compiled once per x86-64 instruction-set level (SSE2, AVX2,
//! AVX-512, chosen at run time) or once, portably.
//!
//! Multi-versioning pays only when LLVM optimises: the per-level copies exist so that each one
//! is vectorised for its width, and an unoptimised build vectorises none of them. It also costs
//! most of an unoptimised build: every kernel instantiated four times was half of
//! `extype-core`'s LLVM IR in a debug build (BENCHMARKS.md, "Fresh clone"). So a build of this
//! crate at `opt-level = 0` (cargo's `dev` and `test` profiles) compiles only the portable
//! level, and any optimised build (release, bench, or `opt-level ≥ 1` in a user's profile)
//! compiles every level. Results are bit-identical on every level, so only speed differs;
//! `Isa::is_supported` says which levels this build has.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(extype_simd_levels)");
    let x86_64 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "x86_64");
    let optimised = std::env::var("OPT_LEVEL").is_ok_and(|level| level != "0");
    if x86_64 && optimised {
        println!("cargo::rustc-cfg=extype_simd_levels");
    }
}

// Safe code outside extype-kernels cannot run AVX2 instructions unchecked: the AVX2 backend's
// vector methods execute them without a CPU feature check (SIGILL on a CPU without AVX2), so
// the backend cannot be named outside the crate.
#![forbid(unsafe_code)]

fn main() {
    let v = <extype_kernels::simd::Avx2 as extype_kernels::simd::VirtualVectors>::splat64(1.0);
    let _ = v;
}

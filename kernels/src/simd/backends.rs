//! Per-ISA backends: marker types and the `#[target_feature]` wrappers that instantiate kernels.

use super::{Isa, Kernel, Simd};

/// Portable reference backend (compilation baseline only).
#[derive(Clone, Copy, Debug)]
pub struct Scalar;
impl Simd for Scalar {
    const ISA: Isa = Isa::Scalar;
}

/// SSE2 backend (x86-64 baseline, 128-bit vectors).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Sse2;
#[cfg(target_arch = "x86_64")]
impl Simd for Sse2 {
    const ISA: Isa = Isa::Sse2;
}

/// AVX2 + FMA backend (256-bit vectors).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx2;
#[cfg(target_arch = "x86_64")]
impl Simd for Avx2 {
    const ISA: Isa = Isa::Avx2;
}

/// AVX-512 F/BW/DQ/VL backend (512-bit vectors).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx512;
#[cfg(target_arch = "x86_64")]
impl Simd for Avx512 {
    const ISA: Isa = Isa::Avx512;
}

/// Runs `kernel` compiled for AVX-512.
///
/// # Safety
/// The CPU must support avx512f, avx512bw, avx512dq, avx512vl, avx2 and fma.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
pub(super) unsafe fn run_avx512<K: Kernel>(kernel: K) -> K::Output {
    kernel.run::<Avx512>()
}

/// Runs `kernel` compiled for AVX2 + FMA.
///
/// # Safety
/// The CPU must support avx2 and fma.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn run_avx2<K: Kernel>(kernel: K) -> K::Output {
    kernel.run::<Avx2>()
}

/// Runs `kernel` compiled for SSE2.
///
/// # Safety
/// The CPU must support sse2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
pub(super) unsafe fn run_sse2<K: Kernel>(kernel: K) -> K::Output {
    kernel.run::<Sse2>()
}

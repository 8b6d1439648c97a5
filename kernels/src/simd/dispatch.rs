//! The dispatcher: the [`Simd`] trait kernels are generic over, the crate-internal [`Kernel`]
//! bodies, the `#[target_feature]` wrappers that instantiate them per level, and [`dispatch`],
//! the one place a level is chosen — only among those the CPU supports.

use super::backends::Scalar;
#[cfg(extype_simd_levels)]
use super::backends::{Avx2, Avx512, Sse2};
use super::isa::Isa;
#[cfg(extype_simd_levels)]
use super::isa::active_isa;
use super::vectors::VirtualVectors;

/// A backend: a type naming an instruction-set level. Kernels are generic over it so that each
/// instantiation is compiled (and vectorised) inside that level's wrapper. Not nameable outside
/// the crate (see `backends.rs` for why).
pub trait Simd: VirtualVectors + Send + Sync + 'static {
    /// The level this backend compiles for.
    const ISA: Isa;
}

impl Simd for Scalar {
    const ISA: Isa = Isa::Scalar;
}
#[cfg(extype_simd_levels)]
impl Simd for Sse2 {
    const ISA: Isa = Isa::Sse2;
}
#[cfg(extype_simd_levels)]
impl Simd for Avx2 {
    const ISA: Isa = Isa::Avx2;
}
#[cfg(extype_simd_levels)]
impl Simd for Avx512 {
    const ISA: Isa = Isa::Avx512;
}

/// A kernel body, compiled once per backend. Implementations mark `run` `#[inline(always)]`
/// so it is inlined into (and vectorised for) the target-feature wrapper that calls it.
pub(crate) trait Kernel {
    /// What the kernel returns.
    type Output;
    /// Runs the body for backend `S`.
    fn run<S: Simd>(self) -> Self::Output;
}

/// Runs `kernel` at the active level (always [`Isa::Scalar`] in an unoptimised build, which
/// compiles no other: see the crate's `build.rs`).
#[inline]
pub(crate) fn dispatch<K: Kernel>(kernel: K) -> K::Output {
    #[cfg(extype_simd_levels)]
    {
        // `active_isa` only returns levels verified as supported: the detected level comes from
        // `Isa::supported()`, and `force_isa` refuses unsupported levels.
        match active_isa() {
            // SAFETY: AVX-512 F/BW/DQ/VL, AVX2 and FMA are supported (see above).
            Isa::Avx512 => return unsafe { run_avx512(kernel) },
            // SAFETY: AVX2 and FMA are supported (see above).
            Isa::Avx2 => return unsafe { run_avx2(kernel) },
            // SAFETY: SSE2 is supported (see above; always on x86-64).
            Isa::Sse2 => return unsafe { run_sse2(kernel) },
            Isa::Scalar => {}
        }
    }
    kernel.run::<Scalar>()
}

/// Runs `kernel` compiled for AVX-512.
///
/// # Safety
/// The CPU must support avx512f, avx512bw, avx512dq, avx512vl, avx2 and fma.
#[cfg(extype_simd_levels)]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn run_avx512<K: Kernel>(kernel: K) -> K::Output {
    kernel.run::<Avx512>()
}

/// Runs `kernel` compiled for AVX2 + FMA.
///
/// # Safety
/// The CPU must support avx2 and fma.
#[cfg(extype_simd_levels)]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_avx2<K: Kernel>(kernel: K) -> K::Output {
    kernel.run::<Avx2>()
}

/// Runs `kernel` compiled for SSE2.
///
/// # Safety
/// The CPU must support sse2.
#[cfg(extype_simd_levels)]
#[target_feature(enable = "sse2")]
unsafe fn run_sse2<K: Kernel>(kernel: K) -> K::Output {
    kernel.run::<Sse2>()
}

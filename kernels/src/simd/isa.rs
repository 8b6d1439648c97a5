//! Instruction-set levels: which ones this CPU has (detected once, cached), and the test and
//! benchmark override. The only public face of the SIMD layer: naming a level runs nothing.

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction-set level a kernel can run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Portable Rust, no target features beyond the compilation baseline. The reference path.
    Scalar,
    /// x86-64 SSE2 (128-bit).
    Sse2,
    /// x86-64 AVX2 + FMA (256-bit).
    Avx2,
    /// x86-64 AVX-512 F/BW/DQ/VL (512-bit).
    Avx512,
}

impl Isa {
    /// Every level, narrowest first.
    pub const ALL: [Isa; 4] = [Isa::Scalar, Isa::Sse2, Isa::Avx2, Isa::Avx512];

    fn code(self) -> u8 {
        match self {
            Isa::Scalar => 1,
            Isa::Sse2 => 2,
            Isa::Avx2 => 3,
            Isa::Avx512 => 4,
        }
    }

    fn from_code(code: u8) -> Option<Isa> {
        Isa::ALL.into_iter().find(|isa| isa.code() == code)
    }

    /// Whether this build can run this level on this CPU. An unoptimised build of
    /// `extype-kernels` (`opt-level = 0`) compiles the kernels for [`Isa::Scalar`] only, since
    /// no level would be vectorised there (see the crate's `build.rs`); an optimised one
    /// compiles every x86-64 level and this asks the CPU.
    pub fn is_supported(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(extype_simd_levels)]
            Isa::Sse2 => std::arch::is_x86_feature_detected!("sse2"),
            #[cfg(extype_simd_levels)]
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(extype_simd_levels)]
            Isa::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(not(extype_simd_levels))]
            _ => false,
        }
    }

    /// The levels this build can run on this CPU ([`Isa::is_supported`]), narrowest first.
    pub fn supported() -> Vec<Isa> {
        Isa::ALL
            .into_iter()
            .filter(|isa| isa.is_supported())
            .collect()
    }

    /// The widest supported level (detected once and cached).
    pub fn detected() -> Isa {
        static DETECTED: AtomicU8 = AtomicU8::new(0);
        match Isa::from_code(DETECTED.load(Ordering::Relaxed)) {
            Some(isa) => isa,
            None => {
                let best = Isa::supported().pop().unwrap_or(Isa::Scalar);
                DETECTED.store(best.code(), Ordering::Relaxed);
                best
            }
        }
    }
}

/// Test/benchmark override of the level (0 = none). Global rather than thread-local so that
/// rayon worker threads see it too; results are path-independent by design, so a concurrently
/// running kernel is never affected in its result.
static FORCED: AtomicU8 = AtomicU8::new(0);

/// Forces every kernel onto `isa` (or back to automatic detection with `None`). Returns `false`
/// and changes nothing when the CPU does not support `isa`. For tests and benchmarks only.
#[doc(hidden)]
pub fn force_isa(isa: Option<Isa>) -> bool {
    match isa {
        Some(isa) if !isa.is_supported() => false,
        Some(isa) => {
            FORCED.store(isa.code(), Ordering::Relaxed);
            true
        }
        None => {
            FORCED.store(0, Ordering::Relaxed);
            true
        }
    }
}

/// The level kernels run at now: the forced one if any, else the detected one. Only ever a
/// level [`Isa::is_supported`] said yes to: the detected level is the widest of
/// [`Isa::supported`], and [`force_isa`] refuses unsupported levels (the dispatcher's safety
/// rests on this).
pub fn active_isa() -> Isa {
    Isa::from_code(FORCED.load(Ordering::Relaxed)).unwrap_or_else(Isa::detected)
}

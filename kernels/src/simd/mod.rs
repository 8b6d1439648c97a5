//! The one SIMD dispatch layer.
//!
//! Every kernel body is written once as an `#[inline(always)]` generic function over a backend
//! type `S: Simd` and wrapped in a `Kernel`. `dispatch` picks the widest instruction set the
//! CPU supports (detected once, cached in an atomic) and calls the kernel inside a wrapper
//! function compiled with `#[target_feature(enable = ...)]` for that instruction set, so LLVM
//! vectorises the inlined body for exactly that width. The vector width never leaks out of
//! this module: reductions are written over a fixed number of *virtual lanes*
//! ([`F32_LANES`], [`F64_LANES`]), which every backend maps onto its registers (4 zmm, 8 ymm,
//! 16 xmm or 64 scalars), so float results are bit-identical on every path.

mod backends;
pub mod vectors;

use std::sync::atomic::{AtomicU8, Ordering};

pub use backends::Scalar;
#[cfg(target_arch = "x86_64")]
pub use backends::{Avx2, Avx512, Sse2};
pub use vectors::VirtualVectors;

/// Virtual accumulator lanes for `f32` reductions: 64 lanes = four 512-bit registers. Fixed for
/// every instruction set so that the association order, hence the result, never depends on the CPU.
pub const F32_LANES: usize = 64;
/// Virtual accumulator lanes for `f64` and 64-bit integer reductions (four 512-bit registers).
pub const F64_LANES: usize = 32;

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

    /// Whether this CPU can run this level.
    pub fn is_supported(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Sse2 => std::arch::is_x86_feature_detected!("sse2"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The levels this CPU supports, narrowest first.
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

/// The level kernels run at now: the forced one if any, else the detected one.
pub fn active_isa() -> Isa {
    Isa::from_code(FORCED.load(Ordering::Relaxed)).unwrap_or_else(Isa::detected)
}

/// A backend: a marker type naming an instruction-set level. Kernels are generic over it so
/// that each instantiation is compiled (and vectorised) inside that level's wrapper.
pub trait Simd: VirtualVectors + Send + Sync + 'static {
    /// The level this backend compiles for.
    const ISA: Isa;
}

/// A kernel body, compiled once per backend. Implementations mark `run` `#[inline(always)]`
/// so it is inlined into (and vectorised for) the target-feature wrapper that calls it.
pub(crate) trait Kernel {
    /// What the kernel returns.
    type Output;
    /// Runs the body for backend `S`.
    fn run<S: Simd>(self) -> Self::Output;
}

/// Runs `kernel` at the active level.
#[inline]
pub(crate) fn dispatch<K: Kernel>(kernel: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    {
        // `active_isa` only returns levels verified as supported: the detected level comes from
        // `Isa::supported()`, and `force_isa` refuses unsupported levels.
        match active_isa() {
            // SAFETY: AVX-512 F/BW/DQ/VL, AVX2 and FMA are supported (see above).
            Isa::Avx512 => return unsafe { backends::run_avx512(kernel) },
            // SAFETY: AVX2 and FMA are supported (see above).
            Isa::Avx2 => return unsafe { backends::run_avx2(kernel) },
            // SAFETY: SSE2 is supported (see above; always on x86-64).
            Isa::Sse2 => return unsafe { backends::run_sse2(kernel) },
            Isa::Scalar => {}
        }
    }
    kernel.run::<Scalar>()
}

/// Hints the CPU to fetch the cache line holding `p` (no effect on results; never faults, so
/// `p` may point anywhere, e.g. past the end of a slice).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of the x86-64 baseline; a prefetch has no architectural effect and
    // does not fault on any address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

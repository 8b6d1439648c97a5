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
//!
//! Public here are only the levels ([`Isa`]) and the switch that picks among the supported ones:
//! the backends, their vector operations and the dispatcher are crate-private, because the
//! backends' safe methods execute instructions the CPU is not checked for (see `backends.rs`).
//! Files, bottom to top: `isa` (levels, detection), `backends` (one type per level), `vectors`
//! (the virtual-vector operations of each backend), `dispatch` (`Simd`, `Kernel`, the
//! target-feature wrappers), `prefetch`.
//!
//! ```
//! use extype_kernels::simd::{Isa, active_isa};
//! assert!(active_isa().is_supported() && Isa::supported().contains(&Isa::Scalar));
//! ```
//!
//! Safe code cannot name a backend, so it cannot run an instruction the CPU lacks (were this
//! to compile, it would execute AVX-512 on any CPU; the exact errors are checked by
//! `tests/ui/soundness/simd_*.rs` at the repository root):
//!
//! ```compile_fail
//! #![forbid(unsafe_code)]
//! use extype_kernels::simd::{Avx512, VirtualVectors};
//! let _ = <Avx512 as VirtualVectors>::splat32(1.0);
//! ```

// The x86-64 backends and their vector operations exist in every build, so the seal above
// reads the same in each profile; only an optimised build instantiates kernels with them
// (`build.rs`), which leaves them unused in an unoptimised one.
#[cfg_attr(not(extype_simd_levels), allow(dead_code))]
mod backends;
mod dispatch;
mod isa;
mod prefetch;
#[cfg_attr(not(extype_simd_levels), allow(dead_code))]
mod vectors;

pub(crate) use backends::Scalar;
pub(crate) use dispatch::{Kernel, Simd, dispatch};
pub use isa::{Isa, active_isa, force_isa};
pub(crate) use prefetch::prefetch;
pub use vectors::{F32_LANES, F64_LANES};

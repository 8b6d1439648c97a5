//! The backends: one type per instruction-set level, naming it at the type level. Kernels are
//! generic over a backend `S: Simd`, and each instantiation is compiled inside that level's
//! `#[target_feature]` wrapper (`dispatch.rs`).
//!
//! **Why these types are private.** The x86 backends'
//! [`VirtualVectors`](super::vectors::VirtualVectors) methods are safe functions that execute
//! their level's instructions (AVX-512 for [`Avx512`], AVX2 for [`Avx2`]) without checking the
//! CPU: that is what lets them inline into the wrapper and vectorise. They are sound only
//! because nothing outside this crate can name them (declared `pub` in private modules, never
//! re-exported publicly) and, inside it, only the dispatcher instantiates a kernel with one,
//! after [`Isa::is_supported`](super::isa::Isa::is_supported) said yes. The types are
//! uninhabited: no value of them exists, they are type arguments only. Compile-fail tests
//! (`tests/ui/soundness/simd_*.rs` at the repository root, and a doctest of `simd`) check that
//! safe code outside the crate cannot reach them.

/// Portable reference backend (compilation baseline only).
#[derive(Clone, Copy, Debug)]
pub enum Scalar {}

/// SSE2 backend (x86-64 baseline, 128-bit vectors).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub enum Sse2 {}

/// AVX2 + FMA backend (256-bit vectors). Its vector methods execute AVX2/FMA instructions.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub enum Avx2 {}

/// AVX-512 F/BW/DQ/VL backend (512-bit vectors). Its vector methods execute AVX-512
/// instructions.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub enum Avx512 {}

//! A software prefetch hint, for streams that do little work per cache line.

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

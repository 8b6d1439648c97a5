//! When to split work across rayon's threads.
//!
//! Splits happen only at fixed boundaries (perfect blocks of reduction leaves, fixed-size
//! chunks of elementwise outputs), so results never depend on the number of threads.

/// Minimum bytes of input per parallel task. Measured on the 2-core development machine
/// (see the crate docs): below about 1 MiB per task the join overhead (~5–10 µs) costs more
/// than the second core gains; above it both cores stream from DRAM.
pub const PAR_MIN_BYTES: usize = 1 << 20;

/// Elements per chunk of a parallel elementwise kernel (256 Ki elements: 1 MiB of `f32`).
pub const PAR_CHUNK_ELEMS: usize = 1 << 18;

/// Whether work of `bytes` should be split, given a minimum of `min_bytes` for splitting.
#[inline]
pub(crate) fn use_parallel(bytes: usize, min_bytes: usize) -> bool {
    bytes >= min_bytes && rayon::current_num_threads() > 1
}

/// Outputs at least this large ask the kernel for transparent huge pages before first touch.
pub const HUGE_PAGE_MIN_BYTES: usize = 8 << 20;

/// Asks Linux to back the 2 MiB-aligned interior of a fresh allocation with transparent huge
/// pages (`madvise(MADV_HUGEPAGE)`). First-touch page faults on 4 KiB pages cost more than a
/// streaming kernel itself on large outputs (measured: allocating and filling 256 MiB ran at
/// 1.2 GB/s against 8.9 GB/s for a copy into touched memory); with 2 MiB pages there are 512×
/// fewer faults. Purely advisory: errors are ignored and the memory stays ordinary.
pub(crate) fn advise_huge_pages<T>(buf: &mut [std::mem::MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = std::mem::size_of_val(buf);
        if bytes < HUGE_PAGE_MIN_BYTES {
            return;
        }
        let start = buf.as_mut_ptr() as usize;
        let (lo, hi) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
        if lo < hi {
            // SAFETY: `[lo, hi)` lies inside `buf`, which this process owns (a live, unique
            // allocation); MADV_HUGEPAGE changes only how pages are backed, never contents or
            // validity, so no Rust invariant depends on the call.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

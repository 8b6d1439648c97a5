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

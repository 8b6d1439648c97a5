//! When to split work across rayon's threads.
//!
//! Splits happen only at fixed boundaries (perfect blocks of reduction leaves, fixed-size
//! chunks of elementwise outputs), so results never depend on the number of threads.
//!
//! Kernels reach rayon only through `join` and `for_each_mut`, which hand it type-erased
//! closures: rayon's job, registry and iterator machinery is then compiled once, not once per
//! kernel, element type and SIMD backend (it was about a third of every test binary's code in a
//! debug build). One indirect call per task costs nothing beside a task of megabytes.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Minimum bytes of input per parallel task (work splits in two only from twice this size).
/// Measured with `cargo bench -p extype-kernels --bench kernels` ("parallel crossover": an `f32`
/// sum with no split against exactly one split into two rayon tasks, same calling thread) on the
/// shared 2-core development machine: below 4 MiB one split always lost; from 8 MiB it gained
/// clearly with the second core free and lost little with it busy. So inputs split from 8 MiB.
/// For the figures, see BENCHMARKS.md in the repository.
pub const PAR_MIN_BYTES: usize = 4 << 20;

/// Elements per chunk of a parallel elementwise kernel (256 Ki elements: 1 MiB of `f32`).
pub const PAR_CHUNK_ELEMS: usize = 1 << 18;

static MIN_BYTES: AtomicUsize = AtomicUsize::new(PAR_MIN_BYTES);

/// Overrides [`PAR_MIN_BYTES`] (for measuring the crossover in the benchmark; results do not
/// depend on it, only speed does).
#[doc(hidden)]
pub fn set_parallel_min_bytes(bytes: usize) {
    MIN_BYTES.store(bytes.max(1), Ordering::Relaxed);
}

/// Whether work touching `bytes` should be split in two (each half at least the minimum).
#[inline]
pub(crate) fn use_parallel(bytes: usize) -> bool {
    bytes >= 2 * MIN_BYTES.load(Ordering::Relaxed) && rayon::current_num_threads() > 1
}

/// Whether a kernel that builds a new output (maps, copies), touching `bytes` of input and
/// output together, should split: from twice the reductions' size (16 MiB by default). At 1 Mi
/// `f32` elements (an add touches 12 MiB, a row-broadcast add 8 MiB) one core beat two on the
/// shared machine (see BENCHMARKS.md in the repository).
#[inline]
pub(crate) fn use_parallel_output(bytes: usize) -> bool {
    use_parallel(bytes / 2)
}

/// Runs `a` and `b`, in parallel when a rayon worker is free, and returns both results
/// (`rayon::join` with the closures erased; a panic in either propagates).
pub(crate) fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    let (mut a, mut b) = (Some(a), Some(b));
    let (mut ra, mut rb) = (None, None);
    join_erased(&mut || ra = a.take().map(|f| f()), &mut || {
        rb = b.take().map(|f| f())
    });
    match (ra, rb) {
        (Some(ra), Some(rb)) => (ra, rb),
        _ => unreachable!("rayon::join returned without running both closures"),
    }
}

fn join_erased(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    rayon::join(a, b);
}

/// Calls `f(i, &mut items[i])` for every item, in parallel on rayon's pool.
pub(crate) fn for_each_mut<E: Send>(items: &mut [E], f: &(dyn Fn(usize, &mut E) + Sync)) {
    let base = SendPtr(items.as_mut_ptr());
    for_each_index(items.len(), &|i| {
        // SAFETY: `for_each_index` passes each `i` in `0..items.len()` exactly once, so each
        // call gets its own element of `items`, which stays exclusively borrowed (and alive)
        // until every call has returned; `E: Send` lets the element move to another thread.
        let item = unsafe { &mut *base.get().add(i) };
        f(i, item)
    });
}

fn for_each_index(n: usize, f: &(dyn Fn(usize) + Sync)) {
    use rayon::prelude::*;
    (0..n).into_par_iter().for_each(f);
}

/// A pointer that may cross threads: [`for_each_mut`] hands each thread a distinct element.
struct SendPtr<E>(*mut E);

impl<E> SendPtr<E> {
    // A method, not the field: closures then capture the whole `SendPtr`, which is `Sync`.
    fn get(&self) -> *mut E {
        self.0
    }
}

// SAFETY: only `for_each_mut` makes one, and it dereferences it at distinct indices of a slice
// it borrows exclusively; `E: Send` because each element is used by one thread at a time.
unsafe impl<E: Send> Sync for SendPtr<E> {}

/// Outputs at least this large ask the kernel for transparent huge pages before first touch.
/// Smaller ones usually come from memory the allocator recycles (glibc serves allocations
/// below its adaptive `mmap` threshold, which grows to 32 MiB, from the heap), where the
/// `madvise` call is pure cost: at 4 MiB outputs it made a 1 Mi add markedly slower (see
/// BENCHMARKS.md in the repository).
pub const HUGE_PAGE_MIN_BYTES: usize = 8 << 20;

/// Asks Linux to back the 2 MiB-aligned interior of a fresh allocation with transparent huge
/// pages (`madvise(MADV_HUGEPAGE)`). First-touch page faults on 4 KiB pages cost more than a
/// streaming kernel itself on large outputs (allocating and filling a large buffer ran several
/// times slower than a copy into touched memory; see BENCHMARKS.md in the repository); with
/// 2 MiB pages there are 512 times fewer faults. Purely advisory: errors are ignored and the
/// memory stays ordinary.
pub fn advise_huge_pages<T>(buf: &mut [T]) {
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

//! A global allocator for tests that bound memory: the system allocator, counting the bytes of
//! every allocation that succeeds (a refused fallible reservation returns null and counts
//! nothing): the total granted, the bytes live and their peak. A test binary installs it with
//!
//! ```ignore
//! #[path = "common/counting_alloc.rs"]
//! mod counting_alloc;
//! #[global_allocator]
//! static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;
//! ```
//!
//! and measures a closure with [`measure`].

// Each test binary reads the figures it bounds: not every one reads them all.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The counting allocator.
pub struct Counting;

static TOTAL: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grant(bytes: usize) {
    TOTAL.fetch_add(bytes, Ordering::Relaxed);
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the counters
// are atomics and do not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (the caller upholds `alloc`'s contract).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grant(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grant(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grant(new_size);
        }
        p
    }
}

/// What a closure allocated, as [`measure`] reports it.
pub struct Heap<T> {
    /// The closure's result.
    pub out: T,
    /// Bytes granted while it ran (freed or not).
    pub total: usize,
    /// The peak of live bytes it added over what was live when it started.
    pub peak: usize,
}

/// Runs `f` and reports its result with the bytes it allocated and its peak. The counters are
/// process-wide: a test binary that measures runs its measuring tests one at a time.
pub fn measure<T>(f: impl FnOnce() -> T) -> Heap<T> {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let total = TOTAL.load(Ordering::Relaxed);
    let out = f();
    Heap {
        total: TOTAL.load(Ordering::Relaxed) - total,
        peak: PEAK.load(Ordering::Relaxed).saturating_sub(base),
        out,
    }
}

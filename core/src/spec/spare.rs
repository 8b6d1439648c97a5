//! One freed block per thread, kept for the next value of the same layout: the cache of
//! [`SharedExtension`](super::SharedExtension) (in `value.rs`, above this file, which uses nothing
//! else of `spec`).
//!
//! Every op returns its result in a fresh `SharedExtension`, and the common loop drops one
//! result before the next op makes another of the same type: keeping the last block saves the
//! allocator a free and a malloc per call (a large share of the dispatch overhead; see
//! BENCHMARKS.md in the repository, "Op dispatch"). At most one block per thread is kept, of
//! the size of one value's struct (the tensors' buffers are separate allocations and are freed
//! as usual); it is freed when the thread ends or by
//! [`SharedExtension::release_spare`](super::SharedExtension::release_spare).

use std::alloc::{Layout, dealloc};
use std::cell::Cell;
use std::ptr::NonNull;

/// The kept block and its layout.
struct Spare(Cell<Option<(NonNull<u8>, Layout)>>);

impl Drop for Spare {
    fn drop(&mut self) {
        release(&self.0);
    }
}

thread_local! {
    static SPARE: Spare = const { Spare(Cell::new(None)) };
}

fn release(cell: &Cell<Option<(NonNull<u8>, Layout)>>) {
    if let Some((block, layout)) = cell.take() {
        // SAFETY: kept by `give`, whose caller got it from the global allocator with
        // `layout`; taken out of the cell, so freed once.
        unsafe { dealloc(block.as_ptr(), layout) }
    }
}

/// The kept block, if it has this layout (it is then no longer kept).
#[inline]
pub(super) fn take(layout: Layout) -> Option<NonNull<u8>> {
    SPARE
        .try_with(|spare| match spare.0.get() {
            Some((block, kept)) if kept == layout => {
                spare.0.set(None);
                Some(block)
            }
            _ => None,
        })
        .ok()
        .flatten()
}

/// Keeps `block` for the next value of its layout, freeing the block kept before (the newest
/// layout is the likeliest next). During the thread's teardown, frees `block` instead.
///
/// # Safety
/// `block` came from the global allocator with `layout`, holds no value, and nothing else
/// refers to it.
#[inline]
pub(super) unsafe fn give(block: NonNull<u8>, layout: Layout) {
    let free = SPARE
        .try_with(|spare| spare.0.replace(Some((block, layout))))
        .unwrap_or(Some((block, layout)));
    if let Some((block, layout)) = free {
        // SAFETY: from the global allocator with this layout (the caller's contract, or
        // `give`'s for the block kept before), and no longer kept.
        unsafe { dealloc(block.as_ptr(), layout) }
    }
}

/// Frees this thread's kept block, if any.
pub(super) fn release_this_thread() {
    // During teardown the block is being (or was) freed by `Spare`'s drop.
    let _ = SPARE.try_with(|spare| release(&spare.0));
}

//! [`SharedExtension`]: an extension value of any type in one reference-counted allocation.
//!
//! Not `Arc<dyn …>`: a handler's result is almost always the only reference to its value when
//! it is dropped, and `Arc` pays two atomic read-modify-writes for that drop (the strong count,
//! then the weak count it keeps for `Weak`). Here there is no weak count, and a drop that
//! finds the count at one frees the allocation after a plain load — into a one-block cache per
//! thread that the next value of the same layout reuses (see `spare`).

use std::alloc::{Layout, alloc, handle_alloc_error};
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering, fence};

use super::{AnyExtension, ExtensionType};
use crate::tensor::Tensor;

/// An extension value of any type behind a shared pointer: what
/// [`Value::Extension`](super::Value::Extension) holds. Derefs to
/// [`dyn AnyExtension`](AnyExtension); clone is O(1).
///
/// One allocation holds the reference count and the value, so wrapping a handler's result costs
/// one allocation, and usually not even that: each thread keeps the block of the last value it
/// freed for the next value of the same layout ([`release_spare`](Self::release_spare)).
/// Reference counting and dropping are code shared by all types (through the `dyn`); per type
/// there are only the slot's few methods.
///
/// The handle is one thin pointer, to the allocation's header; the `dyn` pointer to the whole
/// allocation is kept in the header. A result handed up through the dispatch layers is then one
/// word: a 16-byte (data, vtable) pair written by a handler as two 8-byte stores and read back
/// by its caller as one 16-byte load defeats the CPU's store forwarding, which cost several
/// nanoseconds per dispatched call (see BENCHMARKS.md in the repository, "Op dispatch").
pub struct SharedExtension(NonNull<Header>);

/// The start of every allocation: the number of [`SharedExtension`]s pointing at it, and the
/// allocation as the `dyn` pointer its value is reached through.
#[repr(C)]
struct Header {
    count: AtomicUsize,
    this: NonNull<Counted<dyn Shared>>,
}

/// The allocation: its header, and the value. `repr(C)`: the header is at offset 0, so a pointer
/// to the allocation is a pointer to its header.
#[repr(C)]
struct Counted<S: ?Sized> {
    header: Header,
    slot: S,
}

// SAFETY: the pointee's count is atomic and its slot is `Send + Sync` (a bound of `Shared`);
// the value is reached mutably only through `get_mut`, by the one owner. These are the
// conditions under which `Arc<dyn Shared>` is `Send` and `Sync`.
unsafe impl Send for SharedExtension {}
// SAFETY: as for `Send`.
unsafe impl Sync for SharedExtension {}

/// An extension value in its [`SharedExtension`] allocation, which a unique owner can move out.
struct Slot<T> {
    value: ManuallyDrop<T>,
    /// Whether `value` was moved out (then only the allocation is freed).
    taken: bool,
}

impl<T> Drop for Slot<T> {
    fn drop(&mut self) {
        if !self.taken {
            // SAFETY: `value` was not moved out, and is dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.value) }
        }
    }
}

/// The type-erased side of a [`Slot`].
trait Shared: Send + Sync {
    fn get(&self) -> &dyn AnyExtension;
    /// Moves the value out into a box.
    ///
    /// # Safety
    /// At most once per slot; afterwards the slot is only dropped.
    unsafe fn take_boxed(&mut self) -> Box<dyn AnyExtension>;
    /// Moves the value out as its components.
    ///
    /// # Safety
    /// As for [`take_boxed`](Shared::take_boxed).
    unsafe fn take_components(&mut self) -> Vec<Tensor>;
}

impl<T: ExtensionType> Shared for Slot<T> {
    #[inline]
    fn get(&self) -> &dyn AnyExtension {
        &*self.value
    }

    unsafe fn take_boxed(&mut self) -> Box<dyn AnyExtension> {
        self.taken = true;
        // SAFETY: the caller takes the value at most once; `taken` keeps `drop` off it.
        Box::new(unsafe { ManuallyDrop::take(&mut self.value) })
    }

    unsafe fn take_components(&mut self) -> Vec<Tensor> {
        self.taken = true;
        // SAFETY: as in `take_boxed`.
        unsafe { ManuallyDrop::take(&mut self.value) }.into_components()
    }
}

impl Shared for Slot<Box<dyn AnyExtension>> {
    #[inline]
    fn get(&self) -> &dyn AnyExtension {
        &**self.value
    }

    unsafe fn take_boxed(&mut self) -> Box<dyn AnyExtension> {
        self.taken = true;
        // SAFETY: as for `Slot<T>`.
        unsafe { ManuallyDrop::take(&mut self.value) }
    }

    unsafe fn take_components(&mut self) -> Vec<Tensor> {
        // SAFETY: forwarded from the caller.
        unsafe { self.take_boxed() }.into_components_boxed()
    }
}

impl SharedExtension {
    /// Wraps an extension value (one allocation).
    pub fn new<T: ExtensionType>(value: T) -> Self {
        Self::from_slot(Slot {
            value: ManuallyDrop::new(value),
            taken: false,
        })
    }

    /// Wraps a boxed extension value.
    pub fn from_box(value: Box<dyn AnyExtension>) -> Self {
        Self::from_slot(Slot {
            value: ManuallyDrop::new(value),
            taken: false,
        })
    }

    #[inline]
    fn from_slot<S: Shared + 'static>(slot: S) -> Self {
        let layout = Layout::new::<Counted<S>>();
        let raw = match spare::take(layout) {
            Some(reused) => reused.as_ptr(),
            // SAFETY: the layout is not zero-sized (it holds the count).
            None => unsafe { alloc(layout) },
        };
        let Some(raw) = NonNull::new(raw.cast::<Counted<S>>()) else {
            handle_alloc_error(layout)
        };
        let this: NonNull<Counted<dyn Shared>> = raw;
        // SAFETY: `raw` is a block of `Counted<S>`'s layout from the global allocator, fresh or
        // given up by a dropped value (`spare` hands a block out once); nothing else points at it.
        unsafe {
            raw.as_ptr().write(Counted {
                header: Header {
                    count: AtomicUsize::new(1),
                    this,
                },
                slot,
            })
        };
        SharedExtension(raw.cast::<Header>())
    }

    #[inline]
    fn header(&self) -> &Header {
        // SAFETY: the allocation lives while any `SharedExtension` points at it, and `self` does;
        // it starts with its initialised header (`Counted` is `repr(C)`).
        unsafe { self.0.as_ref() }
    }

    /// The whole allocation, as written by `from_slot`.
    #[inline]
    fn this(&self) -> NonNull<Counted<dyn Shared>> {
        self.header().this
    }

    /// The slot, if this is the only reference to it.
    #[inline]
    fn get_mut(&mut self) -> Option<&mut dyn Shared> {
        // Acquire: other owners' uses of the value (released by their drops) happen before ours.
        if self.header().count.load(Ordering::Acquire) != 1 {
            return None;
        }
        // SAFETY: the count is one, so `self` is the only pointer to the allocation, and no
        // other can appear while `self` is borrowed mutably (a clone needs a reference to one).
        Some(unsafe { &mut (*self.this().as_ptr()).slot })
    }

    /// The value, if this is the only reference to it.
    pub fn try_unwrap(mut self) -> std::result::Result<Box<dyn AnyExtension>, SharedExtension> {
        match self.get_mut() {
            // SAFETY: the only reference, consumed here: the slot is dropped right after.
            Some(slot) => Ok(unsafe { slot.take_boxed() }),
            None => Err(self),
        }
    }

    /// The components: moved out when this is the only reference, else those of a clone.
    pub fn into_components(mut self) -> Vec<Tensor> {
        match self.get_mut() {
            // SAFETY: as in `try_unwrap`.
            Some(slot) => unsafe { slot.take_components() },
            None => self.clone_components(),
        }
    }

    /// Whether both point to the same value.
    pub fn ptr_eq(a: &SharedExtension, b: &SharedExtension) -> bool {
        a.0 == b.0
    }

    /// Frees the one block this thread keeps for the next value: dropping the last reference to
    /// a value keeps its allocation (the struct, not its tensors' buffers) for the next value of
    /// the same layout, because every op returns a fresh value and a loop of ops would otherwise
    /// pay a free and a malloc per call. The block is freed anyway when the thread ends; call
    /// this before counting a thread's live allocations (leak checks, tests).
    pub fn release_spare() {
        spare::release_this_thread();
    }

    /// How many `SharedExtension`s point at this value (a snapshot: others may change it).
    pub fn ref_count(&self) -> usize {
        self.header().count.load(Ordering::Relaxed)
    }
}

impl Clone for SharedExtension {
    #[inline]
    fn clone(&self) -> Self {
        // Relaxed, as in `Arc`: a new reference is made from an existing one, so the allocation
        // is alive, and no other memory needs ordering with the increment.
        let old = self.header().count.fetch_add(1, Ordering::Relaxed);
        // Counts near `usize::MAX` can only come from leaked clones; wrapping would free the
        // value while it is in use, so stop, as `Arc` does.
        if old > isize::MAX as usize {
            std::process::abort();
        }
        SharedExtension(self.0)
    }
}

impl Drop for SharedExtension {
    #[inline]
    fn drop(&mut self) {
        let count = &self.header().count;
        // A count of one is this reference alone: no other exists and none can appear, so no
        // read-modify-write is needed. Acquire: other owners' uses of the value (released by
        // their decrements) happen before the free.
        if count.load(Ordering::Acquire) != 1 {
            if count.fetch_sub(1, Ordering::Release) != 1 {
                return;
            }
            // The last reference after all (the others were dropped meanwhile).
            fence(Ordering::Acquire);
        }
        let raw = self.this().as_ptr();
        // SAFETY: this was the last reference, so nothing else can reach the allocation; it
        // holds an initialised `Counted` (written in `from_slot`), dropped once, here.
        let layout = unsafe {
            let layout = Layout::for_value(&*raw);
            std::ptr::drop_in_place(raw);
            layout
        };
        // SAFETY: the block came from the global allocator with this layout (`from_slot`), holds
        // no value any more, and this was its last reference; `raw` came from a `NonNull`.
        unsafe { spare::give(NonNull::new_unchecked(raw.cast::<u8>()), layout) };
    }
}

impl std::ops::Deref for SharedExtension {
    type Target = dyn AnyExtension;

    #[inline]
    fn deref(&self) -> &(dyn AnyExtension + 'static) {
        // SAFETY: as in `header`; the value is only reached mutably by a unique owner.
        unsafe { self.this().as_ref() }.slot.get()
    }
}

impl std::fmt::Debug for SharedExtension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// One freed block per thread, kept for the next value of the same layout.
///
/// Every op returns its result in a fresh [`SharedExtension`], and the common loop drops one
/// result before the next op makes another of the same type: keeping the last block saves the
/// allocator a free and a malloc per call (a large share of the dispatch overhead; see
/// BENCHMARKS.md in the repository, "Op dispatch"). At most one block per thread is kept, of
/// the size of one value's struct (the tensors' buffers are separate allocations and are freed
/// as usual); it is freed when the thread ends or by [`SharedExtension::release_spare`].
mod spare {
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
}

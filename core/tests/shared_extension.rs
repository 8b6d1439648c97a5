//! `SharedExtension`, the reference-counted allocation behind `Value::Extension`: clones and
//! drops from many threads free the value exactly once, and a unique owner moves it out.
//! Leaks and double frees show in a count of the bytes allocated by the threads that opt in
//! (the test harness's own threads allocate at times of their choosing, so they are not counted).

extern crate extype_core as extype;

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicIsize, Ordering};

use common::MaskedTensor;
use extype::{SharedExtension, Tensor};
use ndarray::ArrayD;

/// The system allocator, counting the bytes allocated minus freed by counted threads.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    /// Whether this thread's allocations count (const-initialised: no allocation, no destructor).
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

/// The tests count into one total, so they take turns.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Counts this thread's allocations until dropped. A test thread must stop counting before it
/// ends: the harness frees its own allocations (the thread's name, output capture) as the thread
/// exits, which would show in another test's count.
struct CountThisThread;

impl CountThisThread {
    fn start() -> CountThisThread {
        counted(true);
        CountThisThread
    }
}

impl Drop for CountThisThread {
    fn drop(&mut self) {
        counted(false);
    }
}

fn counted(on: bool) {
    COUNTED.with(|c| c.set(on));
}

fn add_live(bytes: usize, sign: isize) {
    if COUNTED.with(Cell::get) {
        LIVE.fetch_add(sign * bytes as isize, Ordering::Relaxed);
    }
}

// SAFETY: forwards to `System`, only counting sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add_live(layout.size(), 1);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add_live(layout.size(), -1);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn masked(n: usize) -> MaskedTensor {
    MaskedTensor {
        values: ArrayD::from_shape_fn(vec![n], |i| i[0] as f32),
        mask: ArrayD::from_shape_fn(vec![n], |i| i[0] % 2 == 0),
    }
}

fn data_ptr(t: &Tensor) -> *const u8 {
    match t {
        Tensor::F32(a) => a.as_ptr().cast(),
        Tensor::Bool(a) => a.as_ptr().cast(),
        other => panic!("unexpected component {other:?}"),
    }
}

#[test]
fn clones_and_drops_free_the_value_once_and_a_unique_owner_moves_it_out() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let _counting = CountThisThread::start();
    let before = LIVE.load(Ordering::Relaxed);

    // Clones made and dropped on four threads at once (not counted: spawning allocates on one
    // thread and frees on another): the count returns to one, and the value is still there.
    let shared = SharedExtension::new(masked(1000));
    counted(false);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let mine = shared.clone();
            std::thread::spawn(move || {
                for _ in 0..10_000 {
                    let a = mine.clone();
                    let b = a.clone();
                    assert!(SharedExtension::ptr_eq(&a, &b));
                    drop(a);
                    drop(b);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    counted(true);
    assert_eq!(shared.ref_count(), 1);
    let held = shared.as_any().downcast_ref::<MaskedTensor>().unwrap();
    assert_eq!(held.values.len(), 1000);
    let held_values: *const u8 = held.values.as_ptr().cast();

    // Shared: the components are those of a clone (the other owner keeps the value).
    let other = shared.clone();
    assert_eq!(other.ref_count(), 2);
    let copied = other.clone().into_components();
    assert_eq!(copied.len(), 2);
    assert_ne!(data_ptr(&copied[0]), held_values);
    let other = match other.try_unwrap() {
        Ok(_) => panic!("try_unwrap succeeded with another reference alive"),
        Err(other) => other,
    };
    drop(other);

    // Unique: the components move out (same buffers), and nothing is left allocated once
    // they are dropped.
    let moved = shared.into_components();
    assert_eq!(data_ptr(&moved[0]), held_values);
    drop((moved, copied));
    SharedExtension::release_spare();
    assert_eq!(
        LIVE.load(Ordering::Relaxed),
        before,
        "bytes leaked or freed twice"
    );

    // The last of many owners, dropped on another thread, frees it.
    let shared = SharedExtension::new(masked(10));
    let clones: Vec<SharedExtension> = (0..8).map(|_| shared.clone()).collect();
    drop(shared);
    counted(false);
    std::thread::spawn(move || {
        counted(true);
        drop(clones);
        SharedExtension::release_spare();
        counted(false);
    })
    .join()
    .unwrap();
    counted(true);
    assert_eq!(
        LIVE.load(Ordering::Relaxed),
        before,
        "bytes leaked or freed twice"
    );

    // A unique owner takes the value out as a box.
    let value = SharedExtension::new(masked(3)).try_unwrap().ok().unwrap();
    assert!(value.type_name().ends_with("MaskedTensor"));
    drop(value);
    SharedExtension::release_spare();
    assert_eq!(
        LIVE.load(Ordering::Relaxed),
        before,
        "bytes leaked or freed twice"
    );
}

/// The address of the value inside its allocation.
fn address(value: &SharedExtension) -> *const u8 {
    std::ptr::from_ref(&**value).cast()
}

#[test]
fn a_dropped_values_block_is_reused_once_for_the_same_layout_and_released_on_request() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let _counting = CountThisThread::start();
    let before = LIVE.load(Ordering::Relaxed);
    SharedExtension::release_spare();

    let first = SharedExtension::new(masked(4));
    let first_at = address(&first);
    drop(first);
    // Kept (the struct's block only: the tensors' buffers were freed with the value).
    let kept = LIVE.load(Ordering::Relaxed) - before;
    assert!(kept > 0, "the dropped value's block was not kept");
    assert!(
        kept < 1024,
        "more than one struct's block kept: {kept} bytes"
    );

    // The next value of the same type takes it; the one after that needs a new block.
    let second = SharedExtension::new(masked(4));
    assert_eq!(address(&second), first_at);
    let third = SharedExtension::new(masked(4));
    assert_ne!(address(&third), first_at);
    let values = |v: &SharedExtension| {
        let masked = v.as_any().downcast_ref::<MaskedTensor>().unwrap();
        masked.values.as_slice().unwrap().to_vec()
    };
    assert_eq!(values(&second), vec![0.0, 1.0, 2.0, 3.0]);
    assert_eq!(values(&third), values(&second));

    // A value of another layout does not take it.
    drop(second);
    let other = SharedExtension::from_box(Box::new(masked(4)));
    assert_ne!(address(&other), first_at);

    drop((third, other));
    SharedExtension::release_spare();
    assert_eq!(
        LIVE.load(Ordering::Relaxed),
        before,
        "bytes leaked or freed twice"
    );
}

/// The handle is one pointer (the `dyn` pointer lives in the allocation), so a result moves
/// through the dispatch layers as one word; `Option` and `Value` use its niche.
#[test]
fn the_handle_is_one_word() {
    use std::mem::size_of;
    assert_eq!(size_of::<SharedExtension>(), size_of::<usize>());
    assert_eq!(size_of::<Option<SharedExtension>>(), size_of::<usize>());
    let a = SharedExtension::new(masked(3));
    let b = a.clone();
    assert!(SharedExtension::ptr_eq(&a, &b));
    assert!(!SharedExtension::ptr_eq(
        &a,
        &SharedExtension::new(masked(3))
    ));
    assert_eq!(a.ref_count(), 2);
    drop(b);
    assert_eq!(a.ref_count(), 1);
    let masked = a
        .as_any()
        .downcast_ref::<MaskedTensor>()
        .expect("a MaskedTensor");
    assert_eq!(masked.values.as_slice().unwrap(), &[0.0, 1.0, 2.0]);
}

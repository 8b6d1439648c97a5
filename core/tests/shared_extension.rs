//! `SharedExtension`, the reference-counted allocation behind `Value::Extension`: clones and
//! drops from many threads free the value exactly once, and a unique owner moves it out.
//! Leaks and double frees show in a count of the bytes allocated by the threads that opt in
//! (the test harness's own threads allocate at times of their choosing, so they are not counted).

extern crate extype_core as extype;

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
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
    counted(true);
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
    assert_eq!(
        LIVE.load(Ordering::Relaxed),
        before,
        "bytes leaked or freed twice"
    );
}

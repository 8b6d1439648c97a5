//! Elementwise ops on zero-stride broadcast views, measured by a counting global allocator (its
//! own test binary: the allocator is global).
//!
//! - A huge view (`[2^20, 2^20]` u8 broadcast from `[1]`: 1 TiB of output) is refused with an
//!   error naming the output size, quickly, and nothing proportional to it is allocated (the
//!   output size is checked before the inputs are touched; a refused probe allocates nothing).
//! - A moderate view is read in place by the kernels: the call allocates its output and a few
//!   bytes, never a contiguous copy of an input.

extern crate extype_core as extype;

use std::time::{Duration, Instant};

use extype::ops::{self, AsOperand, Op, OpArgs, Operand, catalog};
use extype::{DType, Tensor, Value};
use ndarray::{Array1, ArrayD, ArrayView2, IxDyn};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

/// What a call allocated: every granted byte, and the peak of live bytes above those live before.
struct Measured<T> {
    out: T,
    total: usize,
    peak: usize,
    took: Duration,
}

fn measure<T>(f: impl FnOnce() -> T) -> Measured<T> {
    let start = Instant::now();
    let heap = counting_alloc::measure(f);
    Measured {
        took: start.elapsed(),
        total: heap.total,
        peak: heap.peak,
        out: heap.out,
    }
}

/// The operands of `op` (1, 2 or 3 of them: `where` takes a bool condition first) over these
/// views.
fn operands<'a>(
    op: &Op,
    x: &'a ArrayView2<'a, u8>,
    c: &'a ArrayView2<'a, bool>,
) -> Vec<Operand<'a>> {
    if std::ptr::eq(op, &catalog::WHERE) {
        return vec![c.as_operand(), x.as_operand(), x.as_operand()];
    }
    if std::ptr::eq(op, &catalog::CONCAT) || std::ptr::eq(op, &catalog::STACK) {
        return vec![x.as_operand(), x.as_operand()];
    }
    match op.kind() {
        ops::OpKind::BinaryElementwise => vec![x.as_operand(), x.as_operand()],
        _ => vec![x.as_operand()],
    }
}

/// The ops whose output is as large as their input (elementwise maps, broadcasting ops, and the
/// ops that move data), on `u8` (cast: to `u8`), with the extra arguments each needs.
fn ops_on_u8() -> Vec<(&'static Op, OpArgs)> {
    let mut out: Vec<(&'static Op, OpArgs)> = catalog::ALL
        .iter()
        .copied()
        .filter(|op| {
            matches!(
                op.kind(),
                ops::OpKind::UnaryElementwise | ops::OpKind::BinaryElementwise
            ) && op.dtypes().contains(DType::U8)
                && !std::ptr::eq(*op, &catalog::BOOLEAN_MASK)
        })
        .map(|op| (op, OpArgs::none()))
        .collect();
    out.extend([
        (&catalog::WHERE, OpArgs::none()),
        (&catalog::CAST, OpArgs::none().with_dtype(DType::U8)),
        (&catalog::TRANSPOSE, OpArgs::none()),
        (&catalog::TILE, OpArgs::none().with_shape(&[2, 1])),
        (&catalog::CONCAT, OpArgs::none()),
        (&catalog::STACK, OpArgs::none()),
    ]);
    out
}

fn huge_views_are_refused_before_anything_is_allocated() {
    const N: usize = 1 << 20;
    let one = Array1::from(vec![1u8]);
    let yes = Array1::from(vec![true]);
    let x = one.broadcast((N, N)).expect("fits isize");
    let c = yes.broadcast((N, N)).expect("fits isize");
    assert_eq!(x.strides(), &[0, 0], "a zero-stride view");
    let all = ops_on_u8();
    assert!(all.len() >= 20, "{} ops", all.len());
    for (op, args) in all {
        let xs = operands(op, &x, &c);
        let m = measure(|| ops::call(op, &xs, &args).map(drop));
        let err = m.out.expect_err("1 TiB of output is refused").to_string();
        assert!(
            err.starts_with(&format!("{op}: output of shape [")) && err.contains("1048576]"),
            "{op}: {err}"
        );
        assert!(
            m.peak < 1 << 16,
            "{op}: {} bytes live at the peak of a refused call",
            m.peak
        );
        // A guard against touching the refused output, not a speed claim: generous under load.
        assert!(m.took < Duration::from_secs(60), "{op}: took {:?}", m.took);
    }
}

fn moderate_views_are_read_in_place() {
    const N: usize = 1 << 10;
    let one = Array1::from(vec![3u8]);
    let yes = Array1::from(vec![true]);
    let x = one.broadcast((N, N)).expect("fits isize");
    let c = yes.broadcast((N, N)).expect("fits isize");
    // The same values, contiguous (made before anything is measured).
    let dense_x = Tensor::from(x.to_owned().into_dyn());
    let dense_c = Tensor::from(c.to_owned().into_dyn());
    for (op, args) in ops_on_u8() {
        let want = {
            let xs: Vec<Operand<'_>> = operands(op, &x, &c)
                .iter()
                .map(|o| {
                    if o.as_view().is_some_and(|v| v.dtype() == DType::Bool) {
                        dense_c.as_operand()
                    } else {
                        dense_x.as_operand()
                    }
                })
                .collect();
            ops::call(op, &xs, &args).expect("computes on dense copies")
        };
        let xs = operands(op, &x, &c);
        let m = measure(|| ops::call(op, &xs, &args));
        let got: Value = m.out.unwrap_or_else(|e| panic!("{op}: {e}"));
        let got = got.into_tensor().expect("a tensor");
        assert_eq!(got, want.into_tensor().expect("a tensor"), "{op}");
        let out_bytes = got.shape().iter().product::<usize>() * got.dtype().size_of();
        // One input copy would be another `N * N` bytes at least.
        assert!(
            m.total < out_bytes + (1 << 16),
            "{op}: allocated {} bytes for an output of {out_bytes}",
            m.total
        );
    }
    // The result of an elementwise op on a broadcast view is right where it was read.
    let s: Tensor = ops::add_as(&x, &x).unwrap();
    assert_eq!(s, Tensor::from(ArrayD::from_elem(IxDyn(&[N, N]), 6u8)));
}

/// One test (the counters are global): both halves in turn.
#[test]
fn broadcast_views_are_checked_first_and_never_copied() {
    huge_views_are_refused_before_anything_is_allocated();
    moderate_views_are_read_in_place();
}

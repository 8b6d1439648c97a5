//! Kernels that allocate check their output's size first: an output whose element count or byte
//! size overflows or exceeds `isize::MAX` is a [`KernelError::TooLarge`], never a panic — here
//! on zero-stride views, whose logical size needs no memory.

use extype_kernels::elementwise::binary;
use extype_kernels::{KernelError, compact, gather, select, stack_concat};
use ndarray::{ArrayViewD, IxDyn, arr0};

const G31: usize = 1 << 31;

fn huge<'a, T>(one: &'a ndarray::Array0<T>, dims: &[usize]) -> ArrayViewD<'a, T> {
    one.broadcast(IxDyn(dims))
        .expect("the element count fits isize")
}

fn too_large<T: std::fmt::Debug>(r: extype_kernels::Result<T>) -> String {
    match r {
        Err(e @ KernelError::TooLarge { .. }) => e.to_string(),
        other => panic!("expected TooLarge, found {other:?}"),
    }
}

#[test]
fn binary_and_select_refuse_outputs_beyond_isize() {
    let one = arr0(1.0f32);
    let big = huge(&one, &[G31, G31]);
    let msg = too_large(binary::add(&big, &big));
    assert_eq!(
        msg,
        "add: output of shape [2147483648, 2147483648] (4-byte elements): expected at most \
         9223372036854775807 bytes (isize::MAX), found 18446744073709551616 bytes"
    );
    let (row, col) = (huge(&one, &[1, G31]), huge(&one, &[G31, 1]));
    too_large(binary::mul(&row, &col));
    too_large(binary::pow(&row, &col));
    let t = arr0(true);
    too_large(select::select(&huge(&t, &[G31, G31]), &row, &col));
    // The same shape with 1-byte outputs fits isize: the size check passes it (no memory is
    // touched here; the test stops at the check of a wider output).
    let u = arr0(1u8);
    let bytes = huge(&u, &[G31, G31]);
    let msg = too_large(binary::div(&bytes, &bytes));
    assert!(msg.contains("(8-byte elements)"), "{msg}");
}

#[test]
fn outputs_the_allocator_refuses_are_errors_not_aborts() {
    // 2^40 f64 = 8 TiB: below isize::MAX, so only the fallible allocation can refuse it.
    let one = arr0(2.0f64);
    let big = huge(&one, &[1 << 20, 1 << 20]);
    let msg = too_large(binary::add(&big, &big));
    assert_eq!(
        msg,
        "add: output of shape [1048576, 1048576] (8-byte elements): expected a size the \
         allocator grants, found 8796093022208 bytes, refused"
    );
    let (row, col) = (huge(&one, &[1, 1 << 20]), huge(&one, &[1 << 20, 1]));
    too_large(binary::mul(&row, &col));
    // `pow` refuses it before scanning the 2^40 exponents of its broadcast `b`.
    too_large(binary::pow(&row, &col));
    let t = arr0(true);
    too_large(select::select(&huge(&t, &[1 << 20, 1 << 20]), &row, &col));
    // Empty outputs of huge shapes allocate nothing.
    let empty = huge(&one, &[0, 1 << 40]);
    assert_eq!(binary::add(&empty, &empty).unwrap().shape(), &[0, 1 << 40]);
}

#[test]
fn joins_and_gathers_refuse_outputs_beyond_isize() {
    let one = arr0(7u64);
    let big = huge(&one, &[1 << 61]);
    too_large(stack_concat::concat(0, &[big.clone(), big.clone()]));
    too_large(stack_concat::stack(0, &[big.clone(), big.clone()]));
    let wide = huge(&one, &[1 << 62]);
    let msg = too_large(stack_concat::concat(
        0,
        &[wide.clone(), wide.clone(), wide.clone(), wide],
    ));
    assert!(msg.contains("[18446744073709551616]"), "{msg}");
    let cube = huge(&one, &[2, 1 << 30, 1 << 30]);
    too_large(gather::gather(&cube, &[0; 4], 0));
    let rows = huge(&one, &[8, 1 << 59]);
    let m = arr0(true);
    let mask = huge(&m, &[8]);
    too_large(compact::boolean_mask(&rows, &mask));
}

#[test]
fn reductions_refuse_outputs_beyond_isize() {
    use extype_kernels::reduce::{axes, segment};
    let one = arr0(1.0f32);
    let big = huge(&one, &[G31, G31]);
    too_large(axes::sum_axes(&big, &[], false));
    too_large(axes::max_axes(&big, &[], true));
    let empty = huge(&one, &[0, G31, G31]);
    too_large(segment::segment_sum(&empty, &[0, 0, 0]));
}

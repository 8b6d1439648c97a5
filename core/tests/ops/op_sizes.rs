//! Output sizes of ops (`extype_core::ops::size`): an output that cannot be allocated is an error
//! naming the op and the output shape, returned before anything proportional to it is
//! allocated; empty outputs allocate nothing proportional to the request.

use extype::ops::{self, AsOperand, OpArgs, catalog};
use extype::{DType, Tensor};
use ndarray::{ArrayD, ArrayViewD, IxDyn, arr0, array};

/// A zero-stride view of `dims` over one element (no memory proportional to `dims`).
fn huge<'a, T>(one: &'a ndarray::Array0<T>, dims: &[usize]) -> ArrayViewD<'a, T> {
    one.broadcast(IxDyn(dims))
        .expect("the element count fits isize")
}

const G31: usize = 1 << 31;

fn err(r: extype::Result<extype::Value>) -> String {
    r.expect_err("an error, not a value").to_string()
}

#[test]
fn tile_checks_the_output_before_allocating() {
    let x = array![1.0f64];
    // 2^40 f64 = 8 TiB: refused by the allocator probe, not an abort.
    let msg = err(ops::tile(&x, &[1 << 40]));
    assert!(
        msg.starts_with("tile: output of shape [1099511627776] and dtype f64"),
        "{msg}"
    );
    // An overflowing output: refused before anything else.
    let msg = err(ops::tile(&x, &[usize::MAX]));
    assert!(
        msg.starts_with("tile: output of shape [18446744073709551615] and dtype f64"),
        "{msg}"
    );
    assert!(msg.contains("isize::MAX"), "{msg}");
    let xy = array![[1u8, 2]];
    let msg = err(ops::tile(&xy, &[usize::MAX, usize::MAX]));
    assert!(msg.contains("overflowing usize"), "{msg}");
    // Empty results need no allocation at all.
    let empty = ArrayD::<f32>::zeros(IxDyn(&[0]));
    let t: Tensor = ops::tile_as(&empty, &[1 << 40]).unwrap();
    assert_eq!(t.shape(), &[0]);
    let t: Tensor = ops::tile_as(&x, &[0]).unwrap();
    assert_eq!(t.shape(), &[0]);
    let t: Tensor = ops::tile_as(&array![[1i64], [2]], &[0, 1 << 62]).unwrap();
    assert_eq!(t.shape(), &[0, 1 << 62]);
    // An empty shape whose nonzero dims multiply past isize::MAX is no shape at all.
    let msg = err(ops::tile(&array![[1i64], [2]], &[0, usize::MAX]));
    assert!(msg.contains("nonzero dims"), "{msg}");
    // Ordinary tiles still work.
    let t: Tensor = ops::tile_as(&array![[1i32, 2]], &[2, 3]).unwrap();
    assert_eq!(
        t,
        Tensor::from(array![[1i32, 2, 1, 2, 1, 2], [1, 2, 1, 2, 1, 2]].into_dyn())
    );
    let t: Tensor = ops::tile_as(&arr0(5u8), &[]).unwrap();
    assert_eq!(t, Tensor::from(arr0(5u8).into_dyn()));
}

#[test]
fn elementwise_ops_on_huge_zero_stride_views() {
    let one = arr0(1.0f32);
    let big = huge(&one, &[G31, G31]);
    let msg = err(ops::add(&big, &big));
    assert!(
        msg.starts_with("add: output of shape [2147483648, 2147483648] and dtype f32"),
        "{msg}"
    );
    assert!(msg.contains("18446744073709551616 bytes"), "{msg}");
    let msg = err(ops::zeros_like(&big));
    assert!(
        msg.starts_with("zeros_like: output of shape [2147483648, 2147483648]"),
        "{msg}"
    );
    for r in [
        ops::neg(&big),
        ops::ones_like(&big),
        ops::exp(&big),
        ops::cast(&big, DType::F64),
        ops::transpose(&big, None),
        ops::reshape(&big, &[G31 * G31]),
        ops::less(&big, &big),
        ops::pow(&big, &big),
        ops::concat(&[big.as_operand(), big.as_operand()], 0),
        ops::stack(&[big.as_operand(), big.as_operand()], 0),
    ] {
        let msg = err(r);
        assert!(msg.contains("output of shape"), "{msg}");
    }
    let cube = huge(&one, &[1 << 20, 1 << 20, 1 << 20]);
    let msg = err(ops::gather(&cube, &[0, 1], 0));
    assert!(
        msg.starts_with("gather: output of shape [2, 1048576, 1048576]"),
        "{msg}"
    );
    // Broadcasting a small operand against a huge one.
    let row = huge(&one, &[1, G31]);
    let col = huge(&one, &[G31, 1]);
    let msg = err(ops::mul(&row, &col));
    assert!(
        msg.starts_with("mul: output of shape [2147483648, 2147483648]"),
        "{msg}"
    );
    let cond = arr0(true);
    let cond = huge(&cond, &[G31, G31]);
    let msg = err(ops::where_(&cond, &row, &col));
    assert!(
        msg.starts_with("where: output of shape [2147483648, 2147483648]"),
        "{msg}"
    );
    // A reduction that keeps every axis has an output as large as its input.
    let msg = err(ops::reduce_sum(&big, Some(&[]), false));
    assert!(msg.starts_with("reduce_sum: output of shape"), "{msg}");
    // A joined size overflowing usize.
    let wide = huge(&one, &[1 << 62]);
    let msg = err(ops::concat(
        &[
            wide.as_operand(),
            wide.as_operand(),
            wide.as_operand(),
            wide.as_operand(),
        ],
        0,
    ));
    assert!(msg.contains("overflowing usize"), "{msg}");
}

#[test]
fn sizes_that_fit_isize_but_not_the_machine_are_errors() {
    // 2^40 f64 elements = 8 TiB: below isize::MAX, above what the allocator grants.
    let one = arr0(2.0f64);
    let big = huge(&one, &[1 << 20, 1 << 20]);
    let msg = err(ops::add(&big, &big));
    assert!(msg.contains("a size the allocator grants"), "{msg}");
    assert!(msg.contains("8796093022208 bytes, refused"), "{msg}");
    let empty = huge(&one, &[0, 1 << 20, 1 << 20]);
    let msg = err(ops::call(
        &catalog::SEGMENT_SUM,
        &[empty.as_operand()],
        &OpArgs::none().with_indices(&vec![0; 1 << 12]),
    ));
    assert!(
        msg.starts_with("segment_sum: output of shape [4095, 1048576, 1048576]"),
        "{msg}"
    );
}

#[test]
fn empty_outputs_of_huge_shapes_work() {
    let one = arr0(1u8);
    let v = huge(&one, &[0, 1 << 40]);
    let z: Tensor = ops::zeros_like_as(&v).unwrap();
    assert_eq!(z.shape(), &[0, 1 << 40]);
    let s: Tensor = ops::add_as(&v, &v).unwrap();
    assert_eq!(s.shape(), &[0, 1 << 40]);
}

fn identity(xs: &[Tensor], _: &OpArgs) -> extype::Result<Tensor> {
    Ok(xs[0].clone())
}

extype::declare_op!(IDENTITY: unary_elementwise "test.identity", dense = identity);

#[test]
fn copies_of_huge_views_are_errors() {
    let one = arr0(1.0f32);
    let big = huge(&one, &[G31, G31]);
    let operand = big.as_operand();
    let msg = operand.to_value().unwrap_err().to_string();
    assert!(
        msg.starts_with("to_value: output of shape [2147483648, 2147483648] and dtype f32"),
        "{msg}"
    );
    assert!(operand.check_copy("my_op").is_err());
    assert!(array![1.0f32].as_operand().check_copy("my_op").is_ok());
    // A user op's dense default receives tensors: the view's copy is checked first.
    let msg = err(IDENTITY.apply1(&big));
    assert!(
        msg.starts_with("test.identity: output of shape [2147483648, 2147483648]"),
        "{msg}"
    );
    let small: Tensor =
        ops::FromValue::from_value(IDENTITY.apply1(&array![2.0f32]).unwrap()).unwrap();
    assert_eq!(small, Tensor::from(array![2.0f32].into_dyn()));
}

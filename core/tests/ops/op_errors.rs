//! Arguments are named one way in every op's errors: an array argument by its position counted
//! from 0 (`argument 1`; the arrays of `concat` and `stack` are arguments 0, 1, …), any other
//! parameter by its name (`axis`, `indices`, `shape`); counts say `1 argument`, `2 arguments`.
//! Each op is called here with one bad argument, and the whole message is checked.

use extype::ops::{self, AsOperand, OpArgs, catalog};
use ndarray::{Array0, array};

fn err(r: extype::Result<extype::Value>) -> String {
    r.expect_err("an error, not a value").to_string()
}

#[test]
fn binary_ops_name_the_argument_by_position() {
    let (x, y) = (array![1.0f32, 2.0, 3.0], array![1.0f32, 2.0]);
    assert_eq!(
        err(ops::add(&x, &y)),
        "add: argument 1 has shape [2], which does not broadcast with (or match) [3]"
    );
    assert_eq!(
        err(ops::less(&x, &array![1i32, 2, 3])),
        "less: argument 1: expected dtype f32 (the dtype of argument 0; cast first), found dtype i32"
    );
    assert_eq!(
        err(ops::pow(&x, &y)),
        "pow: argument 1 has shape [2], which does not broadcast with (or match) [3]"
    );
    assert_eq!(
        err(ops::exp(&array![1i64])),
        "exp: argument 0: expected a float dtype (f16, bf16, f32, f64), found dtype i64"
    );
}

#[test]
fn where_names_its_three_arguments_by_position() {
    let cond = array![true, false, true];
    let (x, y) = (array![1.0f32, 2.0], array![0.0f32]);
    assert_eq!(
        err(ops::where_(&cond, &x, &y)),
        "where: argument 1 has shape [2], which does not broadcast with (or match) [3]"
    );
    assert_eq!(
        err(ops::where_(&array![1.0f32], &x, &y)),
        "where: argument 0: expected dtype bool (the condition), found dtype f32"
    );
    assert_eq!(
        err(ops::where_(&cond, &array![1.0f32], &array![0i32])),
        "where: argument 2: expected dtype f32 (the dtype of argument 1; cast first), found dtype i32"
    );
}

#[test]
fn list_ops_name_the_arrays_as_arguments() {
    let (a, b) = (array![[1.0f32, 2.0]], array![[1.0f32, 2.0, 3.0]]);
    let c = array![[1i32, 2]];
    assert_eq!(
        err(ops::concat(&[a.as_operand(), b.as_operand()], 0)),
        "concat: argument 1 has shape [1, 3], which does not broadcast with (or match) [1, 2]"
    );
    assert_eq!(
        err(ops::stack(
            &[a.as_operand(), a.as_operand(), b.as_operand()],
            0
        )),
        "stack: argument 2 has shape [1, 3], which does not broadcast with (or match) [1, 2]"
    );
    assert_eq!(
        err(ops::concat(&[a.as_operand(), c.as_operand()], 0)),
        "concat: argument 1: expected dtype f32 (the dtype of argument 0; cast first), found dtype i32"
    );
    assert_eq!(
        err(ops::concat(&[], 0)),
        "concat: expected at least 1 argument, found 0"
    );
    let scalar = Array0::from_elem((), 1.0f32);
    assert_eq!(
        err(ops::concat(&[scalar.as_operand()], 0)),
        "concat: argument 0: expected rank >= 1, found a rank-0 array"
    );
    assert_eq!(
        err(ops::stack(&[a.as_operand()], 3)),
        "stack: axis: expected an axis in -3..3 (rank 3), found 3"
    );
}

#[test]
fn counts_are_singular_or_plural() {
    let x = array![1.0f32];
    assert_eq!(
        err(ops::call(
            &catalog::NEG,
            &[x.as_operand(), x.as_operand()],
            &OpArgs::none()
        )),
        "neg: expected 1 argument, found 2"
    );
    assert_eq!(
        err(ops::call(&catalog::ADD, &[x.as_operand()], &OpArgs::none())),
        "add: expected 2 arguments, found 1"
    );
    assert_eq!(
        err(ops::call(&catalog::WHERE, &[], &OpArgs::none())),
        "where: expected 3 arguments, found 0"
    );
}

#[test]
fn other_ops_name_their_parameters() {
    let x = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
    assert_eq!(
        err(ops::gather(&x, &[0, 5], 1)),
        "gather: index 5 at position 1 is out of bounds for axis 1 of size 3"
    );
    assert_eq!(
        err(ops::gather(&Array0::from_elem((), 1.0f32), &[0], 0)),
        "gather: argument 0: expected rank >= 1, found a rank-0 array"
    );
    assert_eq!(
        err(ops::reshape(&x, &[4])),
        "reshape: shape: expected a shape of 6 elements (the input has shape [2, 3]), found [4]"
    );
    assert_eq!(
        err(ops::transpose(&x, Some(&[0, 0]))),
        "transpose: perm: expected a permutation of 0..2, found [0, 0]"
    );
    assert_eq!(
        err(ops::boolean_mask(&x, &array![true, false, true])),
        "boolean_mask: argument 1 has shape [3], which does not broadcast with (or match) [2]"
    );
    assert_eq!(
        err(ops::boolean_mask(&x, &array![1.0f32, 0.0])),
        "boolean_mask: argument 1: expected dtype bool (the mask), found dtype f32"
    );
    assert_eq!(
        err(ops::segment_reduce(&catalog::SEGMENT_SUM, &x, &[0, 3])),
        "segment_sum: row_splits: expected last split == number of rows (2), found row_splits[1] == 3"
    );
    assert_eq!(
        err(ops::segment_reduce(
            &catalog::SEGMENT_SUM,
            &Array0::from_elem((), 1.0f32),
            &[0, 1]
        )),
        "segment_sum: argument 0: expected rank >= 1 (segments run along axis 0), found a rank-0 array"
    );
    let mask = array![[true, false, true], [false, true, true]];
    assert_eq!(
        ops::masked_reduce(&catalog::REDUCE_SUM, &x, &array![[1.0f32]], &OpArgs::none())
            .unwrap_err()
            .to_string(),
        "reduce_sum: argument 1: expected dtype bool (the mask), found dtype f32"
    );
    assert_eq!(
        ops::masked_reduce(
            &catalog::REDUCE_SUM,
            &x,
            &array![true, false],
            &OpArgs::none()
        )
        .unwrap_err()
        .to_string(),
        "reduce_sum: argument 1 has shape [2], which does not broadcast with (or match) [2, 3]"
    );
    assert!(ops::masked_reduce(&catalog::REDUCE_SUM, &x, &mask, &OpArgs::none()).is_ok());
}

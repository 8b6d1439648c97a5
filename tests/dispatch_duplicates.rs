//! Two `#[dispatch]` handlers with the same key in one program: the global table fails to build,
//! and every call reports both handlers (file and line of each `#[dispatch]`), as the registry
//! does for names.

use extype::{ExtensionType, Result, Tensor, dispatch, ops};
use ndarray::array;

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.duplicates.M")]
pub struct M {
    pub x: Tensor,
}

#[dispatch(Neg)]
fn first_neg(m: &M) -> Result<M> {
    Ok(m.clone())
}

#[dispatch(neg)]
fn second_neg(m: &M) -> Result<M> {
    Ok(m.clone())
}

#[test]
fn every_call_reports_both_handlers() {
    let expected = "two dispatch handlers for op neg with arguments \
                    (&dispatch_duplicates::M): first_neg at tests/dispatch_duplicates.rs:14 and \
                    second_neg at tests/dispatch_duplicates.rs:19";
    let m = M {
        x: Tensor::from(array![1.0f32]),
    };
    assert_eq!(ops::neg(&m).unwrap_err().to_string(), expected);
    // Also calls that would not involve either handler: the table itself is unusable.
    assert_eq!(ops::neg(&array![1.0f32]).unwrap_err().to_string(), expected);
    assert_eq!(extype::dispatch::table().unwrap_err().to_string(), expected);
}

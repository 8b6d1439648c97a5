//! Two `#[dispatch]` handlers with the same key in one program break only that key: the calls
//! that reach it report both handlers (file and line of each `#[dispatch]`), every other call
//! works, and `extype::check()` reports the conflict up front, as the registry does for names.

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

#[dispatch(Abs)]
fn m_abs(m: &M) -> Result<M> {
    Ok(m.clone())
}

const EXPECTED: &str = "two dispatch handlers for op neg with arguments \
                        (&dispatch_duplicates::M): first_neg at tests/dispatch_duplicates.rs:14 \
                        and second_neg at tests/dispatch_duplicates.rs:19";

fn m() -> M {
    M {
        x: Tensor::from(array![1.0f32]),
    }
}

#[test]
fn a_call_that_reaches_the_key_reports_both_handlers() {
    assert_eq!(ops::neg(&m()).unwrap_err().to_string(), EXPECTED);
    let spec = extype::ValueSpec::Extension(Box::new(m().spec()));
    let inferred = ops::infer_spec(
        &extype::ops::catalog::NEG,
        &[&spec],
        &extype::OpArgs::none(),
    );
    assert_eq!(inferred.unwrap_err().to_string(), EXPECTED);
}

#[test]
fn every_other_call_works() {
    // The same op on dense arguments, another op on the same type, the registry.
    assert_eq!(
        ops::neg_as::<Tensor>(&array![1.0f32]).unwrap(),
        Tensor::from(array![-1.0f32].into_dyn())
    );
    assert_eq!(ops::abs_as::<M>(&m()).unwrap(), m());
    assert!(extype::dispatch::table().is_ok());
    assert!(extype::registry().get("tests.duplicates.M").is_ok());
}

#[test]
fn check_reports_the_conflict() {
    assert_eq!(extype::check().unwrap_err().to_string(), EXPECTED);
    assert_eq!(
        extype::dispatch::table()
            .unwrap()
            .check()
            .unwrap_err()
            .to_string(),
        EXPECTED
    );
}

//! Anonymous values (rebuilt from a spec whose type was not known where they were made) reach
//! the handlers of their type when this program has registered it; otherwise the "no handler"
//! error names them as anonymous.

use extype::{AnonymousExtension, ExtensionType, Result, Tensor, TypeSpec, Value, dispatch, ops};
use ndarray::array;

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.anonymous.Signed")]
pub struct Signed {
    pub values: Tensor,
}

#[dispatch(Neg)]
fn signed_neg(x: &Signed) -> Result<Signed> {
    Ok(Signed {
        values: ops::neg_as(&x.values)?,
    })
}

fn signed() -> Signed {
    Signed {
        values: Tensor::from(array![1.0f32, -2.0].into_dyn()),
    }
}

#[test]
fn an_anonymous_value_of_a_registered_type_is_dispatched_as_that_type() {
    let anonymous =
        AnonymousExtension::new(signed().spec().serialize(), signed().into_components()).unwrap();
    let negated: Signed = ops::neg_as(&anonymous).unwrap();
    assert_eq!(
        negated.values,
        Tensor::from(array![-1.0f32, 2.0].into_dyn())
    );
    // Through a `Value` too.
    let value = Value::from_extension(anonymous);
    assert_eq!(ops::neg_as::<Signed>(&value).unwrap(), negated);
}

#[test]
fn an_anonymous_value_of_an_unknown_type_is_named_as_such() {
    let spec = extype::SpecTree::spec("tests.anonymous.NotLinked", extype::SpecTree::None);
    let anonymous = AnonymousExtension::new(spec, vec![]).unwrap();
    let err = ops::neg(&anonymous).unwrap_err().to_string();
    assert!(
        err.contains(
            "anonymous tests.anonymous.NotLinked (a value of a type not linked into this program)"
        ),
        "{err}"
    );
}

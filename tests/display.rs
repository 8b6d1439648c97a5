//! Text forms for people: specs (nested fields in declaration order), values (spec and
//! components nested by shape, like NumPy), tensors, and a `Debug` of `Shape` that reads like
//! its text.

use extype::{ExtensionType, Shape, Tensor, Value, ValueSpec};
use ndarray::{ArrayD, IxDyn, array};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.display.Inner")]
pub struct Inner {
    pub zeta: ArrayD<f32>,
    pub alpha: ArrayD<bool>,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.display.Outer")]
pub struct Outer {
    pub zz: Inner,
    pub aa: Vec<Inner>,
    pub pair: (Inner, Option<Inner>),
    pub tag: String,
}

fn inner() -> Inner {
    Inner {
        zeta: ArrayD::from_shape_fn(IxDyn(&[2, 4]), |i| (i[0] * 4 + i[1]) as f32),
        alpha: ArrayD::from_elem(IxDyn(&[2, 4]), true),
    }
}

#[test]
fn nested_specs_print_their_fields_in_declaration_order() {
    let outer = Outer {
        zz: inner(),
        aa: vec![inner()],
        pair: (inner(), None),
        tag: "t".into(),
    };
    let i = "tests.display.Inner { zeta: f32[2, 4], alpha: bool[2, 4] }";
    let expected =
        format!("tests.display.Outer {{ zz: {i}, aa: [{i}], pair: ({i}, None), tag: \"t\" }}");
    assert_eq!(outer.spec().to_string(), expected);
    // The same through the erased spec of a `Value`.
    let value = Value::from_extension(outer);
    assert_eq!(value.spec().to_string(), expected);
}

#[test]
fn values_print_their_spec_and_nested_components() {
    let value = Value::from_extension(inner());
    let expected = "tests.display.Inner { zeta: f32[2, 4], alpha: bool[2, 4] } \
         {zeta: [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]], \
         alpha: [[true, true, true, true], [true, true, true, true]]}";
    assert_eq!(value.to_string(), expected);
    // Any derived value prints the same without wrapping it in a `Value` (no copy).
    assert_eq!(extype::display(&inner()).to_string(), expected);
    let tensor = Value::from(Tensor::from(array![1i32, 2, 3].into_dyn()));
    assert_eq!(tensor.to_string(), "i32[3] [1, 2, 3]");
    assert_eq!(tensor.spec().to_string(), "i32[3]");
    assert!(matches!(tensor.spec(), ValueSpec::Tensor(_)));
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.display.Point")]
pub struct Point {
    pub weight: ArrayD<f64>,
    pub path: ArrayD<i64>,
}

#[test]
fn scalar_components_print_bare_and_long_components_are_summarised() {
    let p = Point {
        weight: ArrayD::from_elem(IxDyn(&[]), 4.0),
        path: ArrayD::from_shape_fn(IxDyn(&[10]), |i| i[0] as i64),
    };
    assert_eq!(
        extype::display(&p).to_string(),
        "tests.display.Point { weight: f64[], path: i64[10] } \
         {weight: 4.0, path: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}"
    );
    // A component of over 1000 elements prints summarised (NumPy's threshold and edge items).
    let long = Point {
        weight: ArrayD::from_elem(IxDyn(&[]), 4.0),
        path: ArrayD::from_shape_fn(IxDyn(&[1500]), |i| i[0] as i64),
    };
    assert_eq!(
        extype::display(&long).to_string(),
        "tests.display.Point { weight: f64[], path: i64[1500] } \
         {weight: 4.0, path: [0, 1, 2, ..., 1497, 1498, 1499]}"
    );
    let scalar = Tensor::from(ArrayD::from_elem(IxDyn(&[]), 4.0f64));
    assert_eq!(scalar.to_string(), "f64[] 4.0");
}

#[test]
fn shape_debug_reads_like_its_text() {
    let shape: Shape = "[2, ?, !1]".parse().unwrap();
    assert_eq!(format!("{shape:?}"), "[2, ?, !1]");
    assert_eq!(format!("{shape:?}").parse::<Shape>().unwrap(), shape);
    assert_eq!(
        format!("{:?}", Shape::unknown_rank()),
        Shape::unknown_rank().to_string()
    );
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.display.Ordered")]
pub struct Ordered {
    pub zeta: ArrayD<f32>,
    pub alpha: u32,
    pub mid: ArrayD<i64>,
}

#[test]
fn fields_keep_declaration_order_through_json_and_anonymous_values() {
    use extype::{AnonymousExtension, SpecTree, TypeSpec};
    let value = Ordered {
        zeta: ArrayD::from_elem(IxDyn(&[2]), 1.5),
        alpha: 3,
        mid: ArrayD::from_elem(IxDyn(&[1]), 7),
    };
    let spec = "tests.display.Ordered { zeta: f32[2], alpha: 3, mid: i64[1] }";
    assert_eq!(value.spec().to_string(), spec);
    // The serialized tree, through its JSON document, keeps the order.
    let json = value.spec().serialize().to_json().unwrap();
    let tree = SpecTree::from_json(&json).unwrap();
    assert_eq!(tree.to_string(), spec);
    // An anonymous value made from it prints its fields in that order.
    let anonymous = AnonymousExtension::new(tree, value.into_components()).unwrap();
    let text = Value::from_extension(anonymous).to_string();
    assert!(text.contains(&format!("spec: {spec}")), "{text}");
}

/// `Debug` of a tensor, and of an op's untyped result (`Value`), is the text above: no
/// ndarray internals (`F32(1.0, shape=[], strides=[], layout=…)`), no wrapper around it.
#[test]
fn debug_of_tensors_and_values_is_their_text() {
    let t = Tensor::from(ndarray::arr0(1.0f32).into_dyn());
    assert_eq!(format!("{t:?}"), "f32[] 1.0");
    let sum = extype::ops::add(&array![1.0f32, 2.0], &array![0.5f32, 0.5]).unwrap();
    assert_eq!(format!("{sum:?}"), "f32[2] [1.5, 2.5]");
    assert_eq!(format!("{sum:?}"), sum.to_string());
    let value = Value::from_extension(inner());
    assert_eq!(format!("{value:?}"), value.to_string());
    assert!(format!("{value:?}").starts_with("tests.display.Inner { zeta: f32[2, 4]"));
    let masked = extype::types::MaskedTensor::new(
        array![1.0f32, 2.0].into_dyn(),
        array![true, false].into_dyn(),
    )
    .unwrap();
    let doubled = extype::ops::add(&masked, &masked).unwrap();
    assert_eq!(format!("{doubled:?}"), doubled.to_string());
}

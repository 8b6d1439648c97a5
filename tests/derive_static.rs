//! Static data in derived types: shape-like static fields compare and relax loosely (as
//! TensorFlow's `TensorShape` / `TensorSpec` fields), other static data stays equal-only.

use extype::serial::{spec_from_json, spec_to_json};
use extype::{DType, ExtensionType, Shape, TensorSpec, TypeSpec};
use ndarray::{ArrayD, IxDyn};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.static.Windowed")]
pub struct Windowed {
    pub values: ArrayD<f32>,
    pub window: Shape,
    pub hint: TensorSpec,
    pub label: String,
}

fn windowed(window: &str, hint: &str, label: &str) -> Windowed {
    Windowed {
        values: ArrayD::zeros(IxDyn(&[2])),
        window: window.parse().unwrap(),
        hint: TensorSpec::new(hint.parse().unwrap(), DType::F32),
        label: label.into(),
    }
}

#[test]
fn shape_fields_are_compatible_when_the_shapes_are() {
    let a = windowed("[2, ?]", "[4]", "w").spec();
    let b = windowed("[?, 3]", "[?]", "w").spec();
    assert!(a.is_compatible_with(&b) && b.is_compatible_with(&a));
    let joined = a.most_specific_compatible(&b).unwrap();
    assert_eq!(joined.window.to_string(), "[?, ?]");
    assert_eq!(joined.hint.shape.to_string(), "[?]");
    // Shapes that no concrete shape fits both are not compatible, yet relax to their join.
    let c = windowed("[5, 3]", "[4]", "w").spec();
    let d = windowed("[2, 3]", "[4]", "w").spec();
    assert!(!c.is_compatible_with(&d));
    let relaxed = c.most_specific_compatible(&d).unwrap();
    assert_eq!(relaxed.window.to_string(), "[!1, 3]");
    assert!(relaxed.is_compatible_with(&c) && relaxed.is_compatible_with(&d));
}

#[test]
fn the_relaxed_spec_admits_both_values_and_round_trips() {
    let x = windowed("[2]", "[4]", "w");
    let y = windowed("[5]", "[4, 4]", "w");
    let relaxed = x.spec().most_specific_compatible(&y.spec()).unwrap();
    // `!1`: known to be a size other than 1 (neither is 1), as for tensor fields.
    assert_eq!(relaxed.window, "[!1]".parse::<Shape>().unwrap());
    assert_eq!(relaxed.hint.shape, Shape::unknown_rank());
    assert!(relaxed.is_compatible_with(&x.spec()));
    assert!(relaxed.is_compatible_with(&y.spec()));
    let text = spec_to_json(&relaxed).unwrap();
    assert_eq!(spec_from_json::<WindowedSpec>(&text).unwrap(), relaxed);
}

#[test]
fn other_static_data_stays_equal_only() {
    let x = windowed("[2]", "[4]", "a").spec();
    let y = windowed("[2]", "[4]", "b").spec();
    assert!(!x.is_compatible_with(&y));
    assert_eq!(x.most_specific_compatible(&y), None);
    // A tensor spec kept as static data relaxes only within one dtype.
    let mut z = windowed("[2]", "[4]", "a");
    z.hint = TensorSpec::new("[4]".parse().unwrap(), DType::I64);
    assert!(!x.is_compatible_with(&z.spec()));
    assert_eq!(x.most_specific_compatible(&z.spec()), None);
}

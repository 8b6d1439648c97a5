//! Validation and shape contracts of derived types: checked by `try_new`, when rebuilding from
//! components, when reinterpreting, and (statically) when a spec is deserialized or refined.

use extype::{DType, ExtensionType, Tensor, TensorSpec, TypeSpec};
use ndarray::{Array1, Array2, ArrayD, IxDyn, arr1, arr2};

/// Values and mask share every axis (`*dims` binds the same segment in both fields; `...` would
/// be independent per field).
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.validate.Masked")]
pub struct Masked {
    #[extype(shape = "*dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

fn masked(values: &[usize], mask: &[usize]) -> (ArrayD<f32>, ArrayD<bool>) {
    (
        ArrayD::zeros(IxDyn(values)),
        ArrayD::from_elem(IxDyn(mask), true),
    )
}

#[test]
fn try_new_checks_the_joint_contract() {
    let (v, m) = masked(&[2, 3], &[2, 3]);
    assert!(Masked::try_new(v, m).is_ok());
    let (v, m) = masked(&[2, 3], &[2, 4]);
    let err = Masked::try_new(v, m).unwrap_err().to_string();
    assert!(err.contains("tests.validate.Masked"), "{err}");
    assert!(err.contains("mask"), "names the field: {err}");
    assert!(
        err.contains('3') && err.contains('4'),
        "names the sizes: {err}"
    );
    let (v, m) = masked(&[], &[1]);
    assert!(Masked::try_new(v, m).is_err(), "rank 0 and rank 1 differ");
    let (v, m) = masked(&[0, 5], &[0, 5]);
    assert!(Masked::try_new(v, m).is_ok(), "zero-size values are fine");
}

#[test]
fn rebuilding_from_components_checks_the_contract() {
    let (v, m) = masked(&[2, 3], &[2, 3]);
    let good = Masked::try_new(v, m).unwrap();
    let loose = MaskedSpec {
        values: TensorSpec::new(extype::Shape::unknown_rank(), DType::F32),
        mask: TensorSpec::new(extype::Shape::unknown_rank(), DType::Bool),
    };
    assert!(
        loose
            .from_components(good.clone().into_components())
            .is_ok()
    );
    let bad = vec![
        Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[2, 3]))),
        Tensor::from(ArrayD::from_elem(IxDyn(&[3, 2]), false)),
    ];
    let err = loose.from_components(bad).unwrap_err().to_string();
    assert!(err.contains("mask"), "{err}");
}

#[test]
fn specs_are_refined_by_the_contract() {
    let mut spec = MaskedSpec {
        values: TensorSpec::new("[8, ?]".parse().unwrap(), DType::F32),
        mask: TensorSpec::new("[?, 3]".parse().unwrap(), DType::Bool),
    };
    spec.refine_shapes().unwrap();
    assert_eq!(spec.values.shape.to_string(), "[8, 3]");
    assert_eq!(spec.mask.shape.to_string(), "[8, 3]");

    let mut impossible = MaskedSpec {
        values: TensorSpec::new("[8, 4]".parse().unwrap(), DType::F32),
        mask: TensorSpec::new("[?, 3]".parse().unwrap(), DType::Bool),
    };
    assert!(impossible.refine_shapes().is_err());

    // Deserializing refines too, and rejects a spec no value could satisfy.
    let half = MaskedSpec {
        values: TensorSpec::new("[8, ?]".parse().unwrap(), DType::F32),
        mask: TensorSpec::new("[?, 3]".parse().unwrap(), DType::Bool),
    };
    let json = extype::serial::spec_to_json(&half).unwrap();
    let loaded: MaskedSpec = extype::serial::spec_from_json(&json).unwrap();
    assert_eq!(loaded.values.shape.to_string(), "[8, 3]");
    let json = extype::serial::spec_to_json(&impossible).unwrap();
    let err = extype::serial::spec_from_json::<MaskedSpec>(&json)
        .unwrap_err()
        .to_string();
    assert!(err.contains("shape contract"), "{err}");
}

/// Contracts with fixed sizes, named dims across fields of different ranks, and a user validate.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.validate.Points", validate = Points::check_weights)]
pub struct Points {
    #[extype(shape = "n 3")]
    pub xyz: Array2<f32>,
    #[extype(shape = "n")]
    pub weights: Array1<f32>,
    pub label: String,
}

impl Points {
    fn check_weights(&self) -> extype::Result<()> {
        if self.weights.iter().all(|w| *w >= 0.0) {
            Ok(())
        } else {
            Err(extype::Error::invalid("weights must be non-negative"))
        }
    }
}

#[test]
fn fixed_sizes_named_dims_and_user_validation() {
    let ok = Points::try_new(arr2(&[[0.0, 1.0, 2.0]]), arr1(&[1.0]), "p".into());
    assert!(ok.is_ok());
    let err = Points::try_new(arr2(&[[0.0, 1.0]]), arr1(&[1.0]), "p".into())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("xyz") && err.contains('3') && err.contains('2'),
        "{err}"
    );
    let err = Points::try_new(arr2(&[[0.0, 1.0, 2.0]]), arr1(&[1.0, 2.0]), "p".into())
        .unwrap_err()
        .to_string();
    assert!(err.contains("weights"), "{err}");
    let err = Points::try_new(arr2(&[[0.0, 1.0, 2.0]]), arr1(&[-1.0]), "p".into())
        .unwrap_err()
        .to_string();
    assert!(err.contains("non-negative"), "{err}");
    assert!(err.contains("tests.validate.Points"), "{err}");

    // Validation also runs when rebuilding from components.
    let good = ok.unwrap();
    let spec = good.spec();
    let mut components = good.into_components();
    components[1] = Tensor::from(arr1(&[-2.0f32]));
    let err = spec.from_components(components).unwrap_err().to_string();
    assert!(err.contains("non-negative"), "{err}");
}

#[test]
fn nested_values_are_validated_with_their_path() {
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "tests.validate.Cloud")]
    pub struct Cloud {
        pub parts: Vec<Points>,
    }
    let part = |w: f32| Points {
        xyz: arr2(&[[0.0, 1.0, 2.0]]),
        weights: arr1(&[w]),
        label: "x".into(),
    };
    let cloud = Cloud {
        parts: vec![part(1.0), part(2.0)],
    };
    let spec = cloud.spec();
    let mut components = cloud.into_components();
    components[3] = Tensor::from(arr1(&[-1.0f32]));
    let err = spec.from_components(components).unwrap_err().to_string();
    assert!(err.contains("parts[1]"), "{err}");
}

/// A value holding other extension values (in a `Vec`, an `Option` and directly).
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.validate.Outer")]
pub struct Outer {
    pub items: Vec<Masked>,
    pub extra: Option<Box<Masked>>,
    pub tag: String,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.validate.Deep")]
pub struct Deep {
    pub inner: (Tensor, Outer),
}

/// A Masked built as a struct literal, skipping its contract.
fn literal(values: &[usize], mask: &[usize]) -> Masked {
    let (values, mask) = masked(values, mask);
    Masked { values, mask }
}

#[test]
fn try_new_and_validate_check_nested_values_with_their_path() {
    let good = || literal(&[2], &[2]);
    let bad = || literal(&[2], &[5]);

    let err = Outer::try_new(vec![good(), bad()], None, "t".into())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("tests.validate.Masked"),
        "names the nested type: {err}"
    );
    assert!(err.contains("items[1]"), "names the path: {err}");

    let err = Outer::try_new(vec![], Some(Box::new(bad())), "t".into())
        .unwrap_err()
        .to_string();
    assert!(err.contains("extra"), "{err}");

    let outer = Outer {
        items: vec![bad()],
        extra: None,
        tag: "t".into(),
    };
    assert!(outer.validate().is_err());
    // Two levels down: the path runs from the top.
    let deep = Deep {
        inner: (Tensor::from(arr1(&[1.0f32])), outer),
    };
    let err = Deep::try_new(deep.inner.clone()).unwrap_err().to_string();
    assert!(err.contains("inner.1.items[0]"), "{err}");
    assert!(err.contains("tests.validate.Masked"), "{err}");
}

#[test]
fn every_value_that_passes_try_new_round_trips() {
    let cases = [
        Outer::try_new(vec![], None, "empty".into()),
        Outer::try_new(
            vec![literal(&[0], &[0]), literal(&[], &[])],
            None,
            "z".into(),
        ),
        Outer::try_new(
            vec![literal(&[2, 3], &[2, 3])],
            Some(Box::new(literal(&[1], &[1]))),
            "x".into(),
        ),
    ];
    for outer in cases {
        let outer = outer.unwrap();
        let spec = outer.spec();
        let json = extype::serial::spec_to_json(&spec).unwrap();
        let read: OuterSpec = extype::serial::spec_from_json(&json).unwrap();
        assert_eq!(read, spec);
        let rebuilt = read
            .from_components(outer.clone().into_components())
            .unwrap();
        assert_eq!(rebuilt, outer);
    }
}

/// A name used twice within one pattern constrains that field alone (a square matrix): it is not
/// a name "used once", so it compiles, and the contract checks it.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.validate.Square")]
pub struct Square {
    #[extype(shape = "n n")]
    pub matrix: ArrayD<f32>,
}

#[test]
fn a_name_twice_in_one_pattern_checks_that_field() {
    assert!(Square::try_new(ArrayD::zeros(IxDyn(&[3, 3]))).is_ok());
    let err = Square::try_new(ArrayD::zeros(IxDyn(&[2, 3])))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("tests.validate.Square") && err.contains("matrix"),
        "{err}"
    );
}

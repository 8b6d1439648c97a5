//! `#[derive(ExtensionType)]`: generated spec, components, serialization, registry.

use extype::{ExtensionType, TypeSpec};
use ndarray::{ArrayD, IxDyn};

/// A tensor of values with a mask of the same shape.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.Masked")]
pub struct Masked {
    #[extype(shape = "*dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

fn masked(shape: &[usize]) -> Masked {
    Masked {
        values: ArrayD::from_elem(IxDyn(shape), 1.5),
        mask: ArrayD::from_elem(IxDyn(shape), true),
    }
}

#[test]
fn spec_components_round_trip() {
    let m = masked(&[2, 3]);
    let spec = m.spec();
    assert_eq!(spec.values.shape.to_string(), "[2, 3]");
    assert_eq!(
        spec.to_string(),
        "tests.Masked { values: f32[2, 3], mask: bool[2, 3] }"
    );
    let comps = m.clone().into_components();
    assert_eq!(comps.len(), 2);
    let back = spec.from_components(comps).unwrap();
    assert_eq!(back, m);
    let json = extype::serial::spec_to_json(&spec).unwrap();
    println!("{json}");
}

/// Fields written with the re-exported ndarray (`extype::ndarray`), the version extype is built
/// on: no direct dependency on ndarray is needed.
#[test]
fn fields_from_the_reexported_ndarray() {
    use extype::ExtensionType;
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "tests.basic.Reexported")]
    pub struct Reexported {
        pub values: extype::ndarray::ArrayD<f32>,
    }
    let v = Reexported {
        values: extype::ndarray::ArrayD::zeros(extype::ndarray::IxDyn(&[2])),
    };
    assert_eq!(
        v.spec().to_string(),
        "tests.basic.Reexported { values: f32[2] }"
    );
}

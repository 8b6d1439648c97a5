#![deny(unused_lifetimes, single_use_lifetimes, unused_qualifications)]
//! `#[derive(ExtensionType)]` in a module that shadows the prelude: the generated code must name
//! std and extype items by absolute paths, so these types compile and behave as anywhere else.

// Every prelude name the generated code could be tempted to use, redefined so that a relative use
// fails to compile: the structs take the type (and, being unit structs, the value) namespace, the
// functions and the const take the value namespace of the constructors (`Ok(x)` would call a
// zero-argument function; a `None` pattern would be this `u8` const).
#[allow(
    dead_code,
    non_snake_case,
    non_upper_case_globals,
    clippy::module_inception
)]
mod shadowed {
    use extype::ExtensionType;
    use ndarray::{Array2, ArrayD};

    pub struct Result;
    pub struct Option;
    pub struct Vec;
    pub struct Box;
    pub struct String;
    pub fn Ok() {}
    pub fn Err() {}
    pub fn Some() {}
    pub const None: u8 = 0;

    /// A named struct with a joint shape contract, a user validation and static data.
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "hygiene.Masked", validate = not_all_masked)]
    pub struct Masked {
        #[extype(shape = "b n")]
        pub values: ArrayD<f32>,
        #[extype(shape = "b n")]
        pub mask: ArrayD<bool>,
        pub label: std::string::String,
    }

    pub fn not_all_masked(value: &Masked) -> extype::Result<()> {
        if value.mask.iter().any(|present| *present) {
            ::core::result::Result::Ok(())
        } else {
            ::core::result::Result::Err(extype::Error::invalid("every value is masked"))
        }
    }

    /// A tuple struct.
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "hygiene.Pair")]
    pub struct Pair(
        #[extype(shape = "k")] pub ArrayD<f32>,
        #[extype(shape = "k 2")] pub Array2<i64>,
    );

    /// A generic struct, registered per instantiation.
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    pub struct Stack<T: extype::Element> {
        pub layers: std::vec::Vec<ArrayD<T>>,
        pub frozen: bool,
    }

    extype::register!(Stack<f32>, "hygiene.StackF32");

    /// No fields at all: a spec with no components.
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "hygiene.Marker")]
    pub struct Marker;

    /// Nested extension types inside `Option`, `Box` and `Vec`.
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "hygiene.Outer")]
    pub struct Outer {
        pub masked: Masked,
        pub pair: std::option::Option<Pair>,
        pub boxed: std::boxed::Box<Pair>,
        pub stacks: std::vec::Vec<Stack<f32>>,
    }
}

use extype::{ExtensionType, TypeSpec};
use ndarray::{Array2, ArrayD, IxDyn};
use shadowed::{Marker, Masked, Outer, Pair, Stack};

fn masked(rows: usize, cols: usize, present: bool) -> Masked {
    Masked {
        values: ArrayD::from_elem(IxDyn(&[rows, cols]), 0.5),
        mask: ArrayD::from_elem(IxDyn(&[rows, cols]), present),
        label: "m".to_string(),
    }
}

fn pair(k: usize) -> Pair {
    Pair(
        ArrayD::from_elem(IxDyn(&[k]), 2.0),
        Array2::from_elem((k, 2), 7),
    )
}

#[test]
fn checked_constructor_runs_contract_and_validation() {
    let ok = Masked::try_new(
        ArrayD::zeros(IxDyn(&[2, 3])),
        ArrayD::from_elem(IxDyn(&[2, 3]), true),
        "ok".to_string(),
    );
    assert!(ok.is_ok());

    let mismatched = Masked::try_new(
        ArrayD::zeros(IxDyn(&[2, 3])),
        ArrayD::from_elem(IxDyn(&[2, 4]), true),
        "bad".to_string(),
    )
    .unwrap_err()
    .to_string();
    assert!(mismatched.contains("hygiene.Masked"), "{mismatched}");
    assert!(mismatched.contains("mask"), "{mismatched}");

    let all_masked = Masked::try_new(
        ArrayD::zeros(IxDyn(&[1, 1])),
        ArrayD::from_elem(IxDyn(&[1, 1]), false),
        "none".to_string(),
    )
    .unwrap_err()
    .to_string();
    assert!(all_masked.contains("every value is masked"), "{all_masked}");

    assert!(Pair::try_new(ArrayD::zeros(IxDyn(&[3])), Array2::zeros((3, 2))).is_ok());
    assert!(Pair::try_new(ArrayD::zeros(IxDyn(&[3])), Array2::zeros((4, 2))).is_err());
}

#[test]
fn nested_value_round_trips_through_components_and_json() {
    let outer = Outer {
        masked: masked(2, 3, true),
        pair: Some(pair(4)),
        boxed: Box::new(pair(1)),
        stacks: vec![Stack {
            layers: vec![ArrayD::zeros(IxDyn(&[5])), ArrayD::ones(IxDyn(&[2, 2]))],
            frozen: true,
        }],
    };
    let spec = outer.spec();
    assert_eq!(spec.masked.values.shape.to_string(), "[2, 3]");
    assert_eq!(spec.masked.label, "m");
    assert!(spec.pair.is_some());
    assert_eq!(spec.stacks[0].layers.len(), 2);
    assert!(spec.stacks[0].frozen);

    let components = outer.clone().into_components();
    // masked: values, mask; pair: 2; boxed: 2; stacks[0]: 2 layers.
    assert_eq!(components.len(), 8);
    assert_eq!(spec.component_specs().len(), 8);
    assert_eq!(spec.from_components(components).unwrap(), outer);

    let json = extype::serial::spec_to_json(&spec).unwrap();
    assert!(json.contains("hygiene.Outer"), "{json}");
    assert!(json.contains("hygiene.StackF32"), "{json}");
    let back: <Outer as ExtensionType>::Spec = extype::serial::spec_from_json(&json).unwrap();
    assert_eq!(back, spec);
}

#[test]
fn unit_struct_has_an_empty_spec() {
    let spec = Marker.spec();
    assert_eq!(spec.to_string(), "hygiene.Marker {}");
    assert!(spec.component_specs().is_empty());
    assert_eq!(
        spec.from_components(Marker.into_components()).unwrap(),
        Marker
    );
}

#[test]
fn registry_holds_the_derived_and_registered_names() {
    let registry = extype::registry();
    for name in [
        "hygiene.Masked",
        "hygiene.Pair",
        "hygiene.Outer",
        "hygiene.StackF32",
        "hygiene.Marker",
    ] {
        assert!(registry.lookup(name).is_some(), "{name} is not registered");
    }
    assert_eq!(extype::registered_name::<Stack<f32>>(), "hygiene.StackF32");
}

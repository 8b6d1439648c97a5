//! `#[derive(ExtensionType)]` over every kind of field: tensors of any dimension, nested extension
//! types, containers and static data. Checks component order and paths, zero-copy decomposition,
//! spec serialization, compatibility and relaxation, and errors that name the field path.

use std::collections::BTreeMap;

use extype::PathSink;
use extype::{DType, ExtensionType, Shape, Tensor, TypeSpec};
use extype::{Field, FieldPath};
use ndarray::{Array0, Array1, Array2, ArrayD, IxDyn, arr1, arr2};

/// A type alias must work: the derive never looks at type names.
type Matrix = Array2<f32>;

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.fields.Inner")]
pub struct Inner {
    pub values: Array1<f32>,
    pub mask: Array1<bool>,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.fields.Everything")]
pub struct Everything {
    pub scalar: Array0<f64>,
    pub matrix: Matrix,
    pub dynamic: ArrayD<i64>,
    pub shared: ndarray::ArcArray<u8, ndarray::Ix1>,
    pub erased: Tensor,
    pub nested: Inner,
    pub maybe: Option<Array1<i32>>,
    pub list: Vec<Inner>,
    pub boxed: Box<Array1<f32>>,
    pub pair: [Array1<f32>; 2],
    pub tuple: (Array1<i32>, String),
    pub attrs: BTreeMap<String, Array1<f32>>,
    pub flag: bool,
    pub count: u32,
    pub scale: f64,
    pub label: String,
    pub dtype: DType,
    pub declared: Shape,
}

fn inner(n: usize, start: f32) -> Inner {
    Inner {
        values: Array1::from_iter((0..n).map(|i| start + i as f32)),
        mask: Array1::from_iter((0..n).map(|i| i % 2 == 0)),
    }
}

fn everything() -> Everything {
    let mut attrs = BTreeMap::new();
    attrs.insert("width".to_string(), arr1(&[1.0, 2.0]));
    attrs.insert("height".to_string(), arr1(&[3.0]));
    Everything {
        scalar: Array0::from_elem((), 2.5),
        matrix: arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        dynamic: ArrayD::from_elem(IxDyn(&[2, 0, 3]), 7),
        shared: arr1(&[1u8, 2, 3]).into_shared(),
        erased: Tensor::from(arr1(&[true, false])),
        nested: inner(3, 0.0),
        maybe: Some(arr1(&[9, 8])),
        list: vec![inner(2, 10.0), inner(4, 20.0)],
        boxed: Box::new(arr1(&[0.5])),
        pair: [arr1(&[1.0]), arr1(&[2.0, 3.0])],
        tuple: (arr1(&[4, 5, 6]), "t".to_string()),
        attrs,
        flag: true,
        count: 3,
        scale: 0.25,
        label: "everything".to_string(),
        dtype: DType::F32,
        declared: "[?, !1, 3]".parse().unwrap(),
    }
}

#[test]
fn components_come_in_declaration_order_with_paths() {
    let value = everything();
    let mut sink = PathSink::default();
    value.push_views(&FieldPath::Root, &mut sink);
    let paths: Vec<&str> = sink.0.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "scalar",
            "matrix",
            "dynamic",
            "shared",
            "erased",
            "nested.values",
            "nested.mask",
            "maybe",
            "list[0].values",
            "list[0].mask",
            "list[1].values",
            "list[1].mask",
            "boxed",
            "pair[0]",
            "pair[1]",
            "tuple.0",
            // map entries by key
            "attrs.height",
            "attrs.width",
        ]
    );
    let spec = value.spec();
    assert_eq!(spec.component_specs().len(), paths.len());
    assert_eq!(
        spec.component_specs()[2].to_string(),
        "i64[2, 0, 3]",
        "zero-size tensors are ordinary components"
    );
    assert_eq!(spec.component_specs()[0].to_string(), "f64[]");
}

#[test]
fn decomposition_is_zero_copy_and_rebuilds_exactly() {
    let value = everything();
    let matrix_ptr = value.matrix.as_ptr();
    let spec = value.spec();
    let views = spec.to_components(&value);
    assert_eq!(views.len(), 18);
    let components = value.clone().into_components();
    assert_ne!(
        components[1]
            .as_array::<f32, ndarray::Ix2>()
            .unwrap()
            .as_ptr(),
        matrix_ptr,
        "a clone of a field that owns its array owns its own data"
    );
    let components_of_moved = value.into_components();
    assert_eq!(
        components_of_moved[1]
            .as_array::<f32, ndarray::Ix2>()
            .unwrap()
            .as_ptr(),
        matrix_ptr,
        "into_components moves the array, it does not copy it"
    );
    let rebuilt = spec.from_components(components_of_moved).unwrap();
    assert_eq!(
        rebuilt.matrix.as_ptr(),
        matrix_ptr,
        "rebuilding moves the array back"
    );
    assert_eq!(rebuilt, spec.from_components(components).unwrap());
    assert_eq!(rebuilt, everything());
}

#[test]
fn spec_mirrors_the_struct_and_holds_static_data() {
    let spec = everything().spec();
    assert_eq!(spec.matrix.to_string(), "f32[2, 3]");
    assert_eq!(spec.nested.values.to_string(), "f32[3]");
    assert_eq!(spec.maybe.as_ref().unwrap().to_string(), "i32[2]");
    assert_eq!(spec.list.len(), 2);
    assert_eq!(spec.tuple.1, "t");
    assert_eq!(spec.attrs["width"].to_string(), "f32[2]");
    assert!(spec.flag);
    assert_eq!(spec.count, 3);
    assert_eq!(spec.label, "everything");
    assert_eq!(spec.dtype, DType::F32);
    assert_eq!(spec.declared.to_string(), "[?, !1, 3]");
}

#[test]
fn json_round_trips_exactly_and_names_nested_types() {
    let spec = everything().spec();
    let json = extype::serial::spec_to_json(&spec).unwrap();
    assert!(json.contains("tests.fields.Everything"), "{json}");
    assert!(json.contains("tests.fields.Inner"), "{json}");
    let back: EverythingSpec = extype::serial::spec_from_json(&json).unwrap();
    assert_eq!(back, spec);
    let text = spec.to_string();
    assert!(
        text.starts_with("tests.fields.Everything { scalar: f64[], matrix: f32[2, 3],"),
        "{text}"
    );
}

#[test]
fn bad_json_names_the_field_path() {
    let spec = everything().spec();
    let json = extype::serial::spec_to_json(&spec).unwrap();
    let broken = json.replacen("\"f32\"", "\"f33\"", 1);
    let err = extype::serial::spec_from_json::<EverythingSpec>(&broken)
        .unwrap_err()
        .to_string();
    assert!(err.contains("f33"), "{err}");
    let missing = json.replacen("\"label\"", "\"lable\"", 1);
    let err = extype::serial::spec_from_json::<EverythingSpec>(&missing)
        .unwrap_err()
        .to_string();
    assert!(err.contains("label"), "{err}");
}

#[test]
fn compatibility_and_relaxation() {
    let a = everything().spec();
    let mut other = everything();
    other.matrix = arr2(&[[1.0, 2.0], [3.0, 4.0]]);
    other.list[1] = inner(5, 0.0);
    let b = other.spec();
    assert_ne!(a, b, "specs are compared strictly");
    assert!(
        !a.is_compatible_with(&b),
        "[2, 3] and [2, 2] are not compatible"
    );
    let relaxed = a.most_specific_compatible(&b).unwrap();
    assert_eq!(relaxed.matrix.to_string(), "f32[2, !1]");
    assert_eq!(relaxed.list[1].values.to_string(), "f32[!1]");
    assert!(relaxed.is_compatible_with(&a) && relaxed.is_compatible_with(&b));
    // Static data must be equal.
    let mut renamed = everything();
    renamed.label = "other".into();
    assert!(a.most_specific_compatible(&renamed.spec()).is_none());
    assert!(!a.is_compatible_with(&renamed.spec()));
    // Vec length is static data.
    let mut shorter = everything();
    shorter.list.pop();
    assert!(a.most_specific_compatible(&shorter.spec()).is_none());
    // Option presence is static data.
    let mut absent = everything();
    absent.maybe = None;
    assert!(a.most_specific_compatible(&absent.spec()).is_none());
}

#[test]
fn rebuilding_checks_count_dtype_and_shape_naming_the_path() {
    let value = everything();
    let spec = value.spec();
    let mut components = value.clone().into_components();
    components.pop();
    let err = spec.from_components(components).unwrap_err().to_string();
    assert!(err.contains("18") && err.contains("17"), "{err}");

    let mut components = value.clone().into_components();
    components[9] = Tensor::from(arr1(&[1.0f32, 2.0]));
    let err = spec.from_components(components).unwrap_err().to_string();
    assert!(err.contains("list[0].mask"), "{err}");
    assert!(err.contains("bool") && err.contains("f32"), "{err}");

    let mut components = value.into_components();
    components[1] = Tensor::from(arr2(&[[1.0f32, 2.0]]));
    let err = spec.from_components(components).unwrap_err().to_string();
    assert!(err.contains("matrix"), "{err}");
    assert!(err.contains("[2, 3]") && err.contains("[1, 2]"), "{err}");
}

#[test]
fn a_partial_spec_written_by_hand_accepts_matching_components() {
    let value = inner(4, 1.0);
    let spec = InnerSpec {
        values: extype::TensorSpec::new("[?]".parse().unwrap(), DType::F32),
        mask: extype::TensorSpec::new("[!1]".parse().unwrap(), DType::Bool),
    };
    assert!(spec.is_compatible_with(&value.spec()));
    let rebuilt = spec
        .from_components(value.clone().into_components())
        .unwrap();
    assert_eq!(rebuilt, value);
    let one = inner(1, 0.0);
    let err = spec
        .from_components(one.into_components())
        .unwrap_err()
        .to_string();
    assert!(err.contains("mask"), "{err}");
}

/// Tuple structs derive too; their fields are named by position.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.fields.Pair")]
pub struct Pair(pub Array1<f32>, pub Array1<i64>);

#[test]
fn tuple_structs() {
    let pair = Pair(arr1(&[1.0]), arr1(&[2, 3]));
    let spec = pair.spec();
    assert_eq!(spec.0.to_string(), "f32[1]");
    assert_eq!(spec.1.to_string(), "i64[2]");
    let mut sink = PathSink::default();
    pair.push_views(&FieldPath::Root, &mut sink);
    assert_eq!(sink.0[1].0, "1");
    let back = spec
        .from_components(pair.clone().into_components())
        .unwrap();
    assert_eq!(back, pair);
    let json = extype::serial::spec_to_json(&spec).unwrap();
    assert_eq!(
        extype::serial::spec_from_json::<PairSpec>(&json).unwrap(),
        spec
    );
    assert_eq!(Pair::try_new(arr1(&[1.0]), arr1(&[2, 3])).unwrap(), pair);
}

//! `TypeSpec::with_component_specs` on derived specs: a spec rebuilt with other component specs,
//! in component order, through nested extension types and containers, keeping static data and
//! skipped fields out, checked against fixed-rank and fixed-dtype fields and the shape contract,
//! typed and behind `dyn AnySpec` (the registry's erased specs).

use std::collections::BTreeMap;

use extype::ndarray::{Array2, ArrayD};
use extype::{ExtensionType, Tensor, TensorSpec, TypeSpec, Value, ValueSpec, registry};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_rebuild.Inner")]
pub struct Inner {
    #[extype(shape = "*dims")]
    pub values: Tensor,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

/// Like `Inner`, without a contract.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_rebuild.Plain")]
pub struct Plain {
    pub values: Tensor,
    pub mask: ArrayD<bool>,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_rebuild.Outer")]
pub struct Outer {
    pub inner: Inner,
    pub maybe: Option<Tensor>,
    pub absent: Option<Tensor>,
    pub parts: Vec<Plain>,
    pub pair: [Tensor; 2],
    pub named: BTreeMap<String, Tensor>,
    pub matrix: Array2<f32>,
    pub label: String,
    #[extype(skip)]
    pub cache: Vec<u8>,
}

fn t(shape: &[usize]) -> Tensor {
    Tensor::from(ArrayD::<f32>::zeros(shape))
}

fn inner(n: usize) -> Inner {
    Inner::try_new(t(&[n]), ArrayD::from_elem(vec![n], true)).unwrap()
}

fn plain(n: usize) -> Plain {
    Plain {
        values: t(&[n]),
        mask: ArrayD::from_elem(vec![n], true),
    }
}

fn outer() -> Outer {
    Outer {
        inner: inner(2),
        maybe: Some(t(&[3])),
        absent: None,
        parts: vec![plain(4), plain(5)],
        pair: [t(&[6]), t(&[7])],
        named: [("a".to_string(), t(&[8])), ("b".to_string(), t(&[9]))]
            .into_iter()
            .collect(),
        matrix: Array2::zeros((1, 2)),
        label: "static".into(),
        cache: vec![1, 2, 3],
    }
}

fn spec(text: &str) -> TensorSpec {
    text.parse().unwrap()
}

/// Each component spec with its first dim set to its position (so the order shows), the other
/// dims unknown; the first two (`inner`, under one contract) share theirs.
fn renumbered(specs: &[TensorSpec]) -> Vec<TensorSpec> {
    specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let i = i.saturating_sub(1);
            let rank = s.shape.rank().unwrap();
            let dims: Vec<String> = (0..rank)
                .map(|d| if d == 0 { i.to_string() } else { "?".into() })
                .collect();
            spec(&format!("{}[{}]", s.dtype, dims.join(", ")))
        })
        .collect()
}

#[test]
fn every_component_is_replaced_in_component_order() {
    let old = outer().spec();
    let new_specs = renumbered(&old.component_specs());
    let new = old.with_component_specs(new_specs.clone()).unwrap();
    assert_eq!(new.component_specs(), new_specs);
    assert_eq!(new.component_paths(), old.component_paths());
    assert_eq!(
        new.to_string(),
        "test_rebuild.Outer { inner: test_rebuild.Inner { values: f32[0], mask: bool[0] }, \
         maybe: f32[1], absent: None, parts: [test_rebuild.Plain { values: f32[2], mask: \
         bool[3] }, test_rebuild.Plain { values: f32[4], mask: bool[5] }], pair: (f32[6], \
         f32[7]), named: {\"a\": f32[8], \"b\": f32[9]}, matrix: f32[10, ?], label: \"static\" }"
    );
    // Static data and lengths are kept; the rebuilt spec describes values again.
    assert_eq!(new.label, "static");
    let same = old.with_component_specs(old.component_specs()).unwrap();
    assert_eq!(same, old);
    let value = outer();
    let components = value.clone().into_components();
    let back = same.from_components(components).unwrap();
    assert_eq!(back.cache, Vec::<u8>::new()); // skipped: rebuilt with `Default`
    assert_eq!(back.matrix, value.matrix);
}

#[test]
fn errors_name_the_type_or_the_component() {
    let old = outer().spec();
    let specs = old.component_specs();
    // The count.
    let err = old.with_component_specs(specs[1..].to_vec()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "test_rebuild.Outer: expected 12 components, found 11"
    );
    // A fixed-rank field: the rank.
    let mut wrong = specs.clone();
    wrong[11] = spec("f32[1, 2, 3]");
    let err = old.with_component_specs(wrong).unwrap_err();
    assert_eq!(
        err.to_string(),
        "spec matrix: expected a component spec of rank 2 (the field's array rank), found \
         f32[1, 2, 3]"
    );
    // A fixed-dtype field inside a `Vec` of nested types: the dtype, at its path.
    let mut wrong = specs.clone();
    wrong[4] = spec("f32[4]");
    let err = old.with_component_specs(wrong).unwrap_err();
    assert_eq!(
        err.to_string(),
        "spec parts[0].mask: expected a component spec of dtype bool (the field's element \
         type), found f32[4]"
    );
    // The nested type's shape contract: values and mask share their dims.
    let mut wrong = specs.clone();
    wrong[0] = spec("f32[2, 2]");
    let err = old.with_component_specs(wrong).unwrap_err();
    assert!(err.to_string().contains("inner"), "{err}");
}

#[test]
fn the_shape_contract_refines_the_result() {
    let old = inner(3).spec();
    let new = old
        .with_component_specs(vec![spec("i64[?, 5]"), spec("bool[4, ?]")])
        .unwrap();
    assert_eq!(new.values, spec("i64[4, 5]"));
    assert_eq!(new.mask, spec("bool[4, 5]"));
}

#[test]
fn erased_specs_rebuild_through_the_table() {
    let value = Value::from_extension(outer());
    let ValueSpec::Extension(typed) = value.spec() else {
        unreachable!()
    };
    // The registry's spec of the same type: erased, no per-type code.
    let erased = registry().deserialize_spec(&typed.dyn_serialize()).unwrap();
    let new_specs = renumbered(&typed.dyn_component_specs());
    let from_typed = typed.dyn_with_component_specs(new_specs.clone()).unwrap();
    let from_erased = erased.dyn_with_component_specs(new_specs.clone()).unwrap();
    assert_eq!(from_typed.dyn_component_specs(), new_specs);
    assert!(from_typed.dyn_eq(&*from_erased));
    let err = erased
        .dyn_with_component_specs(new_specs[..3].to_vec())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "test_rebuild.Outer: expected 12 components, found 3"
    );
}

//! Derived types behind the registry go through their tables (`extype::derived`): specs and
//! values are `ErasedSpec` / `ErasedValue`, with no code of their own. They must behave exactly
//! like the typed path (`Box::new(spec)` / `Value::from_extension`): equality, hashing,
//! compatibility, relaxation, printing, components, downcasts; and they must drop every field
//! exactly once, also when a rebuild fails half-way or validation rejects the value.

use std::cell::Cell;
use std::hash::{Hash, Hasher};

use extype::{
    AnySpec, ExtensionType, FieldPath, Result, SpecTree, StaticValue, Tensor, TypeSpec, Value,
    registry,
};
use ndarray::{Array1, ArrayD, IxDyn, arr1};

/// A static field that counts its live instances (clones and drops), to catch leaks and double
/// drops on every path. Per thread: the tests run in parallel.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Counted(u32);

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn live() -> isize {
    LIVE.with(Cell::get)
}

impl Counted {
    fn new(v: u32) -> Self {
        LIVE.with(|n| n.set(n.get() + 1));
        Counted(v)
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        Counted::new(self.0)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.with(|n| n.set(n.get() - 1));
    }
}

impl StaticValue for Counted {
    fn to_spec_value(&self) -> SpecTree {
        SpecTree::Int(i128::from(self.0))
    }
    fn from_spec_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self> {
        match value {
            SpecTree::Int(v) => Ok(Counted::new(*v as u32)),
            other => Err(extype::field::data_error(path, "an integer", other)),
        }
    }
}

extype::static_field!(Counted);

fn check_positive(v: &Guarded) -> Result<()> {
    if v.values.iter().all(|x| *x > 0.0) {
        Ok(())
    } else {
        Err(extype::SpecError::Invalid {
            type_name: String::new(),
            path: String::new(),
            message: "values must be positive".into(),
        }
        .into())
    }
}

/// Static data first, then tensors (a rebuild can fail after the static field was built), a
/// shape contract and a validation function.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.erased.Guarded", validate = check_positive)]
pub struct Guarded {
    pub tag: Counted,
    #[extype(shape = "n")]
    pub values: Array1<f32>,
    #[extype(shape = "n")]
    pub mask: Array1<bool>,
    pub parts: Vec<ArrayD<i64>>,
}

/// A tuple struct: its spec prints as a tuple.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.erased.Pair")]
pub struct Pair(pub Array1<f32>, pub String);

/// No fields at all: a zero-sized value and spec.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.erased.Empty")]
pub struct Empty;

fn guarded(tag: u32) -> Guarded {
    Guarded::try_new(
        Counted::new(tag),
        arr1(&[1.0, 2.0, 3.0]),
        arr1(&[true, false, true]),
        vec![ArrayD::from_elem(IxDyn(&[2]), 7)],
    )
    .unwrap()
}

fn hash_of(spec: &dyn AnySpec) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    spec.hash(&mut h);
    h.finish()
}

/// The registry's (erased) spec of `value`, and the typed one boxed.
fn both_specs<T: ExtensionType>(value: &T) -> (Box<dyn AnySpec>, Box<dyn AnySpec>) {
    let typed: Box<dyn AnySpec> = Box::new(value.spec());
    let erased = registry()
        .deserialize_spec(&value.spec().serialize())
        .unwrap();
    (erased, typed)
}

#[test]
fn erased_specs_behave_like_typed_ones() {
    let value = guarded(1);
    let (erased, typed) = both_specs(&value);
    assert!(erased.as_any().downcast_ref::<GuardedSpec>().is_some());
    assert!(erased.dyn_eq(&*typed) && typed.dyn_eq(&*erased));
    assert_eq!(hash_of(&*erased), hash_of(&*typed));
    assert_eq!(format!("{erased:?}"), format!("{typed:?}"));
    assert_eq!(erased.dyn_serialize(), typed.dyn_serialize());
    assert_eq!(erased.dyn_component_specs(), typed.dyn_component_specs());
    assert_eq!(erased.dyn_component_paths(), typed.dyn_component_paths());
    assert_eq!(erased.dyn_num_components(), 3);
    assert_eq!(erased.name(), "tests.erased.Guarded");
    assert_eq!(erased.value_type_id(), std::any::TypeId::of::<Guarded>());
    assert!(erased.dyn_is_compatible_with(&*typed));
    let relaxed = erased.dyn_most_specific_compatible(&*typed).unwrap();
    assert!(relaxed.dyn_eq(&*typed));
    assert!(erased.clone_box().dyn_eq(&*erased));

    // A spec of another type is never equal, compatible or relaxable with it.
    let (pair, _) = both_specs(&Pair(arr1(&[1.0]), "a".into()));
    assert!(!erased.dyn_eq(&*pair) && !erased.dyn_is_compatible_with(&*pair));
    assert!(erased.dyn_most_specific_compatible(&*pair).is_none());

    // Static data that differs: compatible with neither, and no relaxation.
    let (other, _) = both_specs(&guarded(2));
    assert!(!erased.dyn_eq(&*other) && !erased.dyn_is_compatible_with(&*other));
    assert!(erased.dyn_most_specific_compatible(&*other).is_none());
}

#[test]
fn tuple_and_empty_specs_print_and_compare_like_typed_ones() {
    let pair = Pair(arr1(&[1.0, 2.0]), "x".into());
    let (erased, typed) = both_specs(&pair);
    assert_eq!(format!("{erased:?}"), format!("{typed:?}"));
    assert!(format!("{erased:?}").starts_with("PairSpec("));
    assert!(erased.dyn_eq(&*typed));

    let (erased, typed) = both_specs(&Empty);
    assert_eq!(format!("{erased:?}"), format!("{typed:?}"));
    assert!(erased.dyn_eq(&*typed) && erased.dyn_num_components() == 0);
    let rebuilt = erased.dyn_from_components(vec![]).unwrap();
    assert_eq!(rebuilt.downcast::<Empty>().unwrap(), Empty);
}

#[test]
fn rebuilt_values_downcast_move_and_clone() {
    let value = guarded(3);
    let spec = value.spec().serialize();
    let components = value.clone().into_components();
    let rebuilt = registry().rebuild(&spec, components).unwrap();

    let Value::Extension(e) = &rebuilt else {
        panic!("not an extension value")
    };
    assert_eq!(e.as_any().downcast_ref::<Guarded>(), Some(&value));
    assert_eq!(e.name(), "tests.erased.Guarded");
    assert!(e.any_spec().dyn_eq(&value.spec() as &dyn AnySpec));
    let views: Vec<Tensor> = e.component_views().iter().map(|v| v.to_tensor()).collect();
    assert_eq!(views, value.clone().into_components());
    assert_eq!(e.clone_components(), value.clone().into_components());

    // Shared: the downcast clones; unique: it moves the value out.
    let shared = rebuilt.clone();
    assert_eq!(shared.downcast::<Guarded>().unwrap(), value);
    assert_eq!(rebuilt.downcast::<Guarded>().unwrap(), value);
}

#[test]
fn every_field_is_dropped_once_on_every_path() {
    let before = live();
    {
        let value = guarded(4);
        let spec = value.spec().serialize();
        let r = registry();

        // A rebuild that succeeds, its clone, its components, and the value moved out.
        let rebuilt = r.rebuild(&spec, value.clone().into_components()).unwrap();
        let Value::Extension(e) = &rebuilt else {
            panic!()
        };
        drop(e.clone_components());
        drop(rebuilt.clone());
        drop(rebuilt.downcast::<Guarded>().unwrap());

        // Fails at the second component (wrong dtype) after the static field was built.
        let mut bad = value.clone().into_components();
        bad[1] = Tensor::from(arr1(&[1i32, 2, 3]));
        assert!(r.rebuild(&spec, bad).is_err());

        // Built completely, then rejected by validation.
        let mut negative = value.clone();
        negative.values[0] = -1.0;
        let err = r
            .rebuild(&spec, negative.into_components())
            .unwrap_err()
            .to_string();
        assert!(err.contains("values must be positive"), "{err}");

        // Rejected by the shape contract.
        let mut short = value.clone().into_components();
        short[1] = Tensor::from(arr1(&[true]));
        assert!(r.rebuild(&spec, short).is_err());

        // Wrong component count, and a spec that does not decode.
        assert!(r.rebuild(&spec, vec![]).is_err());
        let mut bad = spec.clone();
        let SpecTree::Spec(named) = &mut bad else {
            panic!()
        };
        if let SpecTree::Map(fields) = &mut named.value {
            fields.insert("tag".into(), SpecTree::Str("nope".into()));
        }
        assert!(r.deserialize_spec(&bad).is_err());

        // Specs: deserialized, cloned, relaxed, dropped.
        let s = r.deserialize_spec(&spec).unwrap();
        drop(s.clone_box());
        drop(s.dyn_most_specific_compatible(&*s));
        drop(value);
    }
    assert_eq!(live(), before, "leaked or double-dropped fields");
}

#[test]
fn typed_and_erased_paths_give_equal_values() {
    let value = guarded(5);
    let spec = value.spec();
    let typed = TypeSpec::from_components(&spec, value.clone().into_components()).unwrap();
    let erased = registry()
        .rebuild(&spec.serialize(), value.clone().into_components())
        .unwrap()
        .downcast::<Guarded>()
        .unwrap();
    assert_eq!(typed, erased);
    assert_eq!(typed, value);
}

/// `Tensor` fields are checked where they lie in the component list and copied out once
/// (`Field::from_components_into`); a mismatch consumes nothing and names the field.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.erased.Tensors")]
pub struct Tensors {
    pub a: Tensor,
    pub b: Tensor,
}

#[test]
fn tensor_fields_rebuild_in_place_and_report_mismatches() {
    let value = Tensors {
        a: Tensor::from(arr1(&[1.0f32, 2.0])),
        b: Tensor::from(arr1(&[true])),
    };
    let spec = value.spec();
    let typed = TypeSpec::from_components(&spec, value.clone().into_components()).unwrap();
    assert_eq!(typed, value);
    let r = registry();
    let rebuilt = r
        .rebuild(&spec.serialize(), value.clone().into_components())
        .unwrap();
    assert_eq!(rebuilt.downcast::<Tensors>().unwrap(), value);

    let wrong = vec![
        Tensor::from(arr1(&[1.0f32, 2.0])),
        Tensor::from(arr1(&[1i64])),
    ];
    for err in [
        TypeSpec::from_components(&spec, wrong.clone()).unwrap_err(),
        r.rebuild(&spec.serialize(), wrong).unwrap_err(),
    ] {
        let text = err.to_string();
        assert_eq!(text, "component b: expected dtype bool, found i64");
    }
}

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

/// `#[extype(static)]`: numbers kept in the spec on purpose; `#[extype(skip)]`: a cache that is
/// neither a component nor in the spec.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.static.Filtered")]
pub struct Filtered {
    pub values: ArrayD<f32>,
    #[extype(static)]
    pub coefficients: Vec<f32>,
    #[extype(static)]
    pub window: [u32; 2],
    #[extype(skip)]
    pub cache: Option<std::sync::Arc<Vec<f32>>>,
    #[extype(skip)]
    pub hits: u64,
}

fn filtered(coefficients: Vec<f32>) -> Filtered {
    Filtered {
        values: ArrayD::from_shape_vec(IxDyn(&[3]), vec![1.0, 2.0, 3.0]).unwrap(),
        coefficients,
        window: [2, 4],
        cache: Some(std::sync::Arc::new(vec![9.0])),
        hits: 7,
    }
}

#[test]
fn static_fields_are_spec_data_and_skipped_fields_are_not_in_the_spec() {
    let value = filtered(vec![0.5, 0.25]);
    let spec = value.spec();
    assert_eq!(spec.coefficients.len(), 2);
    assert_eq!(spec.coefficients[0].0, 0.5);
    assert_eq!(spec.window, [2, 4]);
    assert_eq!(spec.component_specs().len(), 1);
    let text = spec.to_string();
    assert!(
        text.contains("coefficients") && !text.contains("cache") && !text.contains("hits"),
        "{text}"
    );
    let json = spec_to_json(&spec).unwrap();
    assert!(!json.contains("cache") && !json.contains("hits"), "{json}");
    assert_eq!(spec_from_json::<FilteredSpec>(&json).unwrap(), spec);
}

#[test]
fn static_and_skipped_fields_survive_a_round_trip_through_components() {
    let value = filtered(vec![0.5, 0.25]);
    let spec = value.spec();
    let components = value.clone().into_components();
    assert_eq!(components.len(), 1);
    let rebuilt = spec.from_components(components).unwrap();
    assert_eq!(rebuilt.coefficients, vec![0.5, 0.25]);
    assert_eq!(rebuilt.window, [2, 4]);
    // Skipped fields come back as `Default::default()`.
    assert_eq!(rebuilt.cache, None);
    assert_eq!(rebuilt.hits, 0);
    assert_eq!(rebuilt.values, value.values);
    // Through the JSON of the spec and the registry too.
    let loaded: FilteredSpec = spec_from_json(&spec_to_json(&spec).unwrap()).unwrap();
    let again = loaded
        .from_components(value.clone().into_components())
        .unwrap();
    assert_eq!(again, rebuilt);
    // And through the registry, by name (the erased path), dropping what it rebuilt.
    let by_name = extype::registry()
        .rebuild(&spec.serialize(), value.clone().into_components())
        .unwrap();
    assert_eq!(by_name.type_name(), "tests.static.Filtered");
    assert_eq!(by_name.downcast::<Filtered>().unwrap(), rebuilt);
}

#[test]
fn static_numbers_compare_by_equality() {
    let a = filtered(vec![0.5, 0.25]).spec();
    let b = filtered(vec![0.5, 0.125]).spec();
    assert!(!a.is_compatible_with(&b));
    assert_eq!(a.most_specific_compatible(&b), None);
    assert!(a.is_compatible_with(&filtered(vec![0.5, 0.25]).spec()));
}

/// `#[derive(StaticValue)]`: an enum of unit variants, stored as the variant's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, extype::StaticValue)]
pub enum Interp {
    Linear,
    Nearest,
    r#Cubic,
}

/// A struct of static values, stored field by field.
#[derive(Clone, Debug, PartialEq, Eq, Hash, extype::StaticValue)]
pub struct Resample {
    pub interp: Interp,
    pub factor: u32,
    pub r#type: String,
}

/// A tuple struct, stored as a tuple; a unit struct, as the empty tuple.
#[derive(Clone, Debug, PartialEq, Eq, Hash, extype::StaticValue)]
pub struct Window(pub u32, pub Option<Interp>);

#[derive(Clone, Debug, PartialEq, Eq, Hash, extype::StaticValue)]
pub struct Marker;

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.static.Resampled")]
pub struct Resampled {
    pub values: ArrayD<f32>,
    pub interp: Interp,
    pub resample: Resample,
    pub window: Window,
    pub marker: Marker,
    /// Static values are sequence items (unlike plain numbers).
    pub history: Vec<Interp>,
}

fn resampled(interp: Interp) -> Resampled {
    Resampled {
        values: ArrayD::zeros(IxDyn(&[4])),
        interp,
        resample: Resample {
            interp: Interp::Nearest,
            factor: 2,
            r#type: "box".into(),
        },
        window: Window(3, Some(Interp::Cubic)),
        marker: Marker,
        history: vec![Interp::Linear, Interp::Cubic],
    }
}

#[test]
fn derived_static_values_are_spec_data() {
    use extype::StaticValue as _;
    assert_eq!(
        Interp::Linear.to_spec_value(),
        extype::SpecTree::Str("Linear".into())
    );
    assert_eq!(
        Interp::Cubic.to_spec_value(),
        extype::SpecTree::Str("Cubic".into())
    );
    let value = resampled(Interp::Linear);
    let spec = value.spec();
    assert_eq!(spec.interp, Interp::Linear);
    assert_eq!(spec.resample.factor, 2);
    assert_eq!(spec.component_specs().len(), 1);
    let json = spec_to_json(&spec).unwrap();
    assert!(
        json.contains("\"Linear\"") && json.contains("\"type\":\"box\""),
        "{json}"
    );
    let back: ResampledSpec = spec_from_json(&json).unwrap();
    assert_eq!(back, spec);
    let rebuilt = back
        .from_components(value.clone().into_components())
        .unwrap();
    assert_eq!(rebuilt, value);
    // Static data: compatible only when equal.
    assert!(!spec.is_compatible_with(&resampled(Interp::Nearest).spec()));
    assert!(spec.is_compatible_with(&resampled(Interp::Linear).spec()));
}

#[test]
fn derived_static_values_reject_bad_data_with_the_path() {
    use extype::StaticValue as _;
    use extype::{FieldPath, SpecTree};
    let err = Interp::from_spec_value(&SpecTree::Str("Bilinear".into()), &FieldPath::Root)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`Interp`") && err.contains("\"Linear\", \"Nearest\", \"Cubic\""),
        "{err}"
    );
    let json = spec_to_json(&resampled(Interp::Linear).spec()).unwrap();
    let bad = json.replacen("\"Nearest\"", "\"Nearest2\"", 1);
    let err = spec_from_json::<ResampledSpec>(&bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("resample.interp"), "{err}");
    // Every occurrence: the key, and its place in the document's field order (`"order"`).
    let bad = json.replace("\"factor\"", "\"fcator\"");
    let err = spec_from_json::<ResampledSpec>(&bad)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`factor`") && err.contains("resample"),
        "{err}"
    );
    let err = Window::from_spec_value(&SpecTree::Tuple(vec![SpecTree::Int(1)]), &FieldPath::Root)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("a tuple of 2") && err.contains("`Window`"),
        "{err}"
    );
}

/// In a tuple struct, a skipped field leaves a gap in the positions: the spec is a tuple of the
/// others, and paths keep the value's positions.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.static.Gapped")]
pub struct Gapped(
    pub ArrayD<f32>,
    #[extype(skip)] pub Vec<String>,
    pub ArrayD<i64>,
    #[extype(static)] pub [f64; 2],
);

#[test]
fn skipped_fields_of_tuple_structs_leave_the_spec_in_order() {
    let value = Gapped(
        ArrayD::zeros(IxDyn(&[2])),
        vec!["scratch".into()],
        ArrayD::zeros(IxDyn(&[3, 1])),
        [0.5, 1.5],
    );
    let spec = value.spec();
    assert_eq!(spec.0.dtype, DType::F32);
    assert_eq!(spec.1.dtype, DType::I64);
    assert_eq!(spec.1.shape.to_string(), "[3, 1]");
    assert_eq!(spec.2[1].0, 1.5);
    let rebuilt = spec
        .from_components(value.clone().into_components())
        .unwrap();
    assert_eq!(rebuilt.1, Vec::<String>::new());
    assert_eq!(
        (rebuilt.0, rebuilt.2, rebuilt.3),
        (value.0, value.2, value.3)
    );
    // A wrong component is reported at the value's own position of the field (`.2`).
    let bad = vec![
        extype::Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[2]))),
        extype::Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[3, 1]))),
    ];
    let err = spec.from_components(bad).unwrap_err().to_string();
    assert!(err.starts_with("component 2: expected dtype i64"), "{err}");
    let json = spec_to_json(&spec).unwrap();
    assert_eq!(spec_from_json::<GappedSpec>(&json).unwrap(), spec);
}

// ---------------------------------------------------------------------------------------------
// Static values in a batch (`extype::batch::StaticBatch`)

/// The rank of the data a value describes: a static value with its own batching (a batch has
/// one axis more than its items), declared with `static_field!(T; impl StaticBatch)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rank(u8);

impl extype::StaticValue for Rank {
    fn to_spec_value(&self) -> extype::SpecTree {
        extype::SpecTree::Int(self.0.into())
    }
    fn from_spec_value(
        value: &extype::SpecTree,
        path: &extype::FieldPath<'_>,
    ) -> extype::Result<Self> {
        match value {
            extype::SpecTree::Int(r) => u8::try_from(*r)
                .map(Rank)
                .map_err(|_| extype::field::data_error(path, "a rank", value)),
            other => Err(extype::field::data_error(path, "a rank", other)),
        }
    }
}

impl extype::batch::StaticBatch for Rank {
    fn batched(&self, _n: Option<usize>) -> Self {
        Rank(self.0 + 1)
    }
    fn unbatched(&self, path: &extype::FieldPath<'_>) -> extype::Result<Self> {
        match self.0.checked_sub(1) {
            Some(r) => Ok(Rank(r)),
            None => Err(extype::field::data_error(
                path,
                "a rank of at least 1",
                &extype::SpecTree::Int(0),
            )),
        }
    }
    fn stack_static(items: &[&Self], path: &extype::FieldPath<'_>) -> extype::Result<Self> {
        Ok(Rank(extype::batch::stack_equal(items, path)?.0 + 1))
    }
    fn unstack_static(&self, _n: usize, path: &extype::FieldPath<'_>) -> extype::Result<Self> {
        self.unbatched(path)
    }
}

extype::static_field!(Rank; impl StaticBatch);

/// A batchable type with a derived static value (default batching) and a custom one.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.static.Sampled", batchable)]
pub struct Sampled {
    pub values: ArrayD<f32>,
    pub interp: Interp,
    pub rank: Rank,
}

fn sampled(interp: Interp) -> Sampled {
    Sampled {
        values: ArrayD::zeros(IxDyn(&[3])),
        interp,
        rank: Rank(1),
    }
}

/// What `#[derive(StaticValue)]` and `static_field!(T)` emit implement `StaticBatch` with its
/// provided methods: the value must be equal across a batch, and the batch keeps it.
#[test]
fn derived_static_values_are_equal_across_a_batch() {
    fn batches_statically<T: extype::batch::StaticBatch>() {}
    batches_statically::<Interp>();
    batches_statically::<Resample>();
    batches_statically::<Shape>();

    let b = extype::batch::stack(&[sampled(Interp::Cubic), sampled(Interp::Cubic)]).unwrap();
    assert_eq!(b.interp, Interp::Cubic);
    let back = extype::batch::unstack(b).unwrap();
    assert_eq!(back, vec![sampled(Interp::Cubic), sampled(Interp::Cubic)]);

    let err = extype::batch::stack(&[sampled(Interp::Cubic), sampled(Interp::Linear)])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("static field interp") && err.contains("item 1 has Linear"),
        "{err}"
    );
}

/// A static value that implements `StaticBatch` itself batches by its own methods, in the
/// batch, its spec and each item.
#[test]
fn a_static_value_batches_by_its_own_static_batch() {
    use extype::batch::BatchableSpec as _;
    let items = [sampled(Interp::Linear), sampled(Interp::Linear)];
    let b = extype::batch::stack(&items).unwrap();
    assert_eq!(b.rank, Rank(2));
    assert_eq!(b.values.shape(), &[2, 3]);
    assert_eq!(b.spec(), items[0].spec().batched(Some(2)));
    assert_eq!(b.spec().unbatched().unwrap(), items[0].spec());
    assert_eq!(extype::batch::unstack(b).unwrap(), items);

    let mut flat = items[0].spec();
    flat.rank = Rank(0);
    let err = flat.unbatched().unwrap_err().to_string();
    assert!(err.contains("rank") && err.contains("at least 1"), "{err}");
}

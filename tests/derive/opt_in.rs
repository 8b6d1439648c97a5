//! `#[extype(getters)]` and `#[extype(display)]`: TF's extension types are immutable after
//! `__init__` validates them and print as their fields; a derived type gets both on request.

mod shapes {
    use extype::ExtensionType;
    use ndarray::{ArrayD, IxDyn};

    fn check(x: &Masked) -> extype::Result<()> {
        if x.values.shape() == x.mask.shape() {
            Ok(())
        } else {
            Err(extype::Error::invalid("values and mask differ in shape"))
        }
    }

    /// Private fields: outside this module a value is made by `try_new` and read by getters.
    #[derive(ExtensionType, Debug, Clone, PartialEq)]
    #[extype(name = "tests.opt_in.Masked", validate = check, getters, display, builder)]
    pub struct Masked {
        values: ArrayD<f32>,
        mask: ArrayD<bool>,
        #[extype(static)]
        label: String,
        /// Not in the spec: the builder leaves it at its default when not set.
        #[extype(skip)]
        note: Option<String>,
    }

    pub fn zeros(n: usize) -> ArrayD<f32> {
        ArrayD::zeros(IxDyn(&[n]))
    }
}

use ndarray::array;
use shapes::Masked;

/// `[1, 2]` with the second masked out, labelled "temps", through `try_new`.
fn temps() -> Masked {
    Masked::try_new(
        array![1.0f32, 2.0].into_dyn(),
        array![true, false].into_dyn(),
        "temps".to_string(),
        None,
    )
    .unwrap()
}

#[test]
fn getters_read_private_fields_and_try_new_checks() {
    let m = temps();
    assert_eq!(m.values(), &array![1.0f32, 2.0].into_dyn());
    assert_eq!(m.mask(), &array![true, false].into_dyn());
    assert_eq!(m.label(), "temps");
    let err = Masked::try_new(
        shapes::zeros(3),
        array![true].into_dyn(),
        String::new(),
        None,
    );
    assert!(err.unwrap_err().to_string().contains("differ in shape"));
}

#[test]
fn display_prints_as_extype_display() {
    let m = temps();
    assert_eq!(m.to_string(), extype::display(&m).to_string());
    assert!(m.to_string().starts_with("tests.opt_in.Masked"), "{m}");
    assert!(m.to_string().contains("values: [1.0, 2.0]"), "{m}");
}

/// The builder (TF's keyword constructor): fields in any order, checked like `try_new`; a spec
/// field never set is an error naming it; a skipped one is its default.
#[test]
fn the_builder_sets_fields_by_name() {
    let m = Masked::builder()
        .mask(array![true, false].into_dyn())
        .label("temps".to_string())
        .values(array![1.0f32, 2.0].into_dyn())
        .build()
        .unwrap();
    assert_eq!(m, temps());
    assert_eq!(m.note(), &None);
    let noted = Masked::builder()
        .values(shapes::zeros(1))
        .mask(array![true].into_dyn())
        .label(String::new())
        .note(Some("checked".into()))
        .build()
        .unwrap();
    assert_eq!(noted.note().as_deref(), Some("checked"));
    let e = Masked::builder()
        .values(shapes::zeros(1))
        .label(String::new())
        .build();
    assert_eq!(
        e.unwrap_err().to_string(),
        "invalid value: Masked::builder(): field `mask` was never set; call `.mask(…)` before \
         `build()`"
    );
    let e = Masked::builder()
        .values(shapes::zeros(2))
        .mask(array![true].into_dyn())
        .label(String::new())
        .build();
    assert!(e.unwrap_err().to_string().contains("differ in shape"));
}

/// A field added in version 2 with `#[extype(default)]`: the builder fills it with its
/// `Default` when never set, as a version-1 file's load does.
#[derive(extype::ExtensionType, Debug, Clone, PartialEq)]
#[extype(name = "tests.opt_in.Tagged", version = 2, builder)]
pub struct Tagged {
    values: ndarray::ArrayD<f32>,
    #[extype(default)]
    weights: Option<ndarray::ArrayD<f32>>,
}

#[test]
fn the_builder_fills_defaults() {
    let t = Tagged::builder().values(shapes::zeros(2)).build().unwrap();
    assert_eq!(t.weights, None);
    let w = Tagged::builder()
        .values(shapes::zeros(1))
        .weights(Some(shapes::zeros(1)))
        .build()
        .unwrap();
    assert_eq!(w.weights, Some(shapes::zeros(1)));
}

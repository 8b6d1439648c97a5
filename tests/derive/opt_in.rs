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
    #[extype(name = "tests.opt_in.Masked", validate = check, getters, display)]
    pub struct Masked {
        values: ArrayD<f32>,
        mask: ArrayD<bool>,
        #[extype(static)]
        label: String,
    }

    pub fn zeros(n: usize) -> ArrayD<f32> {
        ArrayD::zeros(IxDyn(&[n]))
    }
}

use ndarray::array;
use shapes::Masked;

#[test]
fn getters_read_private_fields_and_try_new_checks() {
    let m = Masked::try_new(
        array![1.0f32, 2.0].into_dyn(),
        array![true, false].into_dyn(),
        "temps".to_string(),
    )
    .unwrap();
    assert_eq!(m.values(), &array![1.0f32, 2.0].into_dyn());
    assert_eq!(m.mask(), &array![true, false].into_dyn());
    assert_eq!(m.label(), "temps");
    let err = Masked::try_new(shapes::zeros(3), array![true].into_dyn(), String::new());
    assert!(err.unwrap_err().to_string().contains("differ in shape"));
}

#[test]
fn display_prints_as_extype_display() {
    let m = Masked::try_new(
        array![1.0f32, 2.0].into_dyn(),
        array![true, false].into_dyn(),
        "temps".to_string(),
    )
    .unwrap();
    assert_eq!(m.to_string(), extype::display(&m).to_string());
    assert!(m.to_string().starts_with("tests.opt_in.Masked"), "{m}");
    assert!(m.to_string().contains("values: [1.0, 2.0]"), "{m}");
}

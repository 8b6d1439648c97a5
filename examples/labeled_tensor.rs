//! A LabeledTensor: values plus one name per axis (static data), checked against the rank.
//! Run with `cargo run --example labeled_tensor`.

use extype::{ExtensionType, TypeSpec};
use ndarray::{ArrayD, IxDyn};

/// A tensor whose axes have names. The names are static: they live in the spec, two specs are
/// compatible only when their names are equal, and they are checked against the rank.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "examples.LabeledTensor", validate = LabeledTensor::check_names)]
pub struct LabeledTensor {
    pub values: ArrayD<f64>,
    pub axis_names: Vec<String>,
}

impl LabeledTensor {
    fn check_names(&self) -> extype::Result<()> {
        let (rank, names) = (self.values.ndim(), self.axis_names.len());
        if rank != names {
            return Err(extype::Error::invalid(format!(
                "{names} axis names for a tensor of rank {rank}"
            )));
        }
        let mut sorted = self.axis_names.clone();
        sorted.sort();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(extype::Error::invalid(format!(
                "axis name {:?} is used twice",
                w[0]
            )));
        }
        Ok(())
    }

    /// The size of the axis called `name`.
    fn size_of(&self, name: &str) -> Option<usize> {
        let axis = self.axis_names.iter().position(|n| n == name)?;
        Some(self.values.shape()[axis])
    }
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn main() -> extype::Result<()> {
    let image = LabeledTensor::try_new(
        ArrayD::zeros(IxDyn(&[32, 64, 3])),
        names(&["height", "width", "channel"]),
    )?;
    println!("spec: {}", image.spec());
    println!("size of `width`: {:?}", image.size_of("width"));

    println!("\n== Names are checked against the rank, and must be distinct");
    let err = LabeledTensor::try_new(ArrayD::zeros(IxDyn(&[4, 4])), names(&["row"])).unwrap_err();
    println!("error: {err}");
    let err =
        LabeledTensor::try_new(ArrayD::zeros(IxDyn(&[4, 4])), names(&["x", "x"])).unwrap_err();
    println!("error: {err}");

    println!("\n== Static data decides compatibility");
    let transposed = LabeledTensor::try_new(
        ArrayD::zeros(IxDyn(&[32, 64, 3])),
        names(&["width", "height", "channel"]),
    )?;
    println!(
        "same shapes, other names, compatible: {}",
        image.spec().is_compatible_with(&transposed.spec())
    );
    let bigger = LabeledTensor::try_new(
        ArrayD::zeros(IxDyn(&[16, 64, 3])),
        names(&["height", "width", "channel"]),
    )?;
    println!(
        "relaxed with a smaller image: {}",
        image
            .spec()
            .most_specific_compatible(&bigger.spec())
            .expect("same names")
    );

    println!("\n== Loading checks the names too");
    let spec = image.spec();
    let components = image.clone().into_components();
    let mut bad_spec = spec.clone();
    bad_spec.axis_names.pop();
    println!(
        "rebuilt: {}",
        spec.from_components(components.clone())?.spec()
    );
    println!(
        "with two names for rank 3: {}",
        bad_spec.from_components(components).unwrap_err()
    );
    Ok(())
}

// `display` is a flag: it takes no value.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(display = "short")]
pub struct Values {
    values: ArrayD<f32>,
}

fn main() {}

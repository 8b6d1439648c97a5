// A misspelled field attribute: the error names it and lists the valid ones.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shap = "b n")]
    pub values: ArrayD<f32>,
}

fn main() {}

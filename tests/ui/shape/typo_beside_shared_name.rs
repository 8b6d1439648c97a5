// `rows` is shared by `values` and `mask`; `row` on `weights` is a misspelling of it, reported
// with the suggestion, while the used-twice `rows` is fine.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(shape = "rows 3")]
    pub values: ArrayD<f32>,
    #[extype(shape = "rows 3")]
    pub mask: ArrayD<bool>,
    #[extype(shape = "row")]
    pub weights: ArrayD<f32>,
}

fn main() {}

// An extension type must be `Clone`; forgetting `#[derive(Clone)]` is reported at the type's name,
// suggesting the derive (once per generated impl: one bound per item would cost every derive
// compile time, see BENCHMARKS.md "Compile time of the derive").
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Debug, ExtensionType)]
pub struct Masked {
    pub values: ArrayD<f32>,
    pub mask: ArrayD<bool>,
}

fn main() {}

// A misspelt segment name: `*dims` on `values`, `*dim` on `mask`. Each name is used once, so the
// contract would check nothing; one error, at the later pattern, suggests the other name.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Masked {
    #[extype(shape = "*dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dim")]
    pub mask: ArrayD<bool>,
}

fn main() {}

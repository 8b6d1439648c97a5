// Two fields claim the same old name: a stored field of that name could be either.
use extype::ExtensionType;
use extype::ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "ui.Pair", version = 2)]
pub struct Pair {
    #[extype(alias = "data")]
    pub left: ArrayD<f32>,
    #[extype(alias = "data")]
    pub right: ArrayD<f32>,
}

fn main() {}

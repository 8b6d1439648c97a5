// Versions start at 1 (an unversioned type is version 1).
use extype::ExtensionType;
use extype::ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "ui.Zero", version = 0)]
pub struct Zero {
    pub values: ArrayD<f32>,
}

fn main() {}

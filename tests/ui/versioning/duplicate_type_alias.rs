// An old registered name listed twice.
use extype::ExtensionType;
use extype::ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "ui.Wave", version = 2, aliases = ["ui.Signal", "ui.Signal"])]
pub struct Wave {
    pub values: ArrayD<f32>,
}

fn main() {}

// A migration rewrites a stored value of an older version: `from` must be below `version`.
use extype::ExtensionType;
use extype::ndarray::ArrayD;
use extype::versioning::Stored;

fn upgrade(_: &mut Stored) -> extype::Result<()> {
    Ok(())
}

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "ui.Signal", version = 2, migrate(from = 2, with = upgrade))]
pub struct Signal {
    pub values: ArrayD<f32>,
}

fn main() {}

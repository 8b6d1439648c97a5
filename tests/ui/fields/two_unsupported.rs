// Two unsupported field types: one error each, at its own field (both in one run).
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub started: std::time::Instant,
    pub values: ArrayD<f32>,
    pub tags: Option<std::collections::HashMap<String, f32>>,
}

fn main() {}

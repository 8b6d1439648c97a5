// Two unsupported field types: each is reported once, at its own field, and nothing else.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub started: std::time::Instant,
    pub values: ArrayD<f32>,
    pub tags: Option<std::collections::HashMap<String, f32>>,
}

fn main() {}

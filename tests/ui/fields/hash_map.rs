// A `HashMap` field: maps are `BTreeMap<String, _>` (sorted keys, so a spec and a file are the
// same from run to run); the error says so.
use std::collections::HashMap;

use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Features {
    pub values: ArrayD<f32>,
    pub named: HashMap<String, ArrayD<f32>>,
}

fn main() {}

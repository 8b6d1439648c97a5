// `builder` names each setter after its field: a tuple struct's fields have none.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(builder)]
pub struct Pair(ArrayD<f32>, ArrayD<f32>);

fn main() {}

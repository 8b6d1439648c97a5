// `Self` in a field's type: the derive repeats field types in the spec struct, where `Self`
// would name the spec; the error asks for the type's name (recursive fields derive with it).
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Link {
    value: ArrayD<i64>,
    next: Option<Box<Self>>,
}

fn main() {}

// An unsupported field in a tuple struct (`Rc` is no field): one error, at the field's type.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo(pub ArrayD<f32>, pub std::rc::Rc<f32>);

fn main() {}

// `#[extype(skip)]` rebuilds the field with `Default::default()`: its type must be `Default`.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug)]
pub struct Handle(u32);

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    pub values: ArrayD<f32>,
    #[extype(skip)]
    pub handle: Handle,
}

fn main() {}

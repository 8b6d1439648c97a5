// After an attribute error the type is still usable as an extension type (the derive emits a
// stub beside the error), so code using it reports nothing more: one error.
use extype::{ExtensionType, TypeSpec};
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "pkg.Foo", validate)]
pub struct Foo {
    pub values: ArrayD<f32>,
}

fn components(foo: Foo) -> usize {
    let spec: FooSpec = foo.spec();
    spec.component_specs().len() + foo.into_components().len()
}

fn main() {
    let _ = components;
    let _ = Foo::NAME;
}

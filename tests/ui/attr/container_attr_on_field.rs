// `name` is a struct-level attribute; on a field it is misplaced.
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
pub struct Foo {
    #[extype(name = "pkg.Foo")]
    pub values: ArrayD<f32>,
}

fn main() {}

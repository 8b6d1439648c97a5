// `default = f` takes `fn(&Stored) -> extype::Result<FieldType>`: here the function returns
// another type, reported at the path.
use extype::ExtensionType;
use extype::ndarray::ArrayD;
use extype::versioning::Stored;

fn all_valid(_: &Stored) -> extype::Result<ArrayD<f32>> {
    unimplemented!()
}

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "ui.Masked2", version = 2)]
pub struct Masked {
    pub values: ArrayD<f32>,
    #[extype(default = all_valid)]
    pub mask: ArrayD<bool>,
}

fn main() {}

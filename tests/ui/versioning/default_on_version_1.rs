// A default fills a field that files of older versions lack: on a version-1 type (no
// `version = …`) every field is as old as the type, so the default could never apply.
use extype::ExtensionType;
use extype::ndarray::ArrayD;

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "ui.Masked")]
pub struct Masked {
    pub values: ArrayD<f32>,
    #[extype(default)]
    pub mask: ArrayD<bool>,
}

fn main() {}

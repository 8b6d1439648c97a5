use extype::{ExtensionType, Tensor};

#[derive(Clone, Debug, ExtensionType)]
#[extype(name = "ui.Cached", tensor_like = cache)]
pub struct Cached {
    pub values: Tensor,
    #[extype(skip)]
    pub cache: Tensor,
}

fn main() {}

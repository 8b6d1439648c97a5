// Forgetting `#[derive(Clone)]` on a batchable, tensor-like type with a shape contract is still
// one error, at the type's name (the tensor-like methods and the batch impls do not repeat it).
use extype::ExtensionType;
use ndarray::ArrayD;

#[derive(Debug, ExtensionType)]
#[extype(name = "ui.Masked", batchable, tensor_like = values)]
pub struct Masked {
    #[extype(shape = "*dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

fn main() {}

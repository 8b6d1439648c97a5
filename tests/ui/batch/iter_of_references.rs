// An iterator of references is not one the batching adapters take: the error says what they
// take (values or `Result`s of them) and to clone the items.
use extype::Tensor;
use extype::batch::BatchIterExt;

fn main() {
    let items: Vec<Tensor> = Vec::new();
    let _ = items.iter().batched(2);
}

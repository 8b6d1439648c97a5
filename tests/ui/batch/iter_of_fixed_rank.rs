// Items of a fixed-rank array cannot be batched (a batch of rank-1 arrays is rank 2): the error
// says what the adapters take.
use extype::batch::BatchIterExt;
use extype::ndarray::Array1;

fn main() {
    let items = vec![Array1::<f32>::zeros(3)];
    let _ = items.into_iter().batched(2);
}

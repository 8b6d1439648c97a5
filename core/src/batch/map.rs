//! [`map_fn`] and [`map_fn_par`]: apply a function to each item of a batch and stack the results.

use rayon::prelude::*;

use super::field::BatchField;
use super::{stack, unstack};
use crate::error::{BatchError, Result};

fn item_error(index: usize, e: crate::error::Error) -> crate::error::Error {
    BatchError::Item {
        op: "map_fn",
        index,
        source: Box::new(e),
    }
    .into()
}

/// Applies `f` to each item of `batch` and stacks the results into one batch (the output type
/// may differ from the input's). The batch is cloned and unstacked first: for shared tensors
/// ([`Tensor`](crate::Tensor), `ArcArray`) that copies nothing. An error of `f` names the item.
/// An empty batch is an error: the spec of the output is not known (use
/// [`stack_with_spec`](super::stack_with_spec) on the results yourself).
///
/// ```
/// use extype_core::{batch, Tensor};
/// use ndarray::{array, ArrayD};
///
/// let b = Tensor::from(array![[1.0f32, 2.0], [3.0, 4.0]]);
/// // Sum each row into a rank-0 array: the result is a batch of 2 scalars.
/// let sums: ArrayD<f32> = batch::map_fn(&b, |row: Tensor| {
///     let row = row.as_array::<f32, ndarray::IxDyn>()?;
///     Ok(ndarray::arr0(row.sum()).into_dyn())
/// })
/// .unwrap();
/// assert_eq!(sums, array![3.0f32, 7.0].into_dyn());
/// ```
pub fn map_fn<T, U, F>(batch: &T, mut f: F) -> Result<U>
where
    T: BatchField + Clone,
    U: BatchField,
    F: FnMut(T) -> Result<U>,
{
    let items = unstack(batch.clone())?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        out.push(f(item).map_err(|e| item_error(i, e))?);
    }
    stack(&out)
}

/// [`map_fn`] with the items processed in parallel on rayon's thread pool; the results are
/// stacked in item order. The first error by item index is returned.
pub fn map_fn_par<T, U, F>(batch: &T, f: F) -> Result<U>
where
    T: BatchField + Clone,
    U: BatchField,
    F: Fn(T) -> Result<U> + Sync + Send,
{
    let items = unstack(batch.clone())?;
    let out = items
        .into_par_iter()
        .enumerate()
        .map(|(i, item)| f(item).map_err(|e| item_error(i, e)))
        .collect::<Result<Vec<U>>>()?;
    stack(&out)
}

//! [`map_fn`] and [`map_fn_par`]: apply a function to each item of a batch and stack the results.

use rayon::prelude::*;

use std::any::TypeId;

use super::field::BatchField;
use super::{stack, unstack};
use crate::error::{BatchError, Error, Result};
use crate::names::registered_name_of;

/// The error of `f` on item `index` of a batch of `T`s, placed: the op, the type and the item.
#[cold]
#[inline(never)]
fn item_error<T: 'static>(op: &'static str, index: usize, e: Error) -> Error {
    BatchError::Map {
        op,
        type_name: type_label(registered_name_of(
            TypeId::of::<T>(),
            std::any::type_name::<T>(),
        )),
        index,
        source: Box::new(e),
    }
    .into()
}

/// A registered name as it is; a Rust type name without its module paths
/// (`extype_core::tensor::Tensor` → `Tensor`, `ndarray::ArrayBase<ndarray::OwnedRepr<f32>, …>`
/// → `ArrayBase<OwnedRepr<f32>, …>`).
fn type_label(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    // Where the path segment being read starts in `out`.
    let mut segment = 0;
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.truncate(segment);
        } else {
            out.push(c);
            if !(c.is_alphanumeric() || c == '_') {
                segment = out.len();
            }
        }
    }
    out
}

/// Applies `f` to each item of `batch` and stacks the results into one batch (the output type
/// may differ from the input's). The batch is cloned and unstacked first: for shared tensors
/// ([`Tensor`](crate::Tensor), `ArcArray`) that copies nothing. An error of `f` is returned
/// placed: `map_fn over pkg.Masked, item 3: …` (the items' type, its registered name or its Rust
/// name, and the item's index).
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
        match f(item) {
            Ok(u) => out.push(u),
            Err(e) => return Err(item_error::<T>("map_fn", i, e)),
        }
    }
    stack(&out)
}

/// [`map_fn`] with the items processed in parallel on rayon's thread pool; the results are
/// stacked in item order. The first error by item index is returned, placed as [`map_fn`]'s
/// (`map_fn_par over pkg.Masked, item 3: …`).
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
        .map(|(i, item)| f(item).map_err(|e| item_error::<T>("map_fn_par", i, e)))
        .collect::<Result<Vec<U>>>()?;
    stack(&out)
}

#[cfg(test)]
mod tests {
    use super::type_label;

    #[test]
    fn type_labels_drop_module_paths() {
        assert_eq!(type_label("pkg.Masked"), "pkg.Masked");
        assert_eq!(type_label("extype_core::tensor::Tensor"), "Tensor");
        assert_eq!(
            type_label(
                "ndarray::ArrayBase<ndarray::data_repr::OwnedRepr<f32>, \
                 ndarray::dimension::dim::Dim<ndarray::IxDynImpl>>"
            ),
            "ArrayBase<OwnedRepr<f32>, Dim<IxDynImpl>>"
        );
        assert_eq!(type_label("(a::B, [c::D; 2])"), "(B, [D; 2])");
    }
}

//! Iterator adapters: [`BatchIterExt::batched`] groups values into batches,
//! [`BatchIterExt::unbatched`] splits batches into values. Both are lazy: an item that does not
//! fit is reported when its batch is reached, with the item's index in the input. Both take
//! iterators of values or of `Result`s of values ([`BatchItem`]), so they compose
//! (`items.batched(32).unbatched()`): the first `Err` of the input ends the stream and is
//! returned as it is.

use std::collections::VecDeque;

use super::field::BatchField;
use super::{stack, unstack};
use crate::error::{BatchError, Error, Result};

/// An item the batching adapters take: a batchable value (`T`), or a `Result` of one (what
/// another adapter, a file reader or a fallible `map` yields), whose error ends the stream.
///
/// ```compile_fail,E0277
/// use extype_core::{batch::BatchIterExt, Tensor};
/// let items: Vec<Tensor> = Vec::new();
/// let _ = items.iter().batched(2); // references: use `.iter().cloned()` or `.into_iter()`
/// ```
#[diagnostic::on_unimplemented(
    message = "the batching adapters take iterators of batchable values or of `Result`s of them, not of `{Self}`",
    label = "not a batchable value nor a `Result` of one",
    note = "`batched` and `unbatched` take items of a type that implements `BatchField` (`Tensor`, `ArrayD<T>`, `ArcArray<T, IxDyn>`, a type with `#[extype(batchable)]`), or `extype::Result<T>` of one (the first error ends the stream)",
    note = "for an iterator of references, clone the items first (`.cloned()`)"
)]
pub trait BatchItem {
    /// The batchable value.
    type Value: BatchField;

    /// The value, or the error that ends the stream.
    fn into_value(self) -> Result<Self::Value>;
}

impl<T: BatchField> BatchItem for T {
    type Value = T;

    #[inline]
    fn into_value(self) -> Result<T> {
        Ok(self)
    }
}

impl<T: BatchField> BatchItem for Result<T> {
    type Value = T;

    #[inline]
    fn into_value(self) -> Result<T> {
        self
    }
}

/// Batching adapters on every iterator of batchable values, or of `Result`s of them
/// ([`BatchItem`]).
///
/// ```
/// use extype_core::batch::BatchIterExt;
/// use extype_core::Tensor;
/// use ndarray::array;
///
/// let items = (0..5).map(|i| Tensor::from(array![i as f32, 1.0]));
/// let batches: Vec<Tensor> = items.clone().batched(2).collect::<Result<_, _>>().unwrap();
/// assert_eq!(batches.len(), 3); // 2 + 2 + 1: the short last batch is kept
/// assert_eq!(batches[2].shape(), &[1, 2]);
///
/// let back: Vec<Tensor> = batches.into_iter().unbatched().collect::<Result<_, _>>().unwrap();
/// assert_eq!(back.len(), 5);
///
/// // The adapters compose: `batched` yields `Result`s, which `unbatched` takes.
/// let again: Vec<Tensor> = items.batched(2).unbatched().collect::<Result<_, _>>().unwrap();
/// assert_eq!(again, back);
/// ```
pub trait BatchIterExt: Iterator + Sized {
    /// Groups the items into batches of `size` (stacked with [`stack`]); the last batch may be
    /// shorter (see [`Batched::drop_remainder`]). Yields an error, with the index of the item
    /// in this iterator, for an item that does not stack with the first of its batch; `size`
    /// 0 yields one error. An `Err` item of the input is yielded as it is and ends the stream
    /// (the items of its unfinished batch are dropped).
    fn batched(self, size: usize) -> Batched<Self>
    where
        Self::Item: BatchItem,
    {
        Batched {
            inner: self,
            size,
            keep_remainder: true,
            next_index: 0,
            done: false,
        }
    }

    /// Splits each batch into its items (with [`unstack`]). Yields an error, with the index
    /// of the batch in this iterator, for a batch that does not split. An `Err` item of the
    /// input is yielded as it is and ends the stream.
    fn unbatched(self) -> Unbatched<Self>
    where
        Self::Item: BatchItem,
    {
        Unbatched {
            inner: self,
            pending: VecDeque::new(),
            next_index: 0,
            done: false,
        }
    }
}

impl<I: Iterator> BatchIterExt for I {}

/// The iterator of [`BatchIterExt::batched`].
#[derive(Debug, Clone)]
pub struct Batched<I> {
    inner: I,
    size: usize,
    keep_remainder: bool,
    next_index: usize,
    done: bool,
}

impl<I> Batched<I> {
    /// Drops a last batch shorter than the batch size instead of yielding it (so every batch has
    /// the same size, as `tf.data`'s `drop_remainder=True`).
    pub fn drop_remainder(mut self) -> Self {
        self.keep_remainder = false;
        self
    }
}

/// The item index in an error of [`stack`] (items that differ from item 0), if it has one.
pub(crate) fn item_index(e: &Error) -> Option<usize> {
    match e {
        Error::Batch(b) => match &**b {
            BatchError::Static { index, .. }
            | BatchError::Component { index, .. }
            | BatchError::Structure { index, .. }
            | BatchError::Item { index, .. } => Some(*index),
            _ => None,
        },
        _ => None,
    }
}

impl<I> Iterator for Batched<I>
where
    I: Iterator,
    I::Item: BatchItem,
{
    type Item = Result<<I::Item as BatchItem>::Value>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.size == 0 {
            self.done = true;
            return Some(Err(BatchError::Argument {
                op: "batched",
                expected: "a batch size of at least 1".into(),
                found: "0".into(),
            }
            .into()));
        }
        let mut items = Vec::new();
        for item in self.inner.by_ref().take(self.size) {
            match item.into_value() {
                Ok(value) => items.push(value),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        let start = self.next_index;
        self.next_index += items.len();
        if items.is_empty() || (items.len() < self.size && !self.keep_remainder) {
            self.done = true;
            return None;
        }
        Some(stack(&items).map_err(|e| {
            BatchError::Item {
                op: "batched",
                index: start + item_index(&e).unwrap_or(0),
                source: Box::new(e),
            }
            .into()
        }))
    }
}

/// The iterator of [`BatchIterExt::unbatched`].
pub struct Unbatched<I: Iterator<Item: BatchItem>> {
    inner: I,
    pending: VecDeque<<I::Item as BatchItem>::Value>,
    next_index: usize,
    done: bool,
}

// Written out: a derive would not ask the values (a projection of a projection) for `Debug`.
impl<I> std::fmt::Debug for Unbatched<I>
where
    I: Iterator<Item: BatchItem> + std::fmt::Debug,
    <I::Item as BatchItem>::Value: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unbatched")
            .field("inner", &self.inner)
            .field("pending", &self.pending)
            .field("next_index", &self.next_index)
            .field("done", &self.done)
            .finish()
    }
}

impl<I> Iterator for Unbatched<I>
where
    I: Iterator<Item: BatchItem>,
{
    type Item = Result<<I::Item as BatchItem>::Value>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(Ok(item));
            }
            if self.done {
                return None;
            }
            let batch = match self.inner.next()?.into_value() {
                Ok(batch) => batch,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            let index = self.next_index;
            self.next_index += 1;
            match unstack(batch) {
                Ok(items) => self.pending.extend(items),
                Err(e) => {
                    return Some(Err(BatchError::Item {
                        op: "unbatched",
                        index,
                        source: Box::new(e),
                    }
                    .into()));
                }
            }
        }
    }
}

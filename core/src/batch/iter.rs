//! Iterator adapters: [`BatchIterExt::batched`] groups values into batches,
//! [`BatchIterExt::unbatched`] splits batches into values. Both are lazy: an item that does not
//! fit is reported when its batch is reached, with the item's index in the input.

use std::collections::VecDeque;

use super::field::BatchField;
use super::{stack, unstack};
use crate::error::{BatchError, Error, Result};

/// Batching adapters on every iterator of batchable values.
///
/// ```
/// use extype_core::batch::BatchIterExt;
/// use extype_core::Tensor;
/// use ndarray::array;
///
/// let items = (0..5).map(|i| Tensor::from(array![i as f32, 1.0]));
/// let batches: Vec<Tensor> = items.batched(2).collect::<Result<_, _>>().unwrap();
/// assert_eq!(batches.len(), 3); // 2 + 2 + 1: the short last batch is kept
/// assert_eq!(batches[2].shape(), &[1, 2]);
///
/// let items: Vec<Tensor> = batches.into_iter().unbatched().collect::<Result<_, _>>().unwrap();
/// assert_eq!(items.len(), 5);
/// ```
pub trait BatchIterExt: Iterator + Sized {
    /// Groups the items into batches of `size` (stacked with [`stack`]); the last batch may be
    /// shorter (see [`Batched::drop_remainder`]). Yields an error, with the index of the item
    /// in this iterator, for an item that does not stack with the first of its batch; `size`
    /// 0 yields one error.
    fn batched(self, size: usize) -> Batched<Self>
    where
        Self::Item: BatchField,
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
    /// of the batch in this iterator, for a batch that does not split.
    fn unbatched(self) -> Unbatched<Self>
    where
        Self::Item: BatchField,
    {
        Unbatched {
            inner: self,
            pending: VecDeque::new(),
            next_index: 0,
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
    I::Item: BatchField,
{
    type Item = Result<I::Item>;

    fn next(&mut self) -> Option<Result<I::Item>> {
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
        let items: Vec<I::Item> = self.inner.by_ref().take(self.size).collect();
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
#[derive(Debug)]
pub struct Unbatched<I: Iterator> {
    inner: I,
    pending: VecDeque<I::Item>,
    next_index: usize,
}

impl<I> Iterator for Unbatched<I>
where
    I: Iterator,
    I::Item: BatchField,
{
    type Item = Result<I::Item>;

    fn next(&mut self) -> Option<Result<I::Item>> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(Ok(item));
            }
            let batch = self.inner.next()?;
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

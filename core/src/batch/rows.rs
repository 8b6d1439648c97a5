//! Tensor rows copied into batch buffers: [`RowBuffer`], the one place where stacking and
//! concatenation copy elements; the row building blocks of custom encoders ([`concat_rows`],
//! [`concat_rows_counted`], [`slice_rows`]); and the [`FieldStacker`]s through which a derived
//! struct's stacking walks its items a chunk at a time, each chunk feeding every field in turn.
//! Measured on 1024 small masked tensors (`benches/batching.rs`): a whole walk per field
//! re-reads every item after the other fields' copies, and one indirect call per item and field
//! costs as much again; chunks of 16 keep the items in cache and the per-item loop monomorphic.

use std::fmt::Display;

use ndarray::{ArrayBase, ArrayD, Axis, Data, IxDyn};

use crate::dtype::DType;
use crate::error::{BatchError, Error, Result};
use crate::field::FieldPath;
use crate::tensor::{Element, Tensor, TensorSpec, each_array};

/// How a [`RowBuffer`] checks each item's shape against its rows.
#[derive(Clone, Copy)]
pub(super) enum RowMode {
    /// Each item is one row: its whole shape is the row shape (stacking).
    One,
    /// Each item holds rows on its leading axis: its other axes are the row shape
    /// (concatenation).
    Leading,
}

/// A batch buffer of shape `[rows, ..row_shape]` filled item by item: one allocation, each
/// element copied once (a `memcpy` for standard-layout items), each item checked while it is
/// copied.
pub(super) struct RowBuffer<T> {
    data: Vec<T>,
    rows: usize,
    /// The rows copied in by [`push_general`](Self::push_general) (the only way in for rows of
    /// zero elements, which the element count cannot count).
    filled: usize,
    row_shape: Vec<usize>,
    per_row: usize,
    /// The rank every item must have.
    rank: usize,
    mode: RowMode,
}

impl<T: Element> RowBuffer<T> {
    /// An empty buffer for `rows` rows of shape `row_shape`; an error when their element count
    /// overflows.
    pub(super) fn new(
        row_shape: &[usize],
        rows: usize,
        mode: RowMode,
        what: &dyn Display,
    ) -> Result<RowBuffer<T>> {
        let per_row: usize = row_shape.iter().product();
        let too_big = || -> Error {
            BatchError::Argument {
                op: match mode {
                    RowMode::One => "stack",
                    RowMode::Leading => "concat_rows",
                },
                expected: format!("a batch of {what} that fits in memory"),
                found: format!("{rows} rows of shape {row_shape:?}"),
            }
            .into()
        };
        let mut data = Vec::new();
        match per_row.checked_mul(rows) {
            Some(total) => data.try_reserve_exact(total).map_err(|_| too_big())?,
            None => return Err(too_big()),
        }
        Ok(RowBuffer {
            data,
            rows,
            filled: 0,
            row_shape: row_shape.to_vec(),
            per_row,
            rank: row_shape.len() + matches!(mode, RowMode::Leading) as usize,
            mode,
        })
    }

    /// Copies `array`'s elements in; `false` (nothing copied) when its shape does not fit.
    #[inline]
    pub(super) fn push<S: Data<Elem = T>>(&mut self, array: &ArrayBase<S, IxDyn>) -> bool {
        match self.contiguous_row(array) {
            Some(slice) => {
                self.data.extend_from_slice(slice);
                true
            }
            None => self.push_general(array),
        }
    }

    /// The elements of `array` when it is one contiguous row of rank 0 or 1 that fits (the
    /// common case), read off its one length and stride: ndarray's general `as_slice` and shape
    /// comparison walk dynamic-rank dimensions one by one, which costs as much as copying a
    /// small item.
    #[inline]
    fn contiguous_row<'s, S: Data<Elem = T>>(
        &self,
        array: &'s ArrayBase<S, IxDyn>,
    ) -> Option<&'s [T]> {
        let shape = array.shape();
        if self.rank > 1 || self.per_row == 0 || shape.len() != self.rank {
            return None;
        }
        let (len, contiguous) = match (shape.first(), array.strides().first()) {
            (Some(&len), Some(&stride)) => (len, stride == 1 || len <= 1),
            _ => (1, true),
        };
        if !contiguous || (matches!(self.mode, RowMode::One) && len != self.per_row) {
            return None;
        }
        // SAFETY: an array of rank 0, or of rank 1 whose stride is 1 (or whose length is at
        // most 1), holds its `len` elements contiguously from `as_ptr()`, borrowed for `'s`.
        Some(unsafe { std::slice::from_raw_parts(array.as_ptr(), len) })
    }

    /// [`push`](Self::push) for any other item: checked against the whole row shape, copied
    /// element by element when it is not contiguous.
    #[inline(never)]
    fn push_general<S: Data<Elem = T>>(&mut self, array: &ArrayBase<S, IxDyn>) -> bool {
        let shape = array.shape();
        let fits = shape.len() == self.rank
            && match self.mode {
                RowMode::One => shape == self.row_shape.as_slice(),
                RowMode::Leading => shape[1..] == *self.row_shape,
            };
        if fits {
            match array.as_slice() {
                Some(slice) => self.data.extend_from_slice(slice),
                None => self.data.extend(array.iter().copied()),
            }
            self.filled += match self.mode {
                RowMode::One => 1,
                RowMode::Leading => shape[0],
            };
        }
        fits
    }

    /// The batch; an error when the items held another number of rows than the buffer was
    /// made for.
    pub(super) fn finish(self, what: &dyn Display) -> Result<ArrayD<T>> {
        let mut shape = Vec::with_capacity(self.row_shape.len() + 1);
        shape.push(self.rows);
        shape.extend_from_slice(&self.row_shape);
        let complete = match self.per_row {
            0 => self.filled == self.rows,
            per_row => self.data.len() == self.rows * per_row,
        };
        if !complete {
            return Err(BatchError::Argument {
                op: self.op(),
                expected: format!("items holding {} rows for {what}", self.rows),
                found: format!("{} rows", self.filled_rows()),
            }
            .into());
        }
        // Every item fit and the rows add up: the data has `rows * prod(row_shape)` elements
        // in standard order; the check only turns a broken invariant into an error.
        let op = self.op();
        ArrayD::from_shape_vec(IxDyn(&shape), self.data).map_err(|e| {
            BatchError::Argument {
                op,
                expected: format!("a batch of shape {shape:?} for {what}"),
                found: e.to_string(),
            }
            .into()
        })
    }

    fn filled_rows(&self) -> usize {
        match self.per_row {
            0 => self.filled,
            per_row => self.data.len() / per_row,
        }
    }

    fn op(&self) -> &'static str {
        match self.mode {
            RowMode::One => "stack",
            RowMode::Leading => "concat_rows",
        }
    }

    /// Copies tensor `t` in: `false` for another dtype or a shape that does not fit. External
    /// tensors are read through their view, in place.
    #[inline(always)]
    pub(super) fn push_tensor(&mut self, t: &Tensor) -> bool {
        match T::tensor_array(t) {
            Some(a) => self.push(a),
            None => match t {
                Tensor::External(e) => T::from_view(e.view()).is_some_and(|v| self.push(&v)),
                _ => false,
            },
        }
    }
}

/// Runs `$body` with `$t` the element type of tensor `$first`.
macro_rules! with_tensor_element {
    ($first:expr, $t:ident => $body:expr) => {{
        let dtype: DType = $first.dtype();
        crate::with_element!(dtype, $t => $body)
    }};
}

/// Tensors `items` (item 0's dtype) copied into one buffer of `rows` rows; an error is
/// `mismatch(index)` for the first item that does not fit.
pub(super) fn tensor_rows(
    items: &[&Tensor],
    rows: usize,
    mode: RowMode,
    what: &dyn Display,
    mismatch: &dyn Fn(usize) -> Error,
) -> Result<Tensor> {
    let first = items[0];
    let row_shape = match mode {
        RowMode::One => first.shape(),
        RowMode::Leading => &first.shape()[1..],
    };
    with_tensor_element!(first, T => {
        let mut buffer = RowBuffer::<T>::new(row_shape, rows, mode, what)?;
        for (i, t) in items.iter().enumerate() {
            if !buffer.push_tensor(t) {
                return Err(mismatch(i));
            }
        }
        Ok(T::into_tensor(buffer.finish(what)?.into_shared()))
    })
}

/// One field of a batch being stacked a chunk of items at a time, behind untyped pointers: what
/// [`BatchField::stacker`](super::field::BatchField::stacker) gives the stacking of derived
/// structs. Field types without a
/// buffer of their own collect their items and stack them at the end.
#[doc(hidden)]
pub trait FieldStacker<'a> {
    /// Takes the fields at `offset` of the next `items` (pointers to the structs holding
    /// them); gives how many were taken: `items.len()`, or the position of the first that does
    /// not fit item 0 (nothing from it on is taken).
    ///
    /// # Safety
    /// Each of `items`, moved by `offset`, points to a live value of the field type, borrowed
    /// for `'a`.
    unsafe fn push(&mut self, items: &[*const u8], offset: usize) -> usize;

    /// The error of item `index`, which [`push`](Self::push) refused: names `path`, the item
    /// and how it differs from item 0.
    ///
    /// # Safety
    /// As for [`push`](Self::push).
    unsafe fn mismatch(&self, index: usize, item: *const u8, path: &FieldPath<'_>) -> Error;

    /// Writes the batch of the items taken to `out`.
    ///
    /// # Safety
    /// `out` is valid for writing one value of the field type (written on `Ok` only).
    unsafe fn finish(self: Box<Self>, path: &FieldPath<'_>, out: *mut u8) -> Result<()>;
}

// Row building blocks of custom encoders

/// The tensors `items` joined along their leading axis (one dtype, equal trailing axes): one
/// allocation, each item's elements copied once. A building block for custom
/// [`BatchEncoder`](crate::batch::BatchEncoder)s (a ragged batch's flat values); an error names
/// `what` and the item that does not fit item 0.
pub fn concat_rows(items: &[&Tensor], what: &str) -> Result<Tensor> {
    let mut rows = 0usize;
    for t in items {
        match t.shape().first() {
            Some(&r) => match rows.checked_add(r) {
                Some(sum) => rows = sum,
                None => {
                    return Err(BatchError::Argument {
                        op: "concat_rows",
                        expected: format!("tensors for {what} whose rows can be counted"),
                        found: format!("more than {} rows in all", usize::MAX),
                    }
                    .into());
                }
            },
            None => {
                return Err(BatchError::NoBatchAxis {
                    op: "concat_rows",
                    path: what.to_string(),
                    found: "shape [] (rank 0)".into(),
                }
                .into());
            }
        }
    }
    concat_rows_counted(items, rows, what)
}

/// [`concat_rows`] when the caller knows how many rows the items hold in all (a ragged encoder
/// knows it from its row splits): the items are walked once, not twice. An error names `what`
/// when the items hold another number of rows, or the item that does not fit item 0.
pub fn concat_rows_counted(items: &[&Tensor], rows: usize, what: &str) -> Result<Tensor> {
    if items.is_empty() {
        return Err(BatchError::Argument {
            op: "concat_rows",
            expected: format!("at least one tensor for {what}"),
            found: "none".into(),
        }
        .into());
    }
    let mismatch = |i: usize| -> Error {
        let found = items[i];
        if found.ndim() == 0 {
            return BatchError::NoBatchAxis {
                op: "concat_rows",
                path: what.to_string(),
                found: "shape [] (rank 0)".into(),
            }
            .into();
        }
        BatchError::Component {
            op: "concat_rows",
            path: what.to_string(),
            index: i,
            first: TensorSpec::from_tensor(items[0]).to_string(),
            found: TensorSpec::from_tensor(found).to_string(),
        }
        .into()
    };
    tensor_rows(items, rows, RowMode::Leading, &what, &mismatch)
}

/// Rows `start..end` of `tensor`'s leading axis, sharing its buffer (no copy, O(1)).
pub fn slice_rows(tensor: &Tensor, start: usize, end: usize) -> Result<Tensor> {
    let rows = tensor.shape().first().copied().unwrap_or(0);
    if tensor.ndim() == 0 || start > end || end > rows {
        return Err(BatchError::Argument {
            op: "slice_rows",
            expected: format!("rows within 0..{rows} of a tensor of rank at least 1"),
            found: format!(
                "rows {start}..{end} of a tensor of shape {:?}",
                tensor.shape()
            ),
        }
        .into());
    }
    if let Tensor::External(e) = tensor {
        return Ok(Tensor::External(e.rows(start, end)));
    }
    Ok(each_array!(tensor, a => {
        let mut a = a.clone();
        a.slice_axis_inplace(Axis(0), ndarray::Slice::from(start..end));
        Element::into_tensor(a)
    }))
}

/// The stacker of a dynamic-rank array field (`ArrayD<T>`, `ArcArray<T, IxDyn>`): items of
/// storage `S` copied into a buffer, turned into `F` at the end.
pub(super) struct ArrayStacker<'a, T, S: Data<Elem = T>, F> {
    buffer: RowBuffer<T>,
    first: &'a ArrayBase<S, IxDyn>,
    into_field: fn(ArrayD<T>) -> F,
}

impl<'a, T: Element, S: Data<Elem = T>, F: 'static> ArrayStacker<'a, T, S, F> {
    /// The stacker of `n` items like `first`, whose batch becomes a field by `into_field`.
    pub(super) fn boxed(
        first: &'a ArrayBase<S, IxDyn>,
        n: usize,
        what: &dyn Display,
        into_field: fn(ArrayD<T>) -> F,
    ) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
        Ok(Box::new(ArrayStacker {
            buffer: RowBuffer::new(first.shape(), n, RowMode::One, what)?,
            first,
            into_field,
        }))
    }
}

impl<'a, T: Element, S: Data<Elem = T>, F> FieldStacker<'a> for ArrayStacker<'a, T, S, F> {
    unsafe fn push(&mut self, items: &[*const u8], offset: usize) -> usize {
        for (k, &item) in items.iter().enumerate() {
            // SAFETY: the caller's contract: the field type is `ArrayBase<S, IxDyn>`.
            let array = unsafe { &*item.add(offset).cast::<ArrayBase<S, IxDyn>>() };
            if !self.buffer.push(array) {
                return k;
            }
        }
        items.len()
    }

    unsafe fn mismatch(&self, index: usize, item: *const u8, path: &FieldPath<'_>) -> Error {
        // SAFETY: as in `push`.
        array_mismatch(path, index, self.first, unsafe {
            &*item.cast::<ArrayBase<S, IxDyn>>()
        })
    }

    unsafe fn finish(self: Box<Self>, path: &FieldPath<'_>, out: *mut u8) -> Result<()> {
        let batch = (self.into_field)(self.buffer.finish(&Subject(path))?);
        // SAFETY: the caller's contract: the field type is `F`.
        unsafe { out.cast::<F>().write(batch) };
        Ok(())
    }
}

/// The stacker of a [`Tensor`] field: items of item 0's dtype copied into a buffer.
pub(super) struct TensorStacker<'a, T> {
    buffer: RowBuffer<T>,
    first: &'a Tensor,
}

/// The stacker of `n` tensors like `first`: a [`TensorStacker`] of `first`'s element type.
pub(super) fn tensor_stacker<'a>(
    first: &'a Tensor,
    n: usize,
    what: &dyn Display,
) -> Result<Box<dyn FieldStacker<'a> + 'a>> {
    with_tensor_element!(first, T => Ok(Box::new(TensorStacker::<T> {
        buffer: RowBuffer::new(first.shape(), n, RowMode::One, what)?,
        first,
    })))
}

impl<'a, T: Element> FieldStacker<'a> for TensorStacker<'a, T> {
    unsafe fn push(&mut self, items: &[*const u8], offset: usize) -> usize {
        for (k, &item) in items.iter().enumerate() {
            // SAFETY: the caller's contract: the field type is `Tensor`.
            if !self
                .buffer
                // SAFETY: the caller's contract: the field type is `Tensor`, live in every item at `offset`.
                .push_tensor(unsafe { &*item.add(offset).cast::<Tensor>() })
            {
                return k;
            }
        }
        items.len()
    }

    unsafe fn mismatch(&self, index: usize, item: *const u8, path: &FieldPath<'_>) -> Error {
        // SAFETY: as in `push`.
        component_mismatch(path, index, self.first, unsafe { &*item.cast::<Tensor>() })
    }

    unsafe fn finish(self: Box<Self>, path: &FieldPath<'_>, out: *mut u8) -> Result<()> {
        let batch = T::into_tensor(self.buffer.finish(&Subject(path))?.into_shared());
        // SAFETY: the caller's contract: the field type is `Tensor`.
        unsafe { out.cast::<Tensor>().write(batch) };
        Ok(())
    }
}

/// The error of an array item whose shape differs from item 0's.
#[cold]
#[inline(never)]
pub(super) fn array_mismatch<T: Element, S: Data<Elem = T>, R: Data<Elem = T>>(
    path: &FieldPath<'_>,
    index: usize,
    first: &ArrayBase<S, IxDyn>,
    found: &ArrayBase<R, IxDyn>,
) -> Error {
    use crate::tensor::TensorSpec;
    BatchError::Component {
        op: "stack",
        path: path.to_string(),
        index,
        first: TensorSpec::from_shape_dtype(first.shape(), T::DTYPE).to_string(),
        found: TensorSpec::from_shape_dtype(found.shape(), T::DTYPE).to_string(),
    }
    .into()
}

/// What a batch error is about: "the value" at the root, else "field `<path>`".
pub(super) struct Subject<'p>(pub(super) &'p FieldPath<'p>);

impl std::fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            FieldPath::Root => f.write_str("the value"),
            path => write!(f, "field {path}"),
        }
    }
}

#[cold]
#[inline(never)]
pub(super) fn component_mismatch(
    path: &FieldPath<'_>,
    index: usize,
    first: &Tensor,
    found: &Tensor,
) -> Error {
    BatchError::Component {
        op: "stack",
        path: path.to_string(),
        index,
        first: TensorSpec::from_tensor(first).to_string(),
        found: TensorSpec::from_tensor(found).to_string(),
    }
    .into()
}

#[cfg(test)]
pub(super) mod tests {
    use std::sync::Arc;

    use ndarray::{ArrayD, Axis, IxDyn, Slice};
    use proptest::prelude::*;

    use super::*;

    /// An item of `shape` holding `seed..`, laid out standard, reversed on its last axis
    /// (negative stride) or as every other element of a wider array (stride 2).
    pub(in crate::batch) fn item(shape: &[usize], seed: i64, layout: u8) -> ArrayD<i64> {
        let len: usize = shape.iter().product();
        let standard =
            ArrayD::from_shape_vec(IxDyn(shape), (seed..seed + len as i64).collect()).unwrap();
        let last = shape.len().checked_sub(1);
        match (layout % 3, last) {
            (1, Some(axis)) => {
                let mut a = standard;
                a.invert_axis(Axis(axis));
                a
            }
            (2, Some(axis)) => {
                let mut wide = shape.to_vec();
                wide[axis] *= 2;
                let big = ArrayD::from_shape_fn(IxDyn(&wide), |ix| {
                    let mut ix = ndarray::Dimension::slice(&ix).to_vec();
                    ix[axis] /= 2;
                    standard[IxDyn(&ix)]
                });
                let mut a = big;
                a.slice_axis_inplace(Axis(axis), Slice::new(0, None, 2));
                a
            }
            _ => standard,
        }
    }

    pub(in crate::batch) fn reference(items: &[ArrayD<i64>]) -> ArrayD<i64> {
        let views: Vec<_> = items.iter().map(|a| a.view()).collect();
        ndarray::stack(Axis(0), &views).unwrap()
    }

    /// `items` as external tensors over one buffer of their bytes.
    pub(in crate::batch) fn external(items: &[ArrayD<i64>]) -> Vec<Tensor> {
        let total: usize = items.iter().map(|a| a.len() * 8).sum();
        // Reserved in full up front, so the buffer never moves: offsets from an 8-aligned
        // start stay aligned for i64.
        let mut bytes = Vec::with_capacity(total + 8);
        let misaligned = bytes.as_ptr() as usize % 8;
        bytes.resize((8 - misaligned) % 8, 0u8);
        let mut offsets = Vec::new();
        for a in items {
            offsets.push(bytes.len());
            bytes.extend(a.iter().flat_map(|x| x.to_le_bytes()));
        }
        let owner: Arc<dyn crate::tensor::ExternalBytes> = Arc::new(bytes);
        items
            .iter()
            .zip(offsets)
            .map(|(a, off)| {
                Tensor::from_external(owner.clone(), off, DType::I64, a.shape()).unwrap()
            })
            .collect()
    }

    pub(in crate::batch) fn shapes() -> impl Strategy<Value = (Vec<usize>, usize, Vec<u8>)> {
        (prop::collection::vec(0usize..4, 0..4), 1usize..5)
            .prop_flat_map(|(shape, n)| (Just(shape), Just(n), prop::collection::vec(0u8..3, n)))
    }

    proptest! {
        /// `concat_rows` joins leading axes as ndarray's `concatenate` does; the counted form
        /// agrees given the right count and refuses any other.
        #[test]
        fn concat_rows_matches_ndarray_concatenate(
            (shape, n, layouts) in shapes(),
            rows in prop::collection::vec(0usize..4, 1..5),
        ) {
            let row_shape = &shape[..shape.len().min(2)];
            let items: Vec<ArrayD<i64>> = rows
                .iter()
                .enumerate()
                .map(|(i, &r)| {
                    let mut s = vec![r];
                    s.extend_from_slice(row_shape);
                    item(&s, 10 * i as i64, layouts[i % n])
                })
                .collect();
            let views: Vec<_> = items.iter().map(|a| a.view()).collect();
            let expected = Tensor::from(ndarray::concatenate(Axis(0), &views).unwrap());
            let total: usize = rows.iter().sum();
            for tensors in [items.iter().map(|a| Tensor::from(a.clone())).collect::<Vec<_>>(), external(&items)] {
                let refs: Vec<&Tensor> = tensors.iter().collect();
                prop_assert_eq!(&concat_rows(&refs, "values").unwrap(), &expected);
                prop_assert_eq!(&concat_rows_counted(&refs, total, "values").unwrap(), &expected);
                let wrong = concat_rows_counted(&refs, total + 1, "values").unwrap_err().to_string();
                prop_assert!(wrong.contains(&format!("items holding {} rows for values", total + 1)), "{}", wrong);
            }
        }
    }

    #[test]
    fn zero_size_rows_are_counted() {
        let items = [
            Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[2, 0]))),
            Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[3, 0]))),
        ];
        let refs: Vec<&Tensor> = items.iter().collect();
        assert_eq!(
            concat_rows_counted(&refs, 5, "values").unwrap().shape(),
            &[5, 0]
        );
        let err = concat_rows_counted(&refs, 4, "values")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("4 rows") && err.contains("found 5 rows") || err.contains("5 rows"),
            "{err}"
        );
        let err = concat_rows(&[&Tensor::from(ndarray::arr0(1.0f32).into_dyn())], "values")
            .unwrap_err()
            .to_string();
        assert!(err.contains("rank 0"), "{err}");
    }

    #[test]
    fn rows_past_usize_are_an_error() {
        // Zero-size arrays may have up to `isize::MAX` rows each.
        let huge = Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[isize::MAX as usize, 0])));
        let err = concat_rows(&[&huge, &huge, &huge], "values")
            .unwrap_err()
            .to_string();
        assert!(err.contains("rows can be counted"), "{err}");
    }

    #[test]
    fn an_impossible_size_is_an_error() {
        let t = Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[1])));
        let err = concat_rows_counted(&[&t], usize::MAX, "values")
            .unwrap_err()
            .to_string();
        assert!(err.contains("fits in memory"), "{err}");
    }
}

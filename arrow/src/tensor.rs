//! One tensor with a leading batch axis ↔ one Arrow column: the leaves of every conversion.
//!
//! A tensor of shape `[n]` is a plain Arrow array of `n` elements; a tensor of shape
//! `[n, d1, …, dk]` is an `arrow.fixed_shape_tensor` column: a `FixedSizeList` of
//! `d1 × … × dk` elements per row, with the extension metadata `{"shape":[d1,…,dk]}`.
//!
//! Copies: a tensor in standard (row-major, contiguous) layout is exported without copying its
//! elements: the Arrow buffer points into the tensor's memory and keeps the tensor alive. Other
//! layouts are copied once into row-major order. Import views an aligned Arrow buffer in place
//! (an extype external tensor that keeps the buffer alive). `bool` is always copied, both ways:
//! Arrow packs booleans as bits, extype stores one byte per `bool`. A permuted
//! `arrow.fixed_shape_tensor` (a `permutation` other than the identity) is copied once into
//! row-major order on import.

use std::panic::AssertUnwindSafe;
use std::ptr::NonNull;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, FixedSizeListArray, Int32Array, ListArray, StructArray,
    make_array,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, Fields};
use extype_core::ndarray::{ArrayD, IxDyn};
use extype_core::{DType, ExternalBytes, Tensor, TensorView};

use crate::error::{Error, Result};
use crate::metadata::{
    EXTENSION_METADATA, EXTENSION_NAME, FIXED_SHAPE_TENSOR, FixedShapeTensor, VALIDITY,
    VARIABLE_SHAPE_TENSOR,
};

/// The Arrow type of elements of `dtype`.
pub fn arrow_type(dtype: DType) -> DataType {
    match dtype {
        DType::Bool => DataType::Boolean,
        DType::I8 => DataType::Int8,
        DType::I16 => DataType::Int16,
        DType::I32 => DataType::Int32,
        DType::I64 => DataType::Int64,
        DType::U8 => DataType::UInt8,
        DType::U16 => DataType::UInt16,
        DType::U32 => DataType::UInt32,
        DType::U64 => DataType::UInt64,
        DType::F32 => DataType::Float32,
        DType::F64 => DataType::Float64,
        DType::F16 => DataType::Float16,
        // Arrow has no bfloat16: its bits travel as `UInt16`, and the spec in the field's
        // extension metadata says `bf16` (read back by `storage_dtype`).
        DType::BF16 => DataType::UInt16,
    }
}

/// The extype dtype of Arrow elements of type `data_type`, if extype has one.
pub fn dtype_of(data_type: &DataType) -> Option<DType> {
    Some(match data_type {
        DataType::Boolean => DType::Bool,
        DataType::Int8 => DType::I8,
        DataType::Int16 => DType::I16,
        DataType::Int32 => DType::I32,
        DataType::Int64 => DType::I64,
        DataType::UInt8 => DType::U8,
        DataType::UInt16 => DType::U16,
        DataType::UInt32 => DType::U32,
        DataType::UInt64 => DType::U64,
        DataType::Float32 => DType::F32,
        DataType::Float64 => DType::F64,
        DataType::Float16 => DType::F16,
        _ => return None,
    })
}

/// The dtype of a column stored as Arrow elements of `found`'s dtype when the caller's spec
/// expects `expected`: `UInt16` storage holds `bf16` bits when the spec says `bf16` (Arrow has
/// no bfloat16 type; [`arrow_type`]).
fn storage_dtype(found: DType, expected: Option<DType>) -> DType {
    match (found, expected) {
        (DType::U16, Some(DType::BF16)) => DType::BF16,
        _ => found,
    }
}

/// The child field of the lists of a fixed-shape tensor column: nullable, named `item`, as
/// pyarrow writes it (both nullable and non-null children are read). Nullable on purpose:
/// pyarrow 26's Parquet reader drops the `arrow.fixed_shape_tensor` extension of a column whose
/// list child is non-null (`python_interop.rs` checks that pyarrow sees the extension).
pub(crate) fn list_item(dtype: DType) -> Arc<Field> {
    Arc::new(Field::new("item", arrow_type(dtype), true))
}

/// A tensor holding its memory, as the owner of an Arrow buffer over that memory.
struct TensorOwner {
    _tensor: AssertUnwindSafe<Tensor>,
}

/// The Arrow array of a tensor's elements in row-major order, and the field (named `name`) that
/// describes the column: rank 1 is a plain array, a higher rank an `arrow.fixed_shape_tensor`
/// of the trailing axes. `name` names the component in errors.
pub(crate) fn export(tensor: &Tensor, name: &str) -> Result<(Field, ArrayRef)> {
    export_with(tensor, name, None)
}

/// [`export`] of `values` with the `bool` tensor `mask` (the values' shape) as the validity
/// bitmap of its elements: the innermost array (a fixed-size list's child values; a plain
/// array itself for items of rank 0), packed in one pass; no bitmap when every element is
/// valid. The field is marked with [`VALIDITY`] = `mask_name`. `path` names the pair in errors.
pub(crate) fn export_masked(
    values: &Tensor,
    mask: &Tensor,
    name: &str,
    mask_name: &str,
    path: &str,
) -> Result<(Field, ArrayRef)> {
    let bools = match mask.view() {
        TensorView::Bool(a) if mask.shape() == values.shape() => a,
        _ => {
            return Err(Error::Value {
                op: "to_array",
                message: format!(
                    "component `{mask_name}` is the validity of `{path}`: expected bool of shape \
                     {:?} (the values'), found {} of shape {:?}",
                    values.shape(),
                    mask.dtype(),
                    mask.shape()
                ),
            });
        }
    };
    let len = bools.len();
    let bits = match bools.as_slice() {
        Some(s) => BooleanBuffer::new(Buffer::from_vec(pack_bits(s)), 0, len),
        None => {
            let mut it = bools.iter();
            BooleanBuffer::collect_bool(len, |_| *it.next().unwrap_or(&true))
        }
    };
    let nulls = Some(NullBuffer::new(bits)).filter(|n| n.null_count() > 0);
    let (field, array) = export_with(values, name, Some(nulls))?;
    let mut meta = field.metadata().clone();
    meta.insert(VALIDITY.to_string(), mask_name.to_string());
    Ok((field.with_metadata(meta), array))
}

/// [`export`], the elements with the validity `nulls` when given (`Some(None)`: a validity
/// with every element valid; the field of a rank-0 column is then nullable).
fn export_with(
    tensor: &Tensor,
    name: &str,
    nulls: Option<Option<NullBuffer>>,
) -> Result<(Field, ArrayRef)> {
    let shape = tensor.shape();
    let Some((&n, item)) = shape.split_first() else {
        return Err(Error::Value {
            op: "to_array",
            message: format!(
                "component `{name}` is a scalar (shape []): a batch's components have a leading \
                 batch axis"
            ),
        });
    };
    let dtype = tensor.dtype();
    let masked = nulls.is_some();
    let elements = elements(tensor, nulls.flatten())?;
    if item.is_empty() {
        let field = Field::new(name, arrow_type(dtype), masked);
        return Ok((field, elements));
    }
    let size: usize = item.iter().product();
    let size_i32 = i32::try_from(size).map_err(|_| Error::Value {
        op: "to_array",
        message: format!(
            "component `{name}`: items of {size} elements exceed an Arrow fixed-size list"
        ),
    })?;
    // With the length given: items of zero elements have lists of size 0, whose row count the
    // values cannot tell.
    let list =
        FixedSizeListArray::try_new_with_length(list_item(dtype), size_i32, elements, None, n)
            .map_err(crate::error::arrow(format!("component `{name}`")))?;
    let meta = FixedShapeTensor {
        shape: item.to_vec(),
        dim_names: None,
        permutation: None,
    };
    let field =
        Field::new(name, list.data_type().clone(), false).with_metadata(meta.field_metadata());
    Ok((field, Arc::new(list)))
}

/// The elements of `tensor` as one flat Arrow array, row-major: no copy when the tensor is in
/// standard layout (bool excepted: Arrow packs it into bits).
fn elements(tensor: &Tensor, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
    let len = tensor.len();
    let view = tensor.view();
    if let TensorView::Bool(a) = &view {
        let bits = match a.as_slice() {
            Some(s) => BooleanBuffer::new(Buffer::from_vec(pack_bits(s)), 0, len),
            None => {
                let mut it = a.iter();
                BooleanBuffer::collect_bool(len, |_| *it.next().unwrap_or(&false))
            }
        };
        return Ok(Arc::new(BooleanArray::new(bits, nulls)));
    }
    let buffer = match contiguous_bytes(&view) {
        Some((ptr, bytes)) => {
            let owner = Arc::new(TensorOwner {
                _tensor: AssertUnwindSafe(tensor.clone()),
            });
            match NonNull::new(ptr as *mut u8) {
                // SAFETY: `ptr` points at `bytes` bytes of `tensor`'s elements (a standard-layout
                // view: contiguous, row-major). The buffer holds `owner`, a clone of the tensor,
                // which keeps that memory alive and unmoved: a shared `ArcArray` is never
                // written in place while another handle holds it (ndarray copies on write),
                // and an external tensor's bytes are immutable by `ExternalBytes`' contract.
                Some(ptr) => unsafe { Buffer::from_custom_allocation(ptr, bytes, owner) },
                None => Buffer::from_vec(Vec::<u8>::new()),
            }
        }
        None => copy_standard(&view),
    };
    let data = ArrayData::builder(arrow_type(tensor.dtype()))
        .len(len)
        .add_buffer(buffer)
        .nulls(nulls)
        .build()
        .map_err(crate::error::arrow("elements"))?;
    Ok(make_array(data))
}

/// The start and byte length of a standard-layout view's elements.
fn contiguous_bytes(view: &TensorView<'_>) -> Option<(*const u8, usize)> {
    macro_rules! slice {
        ($a:expr) => {
            $a.as_slice()
                .map(|s| (s.as_ptr() as *const u8, std::mem::size_of_val(s)))
        };
    }
    match view {
        TensorView::Bool(_) => None,
        TensorView::I8(a) => slice!(a),
        TensorView::I16(a) => slice!(a),
        TensorView::I32(a) => slice!(a),
        TensorView::I64(a) => slice!(a),
        TensorView::U8(a) => slice!(a),
        TensorView::U16(a) => slice!(a),
        TensorView::U32(a) => slice!(a),
        TensorView::U64(a) => slice!(a),
        TensorView::F32(a) => slice!(a),
        TensorView::F64(a) => slice!(a),
        TensorView::F16(a) => slice!(a),
        TensorView::BF16(a) => slice!(a),
    }
}

/// A row-major copy of a view that is not in standard layout.
fn copy_standard(view: &TensorView<'_>) -> Buffer {
    macro_rules! copy {
        ($a:expr) => {
            Buffer::from_vec($a.iter().copied().collect::<Vec<_>>())
        };
    }
    match view {
        TensorView::Bool(_) => unreachable!("bool is packed into bits by the caller"),
        TensorView::I8(a) => copy!(a),
        TensorView::I16(a) => copy!(a),
        TensorView::I32(a) => copy!(a),
        TensorView::I64(a) => copy!(a),
        TensorView::U8(a) => copy!(a),
        TensorView::U16(a) => copy!(a),
        TensorView::U32(a) => copy!(a),
        TensorView::U64(a) => copy!(a),
        TensorView::F32(a) => copy!(a),
        TensorView::F64(a) => copy!(a),
        TensorView::F16(a) => copy!(a),
        // Its bits, as `arrow_type` stores it (`bf16` is not an Arrow native type).
        TensorView::BF16(a) => {
            Buffer::from_vec(a.iter().map(|x| x.to_bits()).collect::<Vec<u16>>())
        }
    }
}

/// An Arrow buffer, as bytes an extype tensor views in place.
struct ArrowBytes(Buffer);

// SAFETY: an Arrow `Buffer` is immutable and reference counted: `as_slice` returns the same
// address, length and contents for as long as the buffer lives.
unsafe impl ExternalBytes for ArrowBytes {
    fn bytes(&self) -> &[u8] {
        self.0.as_slice()
    }
}

/// What an Arrow column is expected to hold, for error messages.
pub(crate) fn expected_text(dtype: Option<DType>, item: Option<&[usize]>) -> String {
    let elem = dtype.map_or("a numeric or boolean type".to_string(), |d| {
        format!("{:?}", arrow_type(d))
    });
    match item {
        Some([]) => format!("a {elem} array"),
        Some(item) => format!(
            "an {FIXED_SHAPE_TENSOR} (a FixedSizeList of {elem}, {} per row, shape {item:?})",
            element_count(item).map_or("too many".to_string(), |n| n.to_string())
        ),
        None => format!("a {elem} array or an {FIXED_SHAPE_TENSOR} of {elem}"),
    }
}

/// The tensor of an Arrow column (`field` describes it, `path` names it in errors): a plain
/// array gives shape `[n]`, a fixed-size list `[n, …]` with the item shape of the field's
/// `arrow.fixed_shape_tensor` metadata (logical order: a permutation is applied), else
/// `expected_item` (the spec's), else the list size. `expected` is the dtype the caller's spec
/// needs, if it knows one.
pub(crate) fn import(
    field: &Field,
    array: &dyn Array,
    path: &str,
    expected: Option<DType>,
    expected_item: Option<&[usize]>,
) -> Result<Tensor> {
    import_parts(field, array, path, expected, expected_item, false).map(|(t, _)| t)
}

/// [`import`] of a column whose validity is a component (its field has [`VALIDITY`]): the
/// values, every element kept exactly (those under a null slot too), and the mask, `bool` of
/// the values' shape, `false` where the element is null (the innermost array's bitmap, and a
/// null row of a fixed-size list masks the whole item); no bitmap: all `true`.
pub(crate) fn import_masked(
    field: &Field,
    array: &dyn Array,
    path: &str,
    expected: Option<DType>,
    expected_item: Option<&[usize]>,
) -> Result<(Tensor, Tensor)> {
    let (values, mask) = import_parts(field, array, path, expected, expected_item, true)?;
    match mask {
        Some(mask) => Ok((values, mask)),
        None => unreachable!("import_parts returns a mask when asked for one"),
    }
}

/// The validity of `len` elements as bools (`true` = valid), from a bitmap that must be as long.
fn validity_bools(nulls: Option<&NullBuffer>, len: usize, path: &str) -> Result<Vec<bool>> {
    match nulls {
        None => Ok(vec![true; len]),
        Some(n) if n.len() == len => Ok(unpack_bits(n.inner())),
        Some(n) => Err(Error::Metadata {
            field: path.to_string(),
            message: format!(
                "a validity bitmap of {} bits for {len} elements: expected one bit per element",
                n.len()
            ),
        }),
    }
}

/// The tensor of a column, and with `masked` its validity as a `bool` tensor of the same shape.
fn import_parts(
    field: &Field,
    array: &dyn Array,
    path: &str,
    expected: Option<DType>,
    expected_item: Option<&[usize]>,
    masked: bool,
) -> Result<(Tensor, Option<Tensor>)> {
    let storage_error = || Error::Storage {
        field: path.to_string(),
        expected: expected_text(expected, expected_item),
        found: array.data_type().to_string(),
    };
    if !masked && array.null_count() > 0 {
        return Err(Error::Metadata {
            field: path.to_string(),
            message: format!(
                "{} null rows: extype tensors have no missing rows",
                array.null_count()
            ),
        });
    }
    let n = array.len();
    let meta = FixedShapeTensor::from_field(field, path)?;
    match array.data_type() {
        DataType::FixedSizeList(_, size) => {
            let list = array
                .as_any()
                .downcast_ref::<FixedSizeListArray>()
                .ok_or_else(storage_error)?;
            let size = usize::try_from(*size).map_err(|_| storage_error())?;
            let Some(dtype) = dtype_of(&list.value_type()) else {
                return Err(storage_error());
            };
            let dtype = storage_dtype(dtype, expected);
            if expected.is_some_and(|e| e != dtype) {
                return Err(storage_error());
            }
            let start = if n == 0 {
                0
            } else {
                usize::try_from(list.value_offset(0)).map_err(|_| storage_error())?
            };
            let count = n.checked_mul(size).ok_or_else(|| Error::Metadata {
                field: path.to_string(),
                message: format!("{n} rows of {size} elements overflow a length"),
            })?;
            if list.values().len() < start.saturating_add(count) {
                return Err(Error::Metadata {
                    field: path.to_string(),
                    message: format!(
                        "{n} rows of {size} elements from {start}: the list values hold {}",
                        list.values().len()
                    ),
                });
            }
            let values = list.values().slice(start, count);
            if !masked && values.null_count() > 0 {
                return Err(Error::Metadata {
                    field: path.to_string(),
                    message: format!(
                        "{} null elements in the tensors: extype tensors have no missing \
                         elements",
                        values.null_count()
                    ),
                });
            }
            let (physical, permutation) = match &meta {
                Some(m) => (m.shape.clone(), m.permutation.clone()),
                None => (
                    expected_item.map_or_else(|| vec![size], <[usize]>::to_vec),
                    None,
                ),
            };
            let Some(elements) = element_count(&physical) else {
                return Err(Error::Metadata {
                    field: path.to_string(),
                    message: format!("tensor shape {physical:?} has more elements than an index"),
                });
            };
            if elements != size {
                return Err(Error::Metadata {
                    field: path.to_string(),
                    message: format!(
                        "tensor shape {physical:?} has {elements} elements, the lists hold {size}"
                    ),
                });
            }
            let mut shape = Vec::with_capacity(physical.len() + 1);
            shape.push(n);
            shape.extend_from_slice(&physical);
            if element_count(&shape).is_none() {
                return Err(Error::Metadata {
                    field: path.to_string(),
                    message: format!(
                        "{n} rows of shape {physical:?} have more elements than an index"
                    ),
                });
            }
            let t = flat(values.as_ref(), dtype, &shape, path)?;
            let mask = if masked {
                let mut bools = validity_bools(values.nulls(), count, path)?;
                if let Some(rows) = list.nulls() {
                    // A null item: every element of it masked.
                    for i in (0..n).filter(|&i| rows.is_null(i)) {
                        bools[i * size..(i + 1) * size].fill(false);
                    }
                }
                let a =
                    ArrayD::from_shape_vec(IxDyn(&shape), bools).map_err(|e| Error::Metadata {
                        field: path.to_string(),
                        message: e.to_string(),
                    })?;
                Some(Tensor::from(a))
            } else {
                None
            };
            match permutation {
                Some(p) if p.iter().enumerate().any(|(i, &a)| i != a) => {
                    Ok((permute(&t, &p)?, mask.map(|m| permute(&m, &p)).transpose()?))
                }
                _ => Ok((t, mask)),
            }
        }
        data_type => {
            let Some(dtype) = dtype_of(data_type) else {
                return Err(storage_error());
            };
            let dtype = storage_dtype(dtype, expected);
            if expected.is_some_and(|e| e != dtype) || expected_item.is_some_and(|i| !i.is_empty())
            {
                return Err(storage_error());
            }
            let mask = if masked {
                let bools = validity_bools(array.nulls(), n, path)?;
                Some(Tensor::from(extype_core::ndarray::Array1::from(bools)))
            } else {
                None
            };
            Ok((flat(array, dtype, &[n], path)?, mask))
        }
    }
}

/// The number of elements of an array of `shape`, when one can exist: the product of its
/// non-zero axes fits an `isize` (as ndarray requires). Checked, never wrapped, so that debug
/// and release builds agree on shapes read from files.
pub(crate) fn element_count(shape: &[usize]) -> Option<usize> {
    let nonzero = shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |a, &d| a.checked_mul(d))?;
    isize::try_from(nonzero).ok()?;
    Some(if shape.contains(&0) { 0 } else { nonzero })
}

/// The elements of a flat (non-null) Arrow array as a tensor of `shape`: in place when the
/// buffer is aligned for the dtype, else copied; bools unpacked.
fn flat(array: &dyn Array, dtype: DType, shape: &[usize], path: &str) -> Result<Tensor> {
    let context = || format!("field `{path}`");
    if dtype == DType::Bool {
        let bools = array
            .as_any()
            .downcast_ref::<BooleanArray>()
            .ok_or_else(|| Error::Storage {
                field: path.to_string(),
                expected: "a Boolean array".into(),
                found: array.data_type().to_string(),
            })?;
        let v = unpack_bits(bools.values());
        let a = ArrayD::from_shape_vec(IxDyn(shape), v).map_err(|e| Error::Metadata {
            field: path.to_string(),
            message: e.to_string(),
        })?;
        return Ok(Tensor::from(a));
    }
    let data = array.to_data();
    let size = dtype.size_of();
    let Some(buffer) = data.buffers().first().cloned() else {
        return Err(Error::Storage {
            field: path.to_string(),
            expected: format!("a {dtype:?} array with its values buffer"),
            found: format!("{} without buffers", array.data_type()),
        });
    };
    // Checked (a validated array's elements lie in its buffer, so this only refuses others).
    let span = data
        .offset()
        .checked_mul(size)
        .zip(array.len().checked_mul(size))
        .filter(|&(offset, len)| {
            offset
                .checked_add(len)
                .is_some_and(|end| end <= buffer.len())
        });
    let Some((offset, len)) = span else {
        return Err(Error::Metadata {
            field: path.to_string(),
            message: format!(
                "{} elements at {} do not lie in the buffer's {} bytes",
                array.len(),
                data.offset(),
                buffer.len()
            ),
        });
    };
    let bytes = buffer.slice_with_length(offset, len);
    if (bytes.as_ptr() as usize).is_multiple_of(size) && cfg!(target_endian = "little") {
        Tensor::from_external(Arc::new(ArrowBytes(bytes)), 0, dtype, shape)
            .map_err(crate::error::extype(context()))
    } else {
        let copy: Vec<u8> = bytes.as_slice().to_vec();
        copy_from_le(&copy, dtype, shape).map_err(crate::error::extype(context()))
    }
}

/// `bools` packed into Arrow's bit order (bit `i % 8` of byte `i / 8` is `bools[i]`), the last
/// byte's unused bits zero. Eight bools at a time: their bytes (each 0 or 1) read as one
/// little-endian `u64` and gathered into one byte by a multiplication (about 8x faster than
/// arrow-buffer's bit-by-bit `collect_bool`; BENCHMARKS.md, "Arrow").
pub(crate) fn pack_bits(bools: &[bool]) -> Vec<u8> {
    // Byte k of the multiplier is 2^(7 - k): the product's top byte gets bool j's bit at bit
    // 56 + j (the terms with j + k = 7), and no two terms share a bit, so nothing carries into it.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let chunks = bools.chunks_exact(8);
    let tail = chunks.remainder();
    let mut out = Vec::with_capacity(bools.len().div_ceil(8));
    out.extend(chunks.map(|c| {
        let word = u64::from_le_bytes(std::array::from_fn(|j| u8::from(c[j])));
        (word.wrapping_mul(GATHER) >> 56) as u8
    }));
    if !tail.is_empty() {
        out.push(
            tail.iter()
                .enumerate()
                .fold(0u8, |acc, (j, &b)| acc | (u8::from(b) << j)),
        );
    }
    out
}

/// The bools of Arrow bits, eight at a time: the byte broadcast to all eight lanes of a `u64`,
/// lane `j` keeping bit `j`, then each lane turned into 0 or 1.
pub(crate) fn unpack_bits(bits: &BooleanBuffer) -> Vec<bool> {
    const LANE_BIT: u64 = 0x8040_2010_0804_0201;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let len = bits.len();
    let mut out = Vec::with_capacity(len);
    if bits.offset().is_multiple_of(8) {
        let bytes = &bits.values()[bits.offset() / 8..];
        let whole = len / 8;
        out.extend(bytes[..whole].iter().flat_map(|&byte| {
            // Lane j holds 2^j or 0; adding 0x7f sets the lane's top bit exactly when it is
            // non-zero and never carries out of the lane (0x7f + 0x80 = 0xff).
            let lanes = (u64::from(byte).wrapping_mul(ONES) & LANE_BIT) + 0x7f7f_7f7f_7f7f_7f7f;
            let ones = (lanes >> 7) & ONES;
            ones.to_le_bytes().map(|b| b != 0)
        }));
        out.extend((whole * 8..len).map(|i| bits.value(i)));
    } else {
        out.extend(bits.iter());
    }
    out
}

/// A tensor copied from little-endian bytes (a misaligned Arrow buffer).
fn copy_from_le(bytes: &[u8], dtype: DType, shape: &[usize]) -> extype_core::Result<Tensor> {
    macro_rules! read {
        ($t:ty) => {{
            let v: Vec<$t> = bytes
                .chunks_exact(std::mem::size_of::<$t>())
                .map(|c| <$t>::from_le_bytes(c.try_into().expect("chunk of the element size")))
                .collect();
            Tensor::from(ArrayD::from_shape_vec(IxDyn(shape), v).map_err(|e| {
                extype_core::TensorError::Bytes {
                    op: "from_arrow",
                    message: e.to_string(),
                }
            })?)
        }};
    }
    Ok(match dtype {
        DType::Bool => unreachable!("bools are unpacked by the caller"),
        DType::I8 => read!(i8),
        DType::I16 => read!(i16),
        DType::I32 => read!(i32),
        DType::I64 => read!(i64),
        DType::U8 => read!(u8),
        DType::U16 => read!(u16),
        DType::U32 => read!(u32),
        DType::U64 => read!(u64),
        DType::F32 => read!(f32),
        DType::F64 => read!(f64),
        DType::F16 => read!(extype_core::half::f16),
        DType::BF16 => read!(extype_core::half::bf16),
    })
}

/// The physical tensor `t` (`[n, physical…]`) in its logical order: logical axis `i` of an item
/// is physical axis `permutation[i]`, as the Arrow specification defines it (and pyarrow
/// writes a transposed NumPy array). Copied once into row-major order.
fn permute(t: &Tensor, permutation: &[usize]) -> Result<Tensor> {
    let mut axes = Vec::with_capacity(permutation.len() + 1);
    axes.push(0);
    axes.extend(permutation.iter().map(|&p| p + 1));
    permute_item(t, &axes)
}

/// One column of a batch in the row layout: the tensors `column` (one per item, one dtype and
/// rank, shapes of their own) as an `arrow.variable_shape_tensor` named `name`. The elements are
/// copied into one flat list. `path` names the component in errors.
pub(crate) fn export_rows(
    column: &[&Tensor],
    name: &str,
    path: &str,
    dtype: DType,
    ndim: usize,
) -> Result<(Field, ArrayRef)> {
    let mut offsets = Vec::with_capacity(column.len() + 1);
    offsets.push(0i32);
    let mut shapes = Vec::with_capacity(column.len() * ndim);
    let mut total = 0usize;
    for (i, t) in column.iter().enumerate() {
        if t.dtype() != dtype || t.ndim() != ndim {
            return Err(Error::Value {
                op: "to_array",
                message: format!(
                    "component `{path}`: item {i} is {:?} of rank {}, the column {dtype:?} of \
                     rank {ndim} (the item spec's): a column holds one dtype and rank",
                    t.dtype(),
                    t.ndim()
                ),
            });
        }
        total += t.len();
        let too_big = || Error::Value {
            op: "to_array",
            message: format!(
                "component `{path}`: {total} elements up to item {i} exceed an Arrow list's i32 \
                 offsets"
            ),
        };
        offsets.push(i32::try_from(total).map_err(|_| too_big())?);
        for &d in t.shape() {
            shapes.push(i32::try_from(d).map_err(|_| too_big())?);
        }
    }
    let flat = concat_flat(column, dtype, total);
    let data = ListArray::try_new(
        list_item(dtype),
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        elements(&flat, None)?,
        None,
    )
    .map_err(crate::error::arrow(format!("component `{path}`")))?;
    let shape_item = Arc::new(Field::new("item", DataType::Int32, true));
    let ndim_i32 = i32::try_from(ndim).unwrap_or(i32::MAX);
    let shape = FixedSizeListArray::try_new(
        shape_item,
        ndim_i32,
        Arc::new(Int32Array::from(shapes)),
        None,
    )
    .map_err(crate::error::arrow(format!("component `{path}`")))?;
    let fields = Fields::from(vec![
        Field::new("data", data.data_type().clone(), false),
        Field::new("shape", shape.data_type().clone(), false),
    ]);
    let array = StructArray::try_new(fields, vec![Arc::new(data), Arc::new(shape)], None)
        .map_err(crate::error::arrow(format!("component `{path}`")))?;
    let field = Field::new(name, array.data_type().clone(), false).with_metadata(
        std::collections::HashMap::from([
            (
                EXTENSION_NAME.to_string(),
                VARIABLE_SHAPE_TENSOR.to_string(),
            ),
            (EXTENSION_METADATA.to_string(), "{}".to_string()),
        ]),
    );
    Ok((field, Arc::new(array)))
}

/// The elements of every tensor of `column` (all of `dtype`), row-major, one after another.
fn concat_flat(column: &[&Tensor], dtype: DType, total: usize) -> Tensor {
    macro_rules! cat {
        ($variant:ident, $t:ty) => {{
            let mut v: Vec<$t> = Vec::with_capacity(total);
            for t in column {
                if let TensorView::$variant(a) = t.view() {
                    v.extend(a.iter().copied());
                }
            }
            Tensor::from(extype_core::ndarray::Array1::from(v))
        }};
    }
    match dtype {
        DType::Bool => cat!(Bool, bool),
        DType::I8 => cat!(I8, i8),
        DType::I16 => cat!(I16, i16),
        DType::I32 => cat!(I32, i32),
        DType::I64 => cat!(I64, i64),
        DType::U8 => cat!(U8, u8),
        DType::U16 => cat!(U16, u16),
        DType::U32 => cat!(U32, u32),
        DType::U64 => cat!(U64, u64),
        DType::F32 => cat!(F32, f32),
        DType::F64 => cat!(F64, f64),
        DType::F16 => cat!(F16, extype_core::half::f16),
        DType::BF16 => cat!(BF16, extype_core::half::bf16),
    }
}

/// The tensors of an `arrow.variable_shape_tensor` column, one per row (in logical order: a
/// `permutation` in its metadata is applied). Each views the column's data buffer when aligned
/// (bools and permuted rows are copied). `path` names the field in errors; `expected` is the
/// item spec's dtype of the component (`bf16` is stored as its bits, [`storage_dtype`]).
pub(crate) fn import_rows(
    field: &Field,
    array: &dyn Array,
    path: &str,
    expected: DType,
) -> Result<Vec<Tensor>> {
    let storage_error = || Error::Storage {
        field: path.to_string(),
        expected: format!(
            "an {VARIABLE_SHAPE_TENSOR} (a struct of `data`, a list of numbers or booleans, and \
             `shape`, a fixed-size list of int32)"
        ),
        found: array.data_type().to_string(),
    };
    let st = array
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(storage_error)?;
    let data = st
        .column_by_name("data")
        .and_then(|a| a.as_any().downcast_ref::<ListArray>())
        .ok_or_else(storage_error)?;
    let shape = st
        .column_by_name("shape")
        .and_then(|a| a.as_any().downcast_ref::<FixedSizeListArray>())
        .ok_or_else(storage_error)?;
    let shape_values = shape
        .values()
        .as_any()
        .downcast_ref::<Int32Array>()
        .ok_or_else(storage_error)?;
    let Some(dtype) = dtype_of(&data.value_type()) else {
        return Err(storage_error());
    };
    let dtype = storage_dtype(dtype, Some(expected));
    if st.null_count() > 0 || data.null_count() > 0 || shape.null_count() > 0 {
        return Err(Error::Metadata {
            field: path.to_string(),
            message: "null rows: extype tensors have no missing rows".into(),
        });
    }
    let permutation = match field.metadata().get(EXTENSION_METADATA) {
        Some(text) if !text.trim().is_empty() => {
            let json: serde_json::Value =
                serde_json::from_str(text).map_err(|e| Error::Metadata {
                    field: path.to_string(),
                    message: format!("{VARIABLE_SHAPE_TENSOR} metadata {text:?}: {e}"),
                })?;
            json.get("permutation")
                .or_else(|| json.get("permutations"))
                .and_then(|p| p.as_array())
                .map(|p| {
                    p.iter()
                        .map(|d| d.as_u64().map(|d| d as usize))
                        .collect::<Option<Vec<usize>>>()
                })
                .unwrap_or(None)
        }
        _ => None,
    };
    let ndim = usize::try_from(shape.value_length()).map_err(|_| storage_error())?;
    let offsets = data.value_offsets();
    let mut rows = Vec::with_capacity(st.len());
    for i in 0..st.len() {
        let (start, end) = (offsets[i], offsets[i + 1]);
        let (Ok(start), Ok(end), Ok(base)) = (
            usize::try_from(start),
            usize::try_from(end),
            usize::try_from(shape.value_offset(i)),
        ) else {
            return Err(storage_error());
        };
        let Some(len) = end.checked_sub(start) else {
            return Err(storage_error());
        };
        let dims: Vec<usize> = (0..ndim)
            .map(|k| usize::try_from(shape_values.value(base + k)).unwrap_or(usize::MAX))
            .collect();
        if element_count(&dims) != Some(len) {
            return Err(Error::Metadata {
                field: path.to_string(),
                message: format!("row {i}: shape {dims:?} does not hold its {len} elements"),
            });
        }
        let values = data.values().slice(start, len);
        let t = flat(values.as_ref(), dtype, &dims, path)?;
        rows.push(match &permutation {
            Some(p) if p.len() == ndim && p.iter().enumerate().any(|(i, &a)| i != a) => {
                permute_item(&t, p)?
            }
            _ => t,
        });
    }
    Ok(rows)
}

/// One tensor in its logical order: axis `i` is physical axis `permutation[i]` (also the
/// batch's, through [`permute`]).
fn permute_item(t: &Tensor, permutation: &[usize]) -> Result<Tensor> {
    macro_rules! go {
        ($a:expr) => {
            Tensor::from(
                $a.permuted_axes(IxDyn(permutation))
                    .as_standard_layout()
                    .into_owned(),
            )
        };
    }
    Ok(match t.view() {
        TensorView::Bool(a) => go!(a),
        TensorView::I8(a) => go!(a),
        TensorView::I16(a) => go!(a),
        TensorView::I32(a) => go!(a),
        TensorView::I64(a) => go!(a),
        TensorView::U8(a) => go!(a),
        TensorView::U16(a) => go!(a),
        TensorView::U32(a) => go!(a),
        TensorView::U64(a) => go!(a),
        TensorView::F32(a) => go!(a),
        TensorView::F64(a) => go!(a),
        TensorView::F16(a) => go!(a),
        TensorView::BF16(a) => go!(a),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random bools (an LCG; `density` of 256 are true).
    fn bools(n: usize, seed: u64, density: u64) -> Vec<bool> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (x >> 56) < density
            })
            .collect()
    }

    #[test]
    fn pack_and_unpack_bits_match_arrow_bit_by_bit() {
        for n in (0..80).chain([1000, 4099]) {
            for (seed, density) in [(1, 128), (2, 0), (3, 256), (4, 3), (5, 250)] {
                let b = bools(n, seed, density);
                let packed = pack_bits(&b);
                let reference = BooleanBuffer::collect_bool(n, |i| b[i]);
                assert_eq!(
                    packed.as_slice(),
                    reference.values(),
                    "n = {n}, seed {seed}"
                );
                let bits = BooleanBuffer::new(Buffer::from_vec(packed), 0, n);
                assert_eq!(unpack_bits(&bits), b, "n = {n}, seed {seed}");
                // Sliced buffers: at byte and at bit offsets.
                for offset in [0, 1, 7, 8, 9, 16].into_iter().filter(|&o| o <= n) {
                    let sliced = bits.slice(offset, n - offset);
                    assert_eq!(unpack_bits(&sliced), b[offset..], "n {n}, offset {offset}");
                }
            }
        }
    }
}

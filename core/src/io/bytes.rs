//! Tensors to and from the little-endian bytes of a file: borrowed when the layout allows,
//! read straight into the tensor's own buffer otherwise.

use std::borrow::Cow;

use ndarray::{ArrayD, ArrayViewD, IxDyn};

use crate::dtype::DType;
use crate::tensor::{Element, Tensor, TensorView};

/// Runs `$body` with `$t` the Rust scalar type of `$dtype`.
macro_rules! with_dtype {
    ($dtype:expr, $t:ident => $body:expr) => {
        match $dtype {
            DType::Bool => {
                type $t = bool;
                $body
            }
            DType::I8 => {
                type $t = i8;
                $body
            }
            DType::I16 => {
                type $t = i16;
                $body
            }
            DType::I32 => {
                type $t = i32;
                $body
            }
            DType::I64 => {
                type $t = i64;
                $body
            }
            DType::U8 => {
                type $t = u8;
                $body
            }
            DType::U16 => {
                type $t = u16;
                $body
            }
            DType::U32 => {
                type $t = u32;
                $body
            }
            DType::U64 => {
                type $t = u64;
                $body
            }
            DType::F32 => {
                type $t = f32;
                $body
            }
            DType::F64 => {
                type $t = f64;
                $body
            }
        }
    };
}

/// The bytes of a slice of scalars.
fn as_bytes<T: Element>(s: &[T]) -> &[u8] {
    // SAFETY: every `Element` is a primitive scalar (bool, integers, floats) without padding, so
    // its memory is `size_of_val(s)` initialized bytes; `u8` has alignment 1.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// The little-endian bytes of a view, in row-major order: borrowed from the tensor when it is
/// contiguous in standard layout (on a little-endian machine), else copied.
pub(crate) fn view_bytes<'a>(view: &TensorView<'a>) -> Cow<'a, [u8]> {
    fn go<'a, T: Element>(a: &ArrayViewD<'a, T>) -> Cow<'a, [u8]> {
        if cfg!(target_endian = "little")
            && let Some(s) = a.to_slice()
        {
            return Cow::Borrowed(as_bytes(s));
        }
        let owned: Vec<T> = a.iter().copied().collect();
        let mut bytes = as_bytes(&owned).to_vec();
        if cfg!(target_endian = "big") {
            for chunk in bytes.chunks_mut(size_of::<T>()) {
                chunk.reverse();
            }
        }
        Cow::Owned(bytes)
    }
    match view {
        TensorView::Bool(a) => go(a),
        TensorView::I8(a) => go(a),
        TensorView::I16(a) => go(a),
        TensorView::I32(a) => go(a),
        TensorView::I64(a) => go(a),
        TensorView::U8(a) => go(a),
        TensorView::U16(a) => go(a),
        TensorView::U32(a) => go(a),
        TensorView::U64(a) => go(a),
        TensorView::F32(a) => go(a),
        TensorView::F64(a) => go(a),
    }
}

/// The first byte of `bytes` that is not a valid `bool` (0 or 1), as (index, byte).
fn bad_bool(bytes: &[u8]) -> Option<(usize, u8)> {
    // An OR over each chunk vectorizes (an early-exit search does not); the position is found
    // only in a chunk that fails.
    for (c, chunk) in bytes.chunks(4096).enumerate() {
        if chunk.iter().fold(0u8, |a, &b| a | b) > 1 {
            let i = chunk.iter().position(|&b| b > 1)?;
            return Some((c * 4096 + i, chunk[i]));
        }
    }
    None
}

fn bool_error(i: usize, b: u8) -> String {
    format!("element {i} of a bool tensor is the byte {b}, expected 0 or 1")
}

/// A tensor of `dtype` and `shape` whose `nbytes` bytes `fill` writes into the tensor's own
/// buffer (one allocation, of exactly the tensor's size, which the header checks bounded by the
/// file's size). Errors are messages about the tensor.
pub(crate) fn read_tensor(
    dtype: DType,
    shape: &[usize],
    nbytes: usize,
    fill: &mut dyn FnMut(&mut [u8]) -> std::io::Result<()>,
) -> Result<Tensor, String> {
    let count = nbytes / dtype.size_of();
    with_dtype!(dtype, T => {
        if dtype == DType::Bool {
            let mut raw = vec![0u8; count];
            fill(&mut raw).map_err(|e| format!("reading {nbytes} bytes: {e}"))?;
            if let Some((i, b)) = bad_bool(&raw) {
                return Err(bool_error(i, b));
            }
            let bools: Vec<bool> = bytes_to_bools(raw);
            return finish(bools, shape);
        }
        let mut data: Vec<T> = vec![T::default(); count];
        // SAFETY: `T` is an integer or float type here (bool is handled above): every bit
        // pattern is a valid value, so writing arbitrary bytes into its buffer is sound.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), nbytes)
        };
        fill(bytes).map_err(|e| format!("reading {nbytes} bytes: {e}"))?;
        if cfg!(target_endian = "big") {
            for chunk in bytes.chunks_mut(size_of::<T>()) {
                chunk.reverse();
            }
        }
        finish(data, shape)
    })
}

fn bytes_to_bools(raw: Vec<u8>) -> Vec<bool> {
    let mut raw = std::mem::ManuallyDrop::new(raw);
    let (ptr, len, cap) = (raw.as_mut_ptr(), raw.len(), raw.capacity());
    // SAFETY: every byte was checked to be 0 or 1 (valid `bool`s); `bool` and `u8` have the same
    // size and alignment, so the allocation's layout is unchanged.
    unsafe { Vec::from_raw_parts(ptr.cast::<bool>(), len, cap) }
}

fn finish<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor, String> {
    ArrayD::from_shape_vec(IxDyn(shape), data)
        .map(Tensor::from)
        .map_err(|e| format!("shape {shape:?}: {e}"))
}

/// A tensor copied out of `bytes` (the tensor's bytes in a file held in memory).
pub(crate) fn tensor_from_bytes(
    dtype: DType,
    shape: &[usize],
    bytes: &[u8],
) -> Result<Tensor, String> {
    read_tensor(dtype, shape, bytes.len(), &mut |out| {
        out.copy_from_slice(bytes);
        Ok(())
    })
}

/// A zero-copy view of `bytes` as a tensor, or `None` when the bytes are not aligned for the
/// dtype (or the machine is big-endian). Errors when a bool byte is not 0 or 1.
pub(crate) fn view_from_bytes<'a>(
    dtype: DType,
    shape: &[usize],
    bytes: &'a [u8],
) -> Result<Option<TensorView<'a>>, String> {
    if cfg!(target_endian = "big") {
        return Ok(None);
    }
    if dtype == DType::Bool
        && let Some((i, b)) = bad_bool(bytes)
    {
        return Err(bool_error(i, b));
    }
    with_dtype!(dtype, T => {
        if !(bytes.as_ptr() as usize).is_multiple_of(align_of::<T>()) {
            return Ok(None);
        }
        let count = bytes.len() / size_of::<T>();
        // SAFETY: the pointer is aligned for `T` (checked above), the `count * size_of::<T>()`
        // bytes are initialized and borrowed for `'a`, and every byte pattern is a valid `T`
        // (bools were checked to be 0 or 1 above).
        let slice: &'a [T] = unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), count) };
        let view = ArrayViewD::from_shape(IxDyn(shape), slice).map_err(|e| format!("shape {shape:?}: {e}"))?;
        Ok(Some(TensorView::from_array(view)))
    })
}

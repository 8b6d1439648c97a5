//! Tensors to and from the little-endian bytes of a file: borrowed when the layout allows,
//! read straight into the tensor's own buffer otherwise.

use std::borrow::Cow;

use ndarray::{ArrayD, ArrayViewD, IxDyn};

use crate::dtype::DType;
use std::sync::Arc;

use crate::tensor::{Element, ExternalBytes, Tensor, TensorView, bad_bool, try_external};

/// The bytes of a slice of scalars.
fn as_bytes<T: Element>(s: &[T]) -> &[u8] {
    // SAFETY: every `Element` is a primitive scalar (bool, integers, floats, and `half`'s
    // `f16`/`bf16`, `repr(transparent)` over `u16`) without padding, so its memory is
    // `size_of_val(s)` initialized bytes; `u8` has alignment 1.
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
        TensorView::F16(a) => go(a),
        TensorView::BF16(a) => go(a),
    }
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
    crate::with_element!(dtype, T => {
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
        // SAFETY: `T` is an integer or float type here (bool is handled above; `half`'s floats
        // are `repr(transparent)` over `u16`): every bit pattern is a valid value, so writing
        // arbitrary bytes into its buffer is sound.
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

/// The tensor at `offset` in `owner`'s bytes (a mapped file; the header checked the range):
/// viewed in place when its start is aligned for its dtype (and the machine is little-endian),
/// copied out otherwise.
pub(crate) fn shared_tensor(
    owner: &Arc<dyn ExternalBytes>,
    offset: usize,
    nbytes: usize,
    dtype: DType,
    shape: &[usize],
) -> Result<Tensor, String> {
    match try_external(Arc::clone(owner), offset, dtype, shape)? {
        Some(tensor) => Ok(tensor),
        None => tensor_from_bytes(dtype, shape, &owner.bytes()[offset..offset + nbytes]),
    }
}

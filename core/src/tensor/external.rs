//! Tensors whose elements live in bytes owned by something else — a memory-mapped file, a buffer
//! another library filled — viewed in place: [`ExternalBytes`] and [`ExternalTensor`].

use std::fmt;
use std::sync::Arc;

use ndarray::{ArrayViewD, IxDyn};

use super::{Element, Tensor, TensorView};
use crate::dtype::DType;
use crate::error::{Result, TensorError};

/// Bytes that a [`Tensor`] may view in place for as long as it holds them.
///
/// # Safety
///
/// [`ExternalBytes::bytes`] must return the same slice — same address, same length, same
/// contents — every time it is called on one value, for as long as that value lives. Tensors
/// check the slice's length, alignment and (for bools) contents once, when they are made, and
/// then read it as typed elements on every view.
pub unsafe trait ExternalBytes: Send + Sync + 'static {
    /// The bytes.
    fn bytes(&self) -> &[u8];
}

// SAFETY: a `Vec` behind a shared reference cannot change, move or be resized.
unsafe impl ExternalBytes for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

// SAFETY: as for `Vec<u8>`: a boxed slice behind a shared reference is immutable and fixed.
unsafe impl ExternalBytes for Box<[u8]> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

/// A tensor viewing a range of [`ExternalBytes`] in place: the `Tensor::External` variant.
///
/// Made by [`Tensor::from_external`]; clone is O(1) (the owner is shared). The owner is dropped
/// (a map unmapped, a buffer freed) when the last tensor viewing it is.
#[derive(Clone)]
pub struct ExternalTensor {
    owner: Arc<dyn ExternalBytes>,
    offset: usize,
    dtype: DType,
    shape: Box<[usize]>,
    len: usize,
}

impl ExternalTensor {
    /// The element type.
    #[inline]
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether some axis has size 0.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The viewed bytes, `len × dtype size` of them, in row-major order.
    pub fn bytes(&self) -> &[u8] {
        &self.owner.bytes()[self.offset..self.offset + self.len * self.dtype.size_of()]
    }

    /// A borrowed view of the elements; O(1), no copy.
    pub fn view(&self) -> TensorView<'_> {
        // SAFETY: `external` checked with `viewable`, on the slice the owner returns every time
        // (the `ExternalBytes` contract), that these bytes hold this dtype and shape in place.
        unsafe { view_unchecked(self.bytes(), self.dtype, &self.shape) }
    }

    /// Rows `start..end` of the leading axis (rank ≥ 1, `start ≤ end ≤ shape[0]`: the caller
    /// checks), viewing the same bytes: O(1).
    pub(crate) fn rows(&self, start: usize, end: usize) -> ExternalTensor {
        let row: usize = self.shape[1..].iter().product();
        let mut shape = self.shape.clone();
        shape[0] = end - start;
        ExternalTensor {
            owner: Arc::clone(&self.owner),
            offset: self.offset + start * row * self.dtype.size_of(),
            dtype: self.dtype,
            shape,
            len: (end - start) * row,
        }
    }

    /// Item `i` of the leading axis (rank ≥ 1, `i < shape[0]`: the caller checks), of rank one
    /// less, viewing the same bytes: O(1).
    pub(crate) fn item(&self, i: usize) -> ExternalTensor {
        let mut item = self.rows(i, i + 1);
        item.shape = self.shape[1..].into();
        item
    }

    /// Whether `self` and `other` view the same bytes of the same owner.
    pub fn same_bytes(&self, other: &ExternalTensor) -> bool {
        Arc::ptr_eq(&self.owner, &other.owner) && self.offset == other.offset
    }
}

impl fmt::Debug for ExternalTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExternalTensor")
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .field("offset", &self.offset)
            .finish_non_exhaustive()
    }
}

/// The first byte of `bytes` that is not a valid `bool` (0 or 1), as (index, byte).
pub(crate) fn bad_bool(bytes: &[u8]) -> Option<(usize, u8)> {
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

impl Tensor {
    /// A tensor of `dtype` and `shape` viewing `owner`'s bytes from `offset` in place: its
    /// elements are the little-endian, row-major bytes there. No byte is copied; the tensor
    /// (and every clone and view of it) keeps `owner` alive.
    ///
    /// Checks, once: the byte count (`shape`'s element count × the dtype's size, without
    /// overflow) fits in the owner's bytes from `offset`; the start is aligned for the dtype;
    /// for `bool`, every byte is 0 or 1 (this reads them). Errors otherwise, and on a big-endian
    /// machine (where the bytes would need swapping — copy them instead).
    ///
    /// Such a tensor is a [`Tensor::External`]. Everything reading a tensor through a view
    /// (ops, kernels, saving, [`Tensor::as_array`]) reads the bytes in place; turning it into
    /// an ndarray array ([`Tensor::into_arc_array`], [`Tensor::into_array`]) copies, and
    /// [`Tensor::as_arc_array`] errors, since an ndarray array must own its buffer.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use extype_core::{DType, Tensor};
    ///
    /// let bytes: Vec<u8> = [1.5f32, 2.5, 3.5, 4.5].iter().flat_map(|x| x.to_le_bytes()).collect();
    /// let t = Tensor::from_external(Arc::new(bytes), 0, DType::F32, &[2, 2])?;
    /// assert_eq!(t.as_array::<f32, ndarray::Ix2>()?[[1, 0]], 3.5);
    /// assert!(Tensor::from_external(Arc::new(vec![0u8; 7]), 0, DType::F32, &[2]).is_err());
    /// # Ok::<(), extype_core::Error>(())
    /// ```
    pub fn from_external(
        owner: Arc<dyn ExternalBytes>,
        offset: usize,
        dtype: DType,
        shape: &[usize],
    ) -> Result<Tensor> {
        external(owner, offset, dtype, shape).map_err(|message| {
            TensorError::Bytes {
                op: "from_external",
                message,
            }
            .into()
        })
    }
}

/// [`Tensor::from_external`], with the error as a message (the caller says where).
pub(crate) fn external(
    owner: Arc<dyn ExternalBytes>,
    offset: usize,
    dtype: DType,
    shape: &[usize],
) -> std::result::Result<Tensor, String> {
    try_external(owner, offset, dtype, shape)?.ok_or_else(|| {
        if cfg!(target_endian = "big") {
            "the bytes are little-endian and this machine is big-endian; copy them".into()
        } else {
            format!(
                "the bytes at offset {offset} are not aligned for {dtype} (their address must \
                 be a multiple of {})",
                dtype.size_of()
            )
        }
    })
}

/// [`external`], or `None` when the bytes cannot be viewed in place (not aligned for the dtype,
/// or a big-endian machine) and must be copied.
pub(crate) fn try_external(
    owner: Arc<dyn ExternalBytes>,
    offset: usize,
    dtype: DType,
    shape: &[usize],
) -> std::result::Result<Option<Tensor>, String> {
    let (len, nbytes) = sizes(dtype, shape)?;
    let all = owner.bytes();
    let bytes = offset
        .checked_add(nbytes)
        .and_then(|end| all.get(offset..end))
        .ok_or_else(|| {
            format!(
                "{nbytes} bytes of {dtype}{shape:?} from offset {offset} run past the end of the \
                 {} bytes given",
                all.len()
            )
        })?;
    if !viewable(bytes, dtype, shape)? {
        return Ok(None);
    }
    Ok(Some(Tensor::External(ExternalTensor {
        owner,
        offset,
        dtype,
        shape: shape.into(),
        len,
    })))
}

/// The element and byte counts of a `dtype` tensor of `shape`, checked as ndarray checks a
/// shape: the product of the non-zero dims, in bytes, fits in `isize` (so `[0, 2^63]`, zero
/// elements, is refused like `[1, 2^63]`: no array can have such an axis). The one shape check
/// of every tensor read from a file, copied or viewed in place.
pub(crate) fn checked_sizes(
    dtype: DType,
    shape: &[usize],
) -> std::result::Result<(usize, usize), String> {
    let nonzero = shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |n, &d| n.checked_mul(d));
    let nonzero_bytes = nonzero
        .and_then(|n| n.checked_mul(dtype.size_of()))
        .filter(|&b| b <= isize::MAX as usize);
    match (nonzero, nonzero_bytes) {
        (Some(n), Some(b)) if !shape.contains(&0) => Ok((n, b)),
        (Some(_), Some(_)) => Ok((0, 0)),
        _ => Err(format!(
            "shape {shape:?} of {dtype} is too many bytes: the byte count of its non-zero dims \
             overflows isize::MAX ({})",
            isize::MAX
        )),
    }
}

fn sizes(dtype: DType, shape: &[usize]) -> std::result::Result<(usize, usize), String> {
    checked_sizes(dtype, shape)
}

/// Whether `bytes`, which must be exactly a `dtype` tensor of `shape` (errors otherwise, and on
/// a bool byte other than 0 or 1), can be viewed in place: `false` when they are not aligned
/// for the dtype or the machine is big-endian.
fn viewable(bytes: &[u8], dtype: DType, shape: &[usize]) -> std::result::Result<bool, String> {
    let (_, nbytes) = sizes(dtype, shape)?;
    if nbytes != bytes.len() {
        return Err(format!(
            "{dtype}{shape:?} is {nbytes} bytes, found {}",
            bytes.len()
        ));
    }
    if dtype == DType::Bool
        && let Some((i, b)) = bad_bool(bytes)
    {
        return Err(format!(
            "element {i} of a bool tensor is the byte {b}, expected 0 or 1"
        ));
    }
    Ok(cfg!(target_endian = "little") && is_aligned(bytes, dtype))
}

/// A view of `bytes` as a `dtype` tensor of `shape`, in place; `None` when they are not aligned
/// for the dtype (or the machine is big-endian). Errors as `viewable`.
pub(crate) fn view_in_place<'a>(
    bytes: &'a [u8],
    dtype: DType,
    shape: &[usize],
) -> std::result::Result<Option<TensorView<'a>>, String> {
    if !viewable(bytes, dtype, shape)? {
        return Ok(None);
    }
    // SAFETY: `viewable` just returned true for these bytes, dtype and shape.
    Ok(Some(unsafe { view_unchecked(bytes, dtype, shape) }))
}

/// `bytes` viewed as a `dtype` tensor of `shape`.
///
/// # Safety
///
/// `viewable(bytes, dtype, shape)` returned `Ok(true)` for these bytes (the same address,
/// length and contents).
unsafe fn view_unchecked<'a>(bytes: &'a [u8], dtype: DType, shape: &[usize]) -> TensorView<'a> {
    fn typed<'a, T: Element>(bytes: &'a [u8], shape: &[usize]) -> TensorView<'a> {
        // SAFETY: by the caller's contract the bytes are aligned for `T`, are exactly
        // `product(shape)` elements of `T`, and hold valid `T`s (bools were checked to be 0 or
        // 1; every byte pattern is a valid integer or float, `half`'s floats included, which
        // are `repr(transparent)` over `u16`); they are borrowed for `'a`.
        let slice: &'a [T] = unsafe {
            std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), bytes.len() / size_of::<T>())
        };
        match ArrayViewD::from_shape(IxDyn(shape), slice) {
            Ok(view) => T::into_view(view),
            // `viewable` checked that the element count is the slice's and fits in `isize`.
            Err(_) => unreachable!("shape checked by viewable"),
        }
    }
    crate::with_element!(dtype, T => typed::<T>(bytes, shape))
}

/// Whether `bytes` start at an address aligned for `dtype`'s elements (a multiple of their
/// size, which is their alignment or stricter).
fn is_aligned(bytes: &[u8], dtype: DType) -> bool {
    (bytes.as_ptr() as usize).is_multiple_of(dtype.size_of())
}

#[cfg(test)]
mod tests {
    use ndarray::{ArrayD, Ix2, array};

    use super::*;

    fn le_bytes(xs: &[f32]) -> Vec<u8> {
        xs.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Bytes whose start is 8-aligned (a `Vec<u64>`'s buffer), holding `bytes` from `offset`.
    struct Aligned(Vec<u64>, usize);

    // SAFETY: the vector is never changed or moved after construction.
    unsafe impl ExternalBytes for Aligned {
        fn bytes(&self) -> &[u8] {
            // SAFETY: a `u64` buffer is `8 × len` initialized bytes; `u8` has alignment 1.
            unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast::<u8>(), self.1) }
        }
    }

    fn aligned(offset: usize, bytes: &[u8]) -> Arc<dyn ExternalBytes> {
        let n = offset + bytes.len();
        let mut words = vec![0u64; n.div_ceil(8)];
        // SAFETY: `words` has at least `n` bytes; writing bytes into integers is sound.
        let raw = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), n) };
        raw[offset..].copy_from_slice(bytes);
        Arc::new(Aligned(words, n))
    }

    #[test]
    fn views_in_place_and_equals_the_same_array() {
        let owner = aligned(8, &le_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
        let t = Tensor::from_external(Arc::clone(&owner), 8, DType::F32, &[2, 3]).unwrap();
        let expected = Tensor::from(array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        assert_eq!(t, expected);
        assert_eq!(expected, t);
        assert_eq!(
            (t.dtype(), t.shape(), t.len(), t.ndim()),
            (DType::F32, &[2usize, 3][..], 6, 2)
        );
        assert!(!t.is_unique());
        let view = t.as_array::<f32, Ix2>().unwrap();
        assert_eq!(view.as_ptr().cast::<u8>(), owner.bytes()[8..].as_ptr());
        // Out to an ndarray array: a copy, equal.
        let copy: ndarray::Array2<f32> = t.clone().into_array().unwrap();
        assert_ne!(copy.as_ptr(), view.as_ptr());
        assert_eq!(copy, view);
        assert!(t.clone().into_arc_array::<f64, IxDyn>().is_err());
        assert_eq!(
            t.as_arc_array::<f64>().unwrap_err().to_string(),
            "as_arc_array: expected dtype f64, found f32"
        );
        // Read out in row-major order, and one element of a one-element external tensor.
        assert_eq!(
            t.to_vec::<f32>().unwrap(),
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        );
        let one = Tensor::from_external(Arc::clone(&owner), 12, DType::F32, &[1, 1]).unwrap();
        assert_eq!(one.item::<f32>().unwrap(), 2.0);
        // A tensor's Debug is its text; the external part's own Debug names what it views.
        assert_eq!(format!("{t:?}"), t.to_string());
        // Clones share the owner.
        let Tensor::External(e) = &t else { panic!() };
        assert!(format!("{e:?}").contains("ExternalTensor"));
        let Tensor::External(c) = t.clone() else {
            panic!()
        };
        assert!(e.same_bytes(&c));
        assert_eq!(e.bytes().len(), 24);
    }

    #[test]
    fn rank_zero_zero_size_and_every_dtype() {
        let scalar = Tensor::from_external(aligned(0, &7i64.to_le_bytes()), 0, DType::I64, &[]);
        assert_eq!(scalar.unwrap(), Tensor::from(ndarray::arr0(7i64)));
        let empty = Tensor::from_external(aligned(0, &[]), 0, DType::F64, &[3, 0]).unwrap();
        assert_eq!(empty, Tensor::from(ArrayD::<f64>::zeros(vec![3, 0])));
        assert!(empty.is_empty());
        for dtype in DType::ALL {
            let n = dtype.size_of() * 2;
            let t = Tensor::from_external(aligned(0, &vec![1u8; n]), 0, dtype, &[2]).unwrap();
            assert_eq!((t.dtype(), t.shape()), (dtype, &[2usize][..]));
        }
    }

    #[test]
    fn bad_bytes_are_errors() {
        let msg = |owner: Arc<dyn ExternalBytes>, offset, dtype, shape: &[usize]| {
            Tensor::from_external(owner, offset, dtype, shape)
                .unwrap_err()
                .to_string()
        };
        let four = le_bytes(&[1.0, 2.0]);
        let text = msg(aligned(0, &four), 0, DType::F32, &[3]);
        assert!(text.starts_with("from_external: 12 bytes of f32[3] from offset 0 run past the end of the 8 bytes given"), "{text}");
        let text = msg(aligned(0, &four), usize::MAX, DType::F32, &[1]);
        assert!(text.contains("run past the end"), "{text}");
        let text = msg(aligned(1, &four), 1, DType::F32, &[2]);
        assert!(text.contains("not aligned for f32"), "{text}");
        let text = msg(aligned(0, &[0, 1, 2]), 0, DType::Bool, &[3]);
        assert!(
            text.contains("element 2 of a bool tensor is the byte 2"),
            "{text}"
        );
        let text = msg(aligned(0, &four), 0, DType::F32, &[usize::MAX, 2]);
        assert!(text.contains("too many bytes"), "{text}");
        let text = msg(aligned(0, &four), 0, DType::U8, &[usize::MAX / 2 + 2]);
        assert!(text.contains("too many bytes"), "{text}");
        // Zero elements, but a dim no array can have: refused here as ndarray would (it used to
        // pass, then reach an `unreachable!` on the first view).
        let text = msg(aligned(0, &four), 0, DType::U8, &[0, 1 << 63]);
        assert!(text.contains("too many bytes"), "{text}");
        let text = msg(aligned(0, &four), 0, DType::F32, &[1 << 62, 0]);
        assert!(text.contains("too many bytes"), "{text}");
        assert!(Tensor::from_external(Arc::new(vec![0u8; 4]), 0, DType::U8, &[0, 1 << 62]).is_ok());
        // Vec and boxed slices are owners too.
        let ok = Tensor::from_external(Arc::new(vec![1u8, 0, 1]), 0, DType::Bool, &[3]).unwrap();
        assert_eq!(ok, Tensor::from(array![true, false, true]));
        let boxed: Box<[u8]> = vec![5u8, 6].into_boxed_slice();
        let ok = Tensor::from_external(Arc::new(boxed), 1, DType::U8, &[1]).unwrap();
        assert_eq!(ok, Tensor::from(array![6u8]));
    }
}

//! Output sizes: every dense op computes its output's element count and byte size with checked
//! arithmetic, and refuses an output that cannot be allocated **before** allocating anything
//! proportional to it. The broadcasting kernels (binary elementwise ops, `where`) do this
//! themselves — they check the size and allocate the output fallibly — and their
//! [`KernelError::TooLarge`](extype_kernels::KernelError::TooLarge) becomes the same
//! [`DispatchError::OutputTooLarge`] as the checks here; every other op is checked here first.
//!
//! An output cannot be allocated when its element count or byte size overflows, when its byte
//! size exceeds [`MAX_BYTES`] (`isize::MAX`, the largest allocation Rust permits), or — for
//! outputs of at least [`PROBE_BYTES`] — when the allocator refuses a block of that size (Rust's
//! infallible allocation would abort the process there; the probe asks with a fallible
//! reservation and frees the block at once, untouched). Empty outputs always pass.

use crate::dtype::DType;
use crate::error::{DispatchError, Error, Result};

/// The largest byte size of one allocation: `isize::MAX` (Rust's limit; sizes beyond it are an
/// error wherever an output is built).
pub const MAX_BYTES: usize = isize::MAX as usize;

/// Outputs of at least this many bytes (256 MiB) are probed with a fallible reservation before
/// the op allocates them, so that a size the machine cannot provide is an error, not an abort.
pub const PROBE_BYTES: usize = 1 << 28;

/// The error for an output that cannot be allocated.
#[cold]
pub(crate) fn too_large(
    op: &str,
    shape: String,
    dtype: DType,
    expected: impl Into<String>,
    found: impl Into<String>,
) -> Error {
    DispatchError::OutputTooLarge {
        op: op.to_string(),
        shape,
        dtype,
        expected: expected.into(),
        found: found.into(),
    }
    .into()
}

/// Shape text for errors: `[2, 3]` (dims may be wider than `usize`).
pub(crate) fn shape_text<T: std::fmt::Display>(dims: impl IntoIterator<Item = T>) -> String {
    let mut out = String::from("[");
    for (i, d) in dims.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&d.to_string());
    }
    out.push(']');
    out
}

/// The element count of `dims` (0 when any dim is 0, even if the others overflow together),
/// or `None` when it overflows `usize`.
#[inline]
pub fn element_count(dims: &[usize]) -> Option<usize> {
    let mut n = 1usize;
    let mut overflow = false;
    for &d in dims {
        if d == 0 {
            return Some(0);
        }
        match n.checked_mul(d) {
            Some(m) => n = m,
            None => overflow = true,
        }
    }
    if overflow { None } else { Some(n) }
}

/// Checks that an output of shape `dims` and dtype `dtype` can be allocated (see the module
/// docs) on behalf of `op` (a name: an op, or an operation such as `to_value`); the error names
/// `op`, the shape, the dtype and the size. An empty output passes when its nonzero dims
/// multiply to at most `isize::MAX` (what any ndarray shape needs).
#[inline]
pub(crate) fn check_named(op: &str, dims: &[usize], dtype: DType) -> Result<()> {
    let mut nonzero = 1usize;
    let mut empty = false;
    for &d in dims {
        if d == 0 {
            empty = true;
        } else {
            match nonzero.checked_mul(d) {
                Some(n) => nonzero = n,
                None => return check_large(op, dims, dtype),
            }
        }
    }
    if nonzero > MAX_BYTES {
        return check_large(op, dims, dtype);
    }
    if empty {
        return Ok(());
    }
    match nonzero.checked_mul(dtype.size_of()) {
        Some(b) if b < PROBE_BYTES => Ok(()),
        _ => check_large(op, dims, dtype),
    }
}

#[cold]
fn check_large(op: &str, dims: &[usize], dtype: DType) -> Result<()> {
    // The exact sizes in u128 (which holds any product of two usizes; longer products may
    // saturate, which the message says).
    let nonzero = dims
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1u128, |acc, &d| acc.checked_mul(d as u128));
    if dims.contains(&0) {
        return match nonzero {
            Some(n) if n <= MAX_BYTES as u128 => Ok(()),
            _ => Err(too_large(
                op,
                shape_text(dims),
                dtype,
                format!("nonzero dims whose product is at most {MAX_BYTES} (isize::MAX)"),
                match nonzero {
                    Some(n) => format!("a product of {n}"),
                    None => format!("a product over {}", u128::MAX),
                },
            )),
        };
    }
    let bytes = nonzero.and_then(|n| n.checked_mul(dtype.size_of() as u128));
    match bytes {
        Some(b) if b <= MAX_BYTES as u128 => {
            if can_allocate(b as usize) {
                Ok(())
            } else {
                Err(too_large(
                    op,
                    shape_text(dims),
                    dtype,
                    "a size the allocator grants",
                    format!("{b} bytes, refused"),
                ))
            }
        }
        Some(b) => Err(too_large(
            op,
            shape_text(dims),
            dtype,
            format!("at most {MAX_BYTES} bytes (isize::MAX)"),
            format!("{b} bytes"),
        )),
        None => Err(too_large(
            op,
            shape_text(dims),
            dtype,
            format!("at most {MAX_BYTES} bytes (isize::MAX)"),
            format!("more than {} bytes", u128::MAX),
        )),
    }
}

/// Whether the allocator grants `bytes` (at most [`MAX_BYTES`]) now: a fallible reservation,
/// freed at once without touching it.
fn can_allocate(bytes: usize) -> bool {
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_shapes() {
        assert_eq!(element_count(&[]), Some(1));
        assert_eq!(element_count(&[usize::MAX, usize::MAX, 0]), Some(0));
        assert_eq!(element_count(&[1 << 40, 1 << 40]), None);
        assert_eq!(shape_text([1u128 << 70]), "[1180591620717411303424]");
    }
}

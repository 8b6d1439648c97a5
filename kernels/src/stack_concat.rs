//! `stack` (new axis) and `concat` (existing axis) of arrays of any layout into one
//! standard-layout array. Contiguous inputs joined along axis 0 are plain `memcpy`s.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};

use crate::elementwise::engine::{build_vec, or_alloc_error};
use crate::error::{KernelError, Result};
use crate::layout::{check_wide, normalize_axis};
use crate::parallel::{HUGE_PAGE_MIN_BYTES, use_parallel_output};
use crate::scalar::Scalar;

fn copy_into<T: Scalar>(
    dst: &mut ndarray::ArrayViewMutD<'_, std::mem::MaybeUninit<T>>,
    src: &ArrayViewD<'_, T>,
) {
    if let (Some(d), Some(s)) = (dst.as_slice_mut(), src.as_slice()) {
        for (d, &s) in d.iter_mut().zip(s) {
            d.write(s);
        }
    } else {
        src.assign_to(dst.view_mut());
    }
}

/// Joins `arrays` (all of one shape) along a new axis `axis` (`-ndim-1..=ndim`).
pub fn stack<T: Scalar>(axis: isize, arrays: &[ArrayViewD<'_, T>]) -> Result<ArrayD<T>> {
    const OP: &str = "stack";
    let Some(first) = arrays.first() else {
        return Err(KernelError::Argument {
            op: OP,
            arg: "arguments",
            expected: "at least 1 argument".into(),
            found: "0 arguments".into(),
        });
    };
    let ax = normalize_axis(OP, axis, first.ndim() + 1)?;
    for (i, a) in arrays.iter().enumerate() {
        if a.shape() != first.shape() {
            return Err(KernelError::Shape {
                op: OP,
                arg: format!("argument {i}"),
                expected: first.shape().to_vec(),
                found: a.shape().to_vec(),
            });
        }
    }
    check_wide::<T>(
        OP,
        (0..=first.ndim()).map(|k| match k.cmp(&ax) {
            std::cmp::Ordering::Less => first.shape()[k] as u128,
            std::cmp::Ordering::Equal => arrays.len() as u128,
            std::cmp::Ordering::Greater => first.shape()[k - 1] as u128,
        }),
    )?;
    // Stacked on a new axis preceded only by axes of length 1, standard-layout inputs are
    // consecutive runs of the output: skip building expanded views.
    if first.shape()[..ax].iter().all(|&d| d == 1) {
        let shape = |k: usize| match k.cmp(&ax) {
            std::cmp::Ordering::Less => first.shape()[k],
            std::cmp::Ordering::Equal => arrays.len(),
            std::cmp::Ordering::Greater => first.shape()[k - 1],
        };
        if let Some(out) = with_dims(first.ndim() + 1, shape, |s| concat_standard(arrays, s)) {
            return Ok(out);
        }
    }
    let expanded: Vec<ArrayViewD<'_, T>> = arrays
        .iter()
        .map(|a| a.clone().insert_axis(Axis(ax)))
        .collect();
    join(OP, ax, &expanded)
}

/// Joins `arrays` along existing axis `axis`; all other axes must agree.
pub fn concat<T: Scalar>(axis: isize, arrays: &[ArrayViewD<'_, T>]) -> Result<ArrayD<T>> {
    const OP: &str = "concat";
    let Some(first) = arrays.first() else {
        return Err(KernelError::Argument {
            op: OP,
            arg: "arguments",
            expected: "at least 1 argument".into(),
            found: "0 arguments".into(),
        });
    };
    if first.ndim() == 0 {
        return Err(KernelError::Argument {
            op: OP,
            arg: "argument 0",
            expected: "rank >= 1".into(),
            found: "a rank-0 array".into(),
        });
    }
    let ax = normalize_axis(OP, axis, first.ndim())?;
    for (i, a) in arrays.iter().enumerate() {
        let same_rank = a.ndim() == first.ndim();
        if !same_rank
            || a.shape()
                .iter()
                .zip(first.shape())
                .enumerate()
                .any(|(k, (x, y))| k != ax && x != y)
        {
            let mut expected = first.shape().to_vec();
            if same_rank {
                expected[ax] = a.shape()[ax];
            }
            return Err(KernelError::Shape {
                op: OP,
                arg: format!("argument {i}"),
                expected,
                found: a.shape().to_vec(),
            });
        }
    }
    join(OP, ax, arrays)
}

/// Calls `f` with a shape of `ndim` dimensions, dimension `k` being `dim(k)`, held on the
/// stack up to rank 8 (no heap allocation).
#[inline]
fn with_dims<R>(ndim: usize, dim: impl Fn(usize) -> usize, f: impl FnOnce(&[usize]) -> R) -> R {
    const INLINE: usize = 8;
    if ndim <= INLINE {
        let mut d = [0usize; INLINE];
        for (k, x) in d[..ndim].iter_mut().enumerate() {
            *x = dim(k);
        }
        f(&d[..ndim])
    } else {
        f(&(0..ndim).map(dim).collect::<Vec<_>>())
    }
}

/// The fast path of both joins: when every input is in standard layout and the output of
/// `shape` is their data back to back (joining along the leading axis), one `memcpy` per input
/// into the uninitialised output (no zero-fill, no per-element views); large outputs go
/// through [`concat_flat`] (huge pages, both cores). `None` when an input is not standard.
fn concat_standard<T: Scalar>(arrays: &[ArrayViewD<'_, T>], shape: &[usize]) -> Option<ArrayD<T>> {
    // One pass: every input standard (`as_slice` is `Some` exactly then), and the total.
    let mut total = 0;
    for a in arrays {
        total += a.as_slice()?.len();
    }
    debug_assert_eq!(
        total,
        shape.iter().product::<usize>(),
        "the callers checked the shapes"
    );
    let bytes = total * size_of::<T>();
    let v = if use_parallel_output(2 * bytes) || bytes >= HUGE_PAGE_MIN_BYTES {
        let slices: Vec<&[T]> = arrays.iter().filter_map(|a| a.as_slice()).collect();
        concat_flat(&slices, 2 * bytes)
    } else {
        let mut v: Vec<T> = Vec::with_capacity(total);
        let mut at = 0;
        for src in arrays.iter().filter_map(|a| a.as_slice()) {
            // SAFETY: `at + src.len() <= total` (the lengths sum to `total`), so the
            // destination lies in `v`'s capacity; `v` is a fresh allocation, so it cannot
            // overlap `src`. Copying `T: Copy` values bytewise is a valid initialisation.
            unsafe {
                std::ptr::copy_nonoverlapping(src.as_ptr(), v.as_mut_ptr().add(at), src.len())
            };
            at += src.len();
        }
        // SAFETY: elements `0..at` were written above, and `at == total` (every input is
        // standard, checked above, so none was skipped).
        unsafe { v.set_len(at) };
        v
    };
    debug_assert_eq!(v.len(), shape.iter().product::<usize>());
    Some(standard_from_vec(shape, v))
}

/// `v` as a standard-layout array of `shape`. Ranks 1 and 2 are built at static rank and
/// converted (cheaper than ndarray's dynamic-rank constructor, which derives the strides and
/// moves two dynamic shapes: a measurable part of a 4 Ki join).
#[inline]
fn standard_from_vec<T>(shape: &[usize], v: Vec<T>) -> ArrayD<T> {
    assert_eq!(
        v.len(),
        shape.iter().product::<usize>(),
        "shape of the joined data"
    );
    match *shape {
        [_] => ndarray::Array1::from_vec(v).into_dyn(),
        [rows, cols] => {
            // SAFETY: `v` holds exactly `rows * cols` elements (asserted above), which C-order
            // strides address exactly.
            unsafe { ndarray::Array2::from_shape_vec_unchecked((rows, cols), v) }.into_dyn()
        }
        // SAFETY: as above, for the C-order strides of `shape`.
        _ => unsafe { ArrayD::from_shape_vec_unchecked(IxDyn(shape), v) },
    }
}

/// Concatenates contiguous runs into one `Vec`, copying chunks in parallel when `bytes`
/// (read and written) is large.
fn concat_flat<T: Scalar>(parts: &[&[T]], bytes: usize) -> Vec<T> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut starts = Vec::with_capacity(parts.len());
    let mut at = 0;
    for p in parts {
        starts.push(at);
        at += p.len();
    }
    let out = build_vec(total, bytes, |start, dst| {
        let end = start + dst.len();
        for (p, &s) in parts.iter().zip(&starts) {
            let (lo, hi) = (s.max(start), (s + p.len()).min(end));
            if lo < hi {
                let src = &p[lo - s..hi - s];
                let out = &mut dst[lo - start..hi - start];
                // SAFETY: `src` and `out` have the same length `hi - lo`; `out` is part of the
                // output's spare capacity, so the two cannot overlap. `MaybeUninit<T>` has
                // `T`'s layout, so copying `T`s into it is a plain byte copy.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        src.as_ptr(),
                        out.as_mut_ptr().cast::<T>(),
                        src.len(),
                    )
                };
            }
        }
    });
    or_alloc_error::<_, T>(out, total)
}

/// Concatenates shape-checked arrays along `ax`.
fn join<T: Scalar>(op: &'static str, ax: usize, arrays: &[ArrayViewD<'_, T>]) -> Result<ArrayD<T>> {
    let first = arrays[0].shape();
    let wide: u128 = arrays.iter().map(|a| a.shape()[ax] as u128).sum();
    check_wide::<T>(
        op,
        (0..first.len()).map(|k| if k == ax { wide } else { first[k] as u128 }),
    )?;
    // Fits: the check above bounds it by isize::MAX.
    let total = wide as usize;
    let dim = |k: usize| if k == ax { total } else { first[k] };
    // Along the leading axis, standard-layout inputs are consecutive runs of the output.
    if first[..ax].iter().all(|&d| d == 1)
        && let Some(out) = with_dims(first.len(), dim, |s| concat_standard(arrays, s))
    {
        return Ok(out);
    }
    let shape = with_dims(first.len(), dim, IxDyn);
    let mut out = ArrayD::<T>::uninit(shape);
    let mut start = 0;
    for a in arrays {
        let len = a.shape()[ax];
        let mut dst = out.slice_axis_mut(Axis(ax), Slice::from(start..start + len));
        copy_into(&mut dst, a);
        start += len;
    }
    // SAFETY: the slices `start..start + len` along `ax` tile `0..shape[ax]` exactly (shape[ax]
    // is the sum of the lengths), and each was fully written by `copy_into`, whose shapes
    // match because every other axis was checked equal.
    Ok(unsafe { out.assume_init() })
}

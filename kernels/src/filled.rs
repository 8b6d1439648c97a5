//! Outputs that start as one value everywhere: [`filled`], `n` copies of a scalar, allocated
//! fallibly; a value whose bytes are all zero (`0`, `false`, `+0.0`) takes zeroed memory from
//! the allocator (`calloc`: fresh pages cost nothing until written), as `vec![0; n]` does.
//! Large outputs ask for huge pages before their first write ([`advise_huge_pages`]): a
//! scatter into a zeroed output otherwise faults once per 4 KiB page it touches.

use std::alloc::{Layout, alloc_zeroed};

use crate::error::Result;
use crate::layout::{check_output, refused};
use crate::parallel::advise_huge_pages;
use crate::scalar::Scalar;

mod sealed {
    /// Implemented here only: [`ZeroBits`](super::ZeroBits) promises that all-zero bytes are
    /// a value of the type, which the `unsafe` of [`filled`](super::filled) relies on.
    pub trait Sealed {}
}

/// The scalars whose all-zero bytes are a value (every element type of extype: `bool`, the
/// integers, the floats and the half floats; sealed, so no other type can claim it).
pub trait ZeroBits: Scalar + sealed::Sealed {
    /// Whether every byte of `self` is zero (`-0.0` is not: its sign bit is set).
    fn is_zero_bits(self) -> bool;
}

macro_rules! zero_bits {
    ($($t:ty => |$x:ident| $test:expr),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl ZeroBits for $t {
            #[inline]
            fn is_zero_bits(self) -> bool {
                let $x = self;
                $test
            }
        }
    )*};
}
zero_bits!(
    bool => |x| !x,
    i8 => |x| x == 0, i16 => |x| x == 0, i32 => |x| x == 0, i64 => |x| x == 0,
    u8 => |x| x == 0, u16 => |x| x == 0, u32 => |x| x == 0, u64 => |x| x == 0,
    f32 => |x| x.to_bits() == 0, f64 => |x| x.to_bits() == 0,
    half::f16 => |x| x.to_bits() == 0, half::bf16 => |x| x.to_bits() == 0,
);

/// `n` copies of `fill` (the output of `op`, for errors), zeroed by the allocator when `fill`'s
/// bytes are all zero. A size above `isize::MAX` bytes, or one the allocator refuses, is
/// [`KernelError::TooLarge`](crate::KernelError::TooLarge), never an abort.
///
/// ```
/// use extype_kernels::filled::filled;
/// assert_eq!(filled("to_dense", 3, 0.0f32)?, vec![0.0; 3]);
/// assert_eq!(filled("to_dense", 2, -0.0f64)?.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
///     vec![(-0.0f64).to_bits(); 2]);
/// assert!(filled("to_dense", usize::MAX, 1u8).is_err());
/// # Ok::<(), extype_kernels::KernelError>(())
/// ```
pub fn filled<T: ZeroBits>(op: &'static str, n: usize, fill: T) -> Result<Vec<T>> {
    check_output::<T>(op, &[n])?;
    if n == 0 || !fill.is_zero_bits() {
        let mut out = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| refused::<T>(op, &[n]))?;
        advise_huge_pages(out.spare_capacity_mut());
        out.resize(n, fill);
        return Ok(out);
    }
    // `check_output` bounded `n * size_of::<T>()` by `isize::MAX`.
    let layout = Layout::array::<T>(n).map_err(|_| refused::<T>(op, &[n]))?;
    // SAFETY: `layout` has a non-zero size (`n > 0`, and no `ZeroBits` type is zero-sized).
    let ptr = unsafe { alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return Err(refused::<T>(op, &[n]));
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `[T; n]` (what a
    // `Vec<T>` of capacity `n` frees with); all its bytes are zero, which is a value of `T`
    // (`ZeroBits`, sealed to the plain scalars above) equal to `fill` (its bytes are all zero,
    // checked above), so all `n` elements are initialised.
    let mut out = unsafe { Vec::from_raw_parts(ptr, n, n) };
    // Fresh zeroed pages are not backed until written: advising now decides how they will be.
    advise_huge_pages(&mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Zero and non-zero fills of every element type give `n` copies; `-0.0` keeps its sign.
    #[test]
    fn fills_every_type() {
        fn check<T: ZeroBits>(zero: T, other: T) {
            for n in [0, 1, 7, 1 << 20] {
                assert!(filled("t", n, zero).unwrap().iter().all(|&x| x == zero));
                assert!(filled("t", n, other).unwrap().iter().all(|&x| x == other));
            }
        }
        check(false, true);
        check(0i8, -1);
        check(0i16, 3);
        check(0i32, 3);
        check(0i64, i64::MIN);
        check(0u8, 9);
        check(0u16, 9);
        check(0u32, 9);
        check(0u64, 9);
        check(0.0f32, 1.5);
        check(0.0f64, 1.5);
        check(half::f16::ZERO, half::f16::ONE);
        check(half::bf16::ZERO, half::bf16::ONE);
        let neg = filled("t", 5, -0.0f32).unwrap();
        assert!(neg.iter().all(|x| x.to_bits() == (-0.0f32).to_bits()));
        assert!(!(-0.0f64).is_zero_bits() && 0.0f64.is_zero_bits());
    }

    /// Sizes no allocation can hold are errors naming the op, not aborts.
    #[test]
    fn too_large_is_an_error() {
        for n in [usize::MAX, usize::MAX / 4 + 1] {
            let e = filled("to_dense", n, 0u32).unwrap_err();
            assert!(
                e.to_string().starts_with("to_dense: output of shape"),
                "{e}"
            );
            let e = filled("to_dense", n, 1u32).unwrap_err();
            assert!(
                e.to_string().starts_with("to_dense: output of shape"),
                "{e}"
            );
        }
    }
}

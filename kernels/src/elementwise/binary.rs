//! Binary elementwise ops with NumPy broadcasting. Shapes that do not broadcast are a
//! [`KernelError::Shape`] naming the argument; an output that cannot be allocated (its size
//! overflows, exceeds `isize::MAX` bytes, or the allocator refuses it: outputs are allocated
//! fallibly) is a [`KernelError::TooLarge`] naming the op and the output shape. Results are
//! `IxDyn` (broadcasting may change the rank).

use ndarray::{ArrayBase, ArrayD, Data, Dimension};

use super::engine::{map2, probe, zip_repeat, zip_slices};
use crate::error::KernelError;
use crate::error::Result;
use crate::layout::{broadcast_shapes, broadcast_to, check_output, refused};
use crate::scalar::{Float, Num, Scalar};

/// Applies `f` elementwise to `a` and `b` broadcast together (NumPy rules).
pub fn zip_with<A, B, U, SA, DA, SB, DB, F>(
    op: &'static str,
    a: &ArrayBase<SA, DA>,
    b: &ArrayBase<SB, DB>,
    f: F,
) -> Result<ArrayD<U>>
where
    A: Scalar,
    B: Scalar,
    U: Send,
    SA: Data<Elem = A>,
    DA: Dimension,
    SB: Data<Elem = B>,
    DB: Dimension,
    F: Fn(A, B) -> U + Copy + Sync,
{
    if let (Some(sa), Some(sb), true) = (a.as_slice(), b.as_slice(), a.shape() == b.shape()) {
        // Same shape, standard layout: skip broadcasting and the dynamic-dimension views. The
        // output has as many elements as an input that exists, so only its allocation can fail.
        return match zip_slices(sa, sb, f) {
            Ok(v) => Ok(ArrayD::from_shape_vec(a.shape(), v).expect("length matches the shape")),
            Err(_) => Err(refused::<U>(op, a.shape())),
        };
    }
    if let (Some(sa), Some(sb)) = (a.as_slice(), b.as_slice()) {
        // The "bias" broadcast (`[n, k] + [k]`, either side): one operand's shape is a proper
        // suffix of the other's, both standard layout. Skip the broadcasting machinery.
        if a.ndim() > b.ndim() && a.shape().ends_with(b.shape()) && !sb.is_empty() {
            let v = zip_repeat(sa, sb, f).map_err(|_| refused::<U>(op, a.shape()))?;
            return Ok(ArrayD::from_shape_vec(a.shape(), v).expect("length matches the shape"));
        }
        if b.ndim() > a.ndim() && b.shape().ends_with(a.shape()) && !sa.is_empty() {
            let v = zip_repeat(sb, sa, move |y: B, x: A| f(x, y))
                .map_err(|_| refused::<U>(op, b.shape()))?;
            return Ok(ArrayD::from_shape_vec(b.shape(), v).expect("length matches the shape"));
        }
    }
    let (a, b) = (a.view().into_dyn(), b.view().into_dyn());
    let shape = broadcast_shapes(op, &[("argument 0", a.shape()), ("argument 1", b.shape())])?;
    check_output::<U>(op, &shape)?;
    let a = broadcast_to(op, "argument 0", &a, &shape)?;
    let b = broadcast_to(op, "argument 1", &b, &shape)?;
    map2(a, b, f).map_err(|_| refused::<U>(op, &shape))
}

macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident <$bound:ident> -> $out:ty, |$x:ident, $y:ident| $body:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name<T, SA, DA, SB, DB>(a: &ArrayBase<SA, DA>, b: &ArrayBase<SB, DB>) -> Result<ArrayD<$out>>
        where
            T: $bound,
            SA: Data<Elem = T>,
            DA: Dimension,
            SB: Data<Elem = T>,
            DB: Dimension,
        {
            zip_with(stringify!($name), a, b, |$x: T, $y: T| $body)
        }
    )*};
}

binary! {
    /// `a + b` (wrapping for integers).
    add<Num> -> T, |x, y| x.add_(y);
    /// `a - b` (wrapping for integers).
    sub<Num> -> T, |x, y| x.sub_(y);
    /// `a * b` (wrapping for integers).
    mul<Num> -> T, |x, y| x.mul_(y);
    /// True division `a / b` (NumPy's `/`): IEEE for floats; integers divide as `f64`.
    div<Num> -> T::Real, |x, y| x.to_real().div_(y.to_real());
    /// Elementwise maximum; NaN if either is NaN (NumPy's `maximum`).
    maximum<Num> -> T, |x, y| if x.is_nan_value() || x > y { x } else { y };
    /// Elementwise minimum; NaN if either is NaN (NumPy's `minimum`).
    minimum<Num> -> T, |x, y| if x.is_nan_value() || x < y { x } else { y };
    /// `a == b`.
    eq<Scalar> -> bool, |x, y| x == y;
    /// `a != b`.
    ne<Scalar> -> bool, |x, y| x != y;
    /// `a < b`.
    lt<Num> -> bool, |x, y| x < y;
    /// `a <= b`.
    le<Num> -> bool, |x, y| x <= y;
    /// `a > b`.
    gt<Num> -> bool, |x, y| x > y;
    /// `a >= b`.
    ge<Num> -> bool, |x, y| x >= y;
    /// Logical and of the truth values.
    logical_and<Scalar> -> bool, |x, y| x.is_nonzero() & y.is_nonzero();
    /// Logical or of the truth values.
    logical_or<Scalar> -> bool, |x, y| x.is_nonzero() | y.is_nonzero();
    /// Logical xor of the truth values.
    logical_xor<Scalar> -> bool, |x, y| x.is_nonzero() ^ y.is_nonzero();
}

/// `a ^ b`: IEEE `powf` for floats; for integers wrapping (as NumPy) with non-negative
/// exponents — a negative integer exponent is an error, as in NumPy.
pub fn pow<T, SA, DA, SB, DB>(a: &ArrayBase<SA, DA>, b: &ArrayBase<SB, DB>) -> Result<ArrayD<T>>
where
    T: Num,
    SA: Data<Elem = T>,
    DA: Dimension,
    SB: Data<Elem = T>,
    DB: Dimension,
{
    // The output size first: scanning the exponents of a huge broadcast view would not end.
    let shape = broadcast_shapes(
        "pow",
        &[("argument 0", a.shape()), ("argument 1", b.shape())],
    )?;
    check_output::<T>("pow", &shape)?;
    // An empty output uses no exponent (and `b`, broadcast to nothing, may be a huge view).
    let used = !shape.contains(&0);
    // A broadcast `b` has as many exponents to scan as the output has elements: refuse an
    // output the allocator cannot provide first (the size fits `usize`: checked above).
    if used && probe::<T>(shape.iter().product()).is_err() {
        return Err(refused::<T>("pow", &shape));
    }
    if let Some(bad) = b.iter().take_while(|_| used).find(|&&e| !T::exponent_ok(e)) {
        return Err(KernelError::Argument {
            op: "pow",
            arg: "argument 1",
            expected: "non-negative integer exponents".into(),
            found: format!("{bad:?}"),
        });
    }
    zip_with("pow", a, b, |x: T, y: T| x.pow_(y))
}

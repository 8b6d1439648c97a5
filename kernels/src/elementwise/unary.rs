//! Unary elementwise ops. The result has the input's shape and (for contiguous inputs of any
//! memory order) its memory order.

use ndarray::{Array, ArrayBase, Data, Dimension};

use super::engine::{map_slice, map1, or_alloc_error};
use crate::scalar::{Float, Num, Scalar};

/// Applies `f` elementwise (vectorised when `f` is simple enough for LLVM to vectorise).
pub fn map<T, U, S, D, F>(a: &ArrayBase<S, D>, f: F) -> Array<U, D>
where
    T: Scalar,
    U: Send,
    S: Data<Elem = T>,
    D: Dimension,
    F: Fn(T) -> U + Copy + Sync,
{
    if let Some(src) = a.as_slice() {
        // Standard layout: skip the dynamic-dimension machinery.
        let v = or_alloc_error::<_, U>(map_slice(src, f), src.len());
        return Array::from_shape_vec(a.raw_dim(), v).expect("length matches the shape");
    }
    or_alloc_error::<_, U>(map1(a.view().into_dyn(), f), a.len())
        .into_dimensionality::<D>()
        .expect("an elementwise map keeps the input's rank")
}

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident <$bound:ident> -> $out:ty, |$x:ident| $body:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name<T: $bound, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> Array<$out, D> {
            map(a, |$x: T| $body)
        }
    )*};
}

unary! {
    /// `-x` (wrapping for integers, as NumPy).
    neg<Num> -> T, |x| x.neg_();
    /// `|x|` (wrapping: `abs(i32::MIN) == i32::MIN`, as NumPy).
    abs<Num> -> T, |x| x.abs_();
    /// `e^x` (`f32`: vectorised polynomial, ≤ 2 ulp; `f64`: platform `exp`).
    exp<Float> -> T, |x| x.exp_();
    /// Natural logarithm.
    log<Float> -> T, |x| x.ln_();
    /// Square root.
    sqrt<Float> -> T, |x| x.sqrt_();
    /// Sine.
    sin<Float> -> T, |x| x.sin_();
    /// Cosine.
    cos<Float> -> T, |x| x.cos_();
    /// Hyperbolic tangent.
    tanh<Float> -> T, |x| x.tanh_();
    /// Logistic sigmoid `1 / (1 + e^-x)`.
    sigmoid<Float> -> T, |x| x.sigmoid_();
    /// Floor.
    floor<Float> -> T, |x| x.floor_();
    /// Ceiling.
    ceil<Float> -> T, |x| x.ceil_();
    /// Round half to even (NumPy's `round`).
    round<Float> -> T, |x| x.round_();
    /// Logical not: `x == 0`.
    logical_not<Scalar> -> bool, |x| !x.is_nonzero();
    /// Whether `x` is NaN (`false` for integers and bool).
    is_nan<Scalar> -> bool, |x| x.is_nan_value();
    /// Whether `x` is finite (`true` for integers and bool).
    is_finite<Scalar> -> bool, |x| x.is_finite_value();
}

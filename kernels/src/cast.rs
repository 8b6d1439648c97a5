//! Casts between dtypes. Float → integer truncates toward zero and saturates (NaN → 0), which
//! is Rust's `as`; NumPy leaves out-of-range casts undefined. Number → bool is `x != 0`;
//! bool → number is 0/1; integer → narrower integer wraps (NumPy's `astype`).

use ndarray::{Array, ArrayBase, Data, Dimension};

use crate::elementwise::unary::map;
use crate::scalar::Scalar;

/// Conversion of one element to another dtype.
pub trait CastTo<U>: Scalar {
    /// Converts `self` to `U`.
    fn cast(self) -> U;
}

macro_rules! num_casts {
    ($($from:ty),*) => {$(
        num_casts!(@to $from; f32, f64, i32, i64, u8, u64);
        impl CastTo<bool> for $from {
            #[inline(always)]
            fn cast(self) -> bool { self.is_nonzero() }
        }
        impl CastTo<$from> for bool {
            #[inline(always)]
            fn cast(self) -> $from { <$from as Scalar>::from_bool(self) }
        }
    )*};
    (@to $from:ty; $($to:ty),*) => {$(
        impl CastTo<$to> for $from {
            #[inline(always)]
            fn cast(self) -> $to { self as $to }
        }
    )*};
}
num_casts!(f32, f64, i32, i64, u8, u64);

impl CastTo<bool> for bool {
    #[inline(always)]
    fn cast(self) -> bool {
        self
    }
}

/// Converts every element of `a` to `U` (vectorised elementwise map).
pub fn cast<T: CastTo<U>, U: Scalar, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
) -> Array<U, D> {
    map(a, |x: T| x.cast())
}

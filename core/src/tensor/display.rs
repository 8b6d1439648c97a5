//! Text of tensors for people, like NumPy's: the dtype and shape as a spec prints them, then the
//! elements nested by axis (`f32[2, 3] [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]`); a rank-0 tensor
//! bare (`f64[] 4.0`); on any axis longer than `2 * EDGE` (six) entries, the first and last
//! three around `…`. [`write_nested`] writes the elements alone, optionally with a mask (`_`
//! where masked out): `Display` of [`Tensor`], [`TensorView`], extension values
//! ([`Value`](crate::value::Value)) and the library's `MaskedTensor` all print through it.
//! ndarray's own `Debug` remains available through `{:?}`.

use std::fmt;

use ndarray::{ArrayViewD, Axis};

use super::{Tensor, TensorView, each_variant};

/// Entries shown at each end of an axis longer than twice this: the middle prints as `…`.
const EDGE: usize = 3;

/// How one element prints: as its `Debug` (`1.0`, `-3`, `true`), a half-precision float with
/// the fewest digits that read back as it (`0.1`, `65500.0`, as NumPy prints `float16`), not the
/// digits of its `f32` value (`0.099975586`).
trait Show {
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

macro_rules! show_debug {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self, f)
            }
        }
    )*};
}
show_debug!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

macro_rules! show_half {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let x = self.to_f32();
                if x.is_finite() {
                    // At most 9 significant digits give back any f32, so any half float.
                    for digits in 1..9 {
                        let short: f32 = format!("{x:.*e}", digits - 1).parse().unwrap_or(x);
                        if <$t>::from_f32(short) == *self {
                            return fmt::Debug::fmt(&short.copysign(x), f);
                        }
                    }
                }
                fmt::Debug::fmt(&x, f)
            }
        }
    )*};
}
show_half!(half::f16, half::bf16);

impl fmt::Display for TensorView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:?} ", self.dtype(), self.shape())?;
        write_nested(self, None, f)
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.view(), f)
    }
}

/// Writes the elements of `view` nested by axis, without dtype or shape: `[[1, 2], [3, 4]]`, a
/// rank-0 view bare (`4.0`), the middle of an axis longer than six entries as `…`
/// (`[0, 1, 2, …, 7, 8, 9]`). With a `mask` (of the view's shape), an element whose mask entry
/// is `false` prints as `_`; a mask of another shape prints `<mask of shape [..] for values of
/// shape [..]>` instead of the elements (text for people never fails).
///
/// ```
/// use extype_core::{Tensor, tensor::write_nested};
/// use ndarray::array;
/// struct Masked(Tensor, ndarray::ArrayD<bool>);
/// impl std::fmt::Display for Masked {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write_nested(&self.0.view(), Some(self.1.view()), f)
///     }
/// }
/// let m = Masked(Tensor::from(array![[1i32, 2], [3, 4]].into_dyn()), array![[true, false], [true, true]].into_dyn());
/// assert_eq!(m.to_string(), "[[1, _], [3, 4]]");
/// ```
pub fn write_nested(
    view: &TensorView<'_>,
    mask: Option<ArrayViewD<'_, bool>>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    if let Some(m) = &mask
        && m.shape() != view.shape()
    {
        return write!(
            f,
            "<mask of shape {:?} for values of shape {:?}>",
            m.shape(),
            view.shape()
        );
    }
    each_variant!(TensorView, view, a => nested(a.view(), mask, f))
}

/// The entries along the leading axis, each a nested list (or an element), `_` where masked.
/// The mask, when given, has the values' shape (checked by [`write_nested`]).
fn nested<T: Show>(
    values: ArrayViewD<'_, T>,
    mask: Option<ArrayViewD<'_, bool>>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    if values.ndim() == 0 {
        let shown = mask.as_ref().is_none_or(|m| m.first() == Some(&true));
        return match values.first() {
            Some(v) if shown => v.show(f),
            _ => f.write_str("_"),
        };
    }
    let n = values.len_of(Axis(0));
    let elided = n > 2 * EDGE;
    f.write_str("[")?;
    // Only the entries shown are visited: an axis may be far longer than what prints (a
    // zero-size tensor of shape `[2^40, 0]` holds no data at all).
    let shown = if elided {
        (0..EDGE).chain(n - EDGE..n)
    } else {
        (0..n).chain(n..n)
    };
    for i in shown {
        if elided && i == n - EDGE {
            f.write_str(", …")?;
        }
        if i > 0 {
            f.write_str(", ")?;
        }
        let row_mask = mask.as_ref().map(|m| m.index_axis(Axis(0), i));
        nested(values.index_axis(Axis(0), i), row_mask, f)?;
    }
    f.write_str("]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{ArrayD, IxDyn, array};

    #[test]
    fn nests_by_shape() {
        let t = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[2, 3]), |i| {
            (i[0] * 3 + i[1]) as f32
        }));
        assert_eq!(
            t.to_string(),
            "f32[2, 3] [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]"
        );
        let v = Tensor::from(array![1u8, 2].into_dyn());
        assert_eq!(v.to_string(), "u8[2] [1, 2]");
        let cube = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[2, 1, 2]), |i| {
            (i[0] * 2 + i[2]) as i16
        }));
        assert_eq!(cube.to_string(), "i16[2, 1, 2] [[[0, 1]], [[2, 3]]]");
        // A transposed view prints in its logical (C) order.
        let t = array![[1i32, 2], [3, 4]].reversed_axes().into_dyn();
        assert_eq!(Tensor::from(t).to_string(), "i32[2, 2] [[1, 3], [2, 4]]");
    }

    #[test]
    fn scalars_are_bare_and_empty_axes_empty() {
        let scalar = Tensor::from(ArrayD::from_elem(IxDyn(&[]), 4.0f64));
        assert_eq!(scalar.to_string(), "f64[] 4.0");
        let flag = Tensor::from(ArrayD::from_elem(IxDyn(&[]), true));
        assert_eq!(flag.view().to_string(), "bool[] true");
        let empty = Tensor::from(ArrayD::<u8>::zeros(IxDyn(&[0, 4])));
        assert_eq!(empty.to_string(), "u8[0, 4] []");
        let rows = Tensor::from(ArrayD::<u8>::zeros(IxDyn(&[2, 0])));
        assert_eq!(rows.to_string(), "u8[2, 0] [[], []]");
    }

    #[test]
    fn half_floats_print_their_shortest_digits() {
        use half::{bf16, f16};
        let h = Tensor::from(array![
            f16::from_f32(0.1),
            f16::MAX,
            f16::NEG_ZERO,
            f16::NAN,
            f16::NEG_INFINITY,
            f16::from_bits(1)
        ]);
        // NumPy: [0.1, 65500.0, -0.0, nan, -inf, 6e-08] (its repr of float16).
        assert_eq!(
            h.to_string(),
            "f16[6] [0.1, 65500.0, -0.0, NaN, -inf, 6e-8]"
        );
        let b = Tensor::from(ndarray::arr0(bf16::from_f32(1.0 / 3.0)).into_dyn());
        // 0.333984375: the fewest digits that read back as it.
        assert_eq!(b.to_string(), "bf16[] 0.334");
    }

    #[test]
    fn long_axes_elide_their_middle() {
        let six = Tensor::from(array![1i64, 2, 3, 4, 5, 6].into_dyn());
        assert_eq!(six.to_string(), "i64[6] [1, 2, 3, 4, 5, 6]");
        let seven = Tensor::from(array![1i64, 2, 3, 4, 5, 6, 7].into_dyn());
        assert_eq!(seven.to_string(), "i64[7] [1, 2, 3, …, 5, 6, 7]");
        let tall = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[8, 2]), |i| i[0] as u32));
        assert_eq!(
            tall.to_string(),
            "u32[8, 2] [[0, 0], [1, 1], [2, 2], …, [5, 5], [6, 6], [7, 7]]"
        );
        // An axis of 2^40 entries that hold nothing prints at once (only shown rows visited).
        let empty = Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[1 << 40, 0])));
        assert_eq!(
            empty.to_string(),
            "f32[1099511627776, 0] [[], [], [], …, [], [], []]"
        );
    }

    /// Writes through [`write_nested`] with a mask.
    struct Masked<'a>(TensorView<'a>, ArrayViewD<'a, bool>);

    impl fmt::Display for Masked<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_nested(&self.0, Some(self.1.clone()), f)
        }
    }

    #[test]
    fn masked_entries_print_as_underscores_and_a_wrong_mask_is_named() {
        let values = array![[1.5f32, 2.0], [3.0, 4.0]].into_dyn();
        let mask = array![[true, false], [false, true]].into_dyn();
        let text = Masked(TensorView::from(values.view()), mask.view()).to_string();
        assert_eq!(text, "[[1.5, _], [_, 4.0]]");
        let scalar = ArrayD::from_elem(IxDyn(&[]), 7i8);
        let off = ArrayD::from_elem(IxDyn(&[]), false);
        let text = Masked(TensorView::from(scalar.view()), off.view()).to_string();
        assert_eq!(text, "_");
        let short = array![true].into_dyn();
        let text = Masked(TensorView::from(values.view()), short.view()).to_string();
        assert_eq!(text, "<mask of shape [1] for values of shape [2, 2]>");
    }
}

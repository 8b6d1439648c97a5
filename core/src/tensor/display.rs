//! Text of tensors for people, as NumPy prints arrays: the dtype and shape as a spec prints them,
//! then the elements nested by axis (`f32[2, 3] [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]`); a rank-0
//! tensor bare (`f64[] 4.0`). Every element prints while the tensor holds at most
//! [`PRINT_THRESHOLD`] (1000) elements; above that, NumPy's summary: on each axis longer than
//! `2 * EDGE_ITEMS`, the first and last [`EDGE_ITEMS`] (3) entries around `...`. Floats print the
//! shortest text that reads back as the same value of their own dtype. [`write_nested`] writes
//! the elements alone, optionally with a mask (`_` where masked out): `Display` and `Debug` of
//! [`Tensor`] and [`TensorView`], extension values ([`Value`](crate::value::Value)) and the
//! library's types all print through it.

use std::fmt;

use ndarray::{ArrayViewD, Axis};

use super::{Tensor, TensorView, each_variant};

/// A tensor of more elements than this prints summarised (NumPy's `threshold`, 1000): its long
/// axes show their first and last [`EDGE_ITEMS`] entries around `...`.
pub const PRINT_THRESHOLD: usize = 1000;

/// Entries shown at each end of an axis when a tensor prints summarised (NumPy's `edgeitems`, 3);
/// an axis of at most twice this many entries prints whole.
pub const EDGE_ITEMS: usize = 3;

/// Whether a tensor of `elements` elements prints summarised (more than [`PRINT_THRESHOLD`]).
///
/// ```
/// use extype_core::tensor::summarises;
/// assert!(!summarises(1000));
/// assert!(summarises(1001));
/// ```
pub fn summarises(elements: usize) -> bool {
    elements > PRINT_THRESHOLD
}

/// How one element prints: as its `Debug` (`1.0`, `-3`, `true`: Rust's shortest round trip
/// for `f32`/`f64`), a half-precision float by [`half_text`].
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

impl Show for half::f16 {
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&half_text(self.to_bits(), |b| {
            half::f16::from_bits(b).to_f64()
        }))
    }
}

impl Show for half::bf16 {
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&half_text(self.to_bits(), |b| {
            half::bf16::from_bits(b).to_f64()
        }))
    }
}

/// The text of the half-precision value of bits `bits` (`value` reads bits as `f64`, exactly;
/// the sign is bit 15 in both formats): the fewest significant digits that read back as the
/// same value, written as Rust writes floats (`0.334`, `6e-8`, `3.39e38`), except that no digit
/// of the integer part is left out: a stored 65536 prints `65536.0` (as TensorFlow prints a
/// `bfloat16`), not `65500.0`, which reads back as it too but is not what is stored.
/// Infinities and NaN print as Rust's.
///
/// "Reads back" is decided exactly, not by a conversion: the text, parsed as `f64` and as
/// `f32` (both correctly rounded), lies strictly between the midpoints to the neighbouring
/// values, so any correctly rounding reader gives the value back, ties never arising.
fn half_text(bits: u16, value: impl Fn(u16) -> f64) -> String {
    let (negative, magnitude) = (bits & 0x8000 != 0, bits & 0x7fff);
    let x = value(magnitude);
    let sign = if negative { "-" } else { "" };
    if !x.is_finite() || x == 0.0 {
        let x = if negative { -x } else { x };
        return format!("{x:?}");
    }
    // The interval of reals that round to `x`: halfway to each neighbour (above the largest
    // finite value, halfway to where the next would be).
    let below = value(magnitude - 1);
    let above = match value(magnitude + 1) {
        next if next.is_finite() => next,
        _ => x + (x - below),
    };
    let (low, high) = ((below + x) / 2.0, (x + above) / 2.0);
    let inside = |y: f64| low < y && y < high;
    // Rust writes floats of magnitude in [1e-4, 1e16) positionally (`f64`'s Debug): there the
    // integer part prints whole. (Half values reach 1e16 only as `bf16`, up to 3.4e38.)
    let integer_digits = if (1.0..1e16).contains(&x) {
        x.log10().floor() as usize + 1
    } else {
        1
    };
    // 17 significant digits give back any f64, so any half value (exact in f64).
    for digits in integer_digits..=17 {
        let text = format!("{x:.*e}", digits - 1);
        if let (Ok(wide), Ok(narrow)) = (text.parse::<f64>(), text.parse::<f32>())
            && inside(wide)
            && inside(f64::from(narrow))
        {
            return format!("{sign}{wide:?}");
        }
    }
    format!("{sign}{x:?}")
}

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

/// As `Display` (`f32[2] [1.0, 2.0]`): the elements, not the array's internals.
impl fmt::Debug for TensorView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// As `Display` (`f32[2] [1.0, 2.0]`): the elements, not the array's internals (a
/// [`Tensor::External`] prints its elements too).
///
/// ```
/// use extype_core::Tensor;
/// let t = Tensor::from(ndarray::array![[1.0f32, 2.0]]);
/// assert_eq!(format!("{t:?}"), "f32[1, 2] [[1.0, 2.0]]");
/// ```
impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.view(), f)
    }
}

/// Writes the elements of `view` nested by axis, without dtype or shape: `[[1, 2], [3, 4]]`, a
/// rank-0 view bare (`4.0`); when the view holds more than [`PRINT_THRESHOLD`] elements, each
/// axis longer than `2 * EDGE_ITEMS` shows its first and last three entries around `...`
/// (`[0, 1, 2, ..., 1997, 1998, 1999]`). With a `mask` (of the view's shape), an element whose
/// mask entry is `false` prints as `_`; a mask of another shape prints `<mask of shape [..] for
/// values of shape [..]>` instead of the elements (text for people never fails).
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
    let elements = each_variant!(TensorView, view, a => a.len());
    write_nested_summarised(view, mask, summarises(elements), f)
}

/// [`write_nested`], with the choice of summarising made by the caller: a value printed in
/// parts (the rows of a ragged tensor) summarises every part when the whole is over
/// [`PRINT_THRESHOLD`] elements ([`summarises`]).
///
/// ```
/// use extype_core::{Tensor, tensor::write_nested_summarised};
/// struct Short(Tensor);
/// impl std::fmt::Display for Short {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write_nested_summarised(&self.0.view(), None, true, f)
///     }
/// }
/// let t = Tensor::from(ndarray::Array1::from_iter(0..7i64));
/// assert_eq!(Short(t).to_string(), "[0, 1, 2, ..., 4, 5, 6]");
/// ```
pub fn write_nested_summarised(
    view: &TensorView<'_>,
    mask: Option<ArrayViewD<'_, bool>>,
    summarise: bool,
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
    each_variant!(TensorView, view, a => nested(a.view(), mask, summarise, f))
}

/// The positions shown of an axis of `n` entries: all, or when summarised and `n` is over
/// `2 * EDGE_ITEMS`, the first and last [`EDGE_ITEMS`], with the position before which `...`
/// goes. Only the entries shown are visited by the callers: an axis may be far longer than
/// what prints (a zero-size tensor of shape `[2^40, 0]` holds no data at all).
fn shown_entries(n: usize, summarise: bool) -> (impl Iterator<Item = usize>, Option<usize>) {
    if summarise && n > 2 * EDGE_ITEMS {
        (
            (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n),
            Some(n - EDGE_ITEMS),
        )
    } else {
        ((0..n).chain(n..n), None)
    }
}

/// The entries along the leading axis, each a nested list (or an element), `_` where masked.
/// The mask, when given, has the values' shape (checked by [`write_nested_summarised`]).
fn nested<T: Show>(
    values: ArrayViewD<'_, T>,
    mask: Option<ArrayViewD<'_, bool>>,
    summarise: bool,
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
    let (shown, gap) = shown_entries(n, summarise);
    f.write_str("[")?;
    for i in shown {
        if gap == Some(i) {
            f.write_str(", ...")?;
        }
        if i > 0 {
            f.write_str(", ")?;
        }
        let row_mask = mask.as_ref().map(|m| m.index_axis(Axis(0), i));
        nested(values.index_axis(Axis(0), i), row_mask, summarise, f)?;
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
        // NumPy: [0.1, 65500.0, -0.0, nan, -inf, 6e-08]; extype keeps the integer part whole
        // (65504 is stored).
        assert_eq!(
            h.to_string(),
            "f16[6] [0.1, 65504.0, -0.0, NaN, -inf, 6e-8]"
        );
        let b = Tensor::from(ndarray::arr0(bf16::from_f32(1.0 / 3.0)).into_dyn());
        // 0.333984375: the fewest digits that read back as it.
        assert_eq!(b.to_string(), "bf16[] 0.334");
        // TF prints a stored bfloat16 65536 as 65536 (65500 reads back as it too, but is not
        // what is stored); 1032 likewise (not 1030).
        let b = Tensor::from(array![
            bf16::from_f32(65536.0),
            bf16::from_f32(1032.0),
            bf16::MAX,
            bf16::from_f32(-2.5)
        ]);
        assert_eq!(b.to_string(), "bf16[4] [65536.0, 1032.0, 3.39e38, -2.5]");
    }

    /// The text of every finite half value, parsed back (as `f32` or `f64`, then converted), is
    /// that value, bit for bit. (From `f64` by the kernels' correctly rounded conversion:
    /// `half`'s software `from_f64`, which this workspace builds, rounds some values just
    /// above a midpoint down, e.g. `5.88e-5` to the `f16` below it.)
    #[test]
    fn every_finite_half_value_reads_back_from_its_text() {
        use half::{bf16, f16};
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            if h.is_finite() {
                let text = Tensor::from(ndarray::arr0(h).into_dyn()).to_string();
                let text = text.strip_prefix("f16[] ").unwrap();
                let back: f32 = text.parse().unwrap();
                assert_eq!(f16::from_f32(back).to_bits(), bits, "f16 {text}");
                let back: f64 = text.parse().unwrap();
                let wide = extype_kernels::cast::f16_from_f64(back);
                assert_eq!(wide.to_bits(), bits, "f16 {text}");
            }
            let b = bf16::from_bits(bits);
            if b.is_finite() {
                let text = Tensor::from(ndarray::arr0(b).into_dyn()).to_string();
                let text = text.strip_prefix("bf16[] ").unwrap();
                let back: f32 = text.parse().unwrap();
                assert_eq!(bf16::from_f32(back).to_bits(), bits, "bf16 {text}");
                let back: f64 = text.parse().unwrap();
                let wide = extype_kernels::cast::bf16_from_f64(back);
                assert_eq!(wide.to_bits(), bits, "bf16 {text}");
            }
        }
    }

    #[test]
    fn up_to_a_thousand_elements_print_whole() {
        let six = Tensor::from(array![1i64, 2, 3, 4, 5, 6].into_dyn());
        assert_eq!(six.to_string(), "i64[6] [1, 2, 3, 4, 5, 6]");
        let seven = Tensor::from(array![1i64, 2, 3, 4, 5, 6, 7].into_dyn());
        assert_eq!(seven.to_string(), "i64[7] [1, 2, 3, 4, 5, 6, 7]");
        let thousand = Tensor::from(ndarray::Array1::from_iter(0..1000u32));
        let text = thousand.to_string();
        assert!(!text.contains("..."), "{text}");
        let listed: Vec<u32> = text
            .strip_prefix("u32[1000] [")
            .and_then(|t| t.strip_suffix(']'))
            .unwrap()
            .split(", ")
            .map(|e| e.parse().unwrap())
            .collect();
        assert_eq!(listed, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn over_a_thousand_elements_show_three_edge_items_per_axis() {
        let long = Tensor::from(ndarray::Array1::from_iter(0..1001i64));
        assert_eq!(long.to_string(), "i64[1001] [0, 1, 2, ..., 998, 999, 1000]");
        // NumPy: np.arange(2000).reshape(1000, 2) prints the edge rows, each whole (2 <= 6).
        let tall = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[1000, 2]), |i| i[0] as u32));
        assert_eq!(
            tall.to_string(),
            "u32[1000, 2] [[0, 0], [1, 1], [2, 2], ..., [997, 997], [998, 998], [999, 999]]"
        );
        let wide = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[2, 7, 100]), |i| {
            (i[0] * 700 + i[1] * 100 + i[2]) as i32
        }));
        assert_eq!(
            wide.to_string(),
            "i32[2, 7, 100] [[[0, 1, 2, ..., 97, 98, 99], [100, 101, 102, ..., 197, 198, 199], \
             [200, 201, 202, ..., 297, 298, 299], ..., [400, 401, 402, ..., 497, 498, 499], \
             [500, 501, 502, ..., 597, 598, 599], [600, 601, 602, ..., 697, 698, 699]], \
             [[700, 701, 702, ..., 797, 798, 799], [800, 801, 802, ..., 897, 898, 899], \
             [900, 901, 902, ..., 997, 998, 999], ..., [1100, 1101, 1102, ..., 1197, 1198, 1199], \
             [1200, 1201, 1202, ..., 1297, 1298, 1299], [1300, 1301, 1302, ..., 1397, 1398, 1399]]]"
        );
        // An empty tensor holds no elements: it prints whole, and at once however long its
        // axes (only the entries shown are visited).
        let empty = Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[3, 0])));
        assert_eq!(empty.to_string(), "f32[3, 0] [[], [], []]");
        let huge = ArrayD::<f32>::zeros(IxDyn(&[1 << 40, 0]));
        struct Summarised<'a>(TensorView<'a>);
        impl fmt::Display for Summarised<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_nested_summarised(&self.0, None, true, f)
            }
        }
        let text = Summarised(TensorView::from(huge.view())).to_string();
        assert_eq!(text, "[[], [], [], ..., [], [], []]");
    }

    #[test]
    fn debug_is_the_text_not_the_array_internals() {
        let t = Tensor::from(ndarray::arr0(1.0f32).into_dyn());
        assert_eq!(format!("{t:?}"), "f32[] 1.0");
        assert_eq!(format!("{:?}", t.view()), "f32[] 1.0");
        let m = Tensor::from(array![[1u8, 2], [3, 4]]);
        assert_eq!(format!("{m:?}"), "u8[2, 2] [[1, 2], [3, 4]]");
        assert_eq!(format!("{:?}", Some(m)), "Some(u8[2, 2] [[1, 2], [3, 4]])");
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

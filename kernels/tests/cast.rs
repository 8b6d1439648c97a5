//! `cast` against a scalar reference written independently of the kernels and of `half`: every
//! conversion to and from the half-precision floats, on random values (uniform over the bit
//! patterns, so NaN, ±inf, subnormals and values beyond the formats' range come up), ties and
//! near-ties of the rounding, zero-size and rank-0 arrays and every layout (strided, reversed,
//! transposed, broadcast).

mod common;

use common::{LAYOUTS, Rng, make, shape};
use extype_kernels::Scalar;
use extype_kernels::cast::{CastTo, bf16_from_f64, cast, f16_from_f64};
use half::{bf16, f16};
use ndarray::ArrayD;

/// One of the two 16-bit formats, described by its bits only (the reference reads no `half`
/// conversion).
#[derive(Clone, Copy, Debug)]
struct Format {
    /// Mantissa bits (10 for f16, 7 for bf16).
    man: u32,
    /// Exponent bits (5, 8).
    exp: u32,
}

const F16: Format = Format { man: 10, exp: 5 };
const BF16: Format = Format { man: 7, exp: 8 };

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    fn max_finite(self) -> u16 {
        (((1u32 << self.exp) - 2) << self.man | ((1 << self.man) - 1)) as u16
    }
    fn inf(self) -> u16 {
        (((1u32 << self.exp) - 1) << self.man) as u16
    }

    /// The value of `bits` (IEEE decoding, by the formula).
    fn decode(self, bits: u16) -> f64 {
        let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = ((bits as u32) >> self.man) & ((1 << self.exp) - 1);
        let m = (bits as u32) & ((1 << self.man) - 1);
        let frac = m as f64 / (1u64 << self.man) as f64;
        if e == (1 << self.exp) - 1 {
            return if m == 0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        if e == 0 {
            return sign * frac * 2f64.powi(1 - self.bias());
        }
        sign * (1.0 + frac) * 2f64.powi(e as i32 - self.bias())
    }

    /// `x` rounded to this format: nearest, ties to the even bit pattern, beyond the largest
    /// finite value plus half an ulp to ±inf; NaN to some NaN (`None`: any NaN is right).
    fn round(self, x: f64) -> Option<u16> {
        if x.is_nan() {
            return None;
        }
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        let a = x.abs();
        let max = self.max_finite();
        // The positive finite values increase with their bits: binary search the last ≤ a.
        let (mut lo, mut hi) = (0u16, max);
        if a >= self.decode(max) {
            let top = self.decode(max);
            let limit = top + (top - self.decode(max - 1)) / 2.0; // exact: few bits
            // At the limit the tie goes to the even pattern: inf (max's last bit is 1).
            return Some(sign | if a < limit { max } else { self.inf() });
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.decode(mid) <= a {
                lo = mid
            } else {
                hi = mid
            }
        }
        // Now decode(lo) <= a < decode(hi), hi = lo + 1 (or lo = 0 = a).
        let (l, h) = (self.decode(lo), self.decode(hi));
        let midpoint = (l + h) / 2.0; // exact in f64: l and h have at most 11 bits
        let bits = if a < midpoint || a == l {
            lo
        } else if a > midpoint {
            hi
        } else if lo % 2 == 0 {
            lo
        } else {
            hi
        };
        Some(sign | bits)
    }
}

/// Whether `got` is what the reference says (`None`: a NaN).
fn agrees(format: Format, got: u16, want: Option<u16>) -> bool {
    match want {
        Some(w) => got == w,
        None => format.decode(got).is_nan(),
    }
}

/// `cast` of random arrays of `gen` values, in every layout, random shapes (rank 0 and
/// zero-size included), checked element by element by `check(input, output)`.
fn on_layouts<T: CastTo<U>, U: Scalar>(
    seed: u64,
    mut gen_value: impl FnMut(&mut Rng) -> T,
    check: impl Fn(T, U) -> bool,
) {
    let mut rng = Rng(seed);
    let mut shapes = vec![vec![], vec![0], vec![3, 0, 2], vec![1], vec![4097]];
    for _ in 0..40 {
        shapes.push(shape(&mut rng, 4, 9));
    }
    for s in &shapes {
        for layout in LAYOUTS {
            let made = make(layout, s, || gen_value(&mut rng));
            let view = made.view();
            let out: ArrayD<U> = cast(&view);
            assert_eq!(out.shape(), view.shape(), "{layout:?} {s:?}");
            for (x, y) in view.iter().zip(out.iter()) {
                assert!(check(*x, *y), "{layout:?} {s:?}: cast of {x:?} gave {y:?}");
            }
        }
    }
}

/// A random `f32`: uniform over the bit patterns half the time, else a value near the half
/// formats' scales (around their overflow and subnormal thresholds) or a special value.
fn any_f32(rng: &mut Rng) -> f32 {
    match rng.below(8) {
        0..=3 => f32::from_bits(rng.next_u64() as u32),
        4 => [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            65504.0,
            65520.0,
            65519.99,
        ][rng.below(8)],
        5 => (rng.unit() * 2.0 - 1.0) as f32 * 70000.0,
        6 => (rng.unit() as f32) * 2f32.powi(-(rng.below(140) as i32)),
        _ => rng.float(true) as f32,
    }
}

/// Ties and near-ties of `format`'s rounding, as `f64`: the midpoint between two neighbours,
/// and one `f64` or `f32` ulp either side (the double rounding through `f32` goes wrong there).
fn near_tie(rng: &mut Rng, format: Format) -> f64 {
    let bits = rng.below(format.max_finite() as usize) as u16;
    let (l, h) = (format.decode(bits), format.decode(bits + 1));
    let mid = (l + h) / 2.0;
    let sign = if rng.bool() { -1.0 } else { 1.0 };
    sign * match rng.below(5) {
        0 => mid,
        1 => f64::from_bits(mid.to_bits() + 1),
        2 => f64::from_bits(mid.to_bits().saturating_sub(1)),
        3 => mid + mid * 2f64.powi(-30),
        _ => mid - mid * 2f64.powi(-30),
    }
}

fn any_f64(rng: &mut Rng, format: Format) -> f64 {
    match rng.below(4) {
        0 => f64::from_bits(rng.next_u64()),
        1 => near_tie(rng, format),
        2 => (rng.unit() * 2.0 - 1.0) * 2f64.powi(rng.below(300) as i32 - 150),
        _ => rng.float(true),
    }
}

#[test]
fn floats_to_half_round_to_nearest_even() {
    on_layouts(1, any_f32, |x: f32, y: f16| {
        agrees(F16, y.to_bits(), F16.round(x as f64))
    });
    on_layouts(2, any_f32, |x: f32, y: bf16| {
        agrees(BF16, y.to_bits(), BF16.round(x as f64))
    });
    // From f64 rounded once, also at near-ties where rounding through f32 first is wrong.
    on_layouts(
        3,
        |r| any_f64(r, F16),
        |x: f64, y: f16| agrees(F16, y.to_bits(), F16.round(x)),
    );
    on_layouts(
        4,
        |r| any_f64(r, BF16),
        |x: f64, y: bf16| agrees(BF16, y.to_bits(), BF16.round(x)),
    );
    // A near-tie that double rounding through f32 gets wrong: 1 + 2^-11 + 2^-40 is above the
    // midpoint of 1 and 1 + 2^-10, so it rounds up; `as f32` drops the 2^-40 first (a tie, which
    // goes to the even 1.0).
    let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    assert_eq!(f16_from_f64(x), f16::from_bits(0x3c01));
    assert_eq!(
        f16::from_f32(x as f32),
        f16::ONE,
        "the double rounding it avoids"
    );
    let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
    assert_eq!(bf16_from_f64(x), bf16::from_bits(0x3f81));
}

#[test]
fn the_reference_is_right_on_known_values() {
    // Checks of the reference itself (against values from the IEEE tables, not `half`).
    assert_eq!(F16.decode(0x7bff), 65504.0);
    assert_eq!(F16.decode(0x0001), 2f64.powi(-24));
    assert_eq!(BF16.decode(0x7f7f), 3.3895313892515355e38);
    assert_eq!(F16.round(65519.0), Some(0x7bff));
    assert_eq!(F16.round(65520.0), Some(0x7c00));
    assert_eq!(F16.round(-1e9), Some(0xfc00));
    assert_eq!(F16.round(2f64.powi(-25)), Some(0x0000), "a tie to even: 0");
    assert_eq!(
        F16.round(3.0 * 2f64.powi(-25)),
        Some(0x0002),
        "a tie to even: 2"
    );
    assert_eq!(F16.round(1.0 / 3.0), Some(0x3555));
    assert_eq!(BF16.round(1.0 / 3.0), Some(0x3eab));
    assert_eq!(F16.round(f64::NAN), None);
}

#[test]
fn integers_to_half_through_f64() {
    // Exact in f64 (every i32/u8, i64/u64 up to 2^53), so rounded once.
    on_layouts(
        5,
        |r| r.next_u64() as i32 >> r.below(32),
        |x: i32, y: f16| agrees(F16, y.to_bits(), F16.round(x as f64)),
    );
    on_layouts(
        6,
        |r| r.next_u64() as i64 >> r.below(64),
        |x: i64, y: bf16| agrees(BF16, y.to_bits(), BF16.round(x as f64)),
    );
    on_layouts(
        7,
        |r| r.next_u64() as u8,
        |x: u8, y: bf16| agrees(BF16, y.to_bits(), BF16.round(x as f64)),
    );
    on_layouts(
        8,
        |r| r.next_u64() >> r.below(64),
        |x: u64, y: f16| agrees(F16, y.to_bits(), F16.round(x as f64)),
    );
    // The narrower and other integer widths too.
    on_layouts(
        20,
        |r| r.next_u64() as i16,
        |x: i16, y: f16| agrees(F16, y.to_bits(), F16.round(x as f64)),
    );
    on_layouts(
        21,
        |r| r.next_u64() as u32,
        |x: u32, y: bf16| agrees(BF16, y.to_bits(), BF16.round(x as f64)),
    );
    on_layouts(
        22,
        |r| r.next_u64() as i8,
        |x: i8, y: bf16| agrees(BF16, y.to_bits(), BF16.round(x as f64)),
    );
    on_layouts(
        23,
        |r| r.next_u64() as u16,
        |x: u16, y: f16| agrees(F16, y.to_bits(), F16.round(x as f64)),
    );
    // An integer just above a bf16 midpoint that `as f32` would round onto it (2^31 + 2^23 + 1).
    let x: bf16 = CastTo::cast((1i64 << 31) + (1 << 23) + 1);
    assert_eq!(x.to_f64(), 2f64.powi(31) + 2f64.powi(24));
    // bool: 0 and 1.
    on_layouts(
        9,
        |r| r.bool(),
        |x: bool, y: f16| y.to_bits() == if x { 0x3c00 } else { 0 },
    );
}

#[test]
fn half_to_other_dtypes() {
    let any16 = |r: &mut Rng| r.next_u64() as u16;
    // Widening: exact, as the formula decodes.
    on_layouts(
        10,
        move |r| f16::from_bits(any16(r)),
        |x: f16, y: f32| {
            let want = F16.decode(x.to_bits());
            (want.is_nan() && y.is_nan())
                || (y as f64 == want && y.is_sign_negative() == want.is_sign_negative())
        },
    );
    on_layouts(
        11,
        move |r| bf16::from_bits(any16(r)),
        |x: bf16, y: f64| {
            let want = BF16.decode(x.to_bits());
            (want.is_nan() && y.is_nan())
                || (y == want && y.is_sign_negative() == want.is_sign_negative())
        },
    );
    // To integers: truncated toward zero, saturated, NaN → 0 (Rust's `as`, as for f32).
    on_layouts(
        12,
        move |r| f16::from_bits(any16(r)),
        |x: f16, y: i32| y == F16.decode(x.to_bits()) as i32,
    );
    on_layouts(
        13,
        move |r| bf16::from_bits(any16(r)),
        |x: bf16, y: i64| y == BF16.decode(x.to_bits()) as i64,
    );
    on_layouts(
        14,
        move |r| bf16::from_bits(any16(r)),
        |x: bf16, y: u8| y == BF16.decode(x.to_bits()) as u8,
    );
    on_layouts(
        15,
        move |r| f16::from_bits(any16(r)),
        |x: f16, y: u64| y == F16.decode(x.to_bits()) as u64,
    );
    on_layouts(
        24,
        move |r| f16::from_bits(any16(r)),
        |x: f16, y: i8| y == F16.decode(x.to_bits()) as i8,
    );
    on_layouts(
        25,
        move |r| bf16::from_bits(any16(r)),
        |x: bf16, y: u16| y == BF16.decode(x.to_bits()) as u16,
    );
    // To bool: not ±0 (NaN is true).
    on_layouts(
        16,
        move |r| f16::from_bits(any16(r) & 0x8003),
        |x: f16, y: bool| y == (F16.decode(x.to_bits()) != 0.0 || F16.decode(x.to_bits()).is_nan()),
    );
    // Between the formats: exact to f32, then rounded once.
    on_layouts(
        17,
        move |r| f16::from_bits(any16(r)),
        |x: f16, y: bf16| agrees(BF16, y.to_bits(), BF16.round(F16.decode(x.to_bits()))),
    );
    on_layouts(
        18,
        move |r| bf16::from_bits(any16(r)),
        |x: bf16, y: f16| agrees(F16, y.to_bits(), F16.round(BF16.decode(x.to_bits()))),
    );
    // To itself: the same bits, NaN payloads included.
    on_layouts(
        19,
        move |r| f16::from_bits(any16(r)),
        |x: f16, y: f16| x.to_bits() == y.to_bits(),
    );
}

//! Shared test helpers: a tiny deterministic RNG, array layouts, and scalar references.
#![allow(dead_code)]

use std::sync::Mutex;

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};

/// Serialises tests that force an instruction set (the override is global).
pub static ISA_LOCK: Mutex<()> = Mutex::new(());

/// SplitMix64.
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// A float in [-8, 8), sometimes a special value when `specials`.
    pub fn float(&mut self, specials: bool) -> f64 {
        if specials {
            match self.below(40) {
                0 => return f64::NAN,
                1 => return f64::INFINITY,
                2 => return f64::NEG_INFINITY,
                3 => return 0.0,
                4 => return -0.0,
                _ => {}
            }
        }
        self.unit() * 16.0 - 8.0
    }
    pub fn bool(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
}

/// The layouts every kernel is tested on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Standard C order.
    C,
    /// Fortran order (a transposed C array).
    F,
    /// Sliced with step 2 along every axis.
    Stepped,
    /// Every axis reversed (negative strides).
    Reversed,
    /// Axes of length > 1 alternately broadcast from length 1 (zero strides).
    Broadcast,
}

pub const LAYOUTS: [Layout; 5] = [
    Layout::C,
    Layout::F,
    Layout::Stepped,
    Layout::Reversed,
    Layout::Broadcast,
];

/// An owned backing array plus the recipe to view it in `layout` with logical `shape`.
pub struct Made<T> {
    pub owner: ArrayD<T>,
    pub layout: Layout,
    pub shape: Vec<usize>,
}

impl<T: Clone> Made<T> {
    pub fn view(&self) -> ArrayViewD<'_, T> {
        match self.layout {
            Layout::C => self.owner.view(),
            Layout::F => self.owner.view().reversed_axes(),
            Layout::Stepped => self.owner.slice_each_axis(|_| Slice::new(0, None, 2)),
            Layout::Reversed => {
                let mut v = self.owner.view();
                for a in 0..v.ndim() {
                    v.invert_axis(Axis(a));
                }
                v
            }
            Layout::Broadcast => self.owner.broadcast(IxDyn(&self.shape)).unwrap(),
        }
    }
}

/// Builds data of logical `shape` in `layout`, filling with `gen`.
pub fn make<T: Clone>(layout: Layout, shape: &[usize], mut fill: impl FnMut() -> T) -> Made<T> {
    let backing: Vec<usize> = match layout {
        Layout::C | Layout::Reversed => shape.to_vec(),
        Layout::F => shape.iter().rev().copied().collect(),
        Layout::Stepped => shape.iter().map(|&d| 2 * d).collect(),
        Layout::Broadcast => shape
            .iter()
            .enumerate()
            .map(|(i, &d)| if i % 2 == 0 { 1 } else { d })
            .collect(),
    };
    let n: usize = backing.iter().product();
    let owner = ArrayD::from_shape_vec(IxDyn(&backing), (0..n).map(|_| fill()).collect()).unwrap();
    Made {
        owner,
        layout,
        shape: shape.to_vec(),
    }
}

/// A random shape of rank `0..=max_rank` with dims in `0..=max_dim` (dims are rarely 0).
pub fn shape(rng: &mut Rng, max_rank: usize, max_dim: usize) -> Vec<usize> {
    let rank = rng.below(max_rank + 1);
    (0..rank)
        .map(|_| {
            if rng.below(12) == 0 {
                0
            } else {
                1 + rng.below(max_dim)
            }
        })
        .collect()
}

/// Compensated (Neumaier) f64 sum: the reference for float sums.
pub fn ref_sum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut c, mut plain) = (0.0f64, 0.0f64, 0.0f64);
    for x in xs {
        plain += x;
        let t = s + x;
        c += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    // Non-finite sums (inf, NaN) are what plain IEEE addition says; compensation would NaN them.
    if !plain.is_finite() { plain } else { s + c }
}

/// Bitwise float equality that treats every NaN as equal.
pub fn same_f64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b
}

/// Whether `got` is within `rel` relative (of `scale`) of `want`, NaN/inf exact.
pub fn close(got: f64, want: f64, scale: f64, rel: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return want == got;
    }
    (got - want).abs() <= rel * scale.max(f64::MIN_POSITIVE)
}

//! The dtype rules an [`Op`](super::op::Op) carries: which dtypes it takes ([`DTypeSet`]), how
//! its arguments' dtypes relate ([`Operands`]), the dtype it returns ([`ResultDType`]) and, for a
//! reduction, what it folds an extent into ([`Fold`], with its identity). Plain data, below the op; the checks they drive are the op's methods
//! ([`Op::check_dtypes`](super::op::Op::check_dtypes),
//! [`Op::result_dtype`](super::op::Op::result_dtype)), run for calls and spec inference alike.
//! (The shape rule, [`InferRule`](super::op::InferRule), names the op in its custom form, so it
//! is defined beside [`Op`](super::op::Op).)

use std::fmt;

use crate::dtype::DType;
use crate::tensor::Fill;

/// A set of dtypes: a bitset over [`DType`], usable in `const` items.
///
/// Its `Display` is the wording errors use for "expected …":
///
/// ```
/// use extype_core::ops::DTypeSet;
/// use extype_core::DType;
/// assert_eq!(
///     DTypeSet::NUMERIC.to_string(),
///     "a numeric dtype (f16, bf16, f32, f64, i32, i64, u8, u64)"
/// );
/// assert_eq!(DTypeSet::FLOAT.to_string(), "a float dtype (f16, bf16, f32, f64)");
/// assert_eq!(
///     DTypeSet::KERNEL.to_string(),
///     "one of bool, f16, bf16, f32, f64, i32, i64, u8, u64"
/// );
/// assert!(DTypeSet::KERNEL.contains(DType::Bool) && !DTypeSet::NUMERIC.contains(DType::Bool));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DTypeSet(u16);

/// The order dtypes are listed in (floats, then signed, then unsigned integers).
const DISPLAY_ORDER: [DType; 13] = [
    DType::Bool,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
];

impl DTypeSet {
    /// No dtype.
    pub const EMPTY: DTypeSet = DTypeSet(0);
    /// `f16 bf16 f32 f64` (the half-precision floats computed in `f32`, rounded back).
    pub const FLOAT: DTypeSet = DTypeSet::of(&[DType::F16, DType::BF16, DType::F32, DType::F64]);
    /// The numeric dtypes the ops compute on: `f16 bf16 f32 f64 i32 i64 u8 u64` (the kernels
    /// compute on all but the half-precision floats, which the ops compute on in `f32`:
    /// converted, computed, rounded back to their dtype once).
    pub const NUMERIC: DTypeSet = DTypeSet::of(&[
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U64,
    ]);
    /// The dtypes of linear algebra (`matmul`): `f32 f64 i32 i64`.
    pub const LINALG: DTypeSet = DTypeSet::of(&[DType::F32, DType::F64, DType::I32, DType::I64]);
    /// Every dtype the kernels take: [`NUMERIC`](Self::NUMERIC) and `bool` (the kernels move,
    /// select, compare for equality, test and cast the half-precision floats themselves).
    pub const KERNEL: DTypeSet = DTypeSet::NUMERIC.with(DType::Bool);
    /// Every dtype (ops that only move data).
    pub const ALL: DTypeSet = DTypeSet::of(&DType::ALL);

    /// The set of these dtypes.
    pub const fn of(dtypes: &[DType]) -> DTypeSet {
        let mut bits = 0u16;
        let mut i = 0;
        while i < dtypes.len() {
            bits |= DTypeSet::bit(dtypes[i]);
            i += 1;
        }
        DTypeSet(bits)
    }

    const fn bit(d: DType) -> u16 {
        1 << d as u16
    }

    /// This set and `d`.
    pub const fn with(self, d: DType) -> DTypeSet {
        DTypeSet(self.0 | DTypeSet::bit(d))
    }

    /// Whether `d` is in the set.
    #[inline]
    pub const fn contains(self, d: DType) -> bool {
        self.0 & DTypeSet::bit(d) != 0
    }

    /// The number of dtypes in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The dtypes, in display order (`bool`, floats, signed, unsigned).
    pub fn iter(self) -> impl Iterator<Item = DType> {
        DISPLAY_ORDER.into_iter().filter(move |&d| self.contains(d))
    }
}

impl fmt::Display for DTypeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = || self.iter().map(DType::name).collect::<Vec<_>>().join(", ");
        match self.len() {
            0 => f.write_str("no dtype"),
            1 => write!(f, "dtype {}", list()),
            _ if self.iter().all(DType::is_float) => write!(f, "a float dtype ({})", list()),
            _ if !self.contains(DType::Bool) => write!(f, "a numeric dtype ({})", list()),
            _ => write!(f, "one of {}", list()),
        }
    }
}

impl fmt::Debug for DTypeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// How an op's argument dtypes relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Every argument has one dtype, in the op's [`DTypeSet`] (binary ops: no implicit
    /// promotion, `cast` first).
    Same,
    /// The argument at this index is a `bool` tensor playing this role (`where`'s condition,
    /// `boolean_mask`'s mask); the other arguments share one dtype, in the op's set.
    BoolAt(usize, &'static str),
}

/// The dtype an op returns, from the dtype of its data arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultDType {
    /// The input dtype.
    Same,
    /// `bool` (comparisons, logical ops, `is_nan`, `reduce_any`).
    Bool,
    /// Integers widen to 64 bits (`i32` → `i64`, `u8` → `u64`); floats keep theirs (sums and
    /// products; a half-precision sum is computed in `f32` and rounded to its dtype once, as
    /// NumPy and TensorFlow type a `float16` sum).
    Widen,
    /// `f64` for integers; floats keep theirs (means; `f16`/`bf16` computed in `f32`).
    FloatOfInts,
    /// `i64` (indices, counts, `shape`).
    I64,
    /// The dtype asked for in [`OpArgs::dtype`](super::args::OpArgs::dtype) (`cast`): any dtype.
    FromArgs,
    /// The dtype asked for in [`OpArgs::dtype`](super::args::OpArgs::dtype) when one is
    /// (`zeros_like`/`ones_like`, as TensorFlow's `dtype=`), the input dtype otherwise.
    FromArgsOrSame,
}

/// What a reduction folds an extent into: the op's meaning as data, read by the dense path's
/// callers and by every library type (a masked value's masked-out elements, a ragged value's
/// padding and empty rows), instead of each re-identifying the op by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fold {
    /// The sum (`reduce_sum`, `segment_sum`).
    Sum,
    /// The mean (`reduce_mean`, `segment_mean`).
    Mean,
    /// The product (`reduce_prod`).
    Prod,
    /// The maximum (`reduce_max`, `segment_max`).
    Max,
    /// The minimum (`reduce_min`, `segment_min`).
    Min,
    /// Whether any element is non-zero (`reduce_any`).
    Any,
    /// Whether every element is non-zero (`reduce_all`).
    All,
    /// The number of non-zero elements (`count_nonzero`).
    CountNonzero,
    /// The index of the first maximum (`argmax`).
    ArgMax,
    /// The index of the first minimum (`argmin`).
    ArgMin,
}

impl Fold {
    /// The element value that leaves the fold as it is, in the input's dtype: what masked-out
    /// and padding elements hold (sum, any and count: 0; product and all: 1; max and argmax: the
    /// lowest value, −∞ for floats; min and argmin: the highest). `None` for the mean, which
    /// counts every element it sees (pad its sum with [`Fold::Sum`]'s identity instead).
    ///
    /// ```
    /// use extype_core::ops::{catalog, rules::Fold};
    /// use extype_core::tensor::Fill;
    /// assert_eq!(catalog::REDUCE_MAX.fold(), Some(Fold::Max));
    /// assert_eq!(Fold::Max.identity(), Some(Fill::Lowest));
    /// assert_eq!(Fold::Mean.identity(), None);
    /// ```
    pub const fn identity(self) -> Option<Fill> {
        Some(match self {
            Fold::Sum | Fold::Any | Fold::CountNonzero => Fill::Zero,
            Fold::Prod | Fold::All => Fill::One,
            Fold::Max | Fold::ArgMax => Fill::Lowest,
            Fold::Min | Fold::ArgMin => Fill::Highest,
            Fold::Mean => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_display_todays_wording() {
        assert_eq!(
            DTypeSet::NUMERIC.to_string(),
            "a numeric dtype (f16, bf16, f32, f64, i32, i64, u8, u64)"
        );
        assert_eq!(
            DTypeSet::FLOAT.to_string(),
            "a float dtype (f16, bf16, f32, f64)"
        );
        assert_eq!(
            DTypeSet::KERNEL.to_string(),
            "one of bool, f16, bf16, f32, f64, i32, i64, u8, u64"
        );
        assert_eq!(DTypeSet::of(&[DType::Bool]).to_string(), "dtype bool");
        assert_eq!(DTypeSet::ALL.len(), 13);
        assert!(DTypeSet::EMPTY.is_empty());
        assert_eq!(
            format!("{:?}", DTypeSet::FLOAT),
            "{F16, BF16, F32, F64}",
            "Debug lists the dtypes"
        );
    }
}

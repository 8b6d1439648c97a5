//! The data a catalog entry carries besides its kernels: which dtypes it takes ([`DTypeSet`]),
//! how its arguments' dtypes relate ([`Operands`]), the dtype it returns ([`ResultDType`]) and how
//! its output shape is inferred ([`InferRule`]). The checks here run for calls and for spec
//! inference alike, so both refuse the same inputs with the same words.

use std::fmt;

use super::args::OpArgs;
use super::catalog::Op;
use super::operand::bad_argument;
use crate::dtype::DType;
use crate::error::{DispatchError, Result};
use crate::spec::TensorSpec;
use extype_shape::Shape;

/// A set of dtypes: a bitset over [`DType`], usable in `const` items.
///
/// Its `Display` is the wording errors use for "expected …":
///
/// ```
/// use extype_core::ops::DTypeSet;
/// use extype_core::DType;
/// assert_eq!(DTypeSet::NUMERIC.to_string(), "a numeric dtype (f32, f64, i32, i64, u8, u64)");
/// assert_eq!(DTypeSet::FLOAT.to_string(), "a float dtype (f32, f64)");
/// assert_eq!(DTypeSet::KERNEL.to_string(), "one of bool, f32, f64, i32, i64, u8, u64");
/// assert!(DTypeSet::KERNEL.contains(DType::Bool) && !DTypeSet::NUMERIC.contains(DType::Bool));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DTypeSet(u16);

/// The order dtypes are listed in (floats, then signed, then unsigned integers).
const DISPLAY_ORDER: [DType; 11] = [
    DType::Bool,
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
    /// `f32 f64`.
    pub const FLOAT: DTypeSet = DTypeSet::of(&[DType::F32, DType::F64]);
    /// The numeric dtypes the kernels take: `f32 f64 i32 i64 u8 u64`.
    pub const NUMERIC: DTypeSet = DTypeSet::of(&[
        DType::F32,
        DType::F64,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U64,
    ]);
    /// Every dtype the kernels take: [`NUMERIC`](Self::NUMERIC) and `bool`.
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
    /// products).
    Widen,
    /// `f64` for integers; floats keep theirs (means).
    FloatOfInts,
    /// `i64` (indices, counts, `shape`).
    I64,
    /// The dtype asked for in [`OpArgs::dtype`] (`cast`), one the kernels take.
    FromArgs,
}

/// An op-specific shape rule: the output shape from the input specs (dtypes already checked).
pub type ShapeFn = fn(&Op, &[&TensorSpec], &OpArgs) -> Result<Shape>;

/// How an op's output shape is inferred from its input specs.
#[derive(Debug, Clone, Copy)]
pub enum InferRule {
    /// The shape of argument 0 (unary elementwise ops, `cast`, `zeros_like`).
    Same,
    /// Every argument broadcast together (binary elementwise ops, `where`), with the runtime
    /// checks that make the result true.
    Broadcast,
    /// Argument 0 reduced over [`OpArgs::axes`] (with [`OpArgs::keepdims`]).
    Reduce,
    /// An op-specific rule (`reshape`, `concat`, `gather`, …).
    Custom(ShapeFn),
    /// None: a handler must supply inference (user ops of kind `other`).
    None,
}

impl Op {
    /// Checks that `n` arguments fit the op's arity: the one arity check, run where a call or an
    /// inference enters (dispatch, the dense default, dense spec inference).
    #[inline]
    pub fn check_arity(&self, n: usize) -> Result<()> {
        if self.arity().admits(n) {
            Ok(())
        } else {
            Err(arity_error(self, n))
        }
    }

    /// Checks the dtypes of `n` arguments (`dtype_of(i)` is argument `i`'s) against the op's
    /// [`Operands`] and [`DTypeSet`], and returns the dtype of its data arguments. The arity is
    /// checked already.
    ///
    /// Errors, in this order: a role argument that is not `bool`; a data argument whose dtype
    /// differs from the first one's; a dtype outside the set.
    pub fn check_dtypes(&self, n: usize, dtype_of: impl Fn(usize) -> DType) -> Result<DType> {
        let (first, role) = match self.operands() {
            Operands::Same => (0, None),
            Operands::BoolAt(at, what) => {
                let d = dtype_of(at);
                if d != DType::Bool {
                    return Err(bad_argument(
                        self.name(),
                        format!("argument {at}"),
                        format!("dtype bool ({what})"),
                        format!("dtype {d}"),
                    ));
                }
                (usize::from(at == 0), Some(at))
            }
        };
        let d = dtype_of(first);
        for i in (first + 1..n).filter(|&i| Some(i) != role) {
            let e = dtype_of(i);
            if e != d {
                return Err(bad_argument(
                    self.name(),
                    format!("argument {i}"),
                    format!("dtype {d} (the dtype of argument {first}; cast first)"),
                    format!("dtype {e}"),
                ));
            }
        }
        if !self.dtypes().contains(d) {
            return Err(bad_argument(
                self.name(),
                format!("argument {first}"),
                self.dtypes().to_string(),
                format!("dtype {d}"),
            ));
        }
        Ok(d)
    }

    /// The dtype the op returns for data arguments of dtype `d` (see [`ResultDType`]).
    pub fn result_dtype(&self, d: DType, args: &OpArgs) -> Result<DType> {
        Ok(match self.result_rule() {
            ResultDType::Same => d,
            ResultDType::Bool => DType::Bool,
            ResultDType::Widen => match d {
                DType::I8 | DType::I16 | DType::I32 => DType::I64,
                DType::U8 | DType::U16 | DType::U32 => DType::U64,
                other => other,
            },
            ResultDType::FloatOfInts if d.is_float() => d,
            ResultDType::FloatOfInts => DType::F64,
            ResultDType::I64 => DType::I64,
            ResultDType::FromArgs => {
                let to = args.dtype.ok_or_else(|| missing(self, "dtype"))?;
                if !DTypeSet::KERNEL.contains(to) {
                    return Err(bad_argument(
                        self.name(),
                        "dtype",
                        DTypeSet::KERNEL.to_string(),
                        format!("dtype {to}"),
                    ));
                }
                to
            }
        })
    }
}

#[cold]
fn arity_error(op: &Op, n: usize) -> crate::error::Error {
    DispatchError::Arity {
        op: op.name().to_string(),
        expected: op.arity().arguments(),
        found: n,
    }
    .into()
}

/// The error for an extra argument the op needs and `OpArgs` lacks.
pub(crate) fn missing(op: &Op, what: &str) -> crate::error::Error {
    bad_argument(op.name(), what, format!("`{what}` in OpArgs"), "nothing")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_display_todays_wording() {
        assert_eq!(
            DTypeSet::NUMERIC.to_string(),
            "a numeric dtype (f32, f64, i32, i64, u8, u64)"
        );
        assert_eq!(DTypeSet::FLOAT.to_string(), "a float dtype (f32, f64)");
        assert_eq!(
            DTypeSet::KERNEL.to_string(),
            "one of bool, f32, f64, i32, i64, u8, u64"
        );
        assert_eq!(DTypeSet::of(&[DType::Bool]).to_string(), "dtype bool");
        assert_eq!(DTypeSet::ALL.len(), 11);
        assert!(DTypeSet::EMPTY.is_empty());
        assert_eq!(
            format!("{:?}", DTypeSet::FLOAT),
            "{F32, F64}",
            "Debug lists the dtypes"
        );
    }
}

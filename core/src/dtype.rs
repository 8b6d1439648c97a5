//! Element types of tensors: [`DType`], its names and sizes.
//!
//! The bottom of core: it imports nothing from the crate. The scalar types that map to a dtype
//! (the `Element` trait) live with the tensors they build, in [`crate::tensor`].

use std::fmt;
use std::str::FromStr;

/// The element type of a tensor.
///
/// The text form (Display and FromStr agree) is the lowercase Rust name: `bool`, `i8` … `u64`,
/// `f32`, `f64`, and `f16` / `bf16` for the half-precision floats, whose Rust types are
/// `half::f16` and `half::bf16` (the [`half`](https://docs.rs/half) crate, re-exported as
/// `extype::half`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`
    Bool,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `f16`: IEEE 754 half precision (`half::f16`; 11 bits of precision, up to 65504).
    F16,
    /// `bf16`: bfloat16 (`half::bf16`; `f32`'s range with 8 bits of precision).
    BF16,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 13] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
    ];

    /// The text name (`"f32"`), the same as the Rust scalar type.
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
        }
    }

    /// The largest [`size_of`](Self::size_of) of any dtype (8 bytes).
    pub const MAX_SIZE: usize = 8;

    /// Size of one element in bytes.
    pub const fn size_of(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 => 8,
        }
    }

    /// Whether this is a floating-point dtype (`f16`, `bf16`, `f32`, `f64`).
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// Whether this is a half-precision float (`f16`, `bf16`): the ops compute on it in `f32`
    /// (convert, compute, round back) where the kernels have no half-precision path.
    pub const fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = ParseDTypeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DType::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| ParseDTypeError {
                // A bounded excerpt: an error about a huge input stays short.
                found: match s.char_indices().nth(40) {
                    Some((cut, _)) => format!("{}…", &s[..cut]),
                    None => s.to_string(),
                },
            })
    }
}

/// A dtype name that is not one of [`DType::ALL`] (from `"f8".parse::<DType>()`).
///
/// Converts into the crate's `Error` (as `SpecError::UnknownDType`, same message), so `?` works
/// in functions returning `extype::Result`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseDTypeError {
    /// The text that is not a dtype name.
    pub found: String,
}

impl fmt::Display for ParseDTypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown dtype {:?}; known dtypes: ", self.found)?;
        for (i, d) in DType::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(d.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseDTypeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_size_is_the_widest_dtype() {
        assert_eq!(
            DType::ALL.iter().map(|d| d.size_of()).max(),
            Some(DType::MAX_SIZE)
        );
    }

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(d.to_string().parse::<DType>().unwrap(), d);
        }
        let err = "f8".parse::<DType>().unwrap_err().to_string();
        assert!(err.contains("f8") && err.contains("f32"), "{err}");
        assert_eq!("f16".parse::<DType>(), Ok(DType::F16));
        assert_eq!("bf16".parse::<DType>(), Ok(DType::BF16));
        assert!(
            err.contains("bf16"),
            "the known list names the half floats: {err}"
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(DType::U16.size_of(), 2);
        assert_eq!(DType::F64.size_of(), 8);
        assert_eq!(DType::F16.size_of(), 2);
        assert_eq!(DType::BF16.size_of(), 2);
        assert!(DType::BF16.is_float() && DType::F16.is_half() && !DType::F32.is_half());
    }
}

//! [`TensorSpec`]: the static type of one tensor (partial shape + dtype).

use std::fmt;
use std::str::FromStr;

use super::{Tensor, TensorView};
use crate::dtype::DType;
use crate::error::{Error, Result, SpecError};
use extype_shape::{Dim, Shape};

/// The static type of a tensor: a partial [`Shape`] and a [`DType`].
///
/// `Eq`/`Hash` are strict (`f32[8, 3] != f32[?, 3]`); [`is_compatible_with`](Self::is_compatible_with)
/// is the loose relation and [`most_specific_compatible`](Self::most_specific_compatible) the
/// relaxation. Display: `f32[8, ?]`.
///
/// ```
/// use extype_core::{DType, Shape, TensorSpec};
/// let a = TensorSpec::new(Shape::known(&[8, 3]), DType::F32);
/// let b = TensorSpec::new("[8, 5]".parse().unwrap(), DType::F32);
/// assert!(!a.is_compatible_with(&b));
/// assert_eq!(a.most_specific_compatible(&b).unwrap().to_string(), "f32[8, !1]");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TensorSpec {
    /// The partial shape.
    pub shape: Shape,
    /// The element type.
    pub dtype: DType,
}

impl TensorSpec {
    /// A spec from its parts.
    #[inline]
    pub fn new(shape: Shape, dtype: DType) -> Self {
        TensorSpec { shape, dtype }
    }

    /// The exact spec of a tensor (fully known shape).
    #[inline]
    pub fn from_tensor(tensor: &Tensor) -> Self {
        TensorSpec::from_shape_dtype(tensor.shape(), tensor.dtype())
    }

    /// The exact spec of a view.
    #[inline]
    pub fn from_view(view: &TensorView<'_>) -> Self {
        TensorSpec::from_shape_dtype(view.shape(), view.dtype())
    }

    /// The exact spec of a concrete shape and dtype.
    #[inline]
    pub fn from_shape_dtype(shape: &[usize], dtype: DType) -> Self {
        TensorSpec {
            shape: Shape::from_dims(shape.iter().map(|&n| Dim::Known(n))),
            dtype,
        }
    }

    /// Loose, symmetric compatibility: same dtype and compatible shapes.
    #[inline]
    pub fn is_compatible_with(&self, other: &TensorSpec) -> bool {
        self.dtype == other.dtype && self.shape.is_compatible_with(&other.shape)
    }

    /// Whether a concrete tensor fits this spec (same dtype, shape admitted).
    #[inline]
    pub fn admits(&self, tensor: &Tensor) -> bool {
        self.dtype == tensor.dtype() && self.shape.admits(tensor.shape())
    }

    /// Whether a view fits this spec (same dtype, shape admitted).
    #[inline]
    pub fn admits_view(&self, view: &TensorView<'_>) -> bool {
        self.dtype == view.dtype() && self.shape.admits(view.shape())
    }

    /// The most specific spec compatible with both (shapes relaxed); `None` if the dtypes differ.
    #[inline]
    pub fn most_specific_compatible(&self, other: &TensorSpec) -> Option<TensorSpec> {
        (self.dtype == other.dtype).then(|| TensorSpec {
            shape: self.shape.most_specific_compatible(&other.shape),
            dtype: self.dtype,
        })
    }

    /// Whether every tensor admitted by `self` is admitted by `other`.
    pub fn is_at_least_as_specific_as(&self, other: &TensorSpec) -> bool {
        self.dtype == other.dtype && self.shape.is_at_least_as_specific_as(&other.shape)
    }
}

impl FromStr for TensorSpec {
    type Err = Error;

    /// Parses the Display form: a dtype then a shape, `f32[8, ?]` or `i64*`.
    fn from_str(text: &str) -> Result<Self> {
        let text = text.trim();
        let Some(split) = text.find(['[', '*']) else {
            return Err(SpecError::Data {
                path: String::new(),
                expected: "a tensor spec like `f32[8, ?]`".into(),
                found: format!("{text:?}"),
            }
            .into());
        };
        Ok(TensorSpec {
            dtype: text[..split].trim_end().parse()?,
            shape: text[split..].parse()?,
        })
    }
}

impl fmt::Display for TensorSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.dtype, self.shape)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use ndarray::array;

    use super::*;

    #[test]
    fn from_tensor_and_admits() {
        let t = Tensor::from(array![[1.0f64, 2.0]]);
        let s = TensorSpec::from_tensor(&t);
        assert_eq!(s.to_string(), "f64[1, 2]");
        assert!(s.admits(&t));
        assert!(s.admits_view(&t.view()));
        let loose = TensorSpec::new("[?, !1]".parse().unwrap(), DType::F64);
        assert!(loose.admits(&t));
        assert!(!TensorSpec::new("[?, 1]".parse().unwrap(), DType::F64).admits(&t));
        assert!(!TensorSpec::new("[1, 2]".parse().unwrap(), DType::F32).admits(&t));
        assert!(s.is_at_least_as_specific_as(&loose));
    }

    #[test]
    fn text_form_round_trips() {
        for text in ["f32[8, ?, !1]", "bool[]", "u64*"] {
            assert_eq!(text.parse::<TensorSpec>().unwrap().to_string(), text);
        }
        assert!("f8[2]".parse::<TensorSpec>().is_err());
        let half: TensorSpec = "bf16[2, ?]".parse().unwrap();
        assert_eq!(half.dtype, DType::BF16);
        assert_eq!(half.to_string(), "bf16[2, ?]");
        assert!("f32[2".parse::<TensorSpec>().is_err());
        let err = "f32".parse::<TensorSpec>().unwrap_err().to_string();
        assert!(err.contains("a tensor spec like"), "{err}");
    }

    #[test]
    fn strict_eq_loose_compat() {
        let a = TensorSpec::new("[8, 3]".parse().unwrap(), DType::F32);
        let b = TensorSpec::new("[?, 3]".parse().unwrap(), DType::F32);
        assert_ne!(a, b);
        assert!(a.is_compatible_with(&b) && b.is_compatible_with(&a));
        let set: HashSet<_> = [a.clone(), b.clone(), a.clone()].into_iter().collect();
        assert_eq!(set.len(), 2);
        let c = TensorSpec::new("[8, 3]".parse().unwrap(), DType::I32);
        assert!(!a.is_compatible_with(&c));
        assert_eq!(a.most_specific_compatible(&c), None);
        assert_eq!(a.most_specific_compatible(&b), Some(b.clone()));
        let d = TensorSpec::new("[8]".parse().unwrap(), DType::F32);
        assert_eq!(a.most_specific_compatible(&d).unwrap().to_string(), "f32*");
    }
}

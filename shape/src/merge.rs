//! The operations on [`Shape`]s that can fail or read [`Symbols`]: the meet
//! ([`Shape::merge_with`], [`Shape::merge_with_symbols`]) and the compatibility it decides, the
//! rank requirements (`with_rank*`), and [`Symbols::apply`]. Kept apart from `partial.rs` so that
//! the order of the crate's files runs one way: dims, shapes, errors (which hold both), symbol
//! tables, then this file.

use crate::dim::DimVec;
use crate::error::ShapeError;
use crate::partial::Shape;
use crate::symbols::{Symbols, merge_dims};

impl Shape {
    /// Whether some concrete shape satisfies both. Symmetric and reflexive, not transitive;
    /// unknown rank is compatible with everything.
    pub fn is_compatible_with(&self, other: &Shape) -> bool {
        if self.has_symbols() || other.has_symbols() {
            // Symbols tie axes together: compatible exactly when the merge succeeds.
            return self.merge_with(other).is_ok();
        }
        match (self.dims(), other.dims()) {
            (Some(a), Some(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.is_compatible_with(*b))
            }
            _ => true,
        }
    }

    /// The meet: the shape carrying the knowledge of both. Fails where they conflict.
    ///
    /// ```
    /// use extype_shape::Shape;
    /// let a: Shape = "[?, 3]".parse().unwrap();
    /// assert_eq!(a.merge_with(&"[8, ?]".parse().unwrap()).unwrap().to_string(), "[8, 3]");
    /// assert!(a.merge_with(&"[8, 4]".parse().unwrap()).is_err());
    /// ```
    pub fn merge_with(&self, other: &Shape) -> Result<Shape, ShapeError> {
        if self.has_symbols() || other.has_symbols() {
            return self.merge_with_symbols(other, &mut Symbols::new());
        }
        let (a, b) = match (self.dims(), other.dims()) {
            (None, _) => return Ok(other.clone()),
            (_, None) => return Ok(self.clone()),
            (Some(a), Some(b)) => (a, b),
        };
        if a.len() != b.len() {
            return Err(self.conflict("merge_with", other, None));
        }
        let mut dims = DimVec::with_capacity(a.len());
        for (axis, (x, y)) in a.iter().zip(b).enumerate() {
            match x.merge_with(*y) {
                Some(d) => dims.push(d),
                None => return Err(self.conflict("merge_with", other, Some(axis))),
            }
        }
        Ok(Shape::from_normalized(dims))
    }

    /// The meet under symbol bindings: like [`merge_with`](Self::merge_with), reading what
    /// `symbols` knows and recording the bindings the merge makes (`$n` meeting `3` binds
    /// `$n = 3`, and every `$n` of the result is then `3`). On error `symbols` may hold bindings
    /// made before the conflict was found.
    ///
    /// ```
    /// use extype_shape::{Shape, Symbols};
    /// let a: Shape = "[$n, $m]".parse().unwrap();
    /// let mut symbols = Symbols::new();
    /// let m = a.merge_with_symbols(&"[$m, !1]".parse().unwrap(), &mut symbols).unwrap();
    /// assert_eq!(m.to_string(), "[$m!1, $m!1]");
    /// assert_eq!(symbols.to_string(), "{$n = $m, $m = $m!1}");
    /// ```
    pub fn merge_with_symbols(
        &self,
        other: &Shape,
        symbols: &mut Symbols,
    ) -> Result<Shape, ShapeError> {
        for shape in [self, other] {
            if symbols
                .note_not_ones(shape.dims().unwrap_or_default())
                .is_err()
            {
                return Err(self.conflict("merge_with", other, None));
            }
        }
        match (self.dims(), other.dims()) {
            (None, None) => Ok(Shape::unknown_rank()),
            (None, Some(_)) => Ok(symbols.apply(other)),
            (Some(_), None) => Ok(symbols.apply(self)),
            (Some(a), Some(b)) if a.len() != b.len() => {
                Err(self.conflict("merge_with", other, None))
            }
            (Some(a), Some(b)) => match merge_dims(a, b, symbols) {
                Ok(dims) => Ok(Shape::from_dims(dims)),
                Err(axis) => Err(self.conflict("merge_with", other, Some(axis))),
            },
        }
    }

    /// This shape, required to have rank `rank`: unknown rank becomes `rank` unknown dims.
    pub fn with_rank(&self, rank: usize) -> Result<Shape, ShapeError> {
        match self.rank() {
            None => Ok(Shape::unknown(rank)),
            Some(r) if r == rank => Ok(self.clone()),
            Some(_) => Err(ShapeError::Rank {
                op: "with_rank",
                expected: rank.to_string(),
                found: Box::new(self.clone()),
            }),
        }
    }

    /// This shape, required to have rank at least `rank`. Unknown rank stays unknown.
    pub fn with_rank_at_least(&self, rank: usize) -> Result<Shape, ShapeError> {
        match self.rank() {
            Some(r) if r < rank => Err(ShapeError::Rank {
                op: "with_rank_at_least",
                expected: format!("at least {rank}"),
                found: Box::new(self.clone()),
            }),
            _ => Ok(self.clone()),
        }
    }

    /// This shape, required to have rank at most `rank`. Unknown rank stays unknown.
    pub fn with_rank_at_most(&self, rank: usize) -> Result<Shape, ShapeError> {
        match self.rank() {
            Some(r) if r > rank => Err(ShapeError::Rank {
                op: "with_rank_at_most",
                expected: format!("at most {rank}"),
                found: Box::new(self.clone()),
            }),
            _ => Ok(self.clone()),
        }
    }

    fn conflict(&self, op: &'static str, other: &Shape, axis: Option<usize>) -> ShapeError {
        ShapeError::Incompatible {
            op,
            left: Box::new(self.clone()),
            right: Box::new(other.clone()),
            axis,
            left_dim: axis.and_then(|a| self.dim(a)),
            right_dim: axis.and_then(|a| other.dim(a)),
        }
    }
}

impl Symbols {
    /// `shape` with every bound symbol replaced by what it stands for.
    pub fn apply(&self, shape: &Shape) -> Shape {
        match shape.dims() {
            None => Shape::unknown_rank(),
            Some(dims) if self.is_empty() => Shape::from_dims(dims.iter().copied()),
            Some(dims) => Shape::from_dims(dims.iter().map(|&d| self.resolve(d))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Shape {
        text.parse().unwrap()
    }

    // Cases from the docstrings of TensorFlow's TensorShape.
    #[test]
    fn tf_compatibility_docstring() {
        assert!(s("*").is_compatible_with(&s("[32, 784]")));
        assert!(s("[32, ?]").is_compatible_with(&s("[32, 784]")));
        assert!(s("[?, 784]").is_compatible_with(&s("[32, 784]")));
        assert!(!s("[32, 784]").is_compatible_with(&s("[32, 784, ?]")));
        assert!(!s("[32, 784]").is_compatible_with(&s("[32, 10]")));
        // Not transitive: [32, ?] ~ [?, ?] ~ [16, ?], but not [32, ?] ~ [16, ?].
        assert!(s("[32, ?]").is_compatible_with(&s("[?, ?]")));
        assert!(s("[?, ?]").is_compatible_with(&s("[16, ?]")));
        assert!(!s("[32, ?]").is_compatible_with(&s("[16, ?]")));
    }

    #[test]
    fn merge_and_rank() {
        assert_eq!(s("[?, 3]").merge_with(&s("[8, ?]")).unwrap(), s("[8, 3]"));
        assert_eq!(s("*").merge_with(&s("[8, ?]")).unwrap(), s("[8, ?]"));
        assert_eq!(s("[!1]").merge_with(&s("[5]")).unwrap(), s("[5]"));
        let err = s("[!1, 2]").merge_with(&s("[1, 2]")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "merge_with: shapes [!1, 2] and [1, 2] are incompatible at axis 0 (!1 vs 1)"
        );
        let err = s("[1]").merge_with(&s("[1, 2]")).unwrap_err();
        assert!(err.to_string().ends_with("(ranks differ)"), "{err}");
        assert_eq!(s("*").with_rank(2).unwrap(), s("[?, ?]"));
        assert!(s("[1, 2]").with_rank(3).is_err());
        assert!(s("[1, 2]").with_rank_at_least(3).is_err());
        assert!(s("[1, 2]").with_rank_at_most(1).is_err());
        assert_eq!(s("[1, 2]").with_rank_at_least(2).unwrap(), s("[1, 2]"));
    }
}

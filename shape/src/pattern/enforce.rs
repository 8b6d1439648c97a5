//! Matching a concrete shape against a [`ShapePattern`] (the Array API `enforce_shape`).

use std::ops::Range;
use std::sync::Arc;

use smallvec::SmallVec;

use super::{
    Bindings, DimBinding, Origin, PatternDim, SegmentBinding, ShapePattern, segment_expected,
    segment_rank_expected,
};
use crate::dim::Dim;
use crate::error::{ArgRef, ShapeError};
use crate::partial::Shape;

/// What one pattern item matched in a concrete shape.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EnforcedDim {
    /// A single axis (a size, a name, `_` or `#name`) had this size.
    Size(usize),
    /// The variadic segment covered these axes of the shape (`&shape[axes]` are their sizes),
    /// which hold `elements` elements in all (1 for an empty segment).
    Segment {
        /// The axes of the shape the segment covered.
        axes: Range<usize>,
        /// The product of their sizes.
        elements: usize,
    },
}

/// The result of [`ShapePattern::enforce`]: one entry per pattern item, and the names bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enforced {
    /// One entry per pattern item, in order (the segment counting as one).
    pub dims: SmallVec<[EnforcedDim; 4]>,
    /// The sizes bound to the pattern's names.
    pub bindings: Bindings,
}

/// Parses `pattern` and enforces it on a concrete shape, like the Array API's
/// `enforce_shape(x, pattern)`.
///
/// ```
/// use extype_shape::{EnforcedDim, enforce_shape};
/// // `x, [d1, d2, (axes, n_elements), d3] = xp.enforce_shape(x, [1, None, ..., 3])`
/// let got = enforce_shape(&[1, 7, 2, 5, 3], "1 _ ... 3").unwrap();
/// assert_eq!(got.dims[..2], [EnforcedDim::Size(1), EnforcedDim::Size(7)]);
/// assert_eq!(got.dims[2], EnforcedDim::Segment { axes: 2..4, elements: 10 });
/// assert_eq!(got.dims[3], EnforcedDim::Size(3));
///
/// let got = enforce_shape(&[4, 8, 3], "b n 3").unwrap();
/// assert_eq!(got.bindings.get("n"), Some(8));
/// let err = enforce_shape(&[4, 8, 2], "b n 3").unwrap_err();
/// assert_eq!(err.to_string(), "enforce_shape: argument 0 axis 2: expected 3, found 2");
/// ```
pub fn enforce_shape(shape: &[usize], pattern: &str) -> Result<Enforced, ShapeError> {
    ShapePattern::parse(pattern)?.enforce(shape)
}

impl ShapePattern {
    /// Matches a concrete shape, with no names bound beforehand.
    pub fn enforce(&self, shape: &[usize]) -> Result<Enforced, ShapeError> {
        let mut bindings = Bindings::new();
        let dims = self.enforce_with(shape, &mut bindings)?;
        Ok(Enforced { dims, bindings })
    }

    /// Matches a concrete shape, reading and extending `bindings` (names bound earlier must match).
    /// On error `bindings` is left as it was.
    ///
    /// ```
    /// use extype_shape::{Bindings, ShapePattern};
    /// // `x, [d1, d2, d3] = xp.enforce_shape(x, [d1_input, None, 4])`
    /// let mut bindings = Bindings::new();
    /// bindings.bind("d1_input", 5).unwrap();
    /// let pattern: ShapePattern = "d1_input _ 4".parse().unwrap();
    /// assert!(pattern.enforce_with(&[5, 9, 4], &mut bindings).is_ok());
    /// let err = pattern.enforce_with(&[6, 9, 4], &mut bindings).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "enforce_shape: argument 0 axis 0: expected d1_input = 5 (bound by the caller), found 6"
    /// );
    /// ```
    pub fn enforce_with(
        &self,
        shape: &[usize],
        bindings: &mut Bindings,
    ) -> Result<SmallVec<[EnforcedDim; 4]>, ShapeError> {
        self.enforce_as(&ArgRef::Index(0), shape, bindings)
    }

    /// Like [`enforce_with`](Self::enforce_with), naming the shape `arg` in errors and bindings.
    pub fn enforce_as(
        &self,
        arg: &ArgRef,
        shape: &[usize],
        bindings: &mut Bindings,
    ) -> Result<SmallVec<[EnforcedDim; 4]>, ShapeError> {
        self.enforce_in("enforce_shape", arg, shape, bindings)
    }

    /// [`enforce_as`](Self::enforce_as) on behalf of the operation `op` (named in errors).
    pub(crate) fn enforce_in(
        &self,
        op: &'static str,
        arg: &ArgRef,
        shape: &[usize],
        bindings: &mut Bindings,
    ) -> Result<SmallVec<[EnforcedDim; 4]>, ShapeError> {
        let fixed = self.fixed_rank();
        let rank_ok = match self.variadic {
            None => shape.len() == fixed,
            Some(_) => shape.len() >= fixed,
        };
        if !rank_ok {
            return Err(ShapeError::ArgRank {
                op,
                arg: arg.clone(),
                expected: self.rank_text(),
                found: Box::new(Shape::known(shape)),
            });
        }
        let mark = bindings.mark();
        let result = self.match_items(op, arg, shape, shape.len() - fixed, bindings);
        if result.is_err() {
            bindings.reset(mark);
        }
        result
    }

    fn match_items(
        &self,
        op: &'static str,
        arg: &ArgRef,
        shape: &[usize],
        segment_len: usize,
        bindings: &mut Bindings,
    ) -> Result<SmallVec<[EnforcedDim; 4]>, ShapeError> {
        let mut out = SmallVec::with_capacity(self.items.len());
        let mut axis = 0;
        for item in &self.items {
            if let PatternDim::Variadic(name) = item {
                let axes = axis..axis + segment_len;
                let sizes = &shape[axes.clone()];
                if let Some(name) = name {
                    match_segment(op, arg, shape, axes.clone(), name, self, bindings)?;
                }
                out.push(EnforcedDim::Segment {
                    elements: element_count(sizes).ok_or_else(|| ShapeError::Overflow {
                        op,
                        arg: arg.clone(),
                    })?,
                    axes,
                });
                axis += segment_len;
                continue;
            }
            let found = shape[axis];
            match item {
                PatternDim::Size(n) if found != *n => {
                    return Err(mismatch(op, arg, axis, n.to_string(), found));
                }
                PatternDim::Name(name) => {
                    bind_or_match(op, arg, axis, found, name, false, bindings)?;
                }
                PatternDim::Broadcastable(name) if found != 1 => {
                    bind_or_match(op, arg, axis, found, name, true, bindings)?;
                }
                _ => {}
            }
            out.push(EnforcedDim::Size(found));
            axis += 1;
        }
        Ok(out)
    }
}

/// The product of `sizes`; 0 if any is 0 (even if the others would overflow), `None` on overflow.
pub(crate) fn element_count(sizes: &[usize]) -> Option<usize> {
    if sizes.contains(&0) {
        return Some(0);
    }
    sizes.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n))
}

fn mismatch(
    op: &'static str,
    arg: &ArgRef,
    axis: usize,
    expected: String,
    found: usize,
) -> ShapeError {
    ShapeError::Mismatch {
        op,
        arg: arg.clone(),
        axis,
        expected,
        found: Dim::Known(found),
    }
}

fn bind_or_match(
    op: &'static str,
    arg: &ArgRef,
    axis: usize,
    found: usize,
    name: &Arc<str>,
    broadcastable: bool,
    bindings: &mut Bindings,
) -> Result<(), ShapeError> {
    match bindings.dim_binding(name) {
        Some(b) if b.size == found => Ok(()),
        Some(b) => {
            let one_or = if broadcastable { "1 or " } else { "" };
            Err(mismatch(
                op,
                arg,
                axis,
                format!("{one_or}{name} = {} ({})", b.size, b.origin),
                found,
            ))
        }
        None => {
            bindings.dims.push(DimBinding {
                name: name.clone(),
                size: found,
                origin: Origin::Axis(arg.clone(), axis),
            });
            Ok(())
        }
    }
}

fn match_segment(
    op: &'static str,
    arg: &ArgRef,
    shape: &[usize],
    axes: Range<usize>,
    name: &Arc<str>,
    pattern: &ShapePattern,
    bindings: &mut Bindings,
) -> Result<(), ShapeError> {
    let sizes = &shape[axes.clone()];
    let Some(b) = bindings.segment_binding(name) else {
        bindings.segments.push(SegmentBinding {
            name: name.clone(),
            sizes: sizes.into(),
            origin: Origin::Axis(arg.clone(), axes.start),
        });
        return Ok(());
    };
    if b.sizes.len() != sizes.len() {
        return Err(ShapeError::ArgRank {
            op,
            arg: arg.clone(),
            expected: segment_rank_expected(pattern, name, b.sizes.len(), &b.origin),
            found: Box::new(Shape::known(shape)),
        });
    }
    for (i, (&want, &found)) in b.sizes.iter().zip(sizes).enumerate() {
        if want != found {
            return Err(mismatch(
                op,
                arg,
                axes.start + i,
                segment_expected(name, i, want, &b.origin.shifted(i)),
                found,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use EnforcedDim::{Segment, Size};

    fn pattern(text: &str) -> ShapePattern {
        text.parse().unwrap()
    }

    // The three examples of the Array API `enforce_shape` RFC.
    #[test]
    fn array_api_example_1_exact_rank() {
        let got = enforce_shape(&[2, 3, 4], "_ _ _").unwrap();
        assert_eq!(got.dims.as_slice(), &[Size(2), Size(3), Size(4)]);
        assert!(got.bindings.is_empty());
        let err = enforce_shape(&[2, 3], "_ _ _").unwrap_err();
        assert_eq!(
            err.to_string(),
            "enforce_shape: argument 0 has shape [2, 3], expected rank 3 (pattern `_ _ _`)"
        );
    }

    #[test]
    fn array_api_example_2_earlier_binding() {
        let mut bindings = Bindings::new();
        bindings.bind("d1_input", 5).unwrap();
        let p = pattern("d1_input _ 4");
        let dims = p.enforce_with(&[5, 2, 4], &mut bindings).unwrap();
        assert_eq!(dims.as_slice(), &[Size(5), Size(2), Size(4)]);
        assert!(p.enforce_with(&[5, 2, 3], &mut bindings).is_err());
        assert!(p.enforce_with(&[5, 2], &mut bindings).is_err());
        // Without the earlier binding, the first use binds it.
        let got = p.enforce(&[7, 2, 4]).unwrap();
        assert_eq!(got.bindings.get("d1_input"), Some(7));
    }

    #[test]
    fn array_api_example_3_ellipsis() {
        let p = pattern("1 _ ... 3");
        let got = p.enforce(&[1, 5, 2, 4, 3]).unwrap();
        assert_eq!(
            got.dims.as_slice(),
            &[
                Size(1),
                Size(5),
                Segment {
                    axes: 2..4,
                    elements: 8
                },
                Size(3)
            ]
        );
        let got = p.enforce(&[1, 5, 3]).unwrap();
        assert_eq!(
            got.dims[2],
            Segment {
                axes: 2..2,
                elements: 1
            }
        );
        let err = p.enforce(&[1, 3]).unwrap_err();
        assert!(
            err.to_string().contains("expected rank at least 3"),
            "{err}"
        );
        let err = p.enforce(&[2, 5, 3]).unwrap_err();
        assert!(
            matches!(
                err,
                ShapeError::Mismatch {
                    axis: 0,
                    found: Dim::Known(2),
                    ..
                }
            ),
            "{err}"
        );
        // The RFC's rgb example: everything but the last axis, flattened.
        let got = enforce_shape(&[4, 5, 3], "... _").unwrap();
        assert_eq!(
            got.dims.as_slice(),
            &[
                Segment {
                    axes: 0..2,
                    elements: 20
                },
                Size(3)
            ]
        );
    }

    #[test]
    fn names_bind_then_match() {
        let p = pattern("n n");
        assert!(p.enforce(&[3, 3]).is_ok());
        let err = p.enforce(&[3, 4]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "enforce_shape: argument 0 axis 1: expected n = 3 (bound by argument 0 axis 0), found 4"
        );
        let got = enforce_shape(&[2, 7, 9, 5, 3], "... h w c").unwrap();
        assert_eq!(
            got.bindings.iter().collect::<Vec<_>>(),
            [("h", 9), ("w", 5), ("c", 3)]
        );
        assert!(enforce_shape(&[], "").is_ok());
        assert!(enforce_shape(&[1], "").is_err());
        assert!(enforce_shape(&[], "...").is_ok());
    }

    #[test]
    fn broadcastable_names() {
        let p = pattern("n #n");
        assert!(p.enforce(&[4, 1]).is_ok());
        assert!(p.enforce(&[4, 4]).is_ok());
        let err = p.enforce(&[4, 2]).unwrap_err();
        assert!(err.to_string().contains("expected 1 or n = 4"), "{err}");
        // `#n` does not bind on 1, so a later `n` binds freely.
        let got = pattern("#n n").enforce(&[1, 6]).unwrap();
        assert_eq!(got.bindings.get("n"), Some(6));
        assert!(pattern("#n n").enforce(&[6, 1]).is_err());
        assert!(pattern("#n #n").enforce(&[1, 6]).is_ok());
        assert!(pattern("#n #n").enforce(&[5, 6]).is_err());
    }

    #[test]
    fn named_segments() {
        let p = pattern("*batch 3");
        let mut bindings = Bindings::new();
        let dims = p.enforce_with(&[2, 5, 3], &mut bindings).unwrap();
        assert_eq!(
            dims[0],
            Segment {
                axes: 0..2,
                elements: 10
            }
        );
        assert_eq!(bindings.segment("batch"), Some(&[2, 5][..]));
        let q = pattern("*batch n");
        assert!(q.enforce_with(&[2, 5, 7], &mut bindings).is_ok());
        let err = q.enforce_with(&[2, 6, 7], &mut bindings).unwrap_err();
        assert!(
            matches!(
                err,
                ShapeError::Mismatch {
                    axis: 1,
                    found: Dim::Known(6),
                    ..
                }
            ),
            "{err}"
        );
        let err = q.enforce_with(&[5, 7], &mut bindings).unwrap_err();
        assert!(matches!(err, ShapeError::ArgRank { .. }), "{err}");
        // Failed matches leave the bindings as they were.
        assert_eq!(bindings.get("n"), Some(7));
        let before = bindings.clone();
        assert!(
            pattern("m *batch 4")
                .enforce_with(&[9, 2, 5, 3], &mut bindings)
                .is_err()
        );
        assert_eq!(bindings, before);
    }

    #[test]
    fn zero_sizes_and_overflow() {
        let got = enforce_shape(&[0, usize::MAX, usize::MAX], "... ").unwrap();
        assert_eq!(
            got.dims[0],
            Segment {
                axes: 0..3,
                elements: 0
            }
        );
        let err = enforce_shape(&[usize::MAX, 2], "...").unwrap_err();
        assert!(matches!(err, ShapeError::Overflow { .. }), "{err}");
    }
}

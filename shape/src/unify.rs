//! Joint unification of several (pattern, shape) pairs, and output shapes computed from the bound
//! names (stannum's `AnyDim` / `BatchDim` / `MatchDim` and `DimensionCalculator`).
//!
//! In pattern terms: `_` is an any-dim, a name used in several patterns is a match-dim (bound by its
//! first use, checked everywhere else), integers are always checked, and a name declared with
//! [`Unifier::batch`] is a batch dim: it agrees across inputs and may only be the leading item of a
//! pattern (inputs without a batch axis simply do not use it).
//!
//! ```
//! use extype_shape::{Bindings, Sizes, Unifier};
//! use extype_shape::ShapeError;
//! // 1-d convolution: x is [batch, c_in, n], w is [c_out, c_in, k]; y is [batch, c_out, n - k + 1].
//! let conv1d = Unifier::new()
//!     .input("x", "b c_in n")?
//!     .input("w", "c_out c_in k")?
//!     .batch("b")?;
//! let bindings = conv1d.unify(&[&[8, 3, 100], &[16, 3, 5]])?;
//! let calc = |_output: &str, b: &Bindings| -> Result<Sizes, ShapeError> {
//!     let (n, k) = (b.require("n")?, b.require("k")?);
//!     let len = (n + 1).checked_sub(k).ok_or_else(|| ShapeError::Calculation {
//!         output: "y".into(),
//!         message: format!("kernel size {k} exceeds input length {n}"),
//!     })?;
//!     Ok(Sizes::from_slice(&[b.require("b")?, b.require("c_out")?, len]))
//! };
//! assert_eq!(bindings.output_shape("y", &calc)?.as_slice(), &[8, 16, 96]);
//!
//! let err = conv1d.unify(&[&[8, 3, 100], &[16, 4, 5]]).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "unify: input `w` axis 1: expected c_in = 3 (bound by input `x` axis 1), found 4"
//! );
//! # Ok::<(), ShapeError>(())
//! ```

use std::borrow::Borrow;
use std::sync::Arc;

use smallvec::SmallVec;

use crate::broadcast::Sizes;
use crate::dim::Dim;
use crate::error::{ArgRef, ShapeError};
use crate::partial::Shape;
use crate::pattern::{
    Bindings, Origin, PatternDim, ShapePattern, segment_expected, segment_rank_expected,
};

/// Computes the shape of an output from the sizes bound by unification.
///
/// Implemented by closures `Fn(&str, &Bindings) -> Result<Sizes, ShapeError>` (the output's name
/// and the bindings), and by [`ShapePattern`]s made only of sizes, names and named segments
/// (`"b c_out n"`), which read every item off the bindings.
pub trait DimensionCalculator {
    /// The concrete shape of `output`.
    fn calc_shape(&self, output: &str, bindings: &Bindings) -> Result<Sizes, ShapeError>;

    /// The partial shape of `output` from what joint static refinement of partial inputs knows
    /// (sizes, symbols, segments). The default knows nothing: unknown rank. [`OutputShape`]
    /// evaluates its expressions ([`crate::ShapeCalculator::infer`]).
    ///
    /// [`OutputShape`]: crate::OutputShape
    fn calc_partial(&self, output: &str, joint: &JointRefined) -> Result<Shape, ShapeError> {
        let _ = (output, joint);
        Ok(Shape::unknown_rank())
    }
}

impl<F> DimensionCalculator for F
where
    F: Fn(&str, &Bindings) -> Result<Sizes, ShapeError>,
{
    fn calc_shape(&self, output: &str, bindings: &Bindings) -> Result<Sizes, ShapeError> {
        self(output, bindings)
    }
}

impl DimensionCalculator for ShapePattern {
    /// Each size as written, each name and named segment as bound; `_`, `#name` and `...` do not
    /// determine a size and are an error.
    fn calc_shape(&self, output: &str, bindings: &Bindings) -> Result<Sizes, ShapeError> {
        let mut sizes = Sizes::new();
        for item in self.items() {
            match item {
                PatternDim::Size(n) => sizes.push(*n),
                PatternDim::Name(name) => sizes.push(bindings.require(name)?),
                PatternDim::Variadic(Some(name)) => {
                    sizes.extend_from_slice(bindings.require_segment(name)?);
                }
                other => {
                    return Err(ShapeError::Calculation {
                        output: output.into(),
                        message: format!(
                            "`{other}` in pattern `{}` does not determine a size",
                            self.quoted()
                        ),
                    });
                }
            }
        }
        Ok(sizes)
    }
}

impl Bindings {
    /// The shape of `output` computed by `calc` from these bindings. A name the calculator needs
    /// but nothing bound is reported as a [`ShapeError::Calculation`] naming the output.
    pub fn output_shape<C: DimensionCalculator + ?Sized>(
        &self,
        output: &str,
        calc: &C,
    ) -> Result<Sizes, ShapeError> {
        calc.calc_shape(output, self).map_err(|e| match e {
            ShapeError::Unbound { name } => ShapeError::Calculation {
                output: output.into(),
                message: format!("no input binds the name `{name}`"),
            },
            other => other,
        })
    }
}

/// A set of inputs, each with a shape pattern, unified jointly: names bind across all of them.
#[derive(Debug, Clone, Default)]
pub struct Unifier {
    inputs: Vec<(ArgRef, ShapePattern)>,
    batch: Option<Arc<str>>,
}

impl Unifier {
    /// No inputs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an input named `name` with the pattern `pattern` (parse errors are returned).
    pub fn input(self, name: &str, pattern: &str) -> Result<Self, ShapeError> {
        let pattern = ShapePattern::parse(pattern)?;
        self.add(ArgRef::Name(name.into()), pattern)
    }

    /// Adds an input that is a field of a struct (errors say ``field `path` ``): the shape
    /// contracts of derived types.
    pub fn field(self, path: &str, pattern: &str) -> Result<Self, ShapeError> {
        let pattern = ShapePattern::parse(pattern)?;
        self.add(ArgRef::Field(path.into()), pattern)
    }

    /// Adds an input known by its position (errors say `argument i`).
    pub fn positional(self, pattern: &str) -> Result<Self, ShapeError> {
        let pattern = ShapePattern::parse(pattern)?;
        let index = self.inputs.len();
        self.add(ArgRef::Index(index), pattern)
    }

    /// Adds an input with an already parsed pattern.
    pub fn add(mut self, arg: ArgRef, pattern: ShapePattern) -> Result<Self, ShapeError> {
        if let Some(batch) = &self.batch {
            check_leading(batch, &arg, &pattern)?;
        }
        self.inputs.push((arg, pattern));
        Ok(self)
    }

    /// Declares `name` the batch dim (or, as `*name` in patterns, batch segment): every pattern
    /// that uses it must have it as its first item. It agrees across inputs like any name.
    pub fn batch(mut self, name: &str) -> Result<Self, ShapeError> {
        for (arg, pattern) in &self.inputs {
            check_leading(name, arg, pattern)?;
        }
        self.batch = Some(name.into());
        Ok(self)
    }

    /// The declared batch dim, if any.
    pub fn batch_name(&self) -> Option<&str> {
        self.batch.as_deref()
    }

    /// The inputs and their patterns, in order.
    pub fn inputs(&self) -> impl Iterator<Item = (&ArgRef, &ShapePattern)> {
        self.inputs.iter().map(|(a, p)| (a, p))
    }

    /// Unifies concrete shapes, one per input in order, and returns the bound names.
    ///
    /// Errors name the input, the axis, the size expected (and which input bound it) and the size
    /// found.
    pub fn unify(&self, shapes: &[&[usize]]) -> Result<Bindings, ShapeError> {
        let mut bindings = Bindings::new();
        self.unify_with(shapes, &mut bindings)?;
        Ok(bindings)
    }

    /// Like [`unify`](Self::unify), starting from (and extending) `bindings`. On error `bindings`
    /// is left as it was.
    pub fn unify_with(
        &self,
        shapes: &[&[usize]],
        bindings: &mut Bindings,
    ) -> Result<(), ShapeError> {
        if shapes.len() != self.inputs.len() {
            return Err(ShapeError::ArgCount {
                op: "unify",
                expected: self.inputs.len(),
                found: shapes.len(),
            });
        }
        let mark = bindings.mark();
        for ((arg, pattern), shape) in self.inputs.iter().zip(shapes) {
            if let Err(e) = pattern.enforce_in("unify", arg, shape, bindings) {
                bindings.reset(mark);
                return Err(e);
            }
        }
        Ok(())
    }
}

/// The result of [`Unifier::refine`]: every input's partial shape refined with what all the
/// patterns imply jointly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JointRefined {
    /// The refined shapes, one per input, in order.
    pub shapes: Vec<Shape>,
    /// The names whose sizes are known statically, each with the input that fixes it, and the
    /// names known to be symbols.
    pub known: Bindings,
    /// The dims of each named segment, from the first input of known rank that has it.
    pub segments: Vec<(Arc<str>, Shape)>,
}

impl JointRefined {
    /// The dims of the named segment `*name`, when an input of known rank has it.
    pub fn segment(&self, name: &str) -> Option<&[Dim]> {
        self.segments
            .iter()
            .find(|(n, _)| &**n == name)
            .and_then(|(_, s)| s.dims())
    }
}

impl Unifier {
    /// Unifies partial shapes statically: each input's shape refined with its own pattern and with
    /// the sizes other inputs fix (`n` known from one input is known in all). Fails when no
    /// concrete shapes could unify, e.g. two inputs fixing one name to different sizes.
    ///
    /// Run [`unify`](Self::unify) on the concrete shapes at run time: it is the complete check
    /// (names unknown in every input are compared only then).
    ///
    /// ```
    /// use extype_shape::{Shape, Unifier};
    /// let u = Unifier::new().input("x", "b n 3")?.input("y", "n k")?;
    /// let shapes: Vec<Shape> = vec!["[?, ?, ?]".parse()?, "[5, ?]".parse()?];
    /// let joint = u.refine(&shapes)?;
    /// assert_eq!(joint.shapes[0].to_string(), "[?, 5, 3]");
    /// assert_eq!(joint.known.get("n"), Some(5));
    /// let bad: Vec<Shape> = vec!["[?, 4, ?]".parse()?, "[5, ?]".parse()?];
    /// assert!(u.refine(&bad).is_err());
    /// # Ok::<(), extype_shape::ShapeError>(())
    /// ```
    pub fn refine<S: Borrow<Shape>>(&self, shapes: &[S]) -> Result<JointRefined, ShapeError> {
        self.refine_impl(shapes, false)
    }

    /// Like [`refine`](Self::refine), and each name that no input fixes gets the symbol of the
    /// same name ([`ShapePattern::refine_symbolic`]) in every input that uses it, so the refined
    /// shapes say which axes are equal. Symbols in the inputs' shapes are used as in `refine`.
    ///
    /// ```
    /// use extype_shape::{Shape, Unifier};
    /// let u = Unifier::new().input("x", "b n")?.input("y", "b n")?.input("z", "n 4")?;
    /// let shapes: Vec<Shape> = vec!["[?, ?]".parse()?, "[2, ?]".parse()?, "*".parse()?];
    /// let joint = u.refine_symbolic(&shapes)?;
    /// let texts: Vec<String> = joint.shapes.iter().map(ToString::to_string).collect();
    /// assert_eq!(texts, ["[2, $n]", "[2, $n]", "[$n, 4]"]);
    /// assert_eq!(joint.known.to_string(), "{b = 2, n = $n}");
    /// // Symbols in the inputs join in: `$m` is the size of `n` in all.
    /// let shapes: Vec<Shape> = vec!["[?, $m]".parse()?, "[2, ?]".parse()?, "*".parse()?];
    /// let joint = u.refine(&shapes)?;
    /// assert_eq!(joint.shapes[2].to_string(), "[$m, 4]");
    /// # Ok::<(), extype_shape::ShapeError>(())
    /// ```
    pub fn refine_symbolic<S: Borrow<Shape>>(
        &self,
        shapes: &[S],
    ) -> Result<JointRefined, ShapeError> {
        self.refine_impl(shapes, true)
    }

    fn refine_impl<S: Borrow<Shape>>(
        &self,
        shapes: &[S],
        introduce: bool,
    ) -> Result<JointRefined, ShapeError> {
        if shapes.len() != self.inputs.len() {
            return Err(ShapeError::ArgCount {
                op: "unify",
                expected: self.inputs.len(),
                found: shapes.len(),
            });
        }
        // A size learnt from one input can refine an earlier one, which can fix another name:
        // iterate to a fixpoint. Each round that continues binds a new name, so this ends.
        let mut known = Bindings::new();
        loop {
            let mut learnt = false;
            for ((arg, pattern), shape) in self.inputs.iter().zip(shapes) {
                let refined = if introduce {
                    pattern.refine_symbolic(shape.borrow(), &known)
                } else {
                    pattern.refine_with(shape.borrow(), &known)
                }
                .map_err(|e| as_input(e, arg))?;
                learnt |= known.absorb_as(&refined.known, arg);
            }
            if !learnt {
                break;
            }
        }
        let refine_all = |shapes: &mut dyn Iterator<Item = &Shape>| {
            self.inputs
                .iter()
                .zip(shapes)
                .map(|((arg, pattern), shape)| {
                    pattern
                        .refine_with(shape, &known)
                        .map(|r| r.shape)
                        .map_err(|e| as_input(e, arg))
                })
                .collect::<Result<Vec<Shape>, _>>()
        };
        let mut refined = refine_all(&mut shapes.iter().map(Borrow::borrow))?;
        // Named segments are partial shapes in their own right: `*dims` seen as `[8, ?]` in one
        // input and `[?, 3]` in another is `[8, 3]` in both. Names inside patterns never depend
        // on segments, so one more refinement pass after merging them is enough.
        if self.merge_segments(&mut refined)? {
            refined = refine_all(&mut refined.iter())?;
        }
        let mut segments: Vec<(Arc<str>, Shape)> = Vec::new();
        for (i, shape) in refined.iter().enumerate() {
            if let Some(name) = self.segment_name(i)
                && !segments.iter().any(|(n, _)| &**n == name)
                && let Some(segment) = self.segment_of(i, shape)
            {
                segments.push((name.into(), segment));
            }
        }
        Ok(JointRefined {
            shapes: refined,
            known,
            segments,
        })
    }

    /// Meets the dims of each named segment across the inputs whose rank is known, and writes the
    /// result back into every input that uses it. Returns whether any shape changed.
    fn merge_segments(&self, shapes: &mut [Shape]) -> Result<bool, ShapeError> {
        let mut changed = false;
        let mut seen: SmallVec<[&str; 2]> = SmallVec::new();
        for (pattern_index, (_, pattern)) in self.inputs.iter().enumerate() {
            let Some(PatternDim::Variadic(Some(name))) =
                pattern.variadic_index().map(|v| &pattern.items()[v])
            else {
                continue;
            };
            if seen.contains(&&**name) {
                continue;
            }
            seen.push(name);
            let users: SmallVec<[usize; 4]> = (pattern_index..self.inputs.len())
                .filter(|&i| self.segment_name(i) == Some(&**name))
                .collect();
            let mut merged: Option<(usize, Shape)> = None;
            for &i in &users {
                let Some(segment) = self.segment_of(i, &shapes[i]) else {
                    continue;
                };
                merged = Some(match merged {
                    None => (i, segment),
                    Some((first, acc)) => {
                        let meet = acc.merge_with(&segment).map_err(|_| {
                            self.segment_conflict(i, first, name, &acc, &segment, &shapes[i])
                        })?;
                        (first, meet)
                    }
                });
            }
            let Some((_, merged)) = merged else {
                continue;
            };
            for &i in &users {
                let updated = self.with_segment(i, &shapes[i], &merged);
                if updated != shapes[i] {
                    shapes[i] = updated;
                    changed = true;
                }
            }
        }
        Ok(changed)
    }

    /// The error for input `input`'s segment disagreeing with what earlier inputs fixed.
    fn segment_conflict(
        &self,
        input: usize,
        first: usize,
        name: &str,
        expected: &Shape,
        found: &Shape,
        shape: &Shape,
    ) -> ShapeError {
        let arg = self.inputs[input].0.clone();
        let start = self.inputs[input].1.variadic_index().unwrap_or(0);
        let origin = Origin::Axis(
            self.inputs[first].0.clone(),
            self.inputs[first].1.variadic_index().unwrap_or(0),
        );
        let (Some(e), Some(f)) = (expected.dims(), found.dims()) else {
            unreachable!("segments are only merged when their rank is known")
        };
        // Dims that are each compatible can still conflict through a symbol (`[$n, $n]` against
        // `[2, 3]`): then the first axis where the merged symbol disagrees is reported.
        let conflict = e.iter().zip(f).position(|(a, b)| !a.is_compatible_with(*b));
        let conflict = conflict.or_else(|| {
            let mut symbols = crate::symbols::Symbols::new();
            e.iter()
                .zip(f)
                .position(|(a, b)| symbols.merge(*a, *b).is_none())
        });
        match conflict {
            Some(offset) if e.len() == f.len() => ShapeError::Mismatch {
                op: "unify",
                arg,
                axis: start + offset,
                expected: segment_expected(name, offset, e[offset], &origin.shifted(offset)),
                found: f[offset],
            },
            _ => ShapeError::ArgRank {
                op: "unify",
                arg,
                expected: segment_rank_expected(&self.inputs[input].1, name, e.len(), &origin),
                found: Box::new(shape.clone()),
            },
        }
    }

    fn segment_name(&self, input: usize) -> Option<&str> {
        let pattern = &self.inputs[input].1;
        match pattern.variadic_index().map(|v| &pattern.items()[v]) {
            Some(PatternDim::Variadic(Some(name))) => Some(name),
            _ => None,
        }
    }

    /// The dims of input `input`'s segment, when its shape's rank is known.
    fn segment_of(&self, input: usize, shape: &Shape) -> Option<Shape> {
        let pattern = &self.inputs[input].1;
        let start = pattern.variadic_index()?;
        let dims = shape.dims()?;
        let end = dims.len().checked_sub(pattern.items().len() - start - 1)?;
        (start <= end).then(|| Shape::from_dims(dims[start..end].iter().copied()))
    }

    /// `shape` with its segment replaced by `segment` (an unknown rank becomes known: the fixed
    /// items around the segment are unknown dims, which the next refinement pass fills in).
    fn with_segment(&self, input: usize, shape: &Shape, segment: &Shape) -> Shape {
        let pattern = &self.inputs[input].1;
        let (Some(start), Some(seg)) = (pattern.variadic_index(), segment.dims()) else {
            return shape.clone();
        };
        let after = pattern.items().len() - start - 1;
        match shape.dims() {
            Some(dims) => {
                let end = dims.len().saturating_sub(after);
                dims[..start]
                    .iter()
                    .chain(seg)
                    .chain(&dims[end..])
                    .copied()
                    .collect()
            }
            None => std::iter::repeat_n(Dim::Unknown, start)
                .chain(seg.iter().copied())
                .chain(std::iter::repeat_n(Dim::Unknown, after))
                .collect(),
        }
    }
}

/// Reports an error of refining one input's pattern as an error of unification about that input.
fn as_input(e: ShapeError, input: &ArgRef) -> ShapeError {
    match e {
        ShapeError::Mismatch {
            axis,
            expected,
            found,
            ..
        } => ShapeError::Mismatch {
            op: "unify",
            arg: input.clone(),
            axis,
            expected,
            found,
        },
        ShapeError::ArgRank {
            expected, found, ..
        } => ShapeError::ArgRank {
            op: "unify",
            arg: input.clone(),
            expected,
            found,
        },
        other => other,
    }
}

fn check_leading(batch: &str, arg: &ArgRef, pattern: &ShapePattern) -> Result<(), ShapeError> {
    let uses = |item: &PatternDim| match item {
        PatternDim::Name(n) | PatternDim::Broadcastable(n) | PatternDim::Variadic(Some(n)) => {
            &**n == batch
        }
        _ => false,
    };
    match pattern.items().iter().skip(1).position(uses) {
        None => Ok(()),
        Some(i) => Err(ShapeError::InvalidPattern {
            arg: arg.clone(),
            message: format!(
                "the batch dim `{batch}` must be the leading item, but pattern `{}` has it at \
                 item {}",
                pattern.quoted(),
                i + 1
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// stannum's 1-d convolution dimension calculator (`D1ConvDC`): `n - k + 1`.
    fn conv1d_calc(output: &str, b: &Bindings) -> Result<Sizes, ShapeError> {
        let (n, k) = (b.require("n")?, b.require("k")?);
        let len =
            (n + 1)
                .checked_sub(k)
                .filter(|&l| l > 0)
                .ok_or_else(|| ShapeError::Calculation {
                    output: output.into(),
                    message: format!("kernel size {k} exceeds input length {n}"),
                })?;
        Ok(Sizes::from_slice(&[
            b.require("b")?,
            b.require("c_out")?,
            len,
        ]))
    }

    fn conv1d() -> Unifier {
        Unifier::new()
            .input("x", "b c_in n")
            .unwrap()
            .input("w", "c_out c_in k")
            .unwrap()
            .batch("b")
            .unwrap()
    }

    #[test]
    fn stannum_conv1d() {
        let b = conv1d().unify(&[&[2, 3, 10], &[4, 3, 3]]).unwrap();
        assert_eq!(
            b.output_shape("y", &conv1d_calc).unwrap().as_slice(),
            &[2, 4, 8]
        );
        let b = conv1d().unify(&[&[2, 3, 2], &[4, 3, 3]]).unwrap();
        let err = b.output_shape("y", &conv1d_calc).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot compute the shape of output `y`: kernel size 3 exceeds input length 2"
        );
        let err = conv1d().unify(&[&[2, 3, 10], &[4, 5, 3]]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Mismatch {
                op: "unify",
                arg: ArgRef::Name("w".into()),
                axis: 1,
                expected: "c_in = 3 (bound by input `x` axis 1)".into(),
                found: Dim::Known(5),
            }
        );
        let err = conv1d().unify(&[&[2, 3, 10]]).unwrap_err();
        assert!(matches!(
            err,
            ShapeError::ArgCount {
                expected: 2,
                found: 1,
                ..
            }
        ));
        let err = conv1d().unify(&[&[3, 10], &[4, 3, 3]]).unwrap_err();
        assert!(
            matches!(&err, ShapeError::ArgRank { arg: ArgRef::Name(n), .. } if &**n == "x"),
            "{err}"
        );
    }

    #[test]
    fn batch_dims_agree_and_lead() {
        let u = Unifier::new()
            .batch("b")
            .unwrap()
            .input("points", "b n 3")
            .unwrap()
            .input("mask", "b n")
            .unwrap()
            .input("offset", "3")
            .unwrap();
        let b = u.unify(&[&[4, 7, 3], &[4, 7], &[3]]).unwrap();
        assert_eq!(b.get("b"), Some(4));
        assert_eq!(b.get("n"), Some(7));
        // Batch sizes must agree.
        let err = u.unify(&[&[4, 7, 3], &[5, 7], &[3]]).unwrap_err();
        assert!(
            err.to_string()
                .contains("input `mask` axis 0: expected b = 4"),
            "{err}"
        );
        // Integer dims are checked on batched inputs too.
        let err = u.unify(&[&[4, 7, 2], &[4, 7], &[3]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unify: input `points` axis 2: expected 3, found 2"
        );
        // A batch dim elsewhere than leading is refused, whichever was declared first.
        let err = u.clone().input("bad", "n b").unwrap_err();
        assert!(matches!(err, ShapeError::InvalidPattern { .. }), "{err}");
        assert!(
            err.to_string().contains(
                "batch dim `b` must be the leading item, but pattern `n b` has it at item 1"
            ),
            "{err}"
        );
        let err = Unifier::new()
            .input("bad", "n *b")
            .unwrap()
            .batch("b")
            .unwrap_err();
        assert!(matches!(err, ShapeError::InvalidPattern { .. }), "{err}");
    }

    #[test]
    fn batch_segments_and_any_dims() {
        let u = Unifier::new()
            .batch("batch")
            .unwrap()
            .positional("*batch _ c")
            .unwrap()
            .positional("*batch c")
            .unwrap();
        let b = u.unify(&[&[2, 3, 9, 5], &[2, 3, 5]]).unwrap();
        assert_eq!(b.segment("batch"), Some(&[2, 3][..]));
        let out: ShapePattern = "*batch c 2".parse().unwrap();
        assert_eq!(
            b.output_shape("out", &out).unwrap().as_slice(),
            &[2, 3, 5, 2]
        );
        let err = u.unify(&[&[2, 3, 9, 5], &[2, 4, 5]]).unwrap_err();
        assert!(
            matches!(
                err,
                ShapeError::Mismatch {
                    arg: ArgRef::Index(1),
                    axis: 1,
                    ..
                }
            ),
            "{err}"
        );
        // A pattern calculator needs every item bound.
        let loose: ShapePattern = "c _".parse().unwrap();
        assert!(matches!(
            b.output_shape("out", &loose),
            Err(ShapeError::Calculation { .. })
        ));
        let unbound: ShapePattern = "d".parse().unwrap();
        assert_eq!(
            b.output_shape("out", &unbound).unwrap_err().to_string(),
            "cannot compute the shape of output `out`: no input binds the name `d`"
        );
    }

    #[test]
    fn static_joint_refinement() {
        let shapes: Vec<Shape> = vec!["[?, 3, ?]".parse().unwrap(), "*".parse().unwrap()];
        let joint = conv1d().refine(&shapes).unwrap();
        assert_eq!(joint.shapes[0].to_string(), "[?, 3, ?]");
        assert_eq!(joint.shapes[1].to_string(), "[?, 3, ?]");
        // A name fixed by a later input refines an earlier one, and onwards.
        let u = Unifier::new()
            .input("a", "m n")
            .unwrap()
            .input("b", "n k")
            .unwrap()
            .input("c", "k 2")
            .unwrap();
        let shapes: Vec<Shape> = ["[?, ?]", "[?, 7]", "[?, ?]"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let joint = u.refine(&shapes).unwrap();
        let texts: Vec<String> = joint.shapes.iter().map(ToString::to_string).collect();
        assert_eq!(texts, ["[?, ?]", "[?, 7]", "[7, 2]"]);
        let shapes: Vec<Shape> = ["[4, 5]", "[?, ?]", "[?, ?]"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let joint = u.refine(&shapes).unwrap();
        let texts: Vec<String> = joint.shapes.iter().map(ToString::to_string).collect();
        assert_eq!(texts, ["[4, 5]", "[5, ?]", "[?, 2]"]);
        // Conflicts name the input and where the size was fixed.
        let shapes: Vec<Shape> = ["[4, 5]", "[6, ?]", "[?, ?]"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let err = u.refine(&shapes).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unify: input `b` axis 0: expected n = 5 (bound by input `a` axis 1), found 6"
        );
        let err = u.refine(&shapes[..2]).unwrap_err();
        assert!(matches!(err, ShapeError::ArgCount { .. }));
        let shapes: Vec<Shape> = ["[4]", "*", "*"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let err = u.refine(&shapes).unwrap_err();
        assert!(
            matches!(&err, ShapeError::ArgRank { arg: ArgRef::Name(n), .. } if &**n == "a"),
            "{err}"
        );
    }

    #[test]
    fn failed_unification_leaves_bindings() {
        let u = Unifier::new()
            .positional("n")
            .unwrap()
            .positional("m n")
            .unwrap();
        let mut b = Bindings::new();
        b.bind("m", 2).unwrap();
        assert!(u.unify_with(&[&[3], &[2, 4]], &mut b).is_err());
        assert_eq!(b.len(), 1);
        u.unify_with(&[&[3], &[2, 3]], &mut b).unwrap();
        assert_eq!(b.get("n"), Some(3));
    }

    #[test]
    fn named_segments_are_merged_across_inputs() {
        let u = Unifier::new()
            .input("values", "*dims")
            .unwrap()
            .input("mask", "*dims")
            .unwrap();
        let shapes: Vec<Shape> = vec!["[8, ?]".parse().unwrap(), "[?, 3]".parse().unwrap()];
        let joint = u.refine(&shapes).unwrap();
        assert_eq!(joint.shapes[0].to_string(), "[8, 3]");
        assert_eq!(joint.shapes[1].to_string(), "[8, 3]");
        // An unknown rank takes the rank of the segment (plus the fixed items around it).
        let u = Unifier::new()
            .input("x", "*b n")
            .unwrap()
            .input("y", "*b 4")
            .unwrap();
        let shapes: Vec<Shape> = vec!["[2, !1, 7]".parse().unwrap(), "*".parse().unwrap()];
        let joint = u.refine(&shapes).unwrap();
        assert_eq!(joint.shapes[1].to_string(), "[2, !1, 4]");
        // Conflicting segments fail statically, naming the input and its axis, the segment's
        // axis, and the input and axis that bound it: as the concrete check words it.
        let shapes: Vec<Shape> = vec!["[2, 5, 7]".parse().unwrap(), "[3, ?, 4]".parse().unwrap()];
        let err = u.refine(&shapes).unwrap_err().to_string();
        let want =
            "unify: input `y` axis 0: expected *b[0] = 2 (bound by input `x` axis 0), found 3";
        assert_eq!(err, want);
        let concrete = u.unify(&[&[2, 5, 7], &[3, 5, 4]]).unwrap_err().to_string();
        assert_eq!(concrete, want);
        // A segment after a fixed axis: the origin's axis is its own, not the segment's.
        let v = Unifier::new()
            .input("x", "n *s")
            .unwrap()
            .input("y", "*s")
            .unwrap();
        let want =
            "unify: input `y` axis 1: expected *s[1] = 3 (bound by input `x` axis 2), found 4";
        let shapes: Vec<Shape> = vec!["[1, 2, 3]".parse().unwrap(), "[2, 4]".parse().unwrap()];
        assert_eq!(v.refine(&shapes).unwrap_err().to_string(), want);
        assert_eq!(
            v.unify(&[&[1, 2, 3], &[2, 4]]).unwrap_err().to_string(),
            want
        );
        let rank = "unify: input `y` has shape [2], expected rank 2 (pattern `*s` with *s of 2 \
                    axes, bound by input `x` axes 1..3)";
        let shapes: Vec<Shape> = vec!["[1, 2, 3]".parse().unwrap(), "[2]".parse().unwrap()];
        assert_eq!(v.refine(&shapes).unwrap_err().to_string(), rank);
        assert_eq!(v.unify(&[&[1, 2, 3], &[2]]).unwrap_err().to_string(), rank);
        // Different segment lengths cannot unify either.
        let shapes: Vec<Shape> = vec!["[2, 7]".parse().unwrap(), "[3, ?, 4]".parse().unwrap()];
        assert!(u.refine(&shapes).is_err());
    }

    #[test]
    fn symbols_across_inputs() {
        // A name that is a symbol in one input is that symbol in the others.
        let u = Unifier::new()
            .input("x", "b n")
            .unwrap()
            .input("y", "n k")
            .unwrap();
        let shapes: Vec<Shape> = vec!["[?, $m]".parse().unwrap(), "[?, ?]".parse().unwrap()];
        let joint = u.refine(&shapes).unwrap();
        assert_eq!(joint.shapes[1].to_string(), "[$m, ?]");
        assert_eq!(joint.known.to_string(), "{n = $m}");
        let joint = u.refine_symbolic(&shapes).unwrap();
        assert_eq!(joint.shapes[0].to_string(), "[$b, $m]");
        assert_eq!(joint.shapes[1].to_string(), "[$m, $k]");
        // A size found later replaces the symbol.
        let shapes: Vec<Shape> = vec!["[?, $m]".parse().unwrap(), "[4, ?]".parse().unwrap()];
        let joint = u.refine(&shapes).unwrap();
        assert_eq!(joint.shapes[0].to_string(), "[?, 4]");
        assert_eq!(joint.known.get("n"), Some(4));
        // Segments that conflict only through a symbol are reported at the axis.
        let u = Unifier::new()
            .input("a", "*s")
            .unwrap()
            .input("b", "*s")
            .unwrap();
        let shapes: Vec<Shape> = vec!["[$n, $n]".parse().unwrap(), "[2, 3]".parse().unwrap()];
        let err = u.refine(&shapes).unwrap_err();
        assert!(
            matches!(&err, ShapeError::Mismatch { axis: 1, .. }),
            "{err}"
        );
        assert_eq!(
            u.refine(&[
                "[$n, 2]".parse::<Shape>().unwrap(),
                "[?, ?]".parse().unwrap()
            ])
            .unwrap()
            .segment("s")
            .map(|d| Shape::from_dims(d.iter().copied()).to_string()),
            Some("[$n, 2]".to_string())
        );
    }
}

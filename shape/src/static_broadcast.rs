//! Static broadcasting of partial shapes: the result shape, plus the runtime checks that make it
//! true.
//!
//! Per output axis the participating dims are sorted into known sizes other than 1 (at most one
//! distinct value, or broadcasting is statically impossible), `!1`, `?` and `1` (the identity):
//!
//! | participants                  | result | checks (`Numpy`)                        | checks (`Strict`) |
//! |-------------------------------|--------|-----------------------------------------|-------------------|
//! | a known `n ≠ 1`               | `n`    | each `?` ∈ {1, n}; each `!1` = n        | each `?`, `!1` = n |
//! | no known `n ≠ 1`, some `!1`   | `!1`   | the sizes other than 1 agree (n-ary)    | all equal (n-ary) |
//! | only `?` (two or more)        | `?`    | the sizes other than 1 agree (n-ary)    | all equal (n-ary) |
//! | one `?` or `!1`, the rest `1` | it     | none                                    | none              |
//! | one symbol `$n`, the rest `1` | `$n`   | none                                    | none              |
//!
//! A symbol is one participant however many inputs carry it at the axis (its occurrences are one
//! size: [`BroadcastChecks::run`] checks that with the static shapes), and otherwise counts as `?`
//! (`!1` for `$n!1`), so two different symbols get the n-ary check.
//!
//! The agreement checks are n-ary on purpose: folding pairwise (`a ~ b`, then `b ~ c`) is unsound,
//! since `[2]`, `[1]`, `[3]` pass both pairs and still do not broadcast.
//!
//! Under [`Policy::Strict`] (PyTensor's rule) only a dim statically known to be 1 broadcasts; an
//! unknown dim that turns out to be 1 at run time must then equal the output size.
//!
//! When an input has unknown rank, the output has unknown rank too; [`StaticBroadcast::trailing`]
//! still tells the dims the output ends with, and the checks end with a full broadcast of the
//! concrete shapes at run time.

use std::borrow::Borrow;
use std::fmt;

use smallvec::SmallVec;

use crate::broadcast::{Sizes, broadcast_shapes, broadcast_where};
use crate::dim::{Dim, DimVec, Symbol};
use crate::error::{ArgRef, ShapeError};
use crate::partial::Shape;

/// How unknown dims may broadcast at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// NumPy's rule: any dim whose runtime size is 1 broadcasts.
    #[default]
    Numpy,
    /// PyTensor's rule: only a dim statically known to be 1 (or a missing leading axis) broadcasts;
    /// an unknown dim must equal the output size at run time.
    Strict,
}

/// One axis of one argument: the place a runtime check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArgAxis {
    /// The argument's position among the broadcast inputs.
    pub arg: usize,
    /// The axis of that argument (counted from its first axis).
    pub axis: usize,
}

impl fmt::Display for ArgAxis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "argument {} axis {}", self.arg, self.axis)
    }
}

/// One runtime check that static broadcasting could not decide.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BroadcastCheck {
    /// The size at `at` is 1 or `size` (an unknown dim meeting a known size, NumPy policy).
    OneOrSize {
        /// Where.
        at: ArgAxis,
        /// The known size of the output axis.
        size: usize,
    },
    /// The size at `at` is exactly `size`.
    Equals {
        /// Where.
        at: ArgAxis,
        /// The required size.
        size: usize,
    },
    /// Among the sizes at these places, those other than 1 are all equal (NumPy policy, n-ary).
    NonOnesAgree(SmallVec<[ArgAxis; 4]>),
    /// The sizes at these places are all equal (Strict policy, n-ary).
    AllEqual(SmallVec<[ArgAxis; 4]>),
}

impl BroadcastCheck {
    /// Runs this check against concrete shapes (one per broadcast argument).
    ///
    /// The error names the argument and axis that fail, the sizes allowed there and the size found.
    pub fn verify(&self, shapes: &[&[usize]]) -> Result<(), ShapeError> {
        match self {
            BroadcastCheck::OneOrSize { at, size } => {
                let found = size_at(shapes, *at)?;
                if found == 1 || found == *size {
                    Ok(())
                } else {
                    Err(mismatch(*at, format!("1 or {size}"), found))
                }
            }
            BroadcastCheck::Equals { at, size } => {
                let found = size_at(shapes, *at)?;
                if found == *size {
                    Ok(())
                } else {
                    Err(mismatch(*at, size.to_string(), found))
                }
            }
            BroadcastCheck::NonOnesAgree(places) => {
                let mut first: Option<(ArgAxis, usize)> = None;
                for &at in places {
                    let found = size_at(shapes, at)?;
                    if found == 1 {
                        continue;
                    }
                    match first {
                        None => first = Some((at, found)),
                        Some((origin, size)) if size != found => {
                            return Err(mismatch(
                                at,
                                format!("1 or {size} (the size of {origin})"),
                                found,
                            ));
                        }
                        Some(_) => {}
                    }
                }
                Ok(())
            }
            BroadcastCheck::AllEqual(places) => {
                let Some((&origin, rest)) = places.split_first() else {
                    return Ok(());
                };
                let size = size_at(shapes, origin)?;
                for &at in rest {
                    let found = size_at(shapes, at)?;
                    if found != size {
                        return Err(mismatch(
                            at,
                            format!(
                                "{size} (the size of {origin}; under the Strict policy an \
                                 unknown dim does not broadcast)"
                            ),
                            found,
                        ));
                    }
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for BroadcastCheck {
    /// `argument 1 axis 0 ∈ {1, 3}`, `argument 0 axis 2 = 5`, and for the n-ary checks the list of
    /// places.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (intro, places) = match self {
            BroadcastCheck::OneOrSize { at, size } => return write!(f, "{at} ∈ {{1, {size}}}"),
            BroadcastCheck::Equals { at, size } => return write!(f, "{at} = {size}"),
            BroadcastCheck::NonOnesAgree(places) => ("sizes other than 1 agree", places),
            BroadcastCheck::AllEqual(places) => ("sizes are equal", places),
        };
        write!(f, "{intro}: ")?;
        for (i, at) in places.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{at}")?;
        }
        Ok(())
    }
}

fn mismatch(at: ArgAxis, expected: String, found: usize) -> ShapeError {
    ShapeError::Mismatch {
        op: "broadcast",
        arg: ArgRef::Index(at.arg),
        axis: at.axis,
        expected,
        found: Dim::Known(found),
    }
}

fn size_at(shapes: &[&[usize]], at: ArgAxis) -> Result<usize, ShapeError> {
    let shape = shapes.get(at.arg).ok_or(ShapeError::ArgCount {
        op: "broadcast",
        expected: at.arg.saturating_add(1),
        found: shapes.len(),
    })?;
    shape
        .get(at.axis)
        .copied()
        .ok_or_else(|| ShapeError::ArgRank {
            op: "broadcast",
            arg: ArgRef::Index(at.arg),
            expected: format!("at least {}", at.axis.saturating_add(1)),
            found: Box::new(Shape::known(shape)),
        })
}

/// Everything that must hold at run time for a static broadcast to be true, and the means to check
/// it against concrete shapes.
///
/// Running the checks first verifies that each concrete shape satisfies its static shape (rank and
/// dims), then the [`BroadcastCheck`]s, then, if some input had unknown rank, a full broadcast of
/// the concrete shapes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BroadcastChecks {
    policy: Policy,
    inputs: Vec<Shape>,
    output: Shape,
    checks: Vec<BroadcastCheck>,
}

impl BroadcastChecks {
    /// The checks that static broadcasting could not decide, in output-axis order (last axis first).
    pub fn checks(&self) -> &[BroadcastCheck] {
        &self.checks
    }

    /// The policy the checks were built under.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The static input shapes the checks were built from.
    pub fn inputs(&self) -> &[Shape] {
        &self.inputs
    }

    /// Whether some input has unknown rank, so that a full broadcast of the concrete shapes is
    /// part of the checks.
    pub fn needs_full_broadcast(&self) -> bool {
        self.output.rank().is_none()
    }

    /// Whether nothing remains to check beyond each input matching its static shape.
    pub fn is_trivial(&self) -> bool {
        self.checks.is_empty() && !self.needs_full_broadcast()
    }

    /// Runs the checks against concrete shapes, one per input, and returns the output shape.
    ///
    /// Errors name the argument, the axis, the sizes allowed there and the size found.
    ///
    /// ```
    /// use extype_shape::{Policy, Shape, broadcast_static};
    /// let a: Shape = "[3]".parse().unwrap();
    /// let b: Shape = "[?]".parse().unwrap();
    /// let out = broadcast_static(&[a, b], Policy::Numpy).unwrap();
    /// assert_eq!(out.shape.to_string(), "[3]");
    /// assert_eq!(out.checks.to_string(), "argument 1 axis 0 ∈ {1, 3}");
    /// assert_eq!(out.checks.run(&[&[3], &[1]]).unwrap().as_slice(), &[3]);
    /// let err = out.checks.run(&[&[3], &[4]]).unwrap_err();
    /// assert_eq!(err.to_string(), "broadcast: argument 1 axis 0: expected 1 or 3, found 4");
    /// ```
    pub fn run(&self, shapes: &[&[usize]]) -> Result<Sizes, ShapeError> {
        if shapes.len() != self.inputs.len() {
            return Err(ShapeError::ArgCount {
                op: "broadcast",
                expected: self.inputs.len(),
                found: shapes.len(),
            });
        }
        for (arg, (input, &shape)) in self.inputs.iter().zip(shapes).enumerate() {
            check_admitted(arg, input, shape)?;
        }
        check_symbols(&self.inputs, shapes)?;
        for check in &self.checks {
            check.verify(shapes)?;
        }
        let Some(out_dims) = self.output.dims() else {
            return match self.policy {
                Policy::Numpy => broadcast_shapes(shapes),
                Policy::Strict => broadcast_where(shapes, |arg, axis| {
                    self.inputs[arg].dims().and_then(|d| d.get(axis)) == Some(&Dim::Known(1))
                }),
            };
        };
        // The checks passed, so every axis has one size other than 1 (or none): read it off.
        let rank = out_dims.len();
        let mut out = Sizes::from_elem(1, rank);
        for (i, (slot, dim)) in out.iter_mut().zip(out_dims).enumerate() {
            if let Dim::Known(n) = *dim {
                *slot = n;
                continue;
            }
            let from_end = rank - 1 - i;
            for shape in shapes {
                if let Some(axis) = shape.len().checked_sub(from_end + 1)
                    && shape[axis] != 1
                {
                    *slot = shape[axis];
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Like [`run`](Self::run), without computing the output.
    pub fn verify(&self, shapes: &[&[usize]]) -> Result<(), ShapeError> {
        self.run(shapes).map(|_| ())
    }
}

impl fmt::Display for BroadcastChecks {
    /// The checks separated by `; `, then the full broadcast if one is needed; `none` if trivial.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_trivial() {
            return f.write_str("none");
        }
        for (i, check) in self.checks.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{check}")?;
        }
        if self.needs_full_broadcast() {
            if !self.checks.is_empty() {
                f.write_str("; ")?;
            }
            f.write_str("full broadcast at run time (an input has unknown rank)")?;
        }
        Ok(())
    }
}

fn check_admitted(arg: usize, input: &Shape, shape: &[usize]) -> Result<(), ShapeError> {
    let Some(dims) = input.dims() else {
        return Ok(());
    };
    if dims.len() != shape.len() {
        return Err(ShapeError::ArgRank {
            op: "broadcast",
            arg: ArgRef::Index(arg),
            expected: format!("{} (static shape {input})", dims.len()),
            found: Box::new(Shape::known(shape)),
        });
    }
    for (axis, (dim, &size)) in dims.iter().zip(shape).enumerate() {
        if !dim.admits(size) {
            return Err(ShapeError::Mismatch {
                op: "broadcast",
                arg: ArgRef::Index(arg),
                axis,
                expected: match dim {
                    Dim::NotOne => "a size other than 1 (static dim !1)".to_string(),
                    _ => format!("{dim} (static shape {input})"),
                },
                found: Dim::Known(size),
            });
        }
    }
    Ok(())
}

/// Checks that every occurrence of a symbol, across all inputs, has one size (the ranks were
/// checked before).
fn check_symbols(inputs: &[Shape], shapes: &[&[usize]]) -> Result<(), ShapeError> {
    let mut seen: SmallVec<[(Symbol, ArgAxis, usize); 4]> = SmallVec::new();
    for (arg, (input, shape)) in inputs.iter().zip(shapes).enumerate() {
        for (axis, (dim, &size)) in input
            .dims()
            .unwrap_or_default()
            .iter()
            .zip(*shape)
            .enumerate()
        {
            let Some(name) = dim.as_symbol() else {
                continue;
            };
            let at = ArgAxis { arg, axis };
            match seen.iter().find(|(s, _, _)| *s == name) {
                None => seen.push((name, at, size)),
                Some(&(_, origin, want)) if want != size => {
                    return Err(mismatch(
                        at,
                        format!("${name} = {want} (the size of {origin})"),
                        size,
                    ));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// The result of [`broadcast_static`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StaticBroadcast {
    /// The output shape; unknown rank when some input has unknown rank.
    pub shape: Shape,
    /// The dims the output ends with: equal to `shape` when its rank is known, otherwise the last
    /// axes of the output, as far as the inputs of known rank tell. The output has at least this
    /// rank.
    pub trailing: Shape,
    /// What must be checked at run time for `shape` to be the output.
    pub checks: BroadcastChecks,
}

/// Broadcasts partial shapes statically under `policy`: the output shape and the runtime checks
/// that make it true. Fails when no concrete shapes could broadcast (two different known sizes,
/// neither 1, meet at one axis).
///
/// The checks pass on concrete shapes exactly when those shapes satisfy the inputs and broadcast
/// (under NumPy's rules for [`Policy::Numpy`]), and then [`BroadcastChecks::run`] returns NumPy's
/// output shape, which `shape` admits.
///
/// ```
/// use extype_shape::{Policy, Shape, broadcast_static};
/// let shapes: Vec<Shape> = ["[!1, 4]", "[?, 1]"].iter().map(|s| s.parse().unwrap()).collect();
/// let out = broadcast_static(&shapes, Policy::Numpy).unwrap();
/// assert_eq!(out.shape.to_string(), "[!1, 4]");
/// assert_eq!(
///     out.checks.to_string(),
///     "sizes other than 1 agree: argument 0 axis 0, argument 1 axis 0"
/// );
/// assert_eq!(out.checks.run(&[&[5, 4], &[1, 1]]).unwrap().as_slice(), &[5, 4]);
/// assert!(out.checks.run(&[&[5, 4], &[6, 1]]).is_err());
///
/// // Statically impossible:
/// let bad: Vec<Shape> = ["[3]", "[4]"].iter().map(|s| s.parse().unwrap()).collect();
/// assert!(broadcast_static(&bad, Policy::Numpy).is_err());
/// ```
pub fn broadcast_static<S: Borrow<Shape>>(
    shapes: &[S],
    policy: Policy,
) -> Result<StaticBroadcast, ShapeError> {
    let known_rank = shapes
        .iter()
        .filter_map(|s| s.borrow().rank())
        .max()
        .unwrap_or(0);
    let has_unknown_rank = shapes.iter().any(|s| s.borrow().rank().is_none());
    let mut out = DimVec::from_elem(Dim::Known(1), known_rank);
    let mut checks = Vec::new();
    for from_end in 0..known_rank {
        let mut fixed: Option<(ArgAxis, usize)> = None;
        // The `!1`, `?` and symbol dims in argument order, each symbol once (its occurrences are
        // one size, checked with the inputs' static shapes); the flag says "not 1".
        let mut free: SmallVec<[(ArgAxis, bool, Option<Symbol>); 4]> = SmallVec::new();
        for (arg, shape) in shapes.iter().enumerate() {
            let Some(dims) = shape.borrow().dims() else {
                continue;
            };
            let Some(axis) = dims.len().checked_sub(from_end + 1) else {
                continue;
            };
            let at = ArgAxis { arg, axis };
            match dims[axis] {
                Dim::Known(1) => {}
                Dim::Known(n) => match fixed {
                    None => fixed = Some((at, n)),
                    Some((first, size)) if size != n => {
                        return Err(ShapeError::Broadcast {
                            first: first.arg,
                            first_axis: first.axis,
                            first_size: Dim::Known(size),
                            second: arg,
                            second_axis: axis,
                            second_size: Dim::Known(n),
                        });
                    }
                    Some(_) => {}
                },
                Dim::NotOne => free.push((at, true, None)),
                Dim::Unknown => free.push((at, false, None)),
                Dim::Symbol { name, not_one } => {
                    match free.iter_mut().find(|(_, _, s)| *s == Some(name)) {
                        Some((_, flag, _)) => *flag |= not_one,
                        None => free.push((at, not_one, Some(name))),
                    }
                }
            }
        }
        let dim = if let Some((_, size)) = fixed {
            // A `!1` cannot be 1, so it must be `size`; a `?` may also be 1 unless Strict.
            checks.extend(free.iter().map(|&(at, not_one, _)| {
                if not_one || policy == Policy::Strict {
                    BroadcastCheck::Equals { at, size }
                } else {
                    BroadcastCheck::OneOrSize { at, size }
                }
            }));
            Dim::Known(size)
        } else {
            let any_not_one = free.iter().any(|&(_, not_one, _)| not_one);
            let dim = if let [(_, not_one, Some(name))] = free[..] {
                // One symbol (perhaps at several inputs), the rest 1: the output is that symbol.
                Dim::Symbol { name, not_one }
            } else if any_not_one {
                Dim::NotOne
            } else if free.is_empty() {
                Dim::Known(1)
            } else {
                Dim::Unknown
            };
            if free.len() >= 2 {
                let places = free.iter().map(|&(at, _, _)| at).collect();
                checks.push(match policy {
                    Policy::Numpy => BroadcastCheck::NonOnesAgree(places),
                    Policy::Strict => BroadcastCheck::AllEqual(places),
                });
            }
            dim
        };
        out[known_rank - 1 - from_end] = dim;
    }
    let inputs: Vec<Shape> = shapes.iter().map(|s| s.borrow().clone()).collect();
    let (shape, trailing) = if has_unknown_rank {
        // An input of unknown rank may have any size at each of these axes: under NumPy 1 or the
        // size there (if known and not 1), under Strict that size. Either way a known size other
        // than 1 stays, and a 1 becomes unknown.
        let trailing = Shape::from_dims(out.iter().map(|d| match d {
            Dim::Known(1) | Dim::Symbol { not_one: false, .. } => Dim::Unknown,
            other => *other,
        }));
        (Shape::unknown_rank(), trailing)
    } else {
        let shape = Shape::from_dims(out);
        (shape.clone(), shape)
    };
    Ok(StaticBroadcast {
        checks: BroadcastChecks {
            policy,
            inputs,
            output: shape.clone(),
            checks,
        },
        shape,
        trailing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes(texts: &[&str]) -> Vec<Shape> {
        texts.iter().map(|t| t.parse().unwrap()).collect()
    }

    fn numpy(texts: &[&str]) -> StaticBroadcast {
        broadcast_static(&shapes(texts), Policy::Numpy).unwrap()
    }

    fn strict(texts: &[&str]) -> StaticBroadcast {
        broadcast_static(&shapes(texts), Policy::Strict).unwrap()
    }

    #[test]
    fn known_shapes_need_no_checks() {
        let out = numpy(&["[8, 1, 6, 1]", "[7, 1, 5]"]);
        assert_eq!(out.shape.to_string(), "[8, 7, 6, 5]");
        assert!(out.checks.is_trivial());
        assert_eq!(out.checks.to_string(), "none");
        assert_eq!(
            out.checks
                .run(&[&[8, 1, 6, 1], &[7, 1, 5]])
                .unwrap()
                .as_slice(),
            &[8, 7, 6, 5]
        );
        // The concrete inputs must still match their static shapes.
        let err = out.checks.run(&[&[8, 1, 6, 1], &[7, 2, 5]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "broadcast: argument 1 axis 1: expected 1 (static shape [7, 1, 5]), found 2"
        );
        let err = out.checks.run(&[&[8, 1, 6, 1]]).unwrap_err();
        assert!(matches!(
            err,
            ShapeError::ArgCount {
                expected: 2,
                found: 1,
                ..
            }
        ));
        let err = out.checks.run(&[&[8, 6, 1], &[7, 1, 5]]).unwrap_err();
        assert!(
            matches!(
                err,
                ShapeError::ArgRank {
                    arg: ArgRef::Index(0),
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn statically_impossible() {
        let err = broadcast_static(&shapes(&["[3]", "[4]"]), Policy::Numpy).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Broadcast {
                first: 0,
                first_axis: 0,
                first_size: Dim::Known(3),
                second: 1,
                second_axis: 0,
                second_size: Dim::Known(4),
            }
        );
        assert!(broadcast_static(&shapes(&["[0]", "[2]"]), Policy::Strict).is_err());
        assert!(broadcast_static(&shapes(&["[2, ?]", "*", "[5, 1]"]), Policy::Numpy).is_err());
    }

    #[test]
    fn unknown_meets_known() {
        let out = numpy(&["[3]", "[?]"]);
        assert_eq!(out.shape.to_string(), "[3]");
        assert_eq!(
            out.checks.checks(),
            &[BroadcastCheck::OneOrSize {
                at: ArgAxis { arg: 1, axis: 0 },
                size: 3
            }]
        );
        assert_eq!(out.checks.to_string(), "argument 1 axis 0 ∈ {1, 3}");
        assert_eq!(out.checks.run(&[&[3], &[3]]).unwrap().as_slice(), &[3]);
        // Zero-size: ? vs 0 admits 0 and 1 only.
        let out = numpy(&["[0]", "[?]"]);
        assert_eq!(out.checks.run(&[&[0], &[1]]).unwrap().as_slice(), &[0]);
        assert!(out.checks.run(&[&[0], &[2]]).is_err());
    }

    #[test]
    fn not_one_semantics() {
        // `!1` vs `?`: `!1`, and the `?` is 1 or equal to it.
        let out = numpy(&["[!1]", "[?]"]);
        assert_eq!(out.shape.to_string(), "[!1]");
        assert_eq!(
            out.checks.to_string(),
            "sizes other than 1 agree: argument 0 axis 0, argument 1 axis 0"
        );
        assert_eq!(out.checks.run(&[&[4], &[1]]).unwrap().as_slice(), &[4]);
        assert_eq!(out.checks.run(&[&[4], &[4]]).unwrap().as_slice(), &[4]);
        assert_eq!(out.checks.run(&[&[0], &[1]]).unwrap().as_slice(), &[0]);
        let err = out.checks.run(&[&[4], &[5]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "broadcast: argument 1 axis 0: expected 1 or 4 (the size of argument 0 axis 0), found 5"
        );
        // The `!1` itself may not be 1 at run time.
        let err = out.checks.run(&[&[1], &[1]]).unwrap_err();
        assert!(
            matches!(
                err,
                ShapeError::Mismatch {
                    arg: ArgRef::Index(0),
                    ..
                }
            ),
            "{err}"
        );
        // `!1` vs a known size must equal it.
        let out = numpy(&["[!1]", "[5]"]);
        assert_eq!(out.shape.to_string(), "[5]");
        assert_eq!(out.checks.to_string(), "argument 0 axis 0 = 5");
        // `!1` vs 1 is just `!1`.
        let out = numpy(&["[!1]", "[1]"]);
        assert_eq!(out.shape.to_string(), "[!1]");
        assert!(out.checks.is_trivial());
    }

    #[test]
    fn three_unknowns_are_checked_together() {
        let out = numpy(&["[?]", "[?]", "[?]"]);
        assert_eq!(out.shape.to_string(), "[?]");
        assert_eq!(out.checks.checks().len(), 1);
        // Pairwise along a chain ([2]~[1], [1]~[3]) would pass; the n-ary check does not.
        let err = out.checks.run(&[&[2], &[1], &[3]]).unwrap_err();
        assert!(
            matches!(
                err,
                ShapeError::Mismatch {
                    arg: ArgRef::Index(2),
                    axis: 0,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            out.checks.run(&[&[1], &[2], &[1]]).unwrap().as_slice(),
            &[2]
        );
        assert_eq!(
            out.checks.run(&[&[1], &[1], &[1]]).unwrap().as_slice(),
            &[1]
        );
        // One unknown with ones and missing axes needs nothing.
        let out = numpy(&["[?, 1]", "[1]", "[]"]);
        assert_eq!(out.shape.to_string(), "[?, 1]");
        assert!(out.checks.is_trivial());
    }

    // PyTensor: a dim not statically 1 never broadcasts at run time.
    #[test]
    fn strict_policy() {
        let out = strict(&["[?]", "[5]"]);
        assert_eq!(out.shape.to_string(), "[5]");
        assert_eq!(out.checks.to_string(), "argument 0 axis 0 = 5");
        assert!(out.checks.run(&[&[1], &[5]]).is_err());
        assert_eq!(out.checks.run(&[&[5], &[5]]).unwrap().as_slice(), &[5]);
        let out = strict(&["[?]", "[?]"]);
        let err = out.checks.run(&[&[1], &[4]]).unwrap_err();
        assert!(err.to_string().contains("Strict policy"), "{err}");
        assert_eq!(out.checks.run(&[&[1], &[1]]).unwrap().as_slice(), &[1]);
        // A static 1 still broadcasts, and so does a missing leading axis.
        let out = strict(&["[1, ?]", "[4, ?]", "[?]"]);
        assert_eq!(out.shape.to_string(), "[4, ?]");
        assert_eq!(
            out.checks
                .run(&[&[1, 3], &[4, 3], &[3]])
                .unwrap()
                .as_slice(),
            &[4, 3]
        );
        assert!(out.checks.run(&[&[1, 3], &[4, 1], &[3]]).is_err());
        // The same shapes broadcast under NumPy's policy.
        let out = numpy(&["[1, ?]", "[4, ?]", "[?]"]);
        assert_eq!(
            out.checks
                .run(&[&[1, 3], &[4, 1], &[3]])
                .unwrap()
                .as_slice(),
            &[4, 3]
        );
    }

    #[test]
    fn unknown_rank_inputs() {
        let out = numpy(&["*", "[?, 3]", "[5, 1]"]);
        assert_eq!(out.shape.to_string(), "*");
        assert_eq!(out.trailing.to_string(), "[5, 3]");
        assert!(out.checks.needs_full_broadcast());
        assert_eq!(
            out.checks.to_string(),
            "argument 1 axis 0 ∈ {1, 5}; full broadcast at run time (an input has unknown rank)"
        );
        assert_eq!(
            out.checks
                .run(&[&[2, 1, 1], &[1, 3], &[5, 1]])
                .unwrap()
                .as_slice(),
            &[2, 5, 3]
        );
        let err = out.checks.run(&[&[2, 4, 1], &[1, 3], &[5, 1]]).unwrap_err();
        assert!(
            matches!(err, ShapeError::Broadcast { first: 0, .. }),
            "{err}"
        );
        // A known 1 tells nothing once an unknown-rank input is there.
        let out = numpy(&["*", "[1, !1]"]);
        assert_eq!(out.trailing.to_string(), "[?, !1]");
        // Under Strict, the unknown-rank input never broadcasts.
        let out = strict(&["*", "[3]"]);
        assert!(out.checks.run(&[&[2, 1], &[3]]).is_err());
        assert_eq!(
            out.checks.run(&[&[2, 3], &[3]]).unwrap().as_slice(),
            &[2, 3]
        );
        assert_eq!(out.checks.run(&[&[], &[3]]).unwrap().as_slice(), &[3]);
        let out = numpy(&["*"]);
        assert_eq!(out.checks.run(&[&[4, 2]]).unwrap().as_slice(), &[4, 2]);
    }

    #[test]
    fn no_inputs_and_scalars() {
        let out = numpy(&[]);
        assert_eq!(out.shape.to_string(), "[]");
        assert_eq!(out.checks.run(&[]).unwrap().as_slice(), &[] as &[usize]);
        let out = numpy(&["[]", "[?, 2]"]);
        assert_eq!(out.shape.to_string(), "[?, 2]");
        assert_eq!(out.checks.run(&[&[], &[7, 2]]).unwrap().as_slice(), &[7, 2]);
    }

    #[test]
    fn check_verify_is_safe_on_bad_input() {
        let check = BroadcastCheck::OneOrSize {
            at: ArgAxis { arg: 2, axis: 1 },
            size: 3,
        };
        assert!(matches!(
            check.verify(&[&[1]]),
            Err(ShapeError::ArgCount { .. })
        ));
        assert!(matches!(
            check.verify(&[&[1], &[1], &[1]]),
            Err(ShapeError::ArgRank { .. })
        ));
        let far = BroadcastCheck::Equals {
            at: ArgAxis {
                arg: usize::MAX,
                axis: usize::MAX,
            },
            size: 1,
        };
        assert!(far.verify(&[&[1]]).is_err());
        let far = BroadcastCheck::Equals {
            at: ArgAxis {
                arg: 0,
                axis: usize::MAX,
            },
            size: 1,
        };
        assert!(far.verify(&[&[1]]).is_err());
    }

    #[test]
    fn shared_symbols_need_no_checks() {
        let out = numpy(&["[$n, 3]", "[$n, 1]", "[3]"]);
        assert_eq!(out.shape.to_string(), "[$n, 3]");
        assert!(out.checks.checks().is_empty());
        assert_eq!(
            out.checks
                .run(&[&[4, 3], &[4, 1], &[3]])
                .unwrap()
                .as_slice(),
            &[4, 3]
        );
        assert_eq!(
            out.checks
                .run(&[&[1, 3], &[1, 1], &[3]])
                .unwrap()
                .as_slice(),
            &[1, 3]
        );
        // The concrete shapes must agree on the symbol.
        let err = out.checks.run(&[&[4, 3], &[5, 1], &[3]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "broadcast: argument 1 axis 0: expected $n = 4 (the size of argument 0 axis 0), found 5"
        );
        // `!1` on one occurrence makes the output `!1` too.
        assert_eq!(numpy(&["[$n!1]", "[$n]"]).shape.to_string(), "[$n!1]");
        assert!(strict(&["[$n, ?]", "[$n, 1]"]).checks.is_trivial());
    }

    #[test]
    fn different_symbols_are_checked_together() {
        let out = numpy(&["[$a]", "[$b]", "[$a]", "[?]"]);
        assert_eq!(out.shape.to_string(), "[?]");
        assert_eq!(
            out.checks.to_string(),
            "sizes other than 1 agree: argument 0 axis 0, argument 1 axis 0, argument 3 axis 0"
        );
        assert_eq!(
            out.checks
                .run(&[&[1], &[4], &[1], &[4]])
                .unwrap()
                .as_slice(),
            &[4]
        );
        assert!(out.checks.run(&[&[2], &[4], &[2], &[1]]).is_err());
        let out = strict(&["[$a]", "[$b!1]"]);
        assert_eq!(out.shape.to_string(), "[!1]");
        assert_eq!(
            out.checks.to_string(),
            "sizes are equal: argument 0 axis 0, argument 1 axis 0"
        );
        // A symbol meeting a known size: 1 or that size (NumPy), that size (Strict).
        let out = numpy(&["[$a]", "[5]", "[$a]"]);
        assert_eq!(out.shape.to_string(), "[5]");
        assert_eq!(out.checks.to_string(), "argument 0 axis 0 ∈ {1, 5}");
        assert_eq!(
            strict(&["[$a!1]", "[5]"]).checks.to_string(),
            "argument 0 axis 0 = 5"
        );
        // Unknown rank: a symbol that may be 1 tells nothing of the output; `$a!1` does.
        let out = numpy(&["*", "[$a, $b!1]"]);
        assert_eq!(out.trailing.to_string(), "[?, $b!1]");
    }
}

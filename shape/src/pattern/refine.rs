//! Applying a [`ShapePattern`] to a partial [`Shape`]: the refined shape, and the checks still
//! needed at run time.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use smallvec::SmallVec;

use super::{Bindings, DimBinding, Origin, PatternDim, ShapePattern};
use crate::error::{ArgRef, ShapeError};
use crate::partial::DimVec;
use crate::{Dim, Shape};

/// An axis of a shape whose rank may be unknown statically: counted from the start, or from the
/// end (`End(0)` is the last axis) for items after a variadic segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AxisRef {
    /// The axis at this index.
    Start(usize),
    /// The axis this many places before the last (`End(0)` is the last axis).
    End(usize),
}

impl AxisRef {
    /// The axis index in a shape of rank `rank`, if it exists.
    pub fn resolve(self, rank: usize) -> Option<usize> {
        match self {
            AxisRef::Start(i) => (i < rank).then_some(i),
            AxisRef::End(k) => rank.checked_sub(k.checked_add(1)?),
        }
    }
}

impl fmt::Display for AxisRef {
    /// `axis 2`, or `axis -1` for the last.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxisRef::Start(i) => write!(f, "axis {i}"),
            // Widened so that `End(usize::MAX)` prints instead of overflowing.
            AxisRef::End(k) => write!(f, "axis -{}", *k as u128 + 1),
        }
    }
}

/// A runtime check that applying a pattern to a partial shape could not decide.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PatternCheck {
    /// The rank is exactly this.
    Rank(usize),
    /// The rank is at least this.
    RankAtLeast(usize),
    /// The size at `axis` is `size`.
    Size {
        /// Where.
        axis: AxisRef,
        /// The required size.
        size: usize,
    },
    /// The size at `axis` is 1 or `size` (a `#name` whose size is known).
    OneOrSize {
        /// Where.
        axis: AxisRef,
        /// The name's size.
        size: usize,
    },
    /// The size at `axis` equals the size at `to`, where `name` binds.
    Equal {
        /// Where.
        axis: AxisRef,
        /// Where the name binds.
        to: AxisRef,
        /// The name.
        name: Arc<str>,
    },
    /// The size at `axis` (a `#name`) is 1 or equals the size at `to`, where `name` binds.
    OneOrEqual {
        /// Where.
        axis: AxisRef,
        /// Where the name binds.
        to: AxisRef,
        /// The name.
        name: Arc<str>,
    },
    /// The sizes at these `#name` axes that are not 1 are all equal (n-ary).
    NonOnesAgree {
        /// The axes.
        axes: SmallVec<[AxisRef; 4]>,
        /// The name.
        name: Arc<str>,
    },
}

impl PatternCheck {
    /// Runs this check against a concrete shape.
    pub fn verify(&self, shape: &[usize]) -> Result<(), ShapeError> {
        let rank_error = |expected: String| ShapeError::ArgRank {
            op: "enforce_shape",
            arg: ArgRef::Index(0),
            expected,
            found: Box::new(Shape::known(shape)),
        };
        let size_at = |axis: AxisRef| {
            axis.resolve(shape.len())
                .map(|a| (a, shape[a]))
                .ok_or_else(|| rank_error(format!("large enough to have {axis}")))
        };
        let fail = |axis: usize, expected: String, found: usize| ShapeError::Mismatch {
            op: "enforce_shape",
            arg: ArgRef::Index(0),
            axis,
            expected,
            found: Dim::Known(found),
        };
        match self {
            PatternCheck::Rank(rank) if shape.len() != *rank => Err(rank_error(rank.to_string())),
            PatternCheck::RankAtLeast(rank) if shape.len() < *rank => {
                Err(rank_error(format!("at least {rank}")))
            }
            PatternCheck::Size { axis, size } => match size_at(*axis)? {
                (a, found) if found != *size => Err(fail(a, size.to_string(), found)),
                _ => Ok(()),
            },
            PatternCheck::OneOrSize { axis, size } => match size_at(*axis)? {
                (a, found) if found != 1 && found != *size => {
                    Err(fail(a, format!("1 or {size}"), found))
                }
                _ => Ok(()),
            },
            PatternCheck::Equal { axis, to, name }
            | PatternCheck::OneOrEqual { axis, to, name } => {
                let (a, found) = size_at(*axis)?;
                let (b, want) = size_at(*to)?;
                let one_ok = matches!(self, PatternCheck::OneOrEqual { .. });
                if found == want || (one_ok && found == 1) {
                    Ok(())
                } else {
                    let one_or = if one_ok { "1 or " } else { "" };
                    Err(fail(
                        a,
                        format!("{one_or}{name} = {want} (axis {b})"),
                        found,
                    ))
                }
            }
            PatternCheck::NonOnesAgree { axes, name } => {
                let mut first: Option<(usize, usize)> = None;
                for &axis in axes {
                    let (a, found) = size_at(axis)?;
                    if found == 1 {
                        continue;
                    }
                    match first {
                        None => first = Some((a, found)),
                        Some((b, want)) if want != found => {
                            return Err(fail(
                                a,
                                format!("1 or #{name} = {want} (axis {b})"),
                                found,
                            ));
                        }
                        Some(_) => {}
                    }
                }
                Ok(())
            }
            PatternCheck::Rank(_) | PatternCheck::RankAtLeast(_) => Ok(()),
        }
    }
}

impl fmt::Display for PatternCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternCheck::Rank(r) => write!(f, "rank = {r}"),
            PatternCheck::RankAtLeast(r) => write!(f, "rank ≥ {r}"),
            PatternCheck::Size { axis, size } => write!(f, "{axis} = {size}"),
            PatternCheck::OneOrSize { axis, size } => write!(f, "{axis} ∈ {{1, {size}}}"),
            PatternCheck::Equal { axis, to, name } => write!(f, "{axis} = {to} ({name})"),
            PatternCheck::OneOrEqual { axis, to, name } => {
                write!(f, "{axis} ∈ {{1, {to}}} (#{name})")
            }
            PatternCheck::NonOnesAgree { axes, name } => {
                write!(f, "sizes other than 1 agree (#{name}):")?;
                for axis in axes {
                    write!(f, " {axis}")?;
                }
                Ok(())
            }
        }
    }
}

/// The result of [`ShapePattern::refine`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refined {
    /// The input shape with what the pattern implies merged in (unknown rank stays unknown only
    /// when the pattern has a variadic segment).
    pub shape: Shape,
    /// The checks still needed at run time, beyond the concrete shape satisfying the input shape.
    pub checks: Vec<PatternCheck>,
    /// The names whose sizes are known statically.
    pub known: Bindings,
    input: Shape,
}

impl Refined {
    /// The partial shape the pattern was applied to.
    pub fn input(&self) -> &Shape {
        &self.input
    }

    /// Checks a concrete shape: that it satisfies the input shape, then every check. Passes exactly
    /// when [`ShapePattern::enforce_with`] (with the bindings given to `refine_with`) would.
    pub fn verify(&self, shape: &[usize]) -> Result<(), ShapeError> {
        if let Some(dims) = self.input.dims() {
            if dims.len() != shape.len() {
                return Err(ShapeError::ArgRank {
                    op: "enforce_shape",
                    arg: ArgRef::Index(0),
                    expected: format!("{} (static shape {})", dims.len(), self.input),
                    found: Box::new(Shape::known(shape)),
                });
            }
            for (axis, (dim, &size)) in dims.iter().zip(shape).enumerate() {
                if !dim.admits(size) {
                    return Err(ShapeError::Mismatch {
                        op: "enforce_shape",
                        arg: ArgRef::Index(0),
                        axis,
                        expected: format!("{dim} (static shape {})", self.input),
                        found: Dim::Known(size),
                    });
                }
            }
        }
        self.checks.iter().try_for_each(|c| c.verify(shape))
    }
}

/// Parses `pattern` and applies it to a partial shape: the `enforce_shape` of the Array API
/// proposal on a shape that is not fully known yet.
///
/// ```
/// use extype_shape::{Shape, refine_shape};
/// let refined = refine_shape(&Shape::unknown_rank(), "1 _ ... 3").unwrap();
/// assert_eq!(refined.shape.to_string(), "*");
/// let checks: Vec<String> = refined.checks.iter().map(|c| c.to_string()).collect();
/// assert_eq!(checks, ["rank ≥ 3", "axis 0 = 1", "axis -1 = 3"]);
/// assert!(refined.verify(&[1, 4, 3]).is_ok());
/// assert!(refined.verify(&[1, 4, 2]).is_err());
/// ```
pub fn refine_shape(shape: &Shape, pattern: &str) -> Result<Refined, ShapeError> {
    ShapePattern::parse(pattern)?.refine(shape)
}

/// One non-variadic item's place in the shape, its static dim, and its refinement.
struct Place {
    item: usize,
    axis: AxisRef,
    refined: Dim,
}

impl ShapePattern {
    /// Applies this pattern to a partial shape, with no names bound beforehand.
    ///
    /// ```
    /// use extype_shape::{Shape, ShapePattern};
    /// let pattern: ShapePattern = "n n 3".parse().unwrap();
    /// let refined = pattern.refine(&"[5, ?, ?]".parse().unwrap()).unwrap();
    /// assert_eq!(refined.shape.to_string(), "[5, 5, 3]");
    /// assert_eq!(refined.checks.len(), 2); // axis 1 = 5, axis 2 = 3
    /// assert!(refined.verify(&[5, 5, 3]).is_ok());
    /// assert!(refined.verify(&[5, 4, 3]).is_err());
    /// // Statically impossible:
    /// assert!(pattern.refine(&"[5, 6, ?]".parse().unwrap()).is_err());
    /// ```
    pub fn refine(&self, shape: &Shape) -> Result<Refined, ShapeError> {
        self.refine_with(shape, &Bindings::new())
    }

    /// Applies this pattern to a partial shape, with names (and segments) bound beforehand.
    pub fn refine_with(&self, shape: &Shape, bindings: &Bindings) -> Result<Refined, ShapeError> {
        // A segment bound beforehand is a run of known sizes.
        let (items, variadic): (Cow<'_, [PatternDim]>, Option<usize>) = match self.variadic {
            Some(v) => match &self.items[v] {
                PatternDim::Variadic(Some(name)) if bindings.segment(name).is_some() => {
                    let sizes = bindings.segment(name).unwrap_or_default();
                    let mut items = self.items[..v].to_vec();
                    items.extend(sizes.iter().map(|&n| PatternDim::Size(n)));
                    items.extend_from_slice(&self.items[v + 1..]);
                    (Cow::Owned(items), None)
                }
                _ => (Cow::Borrowed(&self.items[..]), Some(v)),
            },
            None => (Cow::Borrowed(&self.items[..]), None),
        };
        let fixed = items.len() - usize::from(variadic.is_some());
        let mut checks = Vec::new();
        let rank = shape.rank();
        match rank {
            Some(r) if (variadic.is_none() && r != fixed) || r < fixed => {
                let expected = if variadic.is_none() && self.variadic.is_some() {
                    format!(
                        "{fixed} (pattern `{}`, its segment being bound)",
                        self.quoted()
                    )
                } else {
                    self.rank_text()
                };
                return Err(ShapeError::ArgRank {
                    op: "enforce_shape",
                    arg: ArgRef::Index(0),
                    expected,
                    found: Box::new(shape.clone()),
                });
            }
            Some(_) => {}
            None if variadic.is_none() => checks.push(PatternCheck::Rank(fixed)),
            None if fixed > 0 => checks.push(PatternCheck::RankAtLeast(fixed)),
            None => {}
        }
        let mut places: SmallVec<[Place; 4]> = SmallVec::new();
        for (item, pattern_dim) in items.iter().enumerate() {
            if matches!(pattern_dim, PatternDim::Variadic(_)) {
                continue;
            }
            let after_segment = variadic.is_some_and(|v| item > v);
            let (axis, dim) = match (shape.dims(), after_segment) {
                (Some(dims), true) => {
                    let a = dims.len() - (items.len() - item);
                    (AxisRef::Start(a), dims[a])
                }
                (Some(dims), false) => (AxisRef::Start(item), dims[item]),
                (None, true) => (AxisRef::End(items.len() - 1 - item), Dim::Unknown),
                (None, false) => (AxisRef::Start(item), Dim::Unknown),
            };
            places.push(Place {
                item,
                axis,
                refined: dim,
            });
        }

        let mut known = Bindings::new();
        for place in places.iter_mut() {
            if let PatternDim::Size(n) = items[place.item] {
                let Some(merged) = place.refined.merge_with(Dim::Known(n)) else {
                    return Err(static_mismatch(place, n.to_string()));
                };
                if place.refined != merged {
                    checks.push(PatternCheck::Size {
                        axis: place.axis,
                        size: n,
                    });
                }
                place.refined = merged;
            }
        }
        for name in self.names() {
            if items.iter().all(|i| !uses_dim(i, name)) {
                continue;
            }
            refine_name(name, &items, &mut places, bindings, &mut known, &mut checks)?;
        }

        let refined_shape = match (shape.dims(), variadic) {
            (Some(dims), _) => {
                let mut dims: DimVec = dims.iter().copied().collect();
                for place in &places {
                    if let AxisRef::Start(a) = place.axis {
                        dims[a] = place.refined;
                    }
                }
                Shape::from_dims(dims)
            }
            (None, None) => Shape::from_dims(places.iter().map(|p| p.refined)),
            (None, Some(_)) => Shape::unknown_rank(),
        };
        Ok(Refined {
            shape: refined_shape,
            checks,
            known,
            input: shape.clone(),
        })
    }
}

fn uses_dim(item: &PatternDim, name: &str) -> bool {
    matches!(item, PatternDim::Name(n) | PatternDim::Broadcastable(n) if &**n == name)
}

fn static_mismatch(place: &Place, expected: String) -> ShapeError {
    ShapeError::Mismatch {
        op: "enforce_shape",
        arg: ArgRef::Index(0),
        // Static conflicts need a known dim, so the rank is known and the axis counts from 0.
        axis: match place.axis {
            AxisRef::Start(a) | AxisRef::End(a) => a,
        },
        expected,
        found: place.refined,
    }
}

/// Refines the places of one name (`n` and `#n` items) and adds the checks they need.
fn refine_name(
    name: &str,
    items: &[PatternDim],
    places: &mut [Place],
    bindings: &Bindings,
    known: &mut Bindings,
    checks: &mut Vec<PatternCheck>,
) -> Result<(), ShapeError> {
    let is_plain = |p: &Place| matches!(&items[p.item], PatternDim::Name(n) if &**n == name);
    let is_hash =
        |p: &Place| matches!(&items[p.item], PatternDim::Broadcastable(n) if &**n == name);

    // The size, if something static fixes it: an earlier binding, a known `n`, a known `#n ≠ 1`.
    let mut value: Option<(usize, Origin)> = bindings
        .dim_binding(name)
        .map(|b| (b.size, b.origin.clone()));
    for place in places.iter() {
        let Dim::Known(w) = place.refined else {
            continue;
        };
        if !(is_plain(place) || (is_hash(place) && w != 1)) {
            continue;
        }
        match &value {
            None => {
                // Static conflicts need a known dim, so the rank is known: the axis is `Start`.
                let (AxisRef::Start(a) | AxisRef::End(a)) = place.axis;
                value = Some((w, Origin::Axis(ArgRef::Index(0), a)));
            }
            Some((v, origin)) if *v != w => {
                let one_or = if is_hash(place) { "1 or " } else { "" };
                return Err(static_mismatch(
                    place,
                    format!("{one_or}{name} = {v} ({origin})"),
                ));
            }
            Some(_) => {}
        }
    }

    if let Some((v, origin)) = value {
        known.dims.push(DimBinding {
            name: name.into(),
            size: v,
            origin: origin.clone(),
        });
        for place in places.iter_mut() {
            let hash = is_hash(place);
            if !(is_plain(place) || hash) {
                continue;
            }
            let d = place.refined;
            let expected = || {
                let one_or = if hash { "1 or " } else { "" };
                format!("{one_or}{name} = {v} ({origin})")
            };
            if !hash || v == 1 || d == Dim::NotOne {
                // The size is exactly v (a `#n` that cannot be 1, or where 1 is v anyway).
                let Some(merged) = d.merge_with(Dim::Known(v)) else {
                    return Err(static_mismatch(place, expected()));
                };
                if d != merged {
                    checks.push(PatternCheck::Size {
                        axis: place.axis,
                        size: v,
                    });
                }
                place.refined = merged;
            } else {
                match d {
                    Dim::Known(w) if w != 1 && w != v => {
                        return Err(static_mismatch(place, expected()));
                    }
                    Dim::Unknown => checks.push(PatternCheck::OneOrSize {
                        axis: place.axis,
                        size: v,
                    }),
                    _ => {}
                }
            }
        }
        return Ok(());
    }

    // No static size: the first `n` binds, the other `n`s equal it and the `#n`s are 1 or equal;
    // with no `n` at all, the `#n`s that are not 1 agree among themselves.
    let name: Arc<str> = name.into();
    let binder = places.iter().position(is_plain);
    let Some(binder) = binder else {
        let axes: SmallVec<[AxisRef; 4]> = places
            .iter()
            .filter(|p| is_hash(p) && p.refined != Dim::Known(1))
            .map(|p| p.axis)
            .collect();
        if axes.len() >= 2 {
            checks.push(PatternCheck::NonOnesAgree { axes, name });
        }
        return Ok(());
    };
    let to = places[binder].axis;
    // All `n`s are one size; a `!1` anywhere among them, or on a `#n`, makes it `!1`.
    let not_one = places
        .iter()
        .any(|p| (is_plain(p) || is_hash(p)) && p.refined == Dim::NotOne);
    for (i, place) in places.iter_mut().enumerate() {
        if is_plain(place) {
            if not_one {
                place.refined = Dim::NotOne;
            }
            if i != binder {
                checks.push(PatternCheck::Equal {
                    axis: place.axis,
                    to,
                    name: name.clone(),
                });
            }
        } else if is_hash(place) {
            match place.refined {
                Dim::Known(_) => {} // 1: no value other than 1 is known here.
                Dim::NotOne => checks.push(PatternCheck::Equal {
                    axis: place.axis,
                    to,
                    name: name.clone(),
                }),
                Dim::Unknown => checks.push(PatternCheck::OneOrEqual {
                    axis: place.axis,
                    to,
                    name: name.clone(),
                }),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refine(pattern: &str, shape: &str) -> Result<Refined, ShapeError> {
        let p: ShapePattern = pattern.parse().unwrap();
        p.refine(&shape.parse().unwrap())
    }

    fn texts(r: &Refined) -> Vec<String> {
        r.checks.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn known_rank() {
        let r = refine("b n 3", "[?, 5, ?]").unwrap();
        assert_eq!(r.shape.to_string(), "[?, 5, 3]");
        assert_eq!(texts(&r), ["axis 2 = 3"]);
        assert_eq!(r.known.get("n"), Some(5));
        assert!(r.verify(&[2, 5, 3]).is_ok());
        assert!(r.verify(&[2, 5, 4]).is_err());
        // The concrete shape must match the input shape too.
        assert!(r.verify(&[2, 6, 3]).is_err());
        assert!(refine("b n 3", "[?, 5, 4]").is_err());
        assert!(refine("b n 3", "[?, 5]").is_err());
        let r = refine("n _ n", "[?, ?, ?]").unwrap();
        assert_eq!(texts(&r), ["axis 2 = axis 0 (n)"]);
        assert!(r.verify(&[4, 1, 4]).is_ok());
        let err = r.verify(&[4, 1, 5]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "enforce_shape: argument 0 axis 2: expected n = 4 (axis 0), found 5"
        );
        let r = refine("n n", "[!1, ?]").unwrap();
        assert_eq!(r.shape.to_string(), "[!1, !1]");
    }

    #[test]
    fn unknown_rank() {
        let r = refine("b 3", "*").unwrap();
        assert_eq!(r.shape.to_string(), "[?, 3]");
        assert_eq!(texts(&r), ["rank = 2", "axis 1 = 3"]);
        assert!(r.verify(&[7, 3]).is_ok());
        assert!(r.verify(&[7, 3, 3]).is_err());
        let r = refine("... h w 3", "*").unwrap();
        assert_eq!(r.shape.to_string(), "*");
        assert_eq!(texts(&r), ["rank ≥ 3", "axis -1 = 3"]);
        assert!(r.verify(&[2, 2, 8, 8, 3]).is_ok());
        assert!(r.verify(&[8, 3]).is_err());
        let r = refine("... n n", "*").unwrap();
        assert_eq!(texts(&r), ["rank ≥ 2", "axis -1 = axis -2 (n)"]);
        assert!(r.verify(&[9, 4, 4]).is_ok());
        assert!(r.verify(&[4, 4, 9]).is_err());
        // Hand-made checks with absurd axes fail cleanly.
        let far = PatternCheck::Size {
            axis: AxisRef::End(usize::MAX),
            size: 1,
        };
        assert!(far.verify(&[1]).is_err());
        assert_eq!(AxisRef::End(usize::MAX).resolve(3), None);
    }

    #[test]
    fn broadcastable_names() {
        let r = refine("n #n", "[5, ?]").unwrap();
        assert_eq!(texts(&r), ["axis 1 ∈ {1, 5}"]);
        let r = refine("n #n", "[?, ?]").unwrap();
        assert_eq!(texts(&r), ["axis 1 ∈ {1, axis 0} (#n)"]);
        assert!(r.verify(&[3, 1]).is_ok());
        assert!(r.verify(&[3, 2]).is_err());
        let r = refine("#n #n #n", "[?, ?, 1]").unwrap();
        assert_eq!(texts(&r), ["sizes other than 1 agree (#n): axis 0 axis 1"]);
        assert!(r.verify(&[2, 3, 1]).is_err());
        assert!(r.verify(&[1, 3, 1]).is_ok());
        assert!(refine("n #n", "[5, 4]").is_err());
        assert!(refine("n #n", "[1, !1]").is_err());
        let r = refine("#n n", "[!1, ?]").unwrap();
        assert_eq!(r.shape.to_string(), "[!1, !1]");
    }

    #[test]
    fn earlier_bindings() {
        let p: ShapePattern = "*batch n".parse().unwrap();
        let mut bindings = Bindings::new();
        bindings.bind_segment("batch", &[2, 3]).unwrap();
        bindings.bind("n", 4).unwrap();
        let r = p.refine_with(&Shape::unknown_rank(), &bindings).unwrap();
        assert_eq!(r.shape.to_string(), "[2, 3, 4]");
        assert!(r.verify(&[2, 3, 4]).is_ok());
        assert!(r.verify(&[2, 4]).is_err());
        let err = p
            .refine_with(&"[2, 3, 4, 1]".parse().unwrap(), &bindings)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "enforce_shape: argument 0 has shape [2, 3, 4, 1], expected rank 3 (pattern \
             `*batch n`, its segment being bound)"
        );
        let err = p
            .refine_with(&"[2, 3, 5]".parse().unwrap(), &bindings)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "enforce_shape: argument 0 axis 2: expected n = 4 (bound by the caller), found 5"
        );
    }
}

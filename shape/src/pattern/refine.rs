//! Applying a [`ShapePattern`] to a partial [`Shape`]: the refined shape, and the checks still
//! needed at run time.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use smallvec::SmallVec;

use super::{Bindings, DimBinding, Origin, PatternDim, ShapePattern};
use crate::dim::{Dim, DimVec, Symbol};
use crate::error::{ArgRef, ShapeError};
use crate::partial::Shape;
use crate::symbols::Symbols;

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
    /// The size at `axis` is the size of `symbol`, which an earlier step bound (a name bound to
    /// a symbol beforehand, [`Bindings::bind_symbol`]); with `one_ok` (a `#name`), 1 passes too.
    /// Its size is read from the bindings given to [`PatternCheck::verify_with`].
    SymbolSize {
        /// Where.
        axis: AxisRef,
        /// The symbol.
        symbol: Symbol,
        /// Whether 1 is accepted as well.
        one_ok: bool,
    },
}

impl PatternCheck {
    /// Runs this check against a concrete shape.
    pub fn verify(&self, shape: &[usize]) -> Result<(), ShapeError> {
        self.verify_with(shape, &Bindings::new())
    }

    /// Runs this check against a concrete shape, the size of a symbol `$n` being the size
    /// `bindings` binds to the name `n` (an error naming the symbol when it binds none).
    pub fn verify_with(&self, shape: &[usize], bindings: &Bindings) -> Result<(), ShapeError> {
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
            PatternCheck::SymbolSize {
                axis,
                symbol,
                one_ok,
            } => {
                let (a, found) = size_at(*axis)?;
                let want = bindings
                    .get(symbol.as_str())
                    .ok_or_else(|| ShapeError::Unbound {
                        name: format!("${symbol}").into(),
                    })?;
                if found == want || (*one_ok && found == 1) {
                    Ok(())
                } else {
                    let one_or = if *one_ok { "1 or " } else { "" };
                    Err(fail(a, format!("{one_or}${symbol} = {want}"), found))
                }
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
            PatternCheck::SymbolSize {
                axis,
                symbol,
                one_ok: false,
            } => write!(f, "{axis} = ${symbol}"),
            PatternCheck::SymbolSize { axis, symbol, .. } => write!(f, "{axis} ∈ {{1, ${symbol}}}"),
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
    /// when the pattern has a variadic segment; [`outline`](Self::outline) then keeps the
    /// minimum rank and the refined prefix and suffix).
    pub shape: Shape,
    /// The checks still needed at run time, beyond the concrete shape satisfying the input shape.
    pub checks: Vec<PatternCheck>,
    /// The names whose sizes are known statically, and the names known to be a symbol (of the
    /// input, of the bindings given, or introduced by
    /// [`refine_symbolic`](ShapePattern::refine_symbolic)): pass them to the next
    /// [`refine_with`](ShapePattern::refine_with) to chain refinements.
    pub known: Bindings,
    /// The input's symbols that the pattern bound (`$a = 3` for a size item over `$a`, `$b = $a`
    /// for one name over both).
    pub symbols: Symbols,
    /// What the refinement learnt of the shape's axes, also when its rank is unknown.
    pub outline: Outline,
    input: Shape,
}

/// What refining a shape learnt of its axes: the exact shape when the rank is known, and when it
/// is not (a pattern with a variadic segment on a shape of unknown rank), the minimum rank and
/// the dims of the axes before and after the segment.
///
/// A [`Shape`] has no such middle ground (its rank is known or not, as TensorFlow's
/// `TensorShape`, and its strict equality, hashing and JSON form stay simple); the outline is
/// what a pattern like `1 _ ... 3` teaches about a shape of unknown rank, and it becomes a shape
/// as soon as a rank is chosen ([`with_rank`](Self::with_rank)).
///
/// ```
/// use extype_shape::{Shape, ShapePattern};
/// let pattern: ShapePattern = "1 n ... 3".parse().unwrap();
/// let refined = pattern.refine_symbolic(&Shape::unknown_rank(), &Default::default()).unwrap();
/// let outline = &refined.outline;
/// assert_eq!(outline.to_string(), "[1, $n, ..., 3]");
/// assert_eq!(outline.min_rank(), 3);
/// assert_eq!(outline.rank(), None);
/// assert_eq!(outline.with_rank(4).unwrap().to_string(), "[1, $n, ?, 3]");
/// assert!(outline.with_rank(2).is_err());
/// assert!(outline.admits(&[1, 5, 3]) && !outline.admits(&[2, 5, 3]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Outline {
    prefix: DimVec,
    /// `None` when the rank is known (everything is in `prefix`).
    suffix: Option<DimVec>,
}

impl Outline {
    /// The outline of a shape of known rank (its dims), or of unknown rank with nothing known.
    pub fn of(shape: &Shape) -> Outline {
        match shape.dims() {
            Some(dims) => Outline {
                prefix: dims.iter().copied().collect(),
                suffix: None,
            },
            None => Outline {
                prefix: DimVec::new(),
                suffix: Some(DimVec::new()),
            },
        }
    }

    /// The exact rank, if known.
    pub fn rank(&self) -> Option<usize> {
        self.suffix.is_none().then_some(self.prefix.len())
    }

    /// The minimum rank (the exact rank when it is known).
    pub fn min_rank(&self) -> usize {
        self.prefix.len() + self.suffix.as_ref().map_or(0, |s| s.len())
    }

    /// The dims of the first axes (every axis when the rank is known).
    pub fn prefix(&self) -> &[Dim] {
        &self.prefix
    }

    /// The dims of the last axes (empty when the rank is known).
    pub fn suffix(&self) -> &[Dim] {
        self.suffix.as_deref().unwrap_or_default()
    }

    /// The outline as a shape: exact when the rank is known, unknown rank otherwise.
    pub fn to_shape(&self) -> Shape {
        match self.suffix {
            None => Shape::from_dims(self.prefix.iter().copied()),
            Some(_) => Shape::unknown_rank(),
        }
    }

    /// The shape of rank `rank` this outline describes (unknown dims between the prefix and the
    /// suffix), or an error when `rank` is not a rank it allows.
    pub fn with_rank(&self, rank: usize) -> Result<Shape, ShapeError> {
        let ok = match self.rank() {
            Some(r) => r == rank,
            None => rank >= self.min_rank(),
        };
        if !ok {
            return Err(ShapeError::Rank {
                op: "with_rank",
                expected: rank.to_string(),
                found: Box::new(self.to_shape()),
            });
        }
        let middle = rank - self.min_rank();
        Ok(self
            .prefix
            .iter()
            .copied()
            .chain(std::iter::repeat_n(Dim::Unknown, middle))
            .chain(self.suffix().iter().copied())
            .collect())
    }

    /// Whether a concrete shape fits: its rank is allowed, and its first and last axes satisfy
    /// the prefix and suffix (equal symbols having equal sizes).
    pub fn admits(&self, sizes: &[usize]) -> bool {
        self.with_rank(sizes.len())
            .is_ok_and(|shape| shape.admits(sizes))
    }
}

impl fmt::Display for Outline {
    /// `[1, $n, ..., 3]` (unknown rank, `...` standing for any number of axes), or the shape's
    /// text when the rank is known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(suffix) = &self.suffix else {
            return write!(f, "{}", self.to_shape());
        };
        f.write_str("[")?;
        for d in &self.prefix {
            write!(f, "{d}, ")?;
        }
        f.write_str("...")?;
        for d in suffix {
            write!(f, ", {d}")?;
        }
        f.write_str("]")
    }
}

impl Refined {
    /// The partial shape the pattern was applied to.
    pub fn input(&self) -> &Shape {
        &self.input
    }

    /// Checks a concrete shape: that it satisfies the input shape, then every check. Passes exactly
    /// when [`ShapePattern::enforce_with`] (with the bindings given to `refine_with`) would.
    ///
    /// A check against a symbol bound by an earlier step ([`PatternCheck::SymbolSize`]) needs
    /// that symbol's size: use [`verify_with`](Self::verify_with).
    pub fn verify(&self, shape: &[usize]) -> Result<(), ShapeError> {
        self.verify_with(shape, &Bindings::new())
    }

    /// Like [`verify`](Self::verify), reading the sizes of symbols bound by earlier steps from
    /// `bindings` (the symbol `$n` has the size bound to the name `n`, as [`ShapePattern::enforce`]
    /// binds it).
    pub fn verify_with(&self, shape: &[usize], bindings: &Bindings) -> Result<(), ShapeError> {
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
                let first = dim.as_symbol().and_then(|name| {
                    dims.iter()
                        .position(|d| d.as_symbol() == Some(name))
                        .filter(|&i| i < axis)
                });
                let expected = match first {
                    Some(i) if shape[i] != size => {
                        format!(
                            "{dim} = {} (axis {i}; static shape {})",
                            shape[i], self.input
                        )
                    }
                    _ if !dim.admits(size) => format!("{dim} (static shape {})", self.input),
                    _ => continue,
                };
                return Err(ShapeError::Mismatch {
                    op: "enforce_shape",
                    arg: ArgRef::Index(0),
                    axis,
                    expected,
                    found: Dim::Known(size),
                });
            }
        }
        self.checks
            .iter()
            .try_for_each(|c| c.verify_with(shape, bindings))
    }
}

/// Parses `pattern` and applies it to a partial shape: the `enforce_shape` of the Array API
/// proposal on a shape that is not fully known yet.
///
/// ```
/// use extype_shape::{Shape, refine_shape};
/// let refined = refine_shape(&Shape::unknown_rank(), "1 _ ... 3").unwrap();
/// assert_eq!(refined.shape.to_string(), "*");
/// assert_eq!(refined.outline.to_string(), "[1, ?, ..., 3]");
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
    /// The input's dim there.
    raw: Dim,
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
    /// // Symbols of the input are used: equal symbols need no check, a size binds a symbol.
    /// let refined = pattern.refine(&"[$a, $a, $b]".parse().unwrap()).unwrap();
    /// assert_eq!(refined.shape.to_string(), "[$a, $a, 3]");
    /// assert_eq!(refined.checks.len(), 1); // axis 2 = 3
    /// assert_eq!(refined.symbols.to_string(), "{$b = 3}");
    /// ```
    pub fn refine(&self, shape: &Shape) -> Result<Refined, ShapeError> {
        self.refine_with(shape, &Bindings::new())
    }

    /// Applies this pattern to a partial shape, with names (and segments) bound beforehand, to
    /// sizes or to symbols ([`Bindings::bind_symbol`]). A name no input dim or binding fixes
    /// stays unknown in the refined shape; [`refine_symbolic`](Self::refine_symbolic) gives it a
    /// symbol instead.
    pub fn refine_with(&self, shape: &Shape, bindings: &Bindings) -> Result<Refined, ShapeError> {
        self.refine_impl(shape, bindings, false)
    }

    /// Like [`refine_with`](Self::refine_with), and each name that nothing fixes (no size, no
    /// symbol) gets the symbol of the same name, `$n` (`$n!1` where it is known not to be 1), in
    /// the refined shape and in [`Refined::known`]. As the Array API proposal's `enforce_shape`
    /// returns symbols, a chain of refinements can then reuse them:
    ///
    /// ```
    /// use extype_shape::{Shape, ShapePattern};
    /// // x, [d1, d2, d3] = xp.enforce_shape(x, [None, None, None]) — with names, to get symbols.
    /// let x = ShapePattern::parse("d1 d2 d3")?.refine_symbolic(&Shape::unknown_rank(), &Default::default())?;
    /// assert_eq!(x.shape.to_string(), "[$d1, $d2, $d3]");
    /// // y, [...] = xp.enforce_shape(y, [d1, None, 4])
    /// let y = ShapePattern::parse("d1 _ 4")?.refine_with(&"[?, 7, ?]".parse()?, &x.known)?;
    /// assert_eq!(y.shape.to_string(), "[$d1, 7, 4]");
    /// // Broadcasting x and y needs no check at the axis they share.
    /// let out = extype_shape::broadcast_static(&[x.shape, y.shape], Default::default())?;
    /// assert_eq!(out.shape.to_string(), "[$d1, 7, 4]");
    /// # Ok::<(), extype_shape::ShapeError>(())
    /// ```
    ///
    /// Symbols are global names: an introduced `$n` claims that every shape carrying `$n` has the
    /// same size there, so introduce symbols only for names that mean one size. A name gets no
    /// symbol (it stays as [`refine_with`](Self::refine_with) leaves it) when its symbol already
    /// stands for another size — it appears in the shape or the bindings given — or when it is
    /// longer than a symbol can be ([`Symbol::MAX_LEN`]).
    pub fn refine_symbolic(
        &self,
        shape: &Shape,
        bindings: &Bindings,
    ) -> Result<Refined, ShapeError> {
        self.refine_impl(shape, bindings, true)
    }

    fn refine_impl(
        &self,
        shape: &Shape,
        bindings: &Bindings,
        introduce: bool,
    ) -> Result<Refined, ShapeError> {
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
                raw: dim,
                refined: dim,
            });
        }

        let mut symbols = Symbols::new();
        // A fresh table only records `$n = $n!1` facts here, which cannot conflict.
        let _ = symbols.note_not_ones(shape.dims().unwrap_or_default());
        let mut known = Bindings::new();
        for place in places.iter_mut() {
            if let PatternDim::Size(n) = items[place.item] {
                let Some(merged) = symbols.merge(place.raw, Dim::Known(n)) else {
                    place.refined = symbols.resolve(place.raw);
                    return Err(static_mismatch(place, n.to_string()));
                };
                if place.raw != merged {
                    checks.push(PatternCheck::Size {
                        axis: place.axis,
                        size: n,
                    });
                }
                place.refined = merged;
            }
        }
        let mut ctx = NameContext {
            items: &items,
            bindings,
            symbols: &mut symbols,
            known: &mut known,
            checks: &mut checks,
            introduce,
            shape,
        };
        for name in self.names() {
            if items.iter().all(|i| !uses_dim(i, name)) {
                continue;
            }
            ctx.refine_name(name, &mut places)?;
        }

        // What later names taught about symbols applies to earlier ones too.
        for place in places.iter_mut() {
            place.refined = symbols.resolve(place.refined);
        }
        let resolve_known = |known: Bindings| -> Bindings {
            let mut out = known.clone();
            out.symbolic.clear();
            for (name, dim) in known.symbols() {
                match symbols.resolve(dim) {
                    Dim::Known(n) => {
                        let origin = Origin::Caller;
                        out.dims.push(DimBinding {
                            name: name.into(),
                            size: n,
                            origin,
                        });
                    }
                    d => out.symbolic.push((name.into(), d)),
                }
            }
            out
        };
        let known = resolve_known(known);
        let (refined_shape, outline) = match (shape.dims(), variadic) {
            (Some(dims), _) => {
                let mut dims: DimVec = dims.iter().copied().collect();
                for place in &places {
                    if let AxisRef::Start(a) = place.axis {
                        dims[a] = place.refined;
                    }
                }
                let shape = symbols.apply(&Shape::from_dims(dims));
                let outline = Outline::of(&shape);
                (shape, outline)
            }
            (None, None) => {
                let shape = Shape::from_dims(places.iter().map(|p| p.refined));
                let outline = Outline::of(&shape);
                (shape, outline)
            }
            (None, Some(v)) => {
                let outline = Outline {
                    prefix: places
                        .iter()
                        .filter(|p| p.item < v)
                        .map(|p| p.refined)
                        .collect(),
                    suffix: Some(
                        places
                            .iter()
                            .filter(|p| p.item > v)
                            .map(|p| p.refined)
                            .collect(),
                    ),
                };
                (Shape::unknown_rank(), outline)
            }
        };
        Ok(Refined {
            shape: refined_shape,
            checks,
            known,
            symbols,
            outline,
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

/// What refining one name needs besides its places.
struct NameContext<'a> {
    items: &'a [PatternDim],
    bindings: &'a Bindings,
    symbols: &'a mut Symbols,
    known: &'a mut Bindings,
    checks: &'a mut Vec<PatternCheck>,
    introduce: bool,
    shape: &'a Shape,
}

impl NameContext<'_> {
    /// Refines the places of one name (`n` and `#n` items) and adds the checks they need.
    ///
    /// The name's value is the meet of what fixes it: a binding given beforehand (a size or a
    /// symbol), and the input's dims at its `n` places and at its `#n` places known not to be 1.
    /// A place needs a check unless the input's dim there already is that value.
    fn refine_name(&mut self, name: &str, places: &mut [Place]) -> Result<(), ShapeError> {
        let items = self.items;
        let is_plain = |p: &Place| matches!(&items[p.item], PatternDim::Name(n) if &**n == name);
        let is_hash =
            |p: &Place| matches!(&items[p.item], PatternDim::Broadcastable(n) if &**n == name);

        let prior_symbol = match self.bindings.dim_binding(name) {
            Some(_) => None,
            None => self.bindings.symbol(name).and_then(Dim::as_symbol),
        };
        let (mut value, mut origin) = match self.bindings.dim_binding(name) {
            Some(b) => (Dim::Known(b.size), Some(b.origin.clone())),
            None => match self.bindings.symbol(name) {
                Some(d) => (d, Some(Origin::Caller)),
                None => (Dim::Unknown, None),
            },
        };
        for place in places.iter_mut() {
            let hash = is_hash(place);
            let d = self.symbols.resolve(place.raw);
            if !(is_plain(place) || (hash && d.is_not_one())) {
                continue;
            }
            let Some(merged) = self.symbols.merge(value, d) else {
                let one_or = if hash { "1 or " } else { "" };
                let from = origin
                    .as_ref()
                    .map_or_else(String::new, |o| format!(" ({o})"));
                place.refined = d;
                return Err(static_mismatch(
                    place,
                    format!("{one_or}{name} = {value}{from}"),
                ));
            };
            if origin.is_none() && matches!(d, Dim::Known(_) | Dim::Symbol { .. }) {
                let (AxisRef::Start(a) | AxisRef::End(a)) = place.axis;
                origin = Some(Origin::Axis(ArgRef::Index(0), a));
            }
            value = merged;
        }
        let value = self.symbols.resolve(value);
        let name_arc: Arc<str> = name.into();

        match value {
            Dim::Known(v) => {
                self.known.dims.push(DimBinding {
                    name: name_arc,
                    size: v,
                    origin: origin.unwrap_or(Origin::Caller),
                });
                for place in places.iter_mut() {
                    let hash = is_hash(place);
                    if !(is_plain(place) || hash) {
                        continue;
                    }
                    let raw = place.raw;
                    if !hash || v == 1 || raw.is_not_one() {
                        // The size is exactly v (a `#n` that cannot be 1, or where 1 is v).
                        if raw != Dim::Known(v) {
                            self.checks.push(PatternCheck::Size {
                                axis: place.axis,
                                size: v,
                            });
                        }
                        place.refined = Dim::Known(v);
                    } else if raw != Dim::Known(1) {
                        self.checks.push(PatternCheck::OneOrSize {
                            axis: place.axis,
                            size: v,
                        });
                    }
                }
            }
            Dim::Symbol { name: symbol, .. } => {
                self.known.symbolic.push((name_arc.clone(), value));
                // Where the symbol is at run time: an axis whose input dim is it, if any.
                let binder = places
                    .iter()
                    .find(|p| p.raw.as_symbol() == Some(symbol))
                    .map(|p| p.axis);
                for place in places.iter_mut() {
                    let hash = is_hash(place);
                    if !(is_plain(place) || hash) {
                        continue;
                    }
                    let raw = place.raw;
                    if raw.as_symbol() == Some(symbol) || raw == Dim::Known(1) && hash {
                        place.refined = self.symbols.resolve(raw);
                        continue;
                    }
                    let one_ok = hash && !raw.is_not_one();
                    self.checks.push(match (binder, one_ok) {
                        (Some(to), false) => PatternCheck::Equal {
                            axis: place.axis,
                            to,
                            name: name_arc.clone(),
                        },
                        (Some(to), true) => PatternCheck::OneOrEqual {
                            axis: place.axis,
                            to,
                            name: name_arc.clone(),
                        },
                        (None, one_ok) => PatternCheck::SymbolSize {
                            axis: place.axis,
                            symbol,
                            one_ok,
                        },
                    });
                    if !one_ok {
                        place.refined = value;
                    }
                }
            }
            Dim::NotOne | Dim::Unknown => self.refine_free(name_arc, value, places),
        }
        // A symbol the name was bound to beforehand stands for a size fixed elsewhere: unless the
        // shape itself holds that symbol at a place that has the name's size (an `n`, or a `#n`
        // that cannot be 1), one such place must be checked against it at run time (the others
        // are tied to that place by the checks above).
        let sized = |p: &Place| is_plain(p) || (is_hash(p) && p.raw.is_not_one());
        if let Some(symbol) = prior_symbol
            && !places
                .iter()
                .any(|p| sized(p) && p.raw.as_symbol() == Some(symbol))
            && let Some(place) = places.iter().find(|p| sized(p))
        {
            let check = PatternCheck::SymbolSize {
                axis: place.axis,
                symbol,
                one_ok: false,
            };
            if !self.checks.contains(&check) {
                self.checks.push(check);
            }
        }
        Ok(())
    }

    /// A name nothing fixes: the first `n` binds, the other `n`s equal it and the `#n`s are 1 or
    /// equal; with no `n` at all, the `#n`s that are not 1 agree among themselves.
    fn refine_free(&mut self, name: Arc<str>, value: Dim, places: &mut [Place]) {
        let items = self.items;
        let is_plain = |p: &Place| matches!(&items[p.item], PatternDim::Name(n) if *n == name);
        let is_hash =
            |p: &Place| matches!(&items[p.item], PatternDim::Broadcastable(n) if *n == name);
        let Some(binder) = places.iter().position(is_plain) else {
            let axes: SmallVec<[AxisRef; 4]> = places
                .iter()
                .filter(|p| is_hash(p) && p.raw != Dim::Known(1))
                .map(|p| p.axis)
                .collect();
            if axes.len() >= 2 {
                self.checks.push(PatternCheck::NonOnesAgree { axes, name });
            }
            return;
        };
        let to = places[binder].axis;
        // All `n`s are one size; a `!1` among them, or on a `#n`, makes it `!1`.
        let not_one = value == Dim::NotOne;
        // The symbol to introduce, unless the name cannot be one (over 22 bytes) or its symbol
        // already stands for another size (in the shape or the bindings given): then none.
        let symbol = Symbol::new(&name).ok().filter(|&symbol| {
            let in_shape = self
                .shape
                .dims()
                .unwrap_or_default()
                .iter()
                .any(|d| d.as_symbol() == Some(symbol));
            let in_bindings = self
                .bindings
                .symbols()
                .any(|(_, d)| d.as_symbol() == Some(symbol));
            self.introduce && !in_shape && !in_bindings
        });
        let introduce = symbol.is_some();
        let refined = match symbol {
            Some(symbol) => {
                let dim = Dim::Symbol {
                    name: symbol,
                    not_one,
                };
                self.known.symbolic.push((name.clone(), dim));
                dim
            }
            None => value,
        };
        for (i, place) in places.iter_mut().enumerate() {
            if is_plain(place) {
                if not_one || introduce {
                    place.refined = refined;
                }
                if i != binder {
                    self.checks.push(PatternCheck::Equal {
                        axis: place.axis,
                        to,
                        name: name.clone(),
                    });
                }
            } else if is_hash(place) {
                match place.raw {
                    Dim::Known(_) => {} // 1: no value other than 1 is known here.
                    Dim::NotOne | Dim::Symbol { not_one: true, .. } => {
                        self.checks.push(PatternCheck::Equal {
                            axis: place.axis,
                            to,
                            name: name.clone(),
                        });
                        if introduce {
                            place.refined = refined;
                        }
                    }
                    Dim::Unknown | Dim::Symbol { .. } => {
                        self.checks.push(PatternCheck::OneOrEqual {
                            axis: place.axis,
                            to,
                            name: name.clone(),
                        })
                    }
                }
            }
        }
    }
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

    fn symbolic(pattern: &str, shape: &str, bindings: &Bindings) -> Refined {
        let p: ShapePattern = pattern.parse().unwrap();
        p.refine_symbolic(&shape.parse().unwrap(), bindings)
            .unwrap()
    }

    // The Array API `enforce_shape` proposal's examples, statically, with symbols.
    #[test]
    fn array_api_example_1_with_symbols() {
        // x, [d1, d2, d3] = xp.enforce_shape(x, [None, None, None]): dims are ints or symbols.
        let x = symbolic("d1 d2 d3", "*", &Bindings::new());
        assert_eq!(x.shape.to_string(), "[$d1, $d2, $d3]");
        assert_eq!(texts(&x), ["rank = 3"]);
        assert_eq!(x.known.to_string(), "{d1 = $d1, d2 = $d2, d3 = $d3}");
        let x = symbolic("d1 d2 d3", "[?, 4, ?]", &Bindings::new());
        assert_eq!(x.shape.to_string(), "[$d1, 4, $d3]");
        assert_eq!(x.known.get("d2"), Some(4));
        assert!(x.checks.is_empty());
    }

    #[test]
    fn array_api_example_2_with_symbols() {
        // x, [d1, d2, d3] = xp.enforce_shape(x, [d1_input, None, 4]), d1_input a symbol returned
        // by an earlier call on another tensor.
        let earlier = symbolic("d1_input k", "[?, ?]", &Bindings::new());
        let x = ShapePattern::parse("d1_input _ 4")
            .unwrap()
            .refine_with(&"[?, 7, ?]".parse().unwrap(), &earlier.known)
            .unwrap();
        assert_eq!(x.shape.to_string(), "[$d1_input, 7, 4]");
        assert_eq!(texts(&x), ["axis 2 = 4", "axis 0 = $d1_input"]);
        // At run time the symbol's size comes from the call that bound it.
        let bound = ShapePattern::parse("d1_input k")
            .unwrap()
            .enforce(&[5, 2])
            .unwrap();
        assert!(x.verify_with(&[5, 7, 4], &bound.bindings).is_ok());
        let err = x.verify_with(&[6, 7, 4], &bound.bindings).unwrap_err();
        assert_eq!(
            err.to_string(),
            "enforce_shape: argument 0 axis 0: expected $d1_input = 5, found 6"
        );
        let err = x.verify(&[5, 7, 4]).unwrap_err();
        assert_eq!(err.to_string(), "no size is bound to the name `$d1_input`");
        // The same symbol in the shape already: no check.
        let x = ShapePattern::parse("d1_input _ 4")
            .unwrap()
            .refine_with(&"[$d1_input, 7, 4]".parse().unwrap(), &earlier.known)
            .unwrap();
        assert!(x.checks.is_empty());
        // A size for the symbol binds it.
        let mut sized = Bindings::new();
        sized.bind("d1_input", 5).unwrap();
        let x = ShapePattern::parse("d1_input _ 4")
            .unwrap()
            .refine_with(&"[$s, 7, ?]".parse().unwrap(), &sized)
            .unwrap();
        assert_eq!(x.symbols.to_string(), "{$s = 5}");
    }

    #[test]
    fn array_api_example_3_keeps_prefix_and_suffix() {
        // x, [d1, d2, (axes, n_elements), d3] = xp.enforce_shape(x, [1, None, ..., 3])
        let r = refine("1 _ ... 3", "*").unwrap();
        assert_eq!(r.shape.to_string(), "*");
        assert_eq!(r.outline.to_string(), "[1, ?, ..., 3]");
        assert_eq!(r.outline.min_rank(), 3);
        assert_eq!(r.outline.prefix(), &[Dim::Known(1), Dim::Unknown]);
        assert_eq!(r.outline.suffix(), &[Dim::Known(3)]);
        assert_eq!(
            r.outline.with_rank(5).unwrap().to_string(),
            "[1, ?, ?, ?, 3]"
        );
        assert!(r.outline.admits(&[1, 9, 3]) && !r.outline.admits(&[1, 3]));
        // With names, the prefix and suffix hold symbols a later step can reuse.
        let r = symbolic("1 d2 ... d3", "*", &Bindings::new());
        assert_eq!(r.outline.to_string(), "[1, $d2, ..., $d3]");
        // Known rank: the outline is the refined shape, the segment's dims included.
        let r = refine("1 _ ... 3", "[?, 5, $a, 2, ?]").unwrap();
        assert_eq!(r.outline.to_string(), "[1, 5, $a, 2, 3]");
        assert_eq!(r.outline.rank(), Some(5));
        assert_eq!(r.outline.to_shape(), r.shape);
        assert!(r.outline.with_rank(4).is_err());
        assert_eq!(Outline::of(&Shape::unknown_rank()).to_string(), "[...]");
    }

    #[test]
    fn symbols_in_the_input() {
        // Equal symbols need no equality check; different ones are checked and unified.
        let r = refine("n n", "[$a, $a]").unwrap();
        assert!(r.checks.is_empty());
        assert_eq!(r.known.symbol("n").unwrap().to_string(), "$a");
        let r = refine("n n", "[$a, $b]").unwrap();
        assert_eq!(r.shape.to_string(), "[$a, $a]");
        assert_eq!(texts(&r), ["axis 1 = axis 0 (n)"]);
        assert_eq!(r.symbols.to_string(), "{$b = $a}");
        assert!(r.verify(&[3, 4]).is_err() && r.verify(&[3, 3]).is_ok());
        // A size over a symbol binds it everywhere in the shape; the concrete shape must agree
        // with its own symbols.
        let r = refine("_ 3", "[$a, $a]").unwrap();
        assert_eq!(r.shape.to_string(), "[3, 3]");
        assert_eq!(texts(&r), ["axis 1 = 3"]);
        let err = r.verify(&[4, 3]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "enforce_shape: argument 0 axis 1: expected $a = 4 (axis 0; static shape [$a, $a]), \
             found 3"
        );
        assert!(refine("3 1", "[$a!1, $a]").is_err());
        assert!(refine("3 _", "[$a!1, $a]").is_ok());
        assert!(refine("1 _", "[$a!1, $a]").is_err());
        assert!(refine("n 2", "[3, $a]").is_ok());
        assert!(refine("n n", "[3, $a]").unwrap().symbols.to_string() == "{$a = 3}");
        let err = refine("n n 4", "[3, $a, $a]").unwrap_err();
        assert!(err.to_string().contains("expected n = 3"), "{err}");
        // Broadcastable names over symbols.
        let r = refine("n #n", "[$a, $b]").unwrap();
        assert_eq!(texts(&r), ["axis 1 ∈ {1, axis 0} (#n)"]);
        assert_eq!(r.shape.to_string(), "[$a, $b]");
        let r = refine("n #n", "[$a, $b!1]").unwrap();
        assert_eq!(r.shape.to_string(), "[$a!1, $a!1]");
        let r = refine("n #n", "[$a, $a]").unwrap();
        assert!(r.checks.is_empty());
    }

    #[test]
    fn introduced_symbols() {
        let r = symbolic("n n #n m", "[?, !1, ?, 2]", &Bindings::new());
        assert_eq!(r.shape.to_string(), "[$n!1, $n!1, ?, 2]");
        assert_eq!(r.known.to_string(), "{m = 2, n = $n!1}");
        assert_eq!(
            texts(&r),
            ["axis 1 = axis 0 (n)", "axis 2 ∈ {1, axis 0} (#n)"]
        );
        // A symbol that already means another size is not introduced again.
        let r = symbolic("_ n n", "[$n, ?, ?]", &Bindings::new());
        assert_eq!(r.shape.to_string(), "[$n, ?, ?]");
        assert_eq!(texts(&r), ["axis 2 = axis 1 (n)"]);
        // Nor is a name too long to be a symbol.
        let long = "x".repeat(Symbol::MAX_LEN + 1);
        let r = symbolic(&format!("{long} {long}"), "*", &Bindings::new());
        assert_eq!(r.shape.to_string(), "[?, ?]");
        // Bindings to symbols: binding twice to the same symbol is fine, to another is not.
        let mut b = Bindings::new();
        let s = Symbol::new("s").unwrap();
        b.bind_symbol("n", s).unwrap();
        b.bind_symbol("n", s).unwrap();
        assert!(b.bind_symbol("n", Symbol::new("t").unwrap()).is_err());
        b.bind("m", 3).unwrap();
        assert!(b.bind_symbol("m", s).is_err());
        assert_eq!(b.dim("n"), Some(Dim::symbol(s)));
        assert_eq!(b.dim("m"), Some(Dim::Known(3)));
        let r = symbolic("n #n", "[?, ?]", &b);
        assert_eq!(r.shape.to_string(), "[$s, ?]");
        assert_eq!(texts(&r), ["axis 0 = $s", "axis 1 ∈ {1, $s}"]);
        let mut sizes = Bindings::new();
        sizes.bind("s", 4).unwrap();
        assert!(r.verify_with(&[4, 1], &sizes).is_ok());
        assert!(r.verify_with(&[4, 3], &sizes).is_err());
    }
}

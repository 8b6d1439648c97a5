//! Shape patterns: jaxtyping/einops-like text that concrete and partial shapes are checked against.
//!
//! A pattern is a whitespace-separated list of items, one per axis:
//!
//! | item           | meaning                                                                 |
//! |----------------|-------------------------------------------------------------------------|
//! | `3`            | exactly this size                                                       |
//! | `n`            | a name: binds the size on first use, and must match it afterwards       |
//! | `_`            | any size, not bound                                                     |
//! | `#n`           | broadcastable: 1 is accepted without binding; any other size is `n`     |
//! | `...`          | a variadic segment of any number of axes (at most one per pattern)      |
//! | `*batch`       | a named variadic segment: binds the sizes of its axes                   |
//!
//! Names are ASCII identifiers (`[A-Za-z_][A-Za-z0-9_]*`, `_` alone being "any size"). The empty
//! pattern matches only scalars. A name may be bound beforehand to a size ([`Bindings::bind`]) or
//! to a symbolic dim `$s` ([`Bindings::bind_symbol`]); refining a shape that holds symbols uses
//! them (equal symbols need no check), and [`ShapePattern::refine_symbolic`] gives the names
//! nothing fixes symbols of their own. [`ShapePattern::enforce`] checks a concrete shape and returns the
//! bound sizes (the Array API `enforce_shape` proposal); [`ShapePattern::refine`] applies a pattern
//! to a partial [`Shape`](crate::Shape) and returns the refined shape plus the checks still
//! needed at run time.
//!
//! ```
//! use extype_shape::{EnforcedDim, ShapePattern};
//! let pattern: ShapePattern = "1 _ ... 3".parse().unwrap();
//! let got = pattern.enforce(&[1, 5, 2, 4, 3]).unwrap();
//! assert_eq!(got.dims[1], EnforcedDim::Size(5));
//! assert_eq!(got.dims[2], EnforcedDim::Segment { axes: 2..4, elements: 8 });
//! ```

mod enforce;
mod refine;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use smallvec::SmallVec;

use super::text::{Cursor, excerpt};
use crate::dim::{Dim, Symbol};
use crate::error::{ArgRef, ShapeError};

pub use enforce::{Enforced, EnforcedDim, enforce_shape};
pub use refine::{AxisRef, Outline, PatternCheck, Refined, refine_shape};

/// One item of a [`ShapePattern`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PatternDim {
    /// Exactly this size (`3`).
    Size(usize),
    /// Any size, not bound (`_`).
    Any,
    /// A name (`n`): binds on first use, must match afterwards.
    Name(Arc<str>),
    /// A broadcastable name (`#n`): 1 is accepted without binding, any other size is the name.
    Broadcastable(Arc<str>),
    /// A variadic segment of any number of axes: `...` (`None`) or `*name`.
    Variadic(Option<Arc<str>>),
}

impl fmt::Display for PatternDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternDim::Size(n) => write!(f, "{n}"),
            PatternDim::Any => f.write_str("_"),
            PatternDim::Name(name) => f.write_str(name),
            PatternDim::Broadcastable(name) => write!(f, "#{name}"),
            PatternDim::Variadic(None) => f.write_str("..."),
            PatternDim::Variadic(Some(name)) => write!(f, "*{name}"),
        }
    }
}

/// A parsed shape pattern such as `"b n 3"`, `"... h w c"` or `"*batch 3"`.
///
/// Items, separated by whitespace: `3` (exactly this size), `n` (binds on first use, must match
/// afterwards), `_` (any size), `#n` (1 without binding, else the name `n`), and at most one
/// variadic segment: `...` or `*name` (binds the sizes of its axes). Names are ASCII identifiers;
/// the empty pattern matches only scalars.
///
/// `Display` prints the canonical text (items separated by one space), which parses back to an
/// equal pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ShapePattern {
    items: SmallVec<[PatternDim; 4]>,
    variadic: Option<usize>,
}

impl ShapePattern {
    /// Parses a pattern. Errors give the byte position, what was expected and what was found.
    ///
    /// ```
    /// use extype_shape::ShapePattern;
    /// assert!(ShapePattern::parse("b n 3").is_ok());
    /// let err = ShapePattern::parse("b ... *rest").unwrap_err();
    /// assert!(err.to_string().contains("at position 6"), "{err}");
    /// ```
    pub fn parse(text: &str) -> Result<Self, ShapeError> {
        parse(text)
    }

    /// The items, one per axis (the variadic segment counting as one).
    pub fn items(&self) -> &[PatternDim] {
        &self.items
    }

    /// The index in [`items`](Self::items) of the variadic segment, if there is one.
    pub fn variadic_index(&self) -> Option<usize> {
        self.variadic
    }

    /// The number of axes outside the variadic segment: the exact rank if there is no segment,
    /// the minimum rank otherwise.
    pub fn fixed_rank(&self) -> usize {
        self.items.len() - usize::from(self.variadic.is_some())
    }

    /// The rank this pattern requires, as text for errors: `3` or `at least 2`.
    pub(crate) fn rank_text(&self) -> String {
        if self.variadic.is_some() {
            format!(
                "at least {} (pattern `{}`)",
                self.fixed_rank(),
                self.quoted()
            )
        } else {
            format!("{} (pattern `{}`)", self.fixed_rank(), self.quoted())
        }
    }

    /// The pattern's text for errors: whole when short, else a bounded excerpt (`…` where cut).
    pub(crate) fn quoted(&self) -> String {
        excerpt(&self.to_string(), 0)
    }

    /// The names this pattern uses (dims, broadcastable dims and the segment), each once, in
    /// order of first appearance.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        // Linear in the number of items: a hash set once there are more than a few names.
        let mut few: SmallVec<[&str; 8]> = SmallVec::new();
        let mut many: HashSet<&str> = HashSet::new();
        self.items.iter().filter_map(move |item| {
            let name: &str = match item {
                PatternDim::Name(n) | PatternDim::Broadcastable(n) => n,
                PatternDim::Variadic(Some(n)) => n,
                _ => return None,
            };
            let new = if !many.is_empty() {
                many.insert(name)
            } else if few.contains(&name) {
                false
            } else if few.len() < few.inline_size() {
                few.push(name);
                true
            } else {
                many.extend(few.drain(..));
                many.insert(name)
            };
            new.then_some(name)
        })
    }
}

impl fmt::Display for ShapePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

impl FromStr for ShapePattern {
    type Err = ShapeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse(text)
    }
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether a name is used as a dim (`n`, `#n`) or as a segment (`*n`); one name cannot be both.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NameKind {
    Dim,
    Segment,
}

fn parse(text: &str) -> Result<ShapePattern, ShapeError> {
    let mut p = Cursor::new("shape pattern", text);
    let mut items: SmallVec<[PatternDim; 4]> = SmallVec::new();
    let mut variadic: Option<(usize, usize)> = None; // (item index, text position)
    let mut names = Names::default();
    p.skip_ws();
    while !p.at_end() {
        let start = p.position();
        let item = match p.peek() {
            Some(c) if c.is_ascii_digit() => PatternDim::Size(p.size()?),
            Some('.') => {
                let dots = p.take_while(|c| c == '.');
                if dots.len() != 3 {
                    return Err(p.error_at(start, "`...`".into(), format!("`{dots}`")));
                }
                PatternDim::Variadic(None)
            }
            Some(sigil @ ('*' | '#')) => {
                p.eat(sigil);
                let name_start = p.position();
                let name = name(&mut p)?;
                if name == "_" {
                    return Err(p.error_at(
                        name_start,
                        format!("a name after `{sigil}`"),
                        "`_` (which means any size, not a name)".into(),
                    ));
                }
                let kind = if sigil == '*' {
                    NameKind::Segment
                } else {
                    NameKind::Dim
                };
                note_name(&p, &mut names, name, kind, name_start)?;
                let name: Arc<str> = name.into();
                if sigil == '*' {
                    PatternDim::Variadic(Some(name))
                } else {
                    PatternDim::Broadcastable(name)
                }
            }
            Some(c) if is_name_start(c) => {
                let name = name(&mut p)?;
                if name == "_" {
                    PatternDim::Any
                } else {
                    note_name(&p, &mut names, name, NameKind::Dim, start)?;
                    PatternDim::Name(name.into())
                }
            }
            _ => {
                return Err(
                    p.error("a pattern item (a size, a name, `_`, `#name`, `...` or `*name`)")
                );
            }
        };
        if matches!(item, PatternDim::Variadic(_)) {
            if let Some((_, first)) = variadic {
                return Err(p.error_at(
                    start,
                    format!(
                        "at most one variadic segment (`...` or `*name`); the first is at \
                         position {first}"
                    ),
                    format!("`{item}`"),
                ));
            }
            variadic = Some((items.len(), start));
        }
        items.push(item);
        // Items are separated by whitespace: `3b` or `n,m` is an error, not two items.
        if !p.at_end() && !p.peek().is_some_and(char::is_whitespace) {
            return Err(p.error("whitespace between pattern items"));
        }
        p.skip_ws();
    }
    Ok(ShapePattern {
        items,
        variadic: variadic.map(|(index, _)| index),
    })
}

fn name<'a>(p: &mut Cursor<'a>) -> Result<&'a str, ShapeError> {
    if !p.peek().is_some_and(is_name_start) {
        return Err(p.error("a name (a letter or `_`, then letters, digits or `_`)"));
    }
    Ok(p.take_while(is_name_char))
}

/// The names a pattern has used so far, each with its kind and first position: a short list
/// searched linearly (patterns use few names), turned into a hash map when it grows, so that
/// parsing stays linear in the number of distinct names.
#[derive(Default)]
struct Names<'a> {
    few: SmallVec<[(&'a str, NameKind, usize); 8]>,
    many: HashMap<&'a str, (NameKind, usize)>,
}

impl<'a> Names<'a> {
    fn get(&self, name: &str) -> Option<(NameKind, usize)> {
        if self.many.is_empty() {
            self.few
                .iter()
                .find(|(n, _, _)| *n == name)
                .map(|&(_, k, p)| (k, p))
        } else {
            self.many.get(name).copied()
        }
    }

    fn insert(&mut self, name: &'a str, kind: NameKind, position: usize) {
        if self.many.is_empty() && self.few.len() < self.few.inline_size() {
            self.few.push((name, kind, position));
        } else {
            if self.many.is_empty() {
                self.many
                    .extend(self.few.drain(..).map(|(n, k, p)| (n, (k, p))));
            }
            self.many.insert(name, (kind, position));
        }
    }
}

fn note_name<'a>(
    p: &Cursor<'_>,
    names: &mut Names<'a>,
    name: &'a str,
    kind: NameKind,
    position: usize,
) -> Result<(), ShapeError> {
    let quoted = || excerpt(name, 0);
    match names.get(name) {
        Some((NameKind::Segment, first)) => Err(p.error_at(
            position,
            format!(
                "a name other than `{}`, which names the segment at position {first}",
                quoted()
            ),
            format!("`{name}`"),
        )),
        Some((NameKind::Dim, first)) if kind == NameKind::Segment => Err(p.error_at(
            position,
            format!(
                "a segment name other than `{}`, which names a dim at position {first}",
                quoted()
            ),
            format!("`{name}`"),
        )),
        Some(_) => Ok(()),
        None => {
            names.insert(name, kind, position);
            Ok(())
        }
    }
}

/// Where a binding came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Bound by the caller ([`Bindings::bind`]).
    Caller,
    /// Bound by matching this argument's axis.
    Axis(ArgRef, usize),
}

impl Origin {
    /// The origin of axis `offset` of a segment that starts at this origin's axis.
    pub(crate) fn shifted(&self, offset: usize) -> Origin {
        match self {
            Origin::Caller => Origin::Caller,
            Origin::Axis(arg, axis) => Origin::Axis(arg.clone(), axis + offset),
        }
    }
}

/// What a size conflicting with axis `index` of the named segment `*name` had to be, in the one
/// wording of static and concrete checks, e.g. *dims\[1\] = 3 (bound by field `values` axis 1):
/// the origin names the axis of the input that bound it, not the axis of the segment.
pub(crate) fn segment_expected(
    name: &str,
    index: usize,
    size: impl fmt::Display,
    origin: &Origin,
) -> String {
    format!("*{name}[{index}] = {size} ({origin})")
}

/// The rank an input needs when its named segment `*name` must have `len` axes, in the one
/// wording of static and concrete checks: the rank, the pattern, the segment's length and the
/// axes of the input that bound it.
pub(crate) fn segment_rank_expected(
    pattern: &ShapePattern,
    name: &str,
    len: usize,
    origin: &Origin,
) -> String {
    let by = match origin {
        Origin::Caller => "bound by the caller".to_string(),
        Origin::Axis(arg, start) => format!("bound by {arg} axes {start}..{}", start + len),
    };
    format!(
        "{} (pattern `{}` with *{name} of {len} axes, {by})",
        pattern.fixed_rank() + len,
        pattern.quoted()
    )
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Caller => f.write_str("bound by the caller"),
            Origin::Axis(arg, axis) => write!(f, "bound by {arg} axis {axis}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct DimBinding {
    name: Arc<str>,
    size: usize,
    origin: Origin,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct SegmentBinding {
    name: Arc<str>,
    sizes: crate::broadcast::Sizes,
    origin: Origin,
}

/// Sizes bound to names by matching patterns (and by the caller, for names known beforehand).
///
/// A name binds once; later uses must match. Lookups are linear: patterns use few names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bindings {
    dims: SmallVec<[DimBinding; 4]>,
    segments: SmallVec<[SegmentBinding; 1]>,
    /// Names known statically to be a symbol (static bindings only: refinement's input and
    /// output).
    symbolic: SmallVec<[(Arc<str>, Dim); 2]>,
}

/// A position in a [`Bindings`] to roll back to when a match fails half way.
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    dims: usize,
    segments: usize,
    symbolic: usize,
}

impl Bindings {
    /// No bindings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds `name` to `size` before any pattern is matched (like the Array API's `d1_input`).
    /// Fails if `name` is already bound to another size.
    pub fn bind(&mut self, name: &str, size: usize) -> Result<(), ShapeError> {
        match self.dim_binding(name) {
            Some(b) if b.size == size => Ok(()),
            Some(b) => Err(ShapeError::Rebind {
                name: name.into(),
                bound: format!("{} ({})", b.size, b.origin),
                new: size.to_string(),
            }),
            None => {
                self.dims.push(DimBinding {
                    name: name.into(),
                    size,
                    origin: Origin::Caller,
                });
                Ok(())
            }
        }
    }

    /// Binds the segment `*name` to `sizes` before any pattern is matched. Fails if it is already
    /// bound to other sizes.
    pub fn bind_segment(&mut self, name: &str, sizes: &[usize]) -> Result<(), ShapeError> {
        match self.segment_binding(name) {
            Some(b) if b.sizes.as_slice() == sizes => Ok(()),
            Some(b) => Err(ShapeError::Rebind {
                name: name.into(),
                bound: format!("{:?} ({})", b.sizes.as_slice(), b.origin),
                new: format!("{sizes:?}"),
            }),
            None => {
                self.segments.push(SegmentBinding {
                    name: name.into(),
                    sizes: sizes.into(),
                    origin: Origin::Caller,
                });
                Ok(())
            }
        }
    }

    /// Binds `name` statically to the symbol `symbol` (`$d1`): refining a pattern that uses
    /// `name` then puts the symbol at its axes. This is how a chain of refinements reuses the
    /// symbols an earlier one returned (they are in its [`Refined::known`](crate::Refined)).
    /// Fails if `name` is already bound to something else.
    ///
    /// At run time the symbol's size is the size bound to the name `symbol`
    /// ([`Refined::verify_with`](crate::Refined::verify_with)).
    pub fn bind_symbol(&mut self, name: &str, symbol: Symbol) -> Result<(), ShapeError> {
        let dim = Dim::symbol(symbol);
        match (self.dim_binding(name), self.symbol(name)) {
            (None, None) => {
                self.symbolic.push((name.into(), dim));
                Ok(())
            }
            (None, Some(d)) if d.as_symbol() == Some(symbol) => Ok(()),
            (b, d) => Err(ShapeError::Rebind {
                name: name.into(),
                bound: b.map_or_else(
                    || d.unwrap_or(Dim::Unknown).to_string(),
                    |b| format!("{} ({})", b.size, b.origin),
                ),
                new: dim.to_string(),
            }),
        }
    }

    /// The symbol `name` is bound to statically (a [`Dim::Symbol`]), if any.
    pub fn symbol(&self, name: &str) -> Option<Dim> {
        self.symbolic
            .iter()
            .find(|(n, _)| &**n == name)
            .map(|&(_, d)| d)
    }

    /// What is known of `name` as a dim: its size as [`Dim::Known`], or its symbol.
    pub fn dim(&self, name: &str) -> Option<Dim> {
        self.get(name).map(Dim::Known).or_else(|| self.symbol(name))
    }

    /// The names bound to symbols and their symbols, in binding order.
    pub fn symbols(&self) -> impl Iterator<Item = (&str, Dim)> {
        self.symbolic.iter().map(|(n, d)| (&**n, *d))
    }

    /// The size bound to `name`, if any.
    pub fn get(&self, name: &str) -> Option<usize> {
        self.dim_binding(name).map(|b| b.size)
    }

    /// The size bound to `name`, or an [`ShapeError::Unbound`] error naming it (handy in a
    /// [`DimensionCalculator`](crate::DimensionCalculator)).
    pub fn require(&self, name: &str) -> Result<usize, ShapeError> {
        self.get(name)
            .ok_or_else(|| ShapeError::Unbound { name: name.into() })
    }

    /// The sizes bound to the segment `*name`, if any.
    pub fn segment(&self, name: &str) -> Option<&[usize]> {
        self.segments
            .iter()
            .find(|b| &*b.name == name)
            .map(|b| b.sizes.as_slice())
    }

    /// The sizes bound to the segment `*name`, or an [`ShapeError::Unbound`] error naming it.
    pub fn require_segment(&self, name: &str) -> Result<&[usize], ShapeError> {
        self.segment(name)
            .ok_or_else(|| ShapeError::Unbound { name: name.into() })
    }

    /// The bound dim names and their sizes, in binding order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        self.dims.iter().map(|b| (&*b.name, b.size))
    }

    /// The bound segment names and their sizes, in binding order.
    pub fn segments(&self) -> impl Iterator<Item = (&str, &[usize])> {
        self.segments.iter().map(|b| (&*b.name, b.sizes.as_slice()))
    }

    /// The number of bound names (dims, segments and symbolic names).
    pub fn len(&self) -> usize {
        self.dims.len() + self.segments.len() + self.symbolic.len()
    }

    /// Whether nothing is bound.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn dim_binding(&self, name: &str) -> Option<&DimBinding> {
        self.dims.iter().find(|b| &*b.name == name)
    }

    fn segment_binding(&self, name: &str) -> Option<&SegmentBinding> {
        self.segments.iter().find(|b| &*b.name == name)
    }

    /// Adds the dim bindings (sizes and symbols) of `other` that `self` lacks, as if they came
    /// from `arg` (`other` came from refining one input, whose axes were reported as argument
    /// 0's); a size replaces a symbol. Returns whether anything changed.
    pub(crate) fn absorb_as(&mut self, other: &Bindings, arg: &ArgRef) -> bool {
        let before = self.dims.len() + self.symbolic.len();
        for (name, dim) in &other.symbolic {
            if self.dim_binding(name).is_none() && self.symbol(name).is_none() {
                self.symbolic.push((name.clone(), *dim));
            }
        }
        for b in &other.dims {
            if self.dim_binding(&b.name).is_none() {
                // A size learnt for a name known as a symbol replaces the symbol.
                self.symbolic.retain(|(n, _)| *n != b.name);
                let origin = match &b.origin {
                    Origin::Axis(_, axis) => Origin::Axis(arg.clone(), *axis),
                    Origin::Caller => Origin::Caller,
                };
                self.dims.push(DimBinding {
                    name: b.name.clone(),
                    size: b.size,
                    origin,
                });
            }
        }
        self.dims.len() + self.symbolic.len() != before
    }

    pub(crate) fn mark(&self) -> Mark {
        Mark {
            dims: self.dims.len(),
            segments: self.segments.len(),
            symbolic: self.symbolic.len(),
        }
    }

    /// Forgets every binding made after `mark`.
    pub(crate) fn reset(&mut self, mark: Mark) {
        self.dims.truncate(mark.dims);
        self.segments.truncate(mark.segments);
        self.symbolic.truncate(mark.symbolic);
    }
}

impl fmt::Display for Bindings {
    /// `{b = 8, n = 100, *batch = [2, 5], m = $m}`: dims, segments, then symbolic names, each in
    /// binding order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        let mut first = true;
        let mut sep = |f: &mut fmt::Formatter<'_>| {
            let s = if first { "" } else { ", " };
            first = false;
            f.write_str(s)
        };
        for (name, size) in self.iter() {
            sep(f)?;
            write!(f, "{name} = {size}")?;
        }
        for (name, sizes) in self.segments() {
            sep(f)?;
            write!(f, "*{name} = {sizes:?}")?;
        }
        for (name, dim) in self.symbols() {
            sep(f)?;
            write!(f, "{name} = {dim}")?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err_pos(text: &str) -> usize {
        match ShapePattern::parse(text).unwrap_err() {
            ShapeError::Parse { position, .. } => position,
            other => panic!("not a parse error: {other}"),
        }
    }

    #[test]
    fn parses_the_grammar() {
        let p: ShapePattern = "  b  n 3 _ #c ...".parse().unwrap();
        assert_eq!(
            p.items(),
            &[
                PatternDim::Name("b".into()),
                PatternDim::Name("n".into()),
                PatternDim::Size(3),
                PatternDim::Any,
                PatternDim::Broadcastable("c".into()),
                PatternDim::Variadic(None),
            ]
        );
        assert_eq!(p.variadic_index(), Some(5));
        assert_eq!(p.fixed_rank(), 5);
        assert_eq!(p.to_string(), "b n 3 _ #c ...");
        let p: ShapePattern = "*batch 3".parse().unwrap();
        assert_eq!(p.items()[0], PatternDim::Variadic(Some("batch".into())));
        assert_eq!(p.names().collect::<Vec<_>>(), ["batch"]);
        let p: ShapePattern = "n #n _x n".parse().unwrap();
        assert_eq!(p.names().collect::<Vec<_>>(), ["n", "_x"]);
        let empty: ShapePattern = "".parse().unwrap();
        assert_eq!(empty.items().len(), 0);
        assert_eq!(empty.to_string(), "");
        assert_eq!(" \t ".parse::<ShapePattern>().unwrap(), empty);
    }

    #[test]
    fn parse_errors_have_positions() {
        assert_eq!(err_pos("b ... *rest"), 6);
        assert_eq!(err_pos("3b"), 1);
        assert_eq!(err_pos("n,m"), 1);
        assert_eq!(err_pos("a .. b"), 2);
        assert_eq!(err_pos("a .... b"), 2);
        assert_eq!(err_pos("*"), 1);
        assert_eq!(err_pos("# n"), 1);
        assert_eq!(err_pos("*_"), 1);
        assert_eq!(err_pos("-1"), 0);
        assert_eq!(err_pos("a é"), 2);
        assert_eq!(err_pos("*b b"), 3);
        assert_eq!(err_pos("b *b"), 3);
        assert_eq!(err_pos("99999999999999999999999"), 0);
        let err = ShapePattern::parse("b n ? 3").unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot parse shape pattern \"b n ? 3\": at position 4, expected a pattern item \
             (a size, a name, `_`, `#name`, `...` or `*name`), found `?`"
        );
    }

    #[test]
    fn bindings_bind_once() {
        let mut b = Bindings::new();
        assert!(b.is_empty());
        b.bind("n", 3).unwrap();
        b.bind("n", 3).unwrap();
        assert!(b.bind("n", 4).is_err());
        b.bind_segment("batch", &[2, 5]).unwrap();
        assert!(b.bind_segment("batch", &[2]).is_err());
        assert_eq!(b.get("n"), Some(3));
        assert_eq!(b.require("n").unwrap(), 3);
        assert_eq!(
            b.require("m").unwrap_err(),
            ShapeError::Unbound { name: "m".into() }
        );
        assert_eq!(b.segment("batch"), Some(&[2, 5][..]));
        assert!(b.require_segment("n").is_err());
        assert_eq!(b.len(), 2);
        assert_eq!(b.iter().collect::<Vec<_>>(), [("n", 3)]);
        assert_eq!(b.to_string(), "{n = 3, *batch = [2, 5]}");
        assert_eq!(Bindings::new().to_string(), "{}");
        let mark = b.mark();
        b.bind("m", 1).unwrap();
        b.reset(mark);
        assert_eq!(b.get("m"), None);
    }
}

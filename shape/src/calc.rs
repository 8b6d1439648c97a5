//! Output shapes computed from the names bound by unification, also on partial inputs: affine
//! dim expressions ([`DimExpr`], `n - k + 1`), output shape declarations ([`OutputShape`],
//! `"b, c_out, n - k + 1"`) and [`ShapeCalculator`], a [`Unifier`] with declared outputs
//! (stannum's `DimensionCalculator`, MXNet's `infer_shape_partial` and `infer_shape`).
//!
//! Declaring an output checks stannum's rules, with an error naming the output:
//!
//! | rule                                                        | error says                     |
//! |-------------------------------------------------------------|--------------------------------|
//! | an output uses no any-dim (`_`, `#n`, `...`)                | `cannot use the any-dim`       |
//! | every name of an output is bound by an input (`n` or `*n`)  | `no input binds`               |
//! | when the inputs carry the batch dim, the output leads with it | `must lead with the batch dim` |
//!
//! On partial inputs each output dim evaluates to a known size, a symbol (or `!1`, `?`) when it is
//! one name, an expression over symbols (`$n - 4`) when its names are symbols, or unknown:
//!
//! ```
//! use extype_shape::{Shape, ShapeCalculator, Unifier};
//! let conv1d = ShapeCalculator::new(
//!     Unifier::new().input("x", "b c_in n")?.input("w", "c_out c_in k")?.batch("b")?,
//! )
//! .output("y", "b, c_out, n - k + 1")?;
//! let x: Shape = "[?, 3, ?]".parse()?;
//! let w: Shape = "[16, 3, 5]".parse()?;
//! let out = conv1d.infer(&[&x, &w])?;
//! assert_eq!(out[0].shape.to_string(), "[$b, 16, ?]");
//! assert_eq!(out[0].dims_text(), "[$b, 16, $n - 4]");
//! let x: Shape = "[8, 3, 100]".parse()?;
//! assert_eq!(conv1d.infer(&[&x, &w])?[0].shape.to_string(), "[8, 16, 96]");
//! assert_eq!(conv1d.compute(&[&[8, 3, 100], &[16, 3, 5]])?[0].as_slice(), &[8, 16, 96]);
//! # Ok::<(), extype_shape::ShapeError>(())
//! ```

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use smallvec::SmallVec;

use crate::broadcast::Sizes;
use crate::dim::Dim;
use crate::error::ShapeError;
use crate::partial::Shape;
use crate::pattern::{Bindings, PatternDim, ShapePattern};
use crate::text::Cursor;
use crate::unify::{DimensionCalculator, JointRefined, Unifier};

/// An affine expression over names: a sum of integer multiples of names plus a constant, as in
/// `n - k + 1`, `2*n`, `b` or `3`.
///
/// Text: terms joined by `+` / `-`, each a name, an integer, `c*name` or `name*c`; whitespace is
/// free. `Display` prints a canonical form that parses back to an equal expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct DimExpr {
    /// Names with nonzero coefficients, in order of first appearance.
    terms: SmallVec<[(Arc<str>, i64); 2]>,
    constant: i64,
}

/// The static value of one output dim.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DimValue {
    /// A dim: a known size, a symbol, `!1` or `?`.
    Dim(Dim),
    /// An expression over symbols (`$n - 4`): known once the symbols are.
    Expr(DimExpr),
}

impl DimValue {
    /// As a [`Dim`]: an expression over symbols is `?` (a dim names at most one symbol).
    pub fn to_dim(&self) -> Dim {
        match self {
            DimValue::Dim(d) => *d,
            DimValue::Expr(_) => Dim::Unknown,
        }
    }
}

impl fmt::Display for DimValue {
    /// The dim's text, or the expression with `$` before each symbol (`$n - 4`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DimValue::Dim(d) => write!(f, "{d}"),
            DimValue::Expr(e) => e.write(f, "$"),
        }
    }
}

impl DimExpr {
    /// The names the expression uses, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(|(n, _)| &**n)
    }

    /// The constant term.
    pub fn constant(&self) -> i64 {
        self.constant
    }

    /// The coefficient of `name` (0 if it does not appear).
    pub fn coefficient(&self, name: &str) -> i64 {
        self.terms
            .iter()
            .find(|(n, _)| &**n == name)
            .map_or(0, |&(_, c)| c)
    }

    /// The value with every name's size given by `size`; an error message when a name has no
    /// size, or the value is negative or does not fit in `usize`.
    pub fn eval(&self, size: impl Fn(&str) -> Option<usize>) -> Result<usize, String> {
        let mut total = i128::from(self.constant);
        for (name, c) in &self.terms {
            let v = size(name).ok_or_else(|| format!("no input binds the name `{name}`"))?;
            // |c| < 2^63 and v < 2^64: each product fits in i128; the sum of a few does too.
            total += i128::from(*c) * v as i128;
        }
        self.to_size(total, &|name| size(name).map(|v| v.to_string()))
    }

    /// The value on partial knowledge: each name is a [`Dim`] (or unbound, as `?`). Known sizes
    /// are folded in; names that are symbols remain (an expression over symbols); any other name
    /// makes the value `?`. A single name alone gives its dim as is (`$n!1`, `!1`).
    pub fn eval_static(&self, dim: impl Fn(&str) -> Option<Dim>) -> Result<DimValue, String> {
        if let [(name, 1)] = &self.terms[..]
            && self.constant == 0
        {
            return Ok(DimValue::Dim(dim(name).unwrap_or(Dim::Unknown)));
        }
        let mut total = i128::from(self.constant);
        let mut symbolic = DimExpr::default();
        for (name, c) in &self.terms {
            match dim(name) {
                Some(Dim::Known(v)) => total += i128::from(*c) * v as i128,
                Some(Dim::Symbol { name: s, .. }) => symbolic.add(s.as_str().into(), *c)?,
                _ => return Ok(DimValue::Dim(Dim::Unknown)),
            }
        }
        if symbolic.terms.is_empty() {
            let show = |name: &str| dim(name).map(|d| d.to_string());
            return self
                .to_size(total, &show)
                .map(|n| DimValue::Dim(Dim::Known(n)));
        }
        symbolic.constant = i64::try_from(total).map_err(|_| self.overflow())?;
        Ok(DimValue::Expr(symbolic))
    }

    fn to_size(&self, total: i128, show: &dyn Fn(&str) -> Option<String>) -> Result<usize, String> {
        if total < 0 {
            let values: Vec<String> = self
                .names()
                .map(|n| format!("{n} = {}", show(n).unwrap_or_else(|| "?".into())))
                .collect();
            return Err(format!(
                "`{self}` is {total} (negative) for {}",
                values.join(", ")
            ));
        }
        usize::try_from(total).map_err(|_| self.overflow())
    }

    fn overflow(&self) -> String {
        format!("`{self}` does not fit in a size")
    }

    fn add(&mut self, name: Arc<str>, c: i64) -> Result<(), String> {
        let overflow = || format!("a coefficient of `{name}` overflows");
        match self.terms.iter().position(|(n, _)| *n == name) {
            Some(i) => {
                let sum = self.terms[i].1.checked_add(c).ok_or_else(overflow)?;
                if sum == 0 {
                    self.terms.remove(i);
                } else {
                    self.terms[i].1 = sum;
                }
            }
            None if c != 0 => self.terms.push((name, c)),
            None => {}
        }
        Ok(())
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, prefix: &str) -> fmt::Result {
        for (i, (name, c)) in self.terms.iter().enumerate() {
            let (sign, abs) = (if *c < 0 { "-" } else { "+" }, c.unsigned_abs());
            match (i, sign) {
                (0, "+") => {}
                (0, _) => f.write_str("-")?,
                _ => write!(f, " {sign} ")?,
            }
            if abs != 1 {
                write!(f, "{abs}*")?;
            }
            write!(f, "{prefix}{name}")?;
        }
        match (self.terms.is_empty(), self.constant) {
            (true, c) => write!(f, "{c}"),
            (false, 0) => Ok(()),
            (false, c) if c < 0 => write!(f, " - {}", c.unsigned_abs()),
            (false, c) => write!(f, " + {c}"),
        }
    }
}

impl fmt::Display for DimExpr {
    /// `n - k + 1`, `2*n`, `-n + 3`, `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, "")
    }
}

impl FromStr for DimExpr {
    type Err = ShapeError;

    /// Parses `n - k + 1`; errors give the position, what was expected and what was found.
    fn from_str(text: &str) -> Result<Self, ShapeError> {
        let mut p = Cursor::new("dim expression", text);
        let expr = expr(&mut p)?;
        p.skip_ws();
        p.end()?;
        Ok(expr)
    }
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn coefficient(p: &mut Cursor<'_>) -> Result<i64, ShapeError> {
    let start = p.position();
    let n = p.size()?;
    i64::try_from(n).map_err(|_| {
        p.error_at(
            start,
            format!("a coefficient of at most {}", i64::MAX),
            n.to_string(),
        )
    })
}

/// One expression, up to a `,`, `]` or the end.
fn expr(p: &mut Cursor<'_>) -> Result<DimExpr, ShapeError> {
    let mut out = DimExpr::default();
    let mut sign = 1i64;
    p.skip_ws();
    if p.eat('-') {
        sign = -1;
    } else {
        p.eat('+');
    }
    loop {
        p.skip_ws();
        let start = p.position();
        let overflow = |p: &Cursor<'_>| {
            p.error_at(
                start,
                "an expression whose numbers fit in 64 bits".into(),
                "an overflow".into(),
            )
        };
        match p.peek() {
            Some(c) if c.is_ascii_digit() => {
                let c = coefficient(p)?;
                p.skip_ws();
                if p.eat('*') {
                    p.skip_ws();
                    let name = name(p)?;
                    let c = c.checked_mul(sign).ok_or_else(|| overflow(p))?;
                    out.add(name.into(), c).map_err(|_| overflow(p))?;
                } else {
                    let c = c.checked_mul(sign).ok_or_else(|| overflow(p))?;
                    out.constant = out.constant.checked_add(c).ok_or_else(|| overflow(p))?;
                }
            }
            Some(c) if is_name_start(c) => {
                let name = name(p)?;
                p.skip_ws();
                let c = if p.eat('*') {
                    p.skip_ws();
                    coefficient(p)?
                } else {
                    1
                };
                let c = c.checked_mul(sign).ok_or_else(|| overflow(p))?;
                out.add(name.into(), c).map_err(|_| overflow(p))?;
            }
            _ => return Err(p.error("a name or an integer")),
        }
        p.skip_ws();
        sign = if p.eat('+') {
            1
        } else if p.eat('-') {
            -1
        } else {
            return Ok(out);
        };
    }
}

fn name<'a>(p: &mut Cursor<'a>) -> Result<&'a str, ShapeError> {
    if !p.peek().is_some_and(is_name_start) {
        return Err(p.error("a name (a letter or `_`, then letters, digits or `_`)"));
    }
    Ok(p.take_while(is_name_char))
}

/// One item of an [`OutputShape`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OutputDim {
    /// One axis, computed by an expression over bound names.
    Expr(DimExpr),
    /// The axes of the named segment `*name` of the inputs.
    Segment(Arc<str>),
    /// An any-dim (`_`, `#name` or `...`), which an output cannot use; parsed so that declaring
    /// it gives the rule's error.
    Any(String),
}

impl fmt::Display for OutputDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputDim::Expr(e) => write!(f, "{e}"),
            OutputDim::Segment(name) => write!(f, "*{name}"),
            OutputDim::Any(text) => f.write_str(text),
        }
    }
}

/// The declared shape of an output: comma-separated items, each a [`DimExpr`] over the inputs'
/// names or a named segment `*name`, optionally in brackets: `"b, c_out, n - k + 1"`,
/// `"[*batch, 2*c]"`; the empty text is a scalar.
///
/// It is a [`DimensionCalculator`] for concrete bindings, and, given joint static knowledge,
/// computes partial shapes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OutputShape {
    items: SmallVec<[OutputDim; 4]>,
}

impl OutputShape {
    /// The items, one per axis (a segment counting as one).
    pub fn items(&self) -> &[OutputDim] {
        &self.items
    }

    /// The names the items use (expressions' names and segments), in order, with repeats.
    fn names(&self) -> impl Iterator<Item = (&str, bool)> {
        self.items.iter().flat_map(|item| {
            let (exprs, segment): (Option<&DimExpr>, Option<&str>) = match item {
                OutputDim::Expr(e) => (Some(e), None),
                OutputDim::Segment(n) => (None, Some(n)),
                OutputDim::Any(_) => (None, None),
            };
            exprs
                .into_iter()
                .flat_map(|e| e.names().map(|n| (n, false)))
                .chain(segment.map(|n| (n, true)))
        })
    }

    /// The partial shape of this output from joint static knowledge, and each axis' value (when
    /// the rank is known).
    fn eval_static(
        &self,
        output: &str,
        joint: &JointRefined,
    ) -> Result<(Shape, Option<Vec<DimValue>>), ShapeError> {
        let mut values = Vec::new();
        for item in &self.items {
            match item {
                OutputDim::Expr(e) => values.push(
                    e.eval_static(|name| joint.known.dim(name))
                        .map_err(|message| calc_error(output, message))?,
                ),
                OutputDim::Segment(name) => match joint.segment(name) {
                    Some(dims) => values.extend(dims.iter().map(|&d| DimValue::Dim(d))),
                    None => return Ok((Shape::unknown_rank(), None)),
                },
                OutputDim::Any(text) => {
                    return Err(calc_error(
                        output,
                        format!("`{text}` does not determine a size"),
                    ));
                }
            }
        }
        let shape = values.iter().map(DimValue::to_dim).collect();
        Ok((shape, Some(values)))
    }
}

fn calc_error(output: &str, message: String) -> ShapeError {
    ShapeError::Calculation {
        output: output.into(),
        message,
    }
}

impl fmt::Display for OutputShape {
    /// `[b, c_out, n - k + 1]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{item}")?;
        }
        f.write_str("]")
    }
}

impl FromStr for OutputShape {
    type Err = ShapeError;

    fn from_str(text: &str) -> Result<Self, ShapeError> {
        let mut p = Cursor::new("output shape", text);
        p.skip_ws();
        let bracket = p.eat('[');
        let mut items = SmallVec::new();
        p.skip_ws();
        let closes = |p: &Cursor<'_>| {
            if bracket {
                p.peek() == Some(']')
            } else {
                p.at_end()
            }
        };
        if !closes(&p) {
            loop {
                p.skip_ws();
                let start = p.position();
                let item = match p.peek() {
                    Some('*') => {
                        p.eat('*');
                        OutputDim::Segment(name(&mut p)?.into())
                    }
                    Some('#') => {
                        p.eat('#');
                        OutputDim::Any(format!("#{}", name(&mut p)?))
                    }
                    Some('.') => {
                        let dots = p.take_while(|c| c == '.');
                        if dots != "..." {
                            return Err(p.error_at(start, "`...`".into(), format!("`{dots}`")));
                        }
                        OutputDim::Any(dots.into())
                    }
                    _ => {
                        let e = expr(&mut p)?;
                        if e.constant == 0 && matches!(&e.terms[..], [(n, 1)] if &**n == "_") {
                            OutputDim::Any("_".into())
                        } else {
                            OutputDim::Expr(e)
                        }
                    }
                };
                items.push(item);
                p.skip_ws();
                if !p.eat(',') {
                    break;
                }
            }
        }
        p.skip_ws();
        if bracket {
            p.expect(']', "`,` or `]`")?;
            p.skip_ws();
        }
        p.end().map_err(|_| {
            p.error(if bracket {
                "end of input"
            } else {
                "`,` or end of input"
            })
        })?;
        Ok(OutputShape { items })
    }
}

impl DimensionCalculator for OutputShape {
    /// Each expression evaluated on the bound sizes, each segment as bound; an any-dim, an
    /// unbound name or a negative size is an error naming the output.
    fn calc_shape(&self, output: &str, bindings: &Bindings) -> Result<Sizes, ShapeError> {
        let mut sizes = Sizes::new();
        for item in &self.items {
            match item {
                OutputDim::Expr(e) => sizes.push(
                    e.eval(|name| bindings.get(name))
                        .map_err(|message| calc_error(output, message))?,
                ),
                OutputDim::Segment(name) => sizes.extend_from_slice(
                    bindings
                        .segment(name)
                        .ok_or_else(|| calc_error(output, format!("no input binds `*{name}`")))?,
                ),
                OutputDim::Any(text) => {
                    return Err(calc_error(
                        output,
                        format!("`{text}` does not determine a size"),
                    ));
                }
            }
        }
        Ok(sizes)
    }

    fn calc_partial(&self, output: &str, joint: &JointRefined) -> Result<Shape, ShapeError> {
        self.eval_static(output, joint).map(|(shape, _)| shape)
    }
}

/// One output's statically inferred shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InferredOutput {
    /// The output's name.
    pub name: Arc<str>,
    /// Its partial shape (an expression over symbols is `?` here).
    pub shape: Shape,
    /// Each axis' value, expressions over symbols included; `None` when the rank is unknown (a
    /// segment no input of known rank fixes).
    pub dims: Option<Vec<DimValue>>,
}

impl InferredOutput {
    /// The dims as text, expressions included: `[$b, 16, $n - 4]`; `*` for unknown rank.
    pub fn dims_text(&self) -> String {
        match &self.dims {
            None => "*".into(),
            Some(dims) => {
                let texts: Vec<String> = dims.iter().map(ToString::to_string).collect();
                format!("[{}]", texts.join(", "))
            }
        }
    }
}

/// A [`Unifier`] with declared outputs: concrete output shapes from concrete inputs
/// ([`compute`](Self::compute)), partial output shapes from partial inputs
/// ([`infer`](Self::infer), MXNet's `infer_shape_partial`), or fully defined output shapes or an
/// error naming every unknown dim ([`infer_defined`](Self::infer_defined), MXNet's `infer_shape`).
///
/// The declaration rules are checked by [`output`](Self::output) (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct ShapeCalculator {
    unifier: Unifier,
    outputs: Vec<(Arc<str>, OutputShape)>,
}

impl ShapeCalculator {
    /// A calculator over these inputs (their patterns, shared names and batch dim), no outputs
    /// yet.
    pub fn new(unifier: Unifier) -> Self {
        ShapeCalculator {
            unifier,
            outputs: Vec::new(),
        }
    }

    /// The inputs' unifier.
    pub fn unifier(&self) -> &Unifier {
        &self.unifier
    }

    /// The outputs and their declared shapes, in order.
    pub fn outputs(&self) -> impl Iterator<Item = (&str, &OutputShape)> {
        self.outputs.iter().map(|(n, s)| (&**n, s))
    }

    /// Declares the output `name` with the shape `text` ([`OutputShape`]), checking the rules:
    /// no any-dim, every name bound by an input, and the batch dim leading when an input has it.
    ///
    /// ```
    /// use extype_shape::{ShapeCalculator, Unifier};
    /// let inputs = Unifier::new().input("x", "b n")?.input("w", "n k")?.batch("b")?;
    /// let calc = ShapeCalculator::new(inputs);
    /// let err = calc.clone().output("y", "b, _").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid shape of output `y` ([b, _]): an output cannot use the any-dim `_`; \
    ///      write a size or a name bound by an input"
    /// );
    /// let err = calc.clone().output("y", "b, m").unwrap_err();
    /// assert!(err.to_string().contains("no input binds the name `m`"), "{err}");
    /// let err = calc.clone().output("y", "k, b").unwrap_err();
    /// assert!(err.to_string().contains("must lead with the batch dim `b`"), "{err}");
    /// assert!(calc.output("y", "b, k").is_ok());
    /// # Ok::<(), extype_shape::ShapeError>(())
    /// ```
    pub fn output(mut self, name: &str, text: &str) -> Result<Self, ShapeError> {
        let shape: OutputShape = text.parse()?;
        let invalid = |message: String| ShapeError::InvalidOutput {
            output: name.into(),
            shape: shape.to_string(),
            message,
        };
        if let Some(OutputDim::Any(any)) =
            shape.items.iter().find(|i| matches!(i, OutputDim::Any(_)))
        {
            return Err(invalid(format!(
                "an output cannot use the any-dim `{any}`; write a size or a name bound by an \
                 input"
            )));
        }
        for (used, segment) in shape.names() {
            let binds = |item: &PatternDim| match item {
                PatternDim::Name(n) => !segment && &**n == used,
                PatternDim::Variadic(Some(n)) => segment && &**n == used,
                _ => false,
            };
            let bound = self
                .unifier
                .inputs()
                .any(|(_, p)| p.items().iter().any(binds));
            if !bound {
                let star = if segment { "*" } else { "" };
                let hash_only = self.unifier.inputs().any(|(_, p)| {
                    p.items()
                        .iter()
                        .any(|i| matches!(i, PatternDim::Broadcastable(n) if &**n == used))
                });
                let why = if hash_only {
                    " (only `#` items use it, and they do not bind a size of 1)"
                } else {
                    ""
                };
                return Err(invalid(format!(
                    "no input binds the name `{star}{used}`{why}"
                )));
            }
        }
        if let Some(batch) = self.unifier.batch_name() {
            let uses = |p: &ShapePattern| match p.items().first() {
                Some(PatternDim::Name(n) | PatternDim::Variadic(Some(n))) => &**n == batch,
                _ => false,
            };
            let leads = match shape.items.first() {
                Some(OutputDim::Segment(n)) => &**n == batch,
                Some(OutputDim::Expr(e)) => {
                    e.terms.len() == 1 && e.constant == 0 && e.coefficient(batch) == 1
                }
                _ => false,
            };
            if self.unifier.inputs().any(|(_, p)| uses(p)) && !leads {
                return Err(invalid(format!(
                    "the inputs carry the batch dim `{batch}`, so the output must lead with the \
                     batch dim `{batch}` too"
                )));
            }
        }
        self.outputs.push((name.into(), shape));
        Ok(self)
    }

    /// The concrete output shapes, in declaration order: unifies the inputs, then evaluates each
    /// output. Errors name the input (unification) or the output (evaluation).
    pub fn compute(&self, shapes: &[&[usize]]) -> Result<Vec<Sizes>, ShapeError> {
        let bindings = self.unifier.unify(shapes)?;
        self.outputs
            .iter()
            .map(|(name, shape)| bindings.output_shape(name, shape))
            .collect()
    }

    /// The partial output shapes from partial inputs (MXNet's `infer_shape_partial`): the inputs
    /// are refined jointly with symbols introduced for the names nothing fixes
    /// ([`Unifier::refine_symbolic`]), then each output dim is evaluated on what is known. Fails
    /// when the inputs cannot unify, or an output dim is known to be negative.
    pub fn infer<S: Borrow<Shape>>(&self, inputs: &[S]) -> Result<Vec<InferredOutput>, ShapeError> {
        let joint = self.unifier.refine_symbolic(inputs)?;
        self.outputs
            .iter()
            .map(|(name, shape)| {
                let (out, dims) = shape.eval_static(name, &joint)?;
                Ok(InferredOutput {
                    name: name.clone(),
                    shape: out,
                    dims,
                })
            })
            .collect()
    }

    /// The fully defined output shapes (MXNet's `infer_shape`): like [`infer`](Self::infer), but
    /// an output dim that is not a known size is an error naming the output and each such dim.
    ///
    /// ```
    /// use extype_shape::{Shape, ShapeCalculator, Unifier};
    /// let calc = ShapeCalculator::new(Unifier::new().input("x", "b n")?.input("w", "n k")?)
    ///     .output("y", "b, k - 1")?;
    /// let x: Shape = "[?, 3]".parse()?;
    /// let w: Shape = "[3, ?]".parse()?;
    /// let err = calc.infer_defined(&[&x, &w]).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "cannot compute the shape of output `y`: not fully defined: axis 0 (`b`) is $b, \
    ///      axis 1 (`k - 1`) is $k - 1"
    /// );
    /// let w: Shape = "[3, 5]".parse()?;
    /// let x: Shape = "[2, ?]".parse()?;
    /// assert_eq!(calc.infer_defined(&[&x, &w])?[0].as_slice(), &[2, 4]);
    /// # Ok::<(), extype_shape::ShapeError>(())
    /// ```
    pub fn infer_defined<S: Borrow<Shape>>(&self, inputs: &[S]) -> Result<Vec<Sizes>, ShapeError> {
        let inferred = self.infer(inputs)?;
        inferred
            .iter()
            .zip(&self.outputs)
            .map(|(out, (_, declared))| {
                let Some(dims) = &out.dims else {
                    return Err(calc_error(
                        &out.name,
                        format!("not fully defined: the rank of {declared} is unknown"),
                    ));
                };
                let unknown = unknown_dims(declared, dims);
                if !unknown.is_empty() {
                    return Err(calc_error(
                        &out.name,
                        format!("not fully defined: {}", unknown.join(", ")),
                    ));
                }
                Ok(dims.iter().filter_map(|d| d.to_dim().value()).collect())
            })
            .collect()
    }
}

/// `axis i (`item`) is value` for each dim of `dims` that is not a known size.
fn unknown_dims(declared: &OutputShape, dims: &[DimValue]) -> Vec<String> {
    // Map each axis back to the item it came from (a segment covers several axes).
    let mut out = Vec::new();
    let mut axis = 0;
    for (index, item) in declared.items.iter().enumerate() {
        let width = match item {
            OutputDim::Segment(_) => {
                // The segment covers what the items after it (one axis each, or further
                // segments' axes) leave.
                let after: usize = declared.items.len() - index - 1;
                dims.len().saturating_sub(axis + after)
            }
            _ => 1,
        };
        for value in dims.iter().skip(axis).take(width) {
            if !matches!(value, DimValue::Dim(Dim::Known(_))) {
                out.push(format!("axis {axis} (`{item}`) is {value}"));
            }
            axis += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr(text: &str) -> DimExpr {
        text.parse().unwrap()
    }

    fn conv1d() -> ShapeCalculator {
        ShapeCalculator::new(
            Unifier::new()
                .input("x", "b c_in n")
                .unwrap()
                .input("w", "c_out c_in k")
                .unwrap()
                .batch("b")
                .unwrap(),
        )
        .output("y", "b, c_out, n - k + 1")
        .unwrap()
    }

    fn shapes(texts: &[&str]) -> Vec<Shape> {
        texts.iter().map(|t| t.parse().unwrap()).collect()
    }

    #[test]
    fn expressions_parse_print_and_evaluate() {
        for (text, canonical) in [
            ("n - k + 1", "n - k + 1"),
            ("n-k+1", "n - k + 1"),
            ("2*n", "2*n"),
            ("n*2 + n", "3*n"),
            ("-n + 3", "-n + 3"),
            ("n - n + 4", "4"),
            ("0", "0"),
            ("+ a - 2 * b - 7", "a - 2*b - 7"),
        ] {
            let e = expr(text);
            assert_eq!(e.to_string(), canonical, "{text}");
            assert_eq!(expr(canonical), e);
        }
        assert_eq!(expr("n - k + 1").coefficient("k"), -1);
        assert_eq!(expr("n - k + 1").constant(), 1);
        let sizes = |name: &str| match name {
            "n" => Some(10),
            "k" => Some(3),
            _ => None,
        };
        assert_eq!(expr("n - k + 1").eval(sizes), Ok(8));
        assert_eq!(
            expr("k - n").eval(sizes).unwrap_err(),
            "`k - n` is -7 (negative) for k = 3, n = 10"
        );
        assert_eq!(
            expr("m + 1").eval(sizes).unwrap_err(),
            "no input binds the name `m`"
        );
        // Huge values are errors, not overflows.
        let huge = |_: &str| Some(usize::MAX);
        assert!(expr("2*n").eval(huge).is_err());
        assert!(
            format!("{} * n", i64::MAX)
                .parse::<DimExpr>()
                .unwrap()
                .eval(huge)
                .is_err()
        );
        assert!(format!("{}", u64::MAX).parse::<DimExpr>().is_err());
        for bad in ["", "n +", "n k", "2 * 3", "n * m", "(n)", "n - - k"] {
            let err = bad.parse::<DimExpr>().unwrap_err();
            assert!(
                err.to_string().starts_with("cannot parse dim expression"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn static_evaluation() {
        let n = Dim::symbol(crate::dim::Symbol::new("n").unwrap());
        let dims = |name: &str| match name {
            "n" => Some(n),
            "k" => Some(Dim::Known(5)),
            "u" => Some(Dim::Unknown),
            "nn" => Some(Dim::NotOne),
            _ => None,
        };
        let value = |text: &str| expr(text).eval_static(dims).unwrap().to_string();
        assert_eq!(value("n - k + 1"), "$n - 4");
        assert_eq!(value("k - 1"), "4");
        assert_eq!(value("n"), "$n");
        assert_eq!(value("nn"), "!1");
        assert_eq!(value("n + u"), "?");
        assert_eq!(value("m"), "?");
        assert_eq!(value("2*n - n"), "$n");
        assert_eq!(
            expr("n - k + 1").eval_static(dims).unwrap().to_dim(),
            Dim::Unknown
        );
        assert!(expr("1 - k").eval_static(dims).is_err());
    }

    // stannum's D1ConvDC: the output length n - k + 1, here statically from partial inputs.
    #[test]
    fn conv1d_from_partial_inputs() {
        let calc = conv1d();
        let out = calc.infer(&shapes(&["[?, 3, 100]", "[16, 3, 5]"])).unwrap();
        assert_eq!(out[0].shape.to_string(), "[$b, 16, 96]");
        assert_eq!(&*out[0].name, "y");
        let out = calc.infer(&shapes(&["[8, ?, ?]", "[?, ?, 5]"])).unwrap();
        assert_eq!(out[0].dims_text(), "[8, $c_out, $n - 4]");
        assert_eq!(out[0].shape.to_string(), "[8, $c_out, ?]");
        let out = calc.infer(&shapes(&["*", "*"])).unwrap();
        assert_eq!(out[0].dims_text(), "[$b, $c_out, $n - $k + 1]");
        // Inputs that cannot unify, or a kernel longer than the input, fail statically.
        assert!(calc.infer(&shapes(&["[?, 3, ?]", "[?, 4, ?]"])).is_err());
        let err = calc
            .infer(&shapes(&["[?, 3, 2]", "[?, 3, 5]"]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot compute the shape of output `y`: `n - k + 1` is -2 (negative) for n = 2, \
             k = 5"
        );
        // Concrete shapes.
        assert_eq!(
            calc.compute(&[&[2, 3, 10], &[4, 3, 3]]).unwrap()[0].as_slice(),
            &[2, 4, 8]
        );
        assert!(calc.compute(&[&[2, 3, 10], &[4, 5, 3]]).is_err());
        // Fully defined: every unknown dim is named.
        let err = calc
            .infer_defined(&shapes(&["[?, 3, ?]", "[16, 3, 5]"]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot compute the shape of output `y`: not fully defined: axis 0 (`b`) is $b, \
             axis 2 (`n - k + 1`) is $n - 4"
        );
        assert_eq!(
            calc.infer_defined(&shapes(&["[2, 3, 9]", "[16, 3, 5]"]))
                .unwrap()[0]
                .as_slice(),
            &[2, 16, 5]
        );
    }

    #[test]
    fn declaration_rules() {
        let inputs = Unifier::new()
            .input("x", "b n #h")
            .unwrap()
            .input("w", "n k")
            .unwrap()
            .batch("b")
            .unwrap();
        let calc = ShapeCalculator::new(inputs);
        // 1. No any-dim.
        for any in ["b, _", "b, #n", "b, ..."] {
            let err = calc.clone().output("y", any).unwrap_err();
            assert!(
                matches!(&err, ShapeError::InvalidOutput { output, .. } if &**output == "y"),
                "{err}"
            );
            assert!(err.to_string().contains("cannot use the any-dim"), "{err}");
        }
        // 2. Every name bound by an input.
        let err = calc.clone().output("y", "b, n + m").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid shape of output `y` ([b, n + m]): no input binds the name `m`"
        );
        let err = calc.clone().output("y", "b, h").unwrap_err();
        assert!(err.to_string().contains("only `#` items use it"), "{err}");
        let err = calc.clone().output("y", "b, *s").unwrap_err();
        assert!(
            err.to_string().contains("no input binds the name `*s`"),
            "{err}"
        );
        // 3. The batch dim leads when the inputs carry it.
        for missing in ["n, k", "k, b", "2*b, k", ""] {
            let err = calc.clone().output("y", missing).unwrap_err();
            assert!(
                err.to_string().contains("must lead with the batch dim `b`"),
                "{missing}: {err}"
            );
        }
        assert!(calc.clone().output("y", "[b, n - k, 3]").is_ok());
        // Without a batch dim in any input, outputs need none.
        let calc = ShapeCalculator::new(
            Unifier::new()
                .input("w", "n k")
                .unwrap()
                .batch("b")
                .unwrap(),
        );
        assert!(calc.output("y", "k").is_ok());
        // Malformed text is a parse error.
        let calc = ShapeCalculator::new(Unifier::new().input("x", "n").unwrap());
        assert!(matches!(
            calc.clone().output("y", "[n").unwrap_err(),
            ShapeError::Parse { .. }
        ));
        assert!(matches!(
            calc.output("y", "n n").unwrap_err(),
            ShapeError::Parse { .. }
        ));
    }

    #[test]
    fn segments_and_scalars() {
        let calc = ShapeCalculator::new(
            Unifier::new()
                .input("x", "*batch n")
                .unwrap()
                .batch("batch")
                .unwrap(),
        )
        .output("sum", "*batch")
        .unwrap()
        .output("pairs", "*batch, n, 2")
        .unwrap();
        let out = calc.infer(&shapes(&["[4, ?, 3]"])).unwrap();
        assert_eq!(out[0].shape.to_string(), "[4, ?]");
        assert_eq!(out[1].shape.to_string(), "[4, ?, 3, 2]");
        let out = calc.infer(&shapes(&["*"])).unwrap();
        assert_eq!(out[0].shape.to_string(), "*");
        assert_eq!(out[0].dims_text(), "*");
        let err = calc.infer_defined(&shapes(&["*"])).unwrap_err();
        assert!(
            err.to_string().contains("rank of [*batch] is unknown"),
            "{err}"
        );
        let err = calc.infer_defined(&shapes(&["[?, 2, 3]"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot compute the shape of output `sum`: not fully defined: axis 0 (`*batch`) is ?"
        );
        assert_eq!(
            calc.compute(&[&[4, 5, 3]]).unwrap()[1].as_slice(),
            &[4, 5, 3, 2]
        );
        let scalar = ShapeCalculator::new(Unifier::new().input("x", "n").unwrap())
            .output("s", "")
            .unwrap();
        assert_eq!(scalar.compute(&[&[3]]).unwrap()[0].len(), 0);
        assert_eq!(scalar.outputs().count(), 1);
        let shape: OutputShape = "[*b, n - 1]".parse().unwrap();
        assert_eq!(shape.to_string(), "[*b, n - 1]");
        assert_eq!(shape.items().len(), 2);
    }
}

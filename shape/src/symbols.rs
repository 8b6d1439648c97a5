//! [`Symbols`]: what symbolic dims stand for, learnt by merging shapes and refining patterns.

use std::fmt;

use smallvec::SmallVec;

use crate::dim::{Dim, DimVec, Symbol, SymbolBinding};
use crate::error::ShapeError;

/// A table of symbol bindings: each bound symbol stands for a known size, another symbol, or
/// itself known not to be 1. Built by merging dims ([`Symbols::merge`],
/// [`Shape::merge_with_symbols`](crate::partial::Shape::merge_with_symbols)) and returned by
/// pattern refinement, so later steps can reuse what earlier ones learnt.
///
/// Bindings are kept in the order they were made; a binding always names a symbol that was not
/// bound to anything else when it was made, so following them ([`resolve`](Self::resolve))
/// ends.
///
/// ```
/// use extype_shape::{Dim, Shape, Symbols};
/// let a: Shape = "[$n, $n]".parse().unwrap();
/// let mut symbols = Symbols::new();
/// let merged = a.merge_with_symbols(&"[?, 3]".parse().unwrap(), &mut symbols).unwrap();
/// assert_eq!(merged.to_string(), "[3, 3]");
/// assert_eq!(symbols.to_string(), "{$n = 3}");
/// assert!(a.merge_with(&"[2, 3]".parse().unwrap()).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Symbols {
    bound: SmallVec<[SymbolBinding; 4]>,
}

impl Symbols {
    /// No bindings.
    pub fn new() -> Self {
        Self::default()
    }

    /// What `symbol` is bound to directly, if anything.
    pub fn get(&self, symbol: Symbol) -> Option<Dim> {
        self.bound.iter().find(|b| b.symbol == symbol).map(|b| b.to)
    }

    /// `dim` with its symbol (if any) replaced by what it stands for, following bindings: a
    /// known size, the representative symbol (with `!1` if known), or `dim` itself.
    pub fn resolve(&self, dim: Dim) -> Dim {
        let mut d = dim;
        // Each step moves to a symbol bound later than the previous one, so at most `len` steps.
        for _ in 0..=self.bound.len() {
            let Dim::Symbol { name, not_one } = d else {
                return d;
            };
            match self.get(name) {
                None => return d,
                Some(Dim::Symbol {
                    name: to,
                    not_one: flag,
                }) => {
                    d = Dim::Symbol {
                        name: to,
                        not_one: not_one || flag,
                    };
                    if to == name {
                        return d;
                    }
                }
                Some(other) => return other,
            }
        }
        d
    }

    /// Merges two dims under these bindings (each resolved first) and records the bindings the
    /// merge makes. `None` (and no change) when they conflict.
    pub fn merge(&mut self, a: Dim, b: Dim) -> Option<Dim> {
        let merged = self.resolve(a).merge_binding(self.resolve(b))?;
        for binding in merged.bindings {
            self.record(binding);
        }
        Some(merged.dim)
    }

    /// Binds `symbol` to `to` (a size, another symbol, `!1`…). Fails, saying what it is bound to,
    /// when that conflicts with what is known of it.
    ///
    /// ```
    /// use extype_shape::{Dim, Symbol, Symbols};
    /// let n = Symbol::new("n").unwrap();
    /// let mut symbols = Symbols::new();
    /// symbols.bind(n, Dim::Known(4)).unwrap();
    /// assert_eq!(symbols.resolve(Dim::symbol(n)), Dim::Known(4));
    /// assert_eq!(
    ///     symbols.bind(n, Dim::Known(5)).unwrap_err().to_string(),
    ///     "the name `$n` is already bound to 4; cannot bind it to 5"
    /// );
    /// ```
    pub fn bind(&mut self, symbol: Symbol, to: Dim) -> Result<(), ShapeError> {
        let from = Dim::symbol(symbol);
        match self.merge(from, to) {
            Some(_) => Ok(()),
            None => Err(ShapeError::Rebind {
                name: format!("${symbol}").into(),
                bound: self.resolve(from).to_string(),
                new: to.to_string(),
            }),
        }
    }

    /// Records every `$n!1` of `dims` (a shape's) as the fact `$n = $n!1`, so that other
    /// occurrences of `$n` cannot merge with 1. Fails when some symbol is already bound to 1.
    pub(crate) fn note_not_ones(&mut self, dims: &[Dim]) -> Result<(), Dim> {
        for &d in dims {
            if let Dim::Symbol {
                name,
                not_one: true,
            } = d
            {
                self.merge(Dim::symbol(name), Dim::NotOne).ok_or(d)?;
            }
        }
        Ok(())
    }

    /// The bindings, in the order they were made.
    pub fn iter(&self) -> impl Iterator<Item = &SymbolBinding> {
        self.bound.iter()
    }

    /// The number of bindings.
    pub fn len(&self) -> usize {
        self.bound.len()
    }

    /// Whether nothing is bound.
    pub fn is_empty(&self) -> bool {
        self.bound.is_empty()
    }

    fn record(&mut self, binding: SymbolBinding) {
        match self.bound.iter_mut().find(|b| b.symbol == binding.symbol) {
            Some(slot) => slot.to = binding.to,
            None => self.bound.push(binding),
        }
    }
}

impl fmt::Display for Symbols {
    /// `{$n = 3, $m = $n}`, in binding order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, b) in self.bound.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{b}")?;
        }
        f.write_str("}")
    }
}

/// Merges dims axis by axis under `symbols`, then applies what was learnt to every axis. On a
/// conflict, the axis where it happened.
pub(crate) fn merge_dims(a: &[Dim], b: &[Dim], symbols: &mut Symbols) -> Result<DimVec, usize> {
    let mut out = DimVec::with_capacity(a.len());
    for (axis, (&x, &y)) in a.iter().zip(b).enumerate() {
        out.push(symbols.merge(x, y).ok_or(axis)?);
    }
    for d in out.iter_mut() {
        *d = symbols.resolve(*d);
    }
    Ok(out)
}

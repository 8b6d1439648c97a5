//! One axis of a partial shape.

use std::fmt;

use smallvec::SmallVec;

/// The largest size a dim may have where a shape is parsed (shape text, patterns, spec JSON):
/// `isize::MAX`, the most elements any array can have on an axis. Larger sizes are an error,
/// so every shape the library writes it also reads.
pub const MAX_DIM: usize = isize::MAX as usize;

/// The largest rank a shape may have where it is parsed (shape text and spec JSON) or written
/// into a spec document: TensorFlow's `TensorShape::MaxDimensions()`. One bound for every
/// reader and writer, so a shape one accepts the others accept, and a hostile text of many
/// dims is refused by its count, before any budget.
pub const MAX_RANK: usize = 254;

/// Dims stored inline up to this rank, so specs of common tensors do not allocate.
pub(crate) type DimVec = SmallVec<[Dim; 4]>;

/// Whether `dims` holds a symbol.
pub(crate) fn has_symbols(dims: &[Dim]) -> bool {
    dims.iter().any(|d| matches!(d, Dim::Symbol { .. }))
}

/// Why a name is not a symbol name: where, what was expected there, and what was found
/// (`Symbol::new`, in `text.rs`, makes it a [`ShapeError::Parse`](crate::error::ShapeError)).
pub(crate) struct BadName {
    pub(crate) position: usize,
    pub(crate) expected: String,
    pub(crate) found: String,
}

/// The static knowledge of one axis' size.
///
/// There are no sentinels: an unknown size is [`Dim::Unknown`], never `-1` or `0`.
///
/// | dim             | text    | sizes it admits                                              |
/// |-----------------|---------|--------------------------------------------------------------|
/// | `Known(n)`      | `8`     | exactly `n` (0 is an ordinary, empty size)                   |
/// | `NotOne`        | `!1`    | any size but 1                                               |
/// | `Unknown`       | `?`     | any size                                                     |
/// | `Symbol` (`$n`) | `$n`    | one size, unknown now, equal at every occurrence of `$n`     |
/// | `Symbol` (`!1`) | `$n!1`  | as `$n`, and known not to be 1                               |
///
/// Symbols are global names: every shape (and every input of one operation) that carries `$n`
/// claims the same size there. On its own a symbol admits what `?` (or `!1`) admits; what it adds
/// is equality between its occurrences, which [`Shape`](crate::Shape) operations and static
/// broadcasting use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// The size is known; 0 is an ordinary (empty) size.
    Known(usize),
    /// The size is known not to be 1, and is otherwise unknown. Such an axis never broadcasts.
    NotOne,
    /// Nothing is known about the size.
    Unknown,
    /// A named size (`$n`): unknown now, but equal to every other occurrence of the same symbol.
    Symbol {
        /// The symbol's name.
        name: Symbol,
        /// Whether the size is also known not to be 1 (`$n!1`).
        not_one: bool,
    },
}

/// The name of a symbolic dim: an ASCII identifier (`[A-Za-z_][A-Za-z0-9_]*`) of at most
/// [`Symbol::MAX_LEN`] bytes, stored inline so that [`Dim`] stays `Copy` and shapes do not
/// allocate per symbol.
///
/// ```
/// use extype_shape::{Dim, Symbol};
/// let n = Symbol::new("n").unwrap();
/// assert_eq!(Dim::symbol(n).to_string(), "$n");
/// assert!(Symbol::new("2n").is_err());
/// assert!(Symbol::new(&"x".repeat(Symbol::MAX_LEN + 1)).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Symbol {
    len: u8,
    bytes: [u8; Symbol::MAX_LEN],
}

impl Symbol {
    /// The longest name a symbol can have, in bytes.
    pub const MAX_LEN: usize = 22;

    /// A symbol named `name`, unless `name` is not an ASCII identifier of at most
    /// [`MAX_LEN`](Self::MAX_LEN) bytes (the checks of `Symbol::new`).
    pub(crate) fn from_name(name: &str) -> Result<Symbol, BadName> {
        let error = |position: usize, expected: &str, found: String| BadName {
            position,
            expected: expected.to_string(),
            found,
        };
        let mut chars = name.char_indices();
        match chars.next() {
            None => return Err(error(0, "a name", "end of input".into())),
            Some((_, c)) if !(c.is_ascii_alphabetic() || c == '_') => {
                return Err(error(0, "a letter or `_`", format!("`{c}`")));
            }
            Some(_) => {}
        }
        if let Some((i, c)) = chars.find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_')) {
            return Err(error(i, "letters, digits or `_`", format!("`{c}`")));
        }
        if name.len() > Self::MAX_LEN {
            return Err(error(
                Self::MAX_LEN,
                &format!("a symbol name of at most {} bytes", Self::MAX_LEN),
                format!("a name of {} bytes", name.len()),
            ));
        }
        let mut bytes = [0u8; Self::MAX_LEN];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Ok(Symbol {
            // At most MAX_LEN (22), checked above.
            len: name.len() as u8,
            bytes,
        })
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        // Only ASCII identifiers are stored (checked by `new`), so this never fails; the fallback
        // keeps the proof local.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("")
    }
}

impl PartialOrd for Symbol {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Symbol {
    /// By name.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}", self.as_str())
    }
}

impl fmt::Display for Symbol {
    /// The name, without the `$` of the dim's text form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A fact about a symbol learnt by merging dims: the symbol `symbol` stands for `to` (a known
/// size, another symbol, or itself known not to be 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SymbolBinding {
    /// The symbol bound.
    pub symbol: Symbol,
    /// What it now stands for: `Known(n)`, or a `Symbol` dim (another symbol, or `$symbol!1`).
    pub to: Dim,
}

impl fmt::Display for SymbolBinding {
    /// `$n = 3`, `$m = $n`, `$n = $n!1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${} = {}", self.symbol, self.to)
    }
}

/// The result of [`Dim::merge_binding`]: the merged dim and what it taught about symbols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The meet of the two dims.
    pub dim: Dim,
    /// The symbols bound by the merge (at most two: `$a` ∧ `$b!1` binds `$b = $a!1` and
    /// `$a = $a!1`).
    pub bindings: SmallVec<[SymbolBinding; 2]>,
}

impl Dim {
    /// The dim `$name` (a symbol not known to differ from 1).
    pub const fn symbol(name: Symbol) -> Dim {
        Dim::Symbol {
            name,
            not_one: false,
        }
    }

    /// The size, if known.
    pub const fn value(self) -> Option<usize> {
        match self {
            Dim::Known(n) => Some(n),
            _ => None,
        }
    }

    /// Whether the size is known.
    pub const fn is_known(self) -> bool {
        matches!(self, Dim::Known(_))
    }

    /// The symbol, if this dim is one.
    pub const fn as_symbol(self) -> Option<Symbol> {
        match self {
            Dim::Symbol { name, .. } => Some(name),
            _ => None,
        }
    }

    /// Whether the size is known not to be 1 (`!1`, `$n!1`, or a known size other than 1).
    pub const fn is_not_one(self) -> bool {
        match self {
            Dim::Known(n) => n != 1,
            Dim::NotOne => true,
            Dim::Unknown => false,
            Dim::Symbol { not_one, .. } => not_one,
        }
    }

    /// Whether a concrete size `n` satisfies this dim (for a symbol: whether some value of the
    /// symbol makes it so, i.e. as `?` or `!1`).
    pub const fn admits(self, n: usize) -> bool {
        match self {
            Dim::Known(k) => k == n,
            Dim::NotOne => n != 1,
            Dim::Unknown => true,
            Dim::Symbol { not_one, .. } => !not_one || n != 1,
        }
    }

    /// Whether some concrete size satisfies both dims. Symmetric, not transitive. Two symbols are
    /// always compatible (their sizes may be equal).
    pub const fn is_compatible_with(self, other: Dim) -> bool {
        match (self, other) {
            (Dim::Known(a), Dim::Known(b)) => a == b,
            (Dim::Known(n), d) | (d, Dim::Known(n)) => d.admits(n),
            _ => true,
        }
    }

    /// The meet: the most general dim that implies both, or `None` if they conflict.
    ///
    /// With symbols the meet may bind them (`$n` ∧ `3` is `3`, binding `$n = 3`); this drops the
    /// bindings, see [`merge_binding`](Self::merge_binding) for them.
    pub fn merge_with(self, other: Dim) -> Option<Dim> {
        self.merge_binding(other).map(|m| m.dim)
    }

    /// The meet, and the bindings of symbols it needs:
    ///
    /// | merge                | dim          | bindings                          |
    /// |----------------------|--------------|-----------------------------------|
    /// | `$n` ∧ `$n`          | `$n`         | none                              |
    /// | `$n` ∧ `3`           | `3`          | `$n = 3` (`$n!1` ∧ `1` fails)     |
    /// | `$n` ∧ `!1`          | `$n!1`       | `$n = $n!1`                       |
    /// | `$n` ∧ `?`           | `$n`         | none                              |
    /// | `$a` ∧ `$b`          | `$a`         | `$b = $a` (the smaller name stays)|
    ///
    /// ```
    /// use extype_shape::{Dim, Symbol};
    /// let n = Dim::symbol(Symbol::new("n").unwrap());
    /// let m = n.merge_binding(Dim::Known(3)).unwrap();
    /// assert_eq!(m.dim, Dim::Known(3));
    /// assert_eq!(m.bindings[0].to_string(), "$n = 3");
    /// assert_eq!(n.merge_binding(n).unwrap().bindings.len(), 0);
    /// ```
    pub fn merge_binding(self, other: Dim) -> Option<Merged> {
        let plain = |dim| {
            Some(Merged {
                dim,
                bindings: SmallVec::new(),
            })
        };
        let sym = |name, not_one| Dim::Symbol { name, not_one };
        match (self, other) {
            (Dim::Unknown, d) | (d, Dim::Unknown) => plain(d),
            (Dim::NotOne, Dim::NotOne) => plain(Dim::NotOne),
            (Dim::Known(a), Dim::Known(b)) => (a == b).then_some(()).and(plain(Dim::Known(a))),
            (Dim::Known(n), Dim::NotOne) | (Dim::NotOne, Dim::Known(n)) => {
                (n != 1).then_some(()).and(plain(Dim::Known(n)))
            }
            (Dim::Known(n), Dim::Symbol { name, not_one })
            | (Dim::Symbol { name, not_one }, Dim::Known(n)) => {
                if not_one && n == 1 {
                    return None;
                }
                Some(Merged {
                    dim: Dim::Known(n),
                    bindings: SmallVec::from_slice(&[SymbolBinding {
                        symbol: name,
                        to: Dim::Known(n),
                    }]),
                })
            }
            (Dim::NotOne, Dim::Symbol { name, not_one })
            | (Dim::Symbol { name, not_one }, Dim::NotOne) => {
                let dim = sym(name, true);
                let mut bindings = SmallVec::new();
                if !not_one {
                    bindings.push(SymbolBinding {
                        symbol: name,
                        to: dim,
                    });
                }
                Some(Merged { dim, bindings })
            }
            (
                Dim::Symbol {
                    name: a,
                    not_one: fa,
                },
                Dim::Symbol {
                    name: b,
                    not_one: fb,
                },
            ) => {
                let (keep, keep_flag, gone, gone_flag) = if a <= b {
                    (a, fa, b, fb)
                } else {
                    (b, fb, a, fa)
                };
                let dim = sym(keep, fa || fb);
                let mut bindings = SmallVec::new();
                if gone != keep {
                    bindings.push(SymbolBinding {
                        symbol: gone,
                        to: dim,
                    });
                }
                if (gone == keep && keep_flag != gone_flag)
                    || (gone != keep && !keep_flag && gone_flag)
                {
                    bindings.push(SymbolBinding {
                        symbol: keep,
                        to: dim,
                    });
                }
                Some(Merged { dim, bindings })
            }
        }
    }

    /// The join: the most specific dim implied by each of them. Never fails.
    ///
    /// Equal dims join to themselves (`$n` ∨ `$n!1` is `$n`); otherwise the join is `!1` when both
    /// are known not to be 1 (two different sizes neither 1, `$a!1` ∨ `$b!1`, …), else `?`
    /// (`$a` ∨ `$b` is `?`).
    pub const fn most_specific_compatible(self, other: Dim) -> Dim {
        match (self, other) {
            (Dim::Known(a), Dim::Known(b)) if a == b => Dim::Known(a),
            (
                Dim::Symbol {
                    name: a,
                    not_one: fa,
                },
                Dim::Symbol {
                    name: b,
                    not_one: fb,
                },
            ) if a.len == b.len && same_bytes(&a.bytes, &b.bytes) => Dim::Symbol {
                name: a,
                not_one: fa && fb,
            },
            (a, b) if a.is_not_one() && b.is_not_one() => Dim::NotOne,
            _ => Dim::Unknown,
        }
    }

    /// Whether every size `self` admits is admitted by `other` (`self ⊑ other` in the lattice).
    /// A symbol is at least as specific as itself, `?`, and (when known not 1) `!1`; no known
    /// size is at least as specific as a symbol (the symbol's value is not known).
    pub const fn is_at_least_as_specific_as(self, other: Dim) -> bool {
        match (self, other) {
            (_, Dim::Unknown) => true,
            (Dim::Known(a), Dim::Known(b)) => a == b,
            (d, Dim::NotOne) => d.is_not_one(),
            (
                Dim::Symbol {
                    name: a,
                    not_one: fa,
                },
                Dim::Symbol {
                    name: b,
                    not_one: fb,
                },
            ) => a.len == b.len && same_bytes(&a.bytes, &b.bytes) && (fa || !fb),
            _ => false,
        }
    }
}

const fn same_bytes(a: &[u8; Symbol::MAX_LEN], b: &[u8; Symbol::MAX_LEN]) -> bool {
    let mut i = 0;
    while i < Symbol::MAX_LEN {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl From<usize> for Dim {
    fn from(n: usize) -> Self {
        Dim::Known(n)
    }
}

impl From<Option<usize>> for Dim {
    /// `None` is [`Dim::Unknown`].
    fn from(n: Option<usize>) -> Self {
        n.map_or(Dim::Unknown, Dim::Known)
    }
}

impl From<Symbol> for Dim {
    /// `$name`.
    fn from(name: Symbol) -> Self {
        Dim::symbol(name)
    }
}

impl fmt::Display for Dim {
    /// `8`, `?`, `!1`, `$n` or `$n!1`; the same text [`str::parse`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::NotOne => f.write_str("!1"),
            Dim::Unknown => f.write_str("?"),
            Dim::Symbol {
                name,
                not_one: false,
            } => write!(f, "${name}"),
            Dim::Symbol {
                name,
                not_one: true,
            } => write!(f, "${name}!1"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Dim::{self, *};

    const SAMPLE: [Dim; 6] = [Known(0), Known(1), Known(2), Known(3), NotOne, Unknown];

    #[test]
    fn compatibility_table() {
        assert!(Known(3).is_compatible_with(Known(3)));
        assert!(!Known(3).is_compatible_with(Known(4)));
        assert!(Known(3).is_compatible_with(NotOne));
        assert!(Known(0).is_compatible_with(NotOne));
        assert!(!Known(1).is_compatible_with(NotOne));
        assert!(Known(1).is_compatible_with(Unknown));
        assert!(NotOne.is_compatible_with(NotOne));
    }

    #[test]
    fn merge_table() {
        assert_eq!(Unknown.merge_with(Known(4)), Some(Known(4)));
        assert_eq!(NotOne.merge_with(Known(4)), Some(Known(4)));
        assert_eq!(NotOne.merge_with(Known(1)), None);
        assert_eq!(Known(2).merge_with(Known(3)), None);
        assert_eq!(NotOne.merge_with(Unknown), Some(NotOne));
    }

    #[test]
    fn join_table() {
        assert_eq!(Known(3).most_specific_compatible(Known(5)), NotOne);
        assert_eq!(Known(0).most_specific_compatible(Known(5)), NotOne);
        assert_eq!(Known(1).most_specific_compatible(Known(5)), Unknown);
        assert_eq!(Known(1).most_specific_compatible(NotOne), Unknown);
        assert_eq!(Known(7).most_specific_compatible(NotOne), NotOne);
        assert_eq!(Known(7).most_specific_compatible(Known(7)), Known(7));
    }

    #[test]
    fn lattice_laws_on_sample() {
        for a in SAMPLE {
            assert_eq!(a.merge_with(a), Some(a));
            assert_eq!(a.most_specific_compatible(a), a);
            for b in SAMPLE {
                assert_eq!(a.is_compatible_with(b), b.is_compatible_with(a));
                assert_eq!(a.is_compatible_with(b), a.merge_with(b).is_some());
                assert_eq!(a.merge_with(b), b.merge_with(a));
                let j = a.most_specific_compatible(b);
                assert_eq!(j, b.most_specific_compatible(a));
                assert!(a.is_at_least_as_specific_as(j) && b.is_at_least_as_specific_as(j));
                if let Some(m) = a.merge_with(b) {
                    assert!(m.is_at_least_as_specific_as(a) && m.is_at_least_as_specific_as(b));
                }
                for c in SAMPLE {
                    assert_eq!(
                        a.most_specific_compatible(b).most_specific_compatible(c),
                        a.most_specific_compatible(b.most_specific_compatible(c))
                    );
                }
                for n in 0..5 {
                    if a.admits(n) || b.admits(n) {
                        assert!(j.admits(n), "{a} v {b} = {j} must admit {n}");
                    }
                    if let Some(m) = a.merge_with(b) {
                        assert_eq!(m.admits(n), a.admits(n) && b.admits(n));
                    }
                }
            }
        }
    }

    fn sym(name: &str, not_one: bool) -> Dim {
        Dim::Symbol {
            name: super::Symbol::new(name).unwrap(),
            not_one,
        }
    }

    #[test]
    fn symbol_tables() {
        let (n, n1, m, m1) = (
            sym("n", false),
            sym("n", true),
            sym("m", false),
            sym("m", true),
        );
        // Compatibility: symbols are compatible with each other and with what they may be.
        assert!(n.is_compatible_with(n) && n.is_compatible_with(m));
        assert!(n.is_compatible_with(Known(1)) && !n1.is_compatible_with(Known(1)));
        assert!(n1.is_compatible_with(NotOne) && n.is_compatible_with(Unknown));
        // Merge: equal symbols merge to themselves; a size binds; different symbols unify.
        let merged = n.merge_binding(n).unwrap();
        assert_eq!((merged.dim, merged.bindings.len()), (n, 0));
        let merged = n.merge_binding(Known(3)).unwrap();
        assert_eq!(merged.dim, Known(3));
        assert_eq!(merged.bindings[0].to_string(), "$n = 3");
        assert!(n1.merge_binding(Known(1)).is_none());
        let merged = n.merge_binding(NotOne).unwrap();
        assert_eq!(merged.dim, n1);
        assert_eq!(merged.bindings[0].to_string(), "$n = $n!1");
        let merged = n.merge_binding(m1).unwrap();
        assert_eq!(merged.dim, m1);
        let texts: Vec<String> = merged.bindings.iter().map(ToString::to_string).collect();
        assert_eq!(texts, ["$n = $m!1"]);
        let merged = m.merge_binding(n1).unwrap();
        let texts: Vec<String> = merged.bindings.iter().map(ToString::to_string).collect();
        assert_eq!(texts, ["$n = $m!1", "$m = $m!1"]);
        assert_eq!(n.merge_with(Unknown), Some(n));
        // Join: different symbols give `?`, or `!1` when both are known not 1.
        assert_eq!(n.most_specific_compatible(n), n);
        assert_eq!(n.most_specific_compatible(n1), n);
        assert_eq!(n1.most_specific_compatible(n1), n1);
        assert_eq!(n.most_specific_compatible(m), Unknown);
        assert_eq!(n1.most_specific_compatible(m1), NotOne);
        assert_eq!(n1.most_specific_compatible(Known(4)), NotOne);
        assert_eq!(n1.most_specific_compatible(Known(1)), Unknown);
        assert_eq!(n.most_specific_compatible(Known(4)), Unknown);
        // Order: a symbol is below itself, `?`, and (when not 1) `!1`; a size is not below it.
        assert!(n1.is_at_least_as_specific_as(n) && !n.is_at_least_as_specific_as(n1));
        assert!(n1.is_at_least_as_specific_as(NotOne) && !n.is_at_least_as_specific_as(NotOne));
        assert!(!Known(3).is_at_least_as_specific_as(n) && !n.is_at_least_as_specific_as(m));
        assert!(n.admits(1) && !n1.admits(1) && n1.admits(0));
        assert_eq!(Dim::from(super::Symbol::new("n").unwrap()), n);
        assert_eq!(n1.to_string(), "$n!1");
    }

    #[test]
    fn join_laws_with_symbols() {
        let sample = [
            Known(1),
            Known(3),
            NotOne,
            Unknown,
            sym("a", false),
            sym("a", true),
            sym("b", false),
            sym("b", true),
        ];
        for a in sample {
            assert_eq!(a.merge_with(a), Some(a));
            for b in sample {
                assert_eq!(a.is_compatible_with(b), a.merge_with(b).is_some());
                let j = a.most_specific_compatible(b);
                assert_eq!(j, b.most_specific_compatible(a));
                assert!(a.is_at_least_as_specific_as(j) && b.is_at_least_as_specific_as(j));
                for c in sample {
                    assert_eq!(
                        j.most_specific_compatible(c),
                        a.most_specific_compatible(b.most_specific_compatible(c))
                    );
                }
            }
        }
    }

    #[test]
    fn symbol_names_are_checked() {
        use super::Symbol;
        assert_eq!(Symbol::new("batch_size").unwrap().as_str(), "batch_size");
        let long = "x".repeat(Symbol::MAX_LEN);
        assert_eq!(Symbol::new(&long).unwrap().as_str(), long);
        for bad in ["", "1a", "a-b", "é", "a b"] {
            let err = Symbol::new(bad).unwrap_err();
            assert!(err.to_string().starts_with("cannot parse symbol"), "{err}");
        }
        assert!(
            Symbol::new("b").unwrap() < Symbol::new("ab_").unwrap().max(Symbol::new("c").unwrap())
        );
        assert_eq!(format!("{:?}", Symbol::new("n").unwrap()), "$n");
    }
}

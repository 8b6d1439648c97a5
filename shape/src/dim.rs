//! One axis of a partial shape.

use std::fmt;

/// The static knowledge of one axis' size.
///
/// There are no sentinels: an unknown size is [`Dim::Unknown`], never `-1` or `0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// The size is known; 0 is an ordinary (empty) size.
    Known(usize),
    /// The size is known not to be 1, and is otherwise unknown. Such an axis never broadcasts.
    NotOne,
    /// Nothing is known about the size.
    Unknown,
}

impl Dim {
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

    /// Whether a concrete size `n` satisfies this dim.
    pub const fn admits(self, n: usize) -> bool {
        match self {
            Dim::Known(k) => k == n,
            Dim::NotOne => n != 1,
            Dim::Unknown => true,
        }
    }

    /// Whether some concrete size satisfies both dims. Symmetric, not transitive.
    pub const fn is_compatible_with(self, other: Dim) -> bool {
        match (self, other) {
            (Dim::Unknown, _) | (_, Dim::Unknown) => true,
            (Dim::Known(a), Dim::Known(b)) => a == b,
            (Dim::NotOne, Dim::NotOne) => true,
            (Dim::Known(n), Dim::NotOne) | (Dim::NotOne, Dim::Known(n)) => n != 1,
        }
    }

    /// The meet: the most general dim that implies both, or `None` if they conflict.
    pub const fn merge_with(self, other: Dim) -> Option<Dim> {
        match (self, other) {
            (Dim::Unknown, d) | (d, Dim::Unknown) => Some(d),
            (Dim::NotOne, Dim::NotOne) => Some(Dim::NotOne),
            (Dim::Known(a), Dim::Known(b)) => {
                if a == b {
                    Some(Dim::Known(a))
                } else {
                    None
                }
            }
            (Dim::Known(n), Dim::NotOne) | (Dim::NotOne, Dim::Known(n)) => {
                if n != 1 {
                    Some(Dim::Known(n))
                } else {
                    None
                }
            }
        }
    }

    /// The join: the most specific dim implied by each of them. Never fails.
    ///
    /// Two different known sizes, neither 1, relax to [`Dim::NotOne`] rather than `Unknown`.
    pub const fn most_specific_compatible(self, other: Dim) -> Dim {
        match (self, other) {
            (Dim::Unknown, _) | (_, Dim::Unknown) => Dim::Unknown,
            (Dim::Known(a), Dim::Known(b)) if a == b => Dim::Known(a),
            (Dim::Known(1), _) | (_, Dim::Known(1)) => Dim::Unknown,
            _ => Dim::NotOne,
        }
    }

    /// Whether every size `self` admits is admitted by `other` (`self ⊑ other` in the lattice).
    pub const fn is_at_least_as_specific_as(self, other: Dim) -> bool {
        match (self, other) {
            (_, Dim::Unknown) => true,
            (Dim::Known(a), Dim::Known(b)) => a == b,
            (Dim::Known(n), Dim::NotOne) => n != 1,
            (Dim::NotOne, Dim::NotOne) => true,
            _ => false,
        }
    }
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

impl fmt::Display for Dim {
    /// `8`, `?` or `!1`; the same text [`str::parse`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::NotOne => f.write_str("!1"),
            Dim::Unknown => f.write_str("?"),
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
}

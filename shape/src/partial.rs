//! [`Shape`]: a partial shape with TensorFlow `TensorShape` semantics and a `NotOne` dim.

use crate::dim::{Dim, DimVec, has_symbols};

/// A partial shape: unknown rank, or a list of [`Dim`]s.
///
/// `Eq`/`Hash` are strict and structural (`[8, 3] != [?, 3]`); the loose relation is
/// [`Shape::is_compatible_with`]. The text form is `[8, ?, 3]`, `[!1, 4]`, `[$n, $n!1]`
/// (symbols), `[]` (a scalar) and `*` (unknown rank); `Display` and `FromStr` agree.
///
/// Symbols are shared: `[$n, $n]` admits only square shapes, and a symbol means the same size in
/// both shapes of a merge or comparison. Merging binds symbols ([`Shape::merge_with_symbols`]
/// returns the bindings); joining keeps a symbol only where both shapes have it.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Shape {
    dims: Option<DimVec>,
}

impl Shape {
    /// The shape of unknown rank (`*`): compatible with every shape.
    pub const fn unknown_rank() -> Self {
        Shape { dims: None }
    }

    /// A shape of known rank whose every dim is unknown.
    pub fn unknown(rank: usize) -> Self {
        Shape::from_dims(std::iter::repeat_n(Dim::Unknown, rank))
    }

    /// The rank-0 shape `[]`.
    pub fn scalar() -> Self {
        Shape {
            dims: Some(DimVec::new()),
        }
    }

    /// A fully known shape.
    pub fn known(sizes: &[usize]) -> Self {
        Shape::from_dims(sizes.iter().map(|&n| Dim::Known(n)))
    }

    /// A shape of known rank from its dims.
    ///
    /// A symbol known not to be 1 at one axis is so at all its axes: `[$n!1, $n]` is
    /// `[$n!1, $n!1]` (one spelling per shape, so that equality is structural).
    pub fn from_dims(dims: impl IntoIterator<Item = Dim>) -> Self {
        let mut dims: DimVec = dims.into_iter().collect();
        normalize(&mut dims);
        Shape { dims: Some(dims) }
    }

    /// A shape of known rank from dims that need no normalisation (see
    /// [`from_dims`](Self::from_dims)), without copying them.
    pub(crate) fn from_normalized(dims: DimVec) -> Self {
        Shape { dims: Some(dims) }
    }

    /// The rank, or `None` if unknown.
    pub fn rank(&self) -> Option<usize> {
        self.dims.as_ref().map(|d| d.len())
    }

    /// The dims, or `None` if the rank is unknown.
    pub fn dims(&self) -> Option<&[Dim]> {
        self.dims.as_deref()
    }

    /// The dim at `axis`: `Unknown` when the rank is unknown, `None` when `axis` is out of range.
    pub fn dim(&self, axis: usize) -> Option<Dim> {
        match &self.dims {
            None => Some(Dim::Unknown),
            Some(d) => d.get(axis).copied(),
        }
    }

    /// The concrete sizes, if every dim is known.
    pub fn to_known(&self) -> Option<Vec<usize>> {
        self.dims.as_ref()?.iter().map(|d| d.value()).collect()
    }

    /// Whether the rank and every dim are known.
    pub fn is_fully_defined(&self) -> bool {
        self.dims
            .as_ref()
            .is_some_and(|d| d.iter().all(|d| d.is_known()))
    }

    /// The number of elements: `Some` when every dim is known (and the product fits in `usize`),
    /// and also `Some(0)` when the rank is known and some dim is `0`, whatever the others are.
    pub fn num_elements(&self) -> Option<usize> {
        let dims = self.dims.as_ref()?;
        if dims.contains(&Dim::Known(0)) {
            return Some(0);
        }
        dims.iter()
            .try_fold(1usize, |acc, d| acc.checked_mul(d.value()?))
    }

    /// Whether a concrete shape satisfies this one.
    /// Equal symbols must have equal sizes: `[$n, $n]` admits `[3, 3]`, not `[3, 4]`.
    pub fn admits(&self, sizes: &[usize]) -> bool {
        match &self.dims {
            None => true,
            Some(dims) => {
                dims.len() == sizes.len()
                    && dims.iter().zip(sizes).all(|(d, &n)| d.admits(n))
                    && dims.iter().zip(sizes).enumerate().all(|(i, (d, &n))| {
                        let Some(name) = d.as_symbol() else {
                            return true;
                        };
                        // The first occurrence of each symbol fixes its size.
                        dims.iter()
                            .zip(sizes)
                            .take(i)
                            .all(|(e, &m)| e.as_symbol() != Some(name) || m == n)
                    })
            }
        }
    }

    /// Whether some dim is a symbol.
    pub fn has_symbols(&self) -> bool {
        self.dims.as_deref().is_some_and(has_symbols)
    }

    /// Whether every concrete shape this one admits is admitted by `other` (`self ⊑ other`).
    pub fn is_at_least_as_specific_as(&self, other: &Shape) -> bool {
        match (&self.dims, &other.dims) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(a, b)| a.is_at_least_as_specific_as(*b))
            }
        }
    }

    /// The join: the most specific shape compatible with both. Never fails: a rank mismatch gives
    /// unknown rank, two different sizes neither of which is 1 give `!1`, and a symbol stays only
    /// where both shapes have it (`[$n, $a]` ∨ `[$n, $b]` is `[$n, ?]`).
    pub fn most_specific_compatible(&self, other: &Shape) -> Shape {
        match (&self.dims, &other.dims) {
            (Some(a), Some(b)) if a.len() == b.len() => Shape {
                dims: Some(
                    a.iter()
                        .zip(b)
                        .map(|(a, b)| a.most_specific_compatible(*b))
                        .collect(),
                ),
            },
            _ => Shape::unknown_rank(),
        }
    }

    /// This shape's dims followed by `other`'s; unknown rank if either is.
    pub fn concatenate(&self, other: &Shape) -> Shape {
        match (&self.dims, &other.dims) {
            (Some(a), Some(b)) => Shape::from_dims(a.iter().chain(b).copied()),
            _ => Shape::unknown_rank(),
        }
    }
}

/// Marks every occurrence of a symbol `!1` when one is.
fn normalize(dims: &mut [Dim]) {
    if !has_symbols(dims) {
        return;
    }
    for i in 0..dims.len() {
        if let Dim::Symbol {
            name,
            not_one: true,
        } = dims[i]
        {
            for d in dims.iter_mut() {
                if d.as_symbol() == Some(name) {
                    *d = Dim::Symbol {
                        name,
                        not_one: true,
                    };
                }
            }
        }
    }
}

impl From<&[usize]> for Shape {
    fn from(sizes: &[usize]) -> Self {
        Shape::known(sizes)
    }
}

impl<const N: usize> From<[usize; N]> for Shape {
    fn from(sizes: [usize; N]) -> Self {
        Shape::known(&sizes)
    }
}

impl From<Vec<Dim>> for Shape {
    fn from(dims: Vec<Dim>) -> Self {
        Shape::from_dims(dims)
    }
}

impl<const N: usize> From<[Dim; N]> for Shape {
    fn from(dims: [Dim; N]) -> Self {
        Shape::from_dims(dims)
    }
}

impl FromIterator<Dim> for Shape {
    fn from_iter<I: IntoIterator<Item = Dim>>(iter: I) -> Self {
        Shape::from_dims(iter)
    }
}

/// Reads like the text form (`[2, ?, !1]`, `<unknown>`…), which parses back to the same shape.
impl std::fmt::Debug for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Shape {
        text.parse().unwrap()
    }

    #[test]
    fn tf_most_specific_compatible_docstring() {
        assert_eq!(
            s("[2, ?]").most_specific_compatible(&s("[2, 3]")),
            s("[2, ?]")
        );
        assert_eq!(
            s("[2, 3]").most_specific_compatible(&s("[2, 3, 4]")),
            s("*")
        );
        assert_eq!(
            s("[8, 3]").most_specific_compatible(&s("[8, 5]")),
            s("[8, !1]")
        );
        assert_eq!(
            s("[8, 1]").most_specific_compatible(&s("[8, 5]")),
            s("[8, ?]")
        );
    }

    #[test]
    fn sizes_and_zero() {
        assert_eq!(s("[]").num_elements(), Some(1));
        assert_eq!(s("[2, 3]").num_elements(), Some(6));
        assert_eq!(s("[2, ?]").num_elements(), None);
        assert_eq!(s("[0, ?]").num_elements(), Some(0));
        assert_eq!(s("*").num_elements(), None);
        assert_eq!(Shape::known(&[usize::MAX, 2]).num_elements(), None);
        assert!(s("[]").is_fully_defined());
        assert!(!s("*").is_fully_defined());
        assert!(!s("[!1]").is_fully_defined());
        assert_eq!(s("[]").rank(), Some(0));
        assert_eq!(s("*").rank(), None);
        assert_ne!(s("*"), s("[]"));
        assert_ne!(s("[?, 3]"), s("[8, 3]"));
        assert_eq!(s("[1, 2]").concatenate(&s("[3]")), s("[1, 2, 3]"));
        assert_eq!(s("[1, 2]").concatenate(&s("*")), s("*"));
        assert!(s("[0, !1]").admits(&[0, 0]));
        assert!(!s("[0, !1]").admits(&[0, 1]));
        assert_eq!(s("[4, ?]").to_known(), None);
        assert_eq!(s("[4, 0]").to_known(), Some(vec![4, 0]));
    }
}

//! [`Fields`]: the string-keyed entries of [`SpecTree::Map`](super::SpecTree::Map), in the order
//! they were made (a derived struct's declaration order), looked up by key.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use super::SpecTree;

/// String-keyed entries in insertion order (a struct's fields in declaration order; a
/// `BTreeMap<String, _>` field's entries in key order), each key once, looked up by key in
/// O(log n) through a sorted index.
///
/// Iteration ([`iter`](Self::iter), `for`) and the text form for people follow the order of
/// insertion; equality and hashing do not (two maps with the same entries are equal in any
/// order), so a spec read from a document written before the order was kept equals the spec
/// of the same type today.
///
/// ```
/// use extype_core::spec_tree::{Fields, SpecTree};
/// let fields: Fields = [("zeta", SpecTree::Int(1)), ("alpha", SpecTree::Int(2))]
///     .into_iter()
///     .map(|(k, v)| (k.to_string(), v))
///     .collect();
/// assert_eq!(fields.keys().collect::<Vec<_>>(), ["zeta", "alpha"]);
/// assert_eq!(fields.get("alpha"), Some(&SpecTree::Int(2)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Fields {
    /// The entries in insertion order.
    entries: Vec<(String, SpecTree)>,
    /// Indices into `entries`, sorted by key.
    sorted: Vec<usize>,
}

impl Fields {
    /// No entries.
    pub fn new() -> Self {
        Fields::default()
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Where `key` is in `sorted` (`Ok`), or where it would go (`Err`).
    fn search(&self, key: &str) -> Result<usize, usize> {
        self.sorted
            .binary_search_by(|&i| self.entries[i].0.as_str().cmp(key))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&SpecTree> {
        let at = self.search(key).ok()?;
        Some(&self.entries[self.sorted[at]].1)
    }

    /// The value of `key`, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut SpecTree> {
        let at = self.search(key).ok()?;
        Some(&mut self.entries[self.sorted[at]].1)
    }

    /// Whether `key` has an entry.
    pub fn contains_key(&self, key: &str) -> bool {
        self.search(key).is_ok()
    }

    /// Sets `key` to `value`: a new key goes last; an existing key keeps its place and the old
    /// value is returned.
    pub fn insert(&mut self, key: String, value: SpecTree) -> Option<SpecTree> {
        match self.search(&key) {
            Ok(at) => Some(std::mem::replace(
                &mut self.entries[self.sorted[at]].1,
                value,
            )),
            Err(at) => {
                self.sorted.insert(at, self.entries.len());
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key`, returning its value; the other entries keep their order.
    pub fn remove(&mut self, key: &str) -> Option<SpecTree> {
        let at = self.search(key).ok()?;
        let index = self.sorted.remove(at);
        for i in &mut self.sorted {
            if *i > index {
                *i -= 1;
            }
        }
        Some(self.entries.remove(index).1)
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&String, &SpecTree)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries in key order.
    pub fn iter_by_key(&self) -> impl ExactSizeIterator<Item = (&String, &SpecTree)> {
        self.sorted.iter().map(|&i| {
            let (k, v) = &self.entries[i];
            (k, v)
        })
    }

    /// The keys in insertion order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in insertion order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &SpecTree> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in insertion order, to change them (the keys stay).
    pub fn values_mut(&mut self) -> impl ExactSizeIterator<Item = &mut SpecTree> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// The values in insertion order, moved out.
    pub fn into_values(self) -> impl ExactSizeIterator<Item = SpecTree> {
        self.entries.into_iter().map(|(_, v)| v)
    }

    /// Whether the insertion order is the key order (then documents need not record it).
    pub fn is_in_key_order(&self) -> bool {
        self.sorted.iter().enumerate().all(|(at, &i)| at == i)
    }

    /// The same entries in the order of `keys`, which must name each key exactly once; else
    /// the first key that is unknown, repeated or missing.
    pub fn reordered(mut self, keys: &[String]) -> Result<Fields, String> {
        if let Some(k) = keys.iter().find(|k| !self.contains_key(k)) {
            return Err(k.clone());
        }
        let mut slots: Vec<Option<SpecTree>> = self
            .entries
            .iter_mut()
            .map(|(_, v)| Some(std::mem::take(v)))
            .collect();
        let mut out = Fields::new();
        for k in keys {
            let at = self.sorted[self.search(k).map_err(|_| k.clone())?];
            match slots[at].take() {
                Some(v) => {
                    out.entries.push((k.clone(), v));
                }
                None => return Err(k.clone()),
            }
        }
        if let Some(at) = slots.iter().position(Option::is_some) {
            return Err(self.entries[at].0.clone());
        }
        out.sorted = index(&out.entries);
        Ok(out)
    }
}

/// The indices of `entries` sorted by key.
fn index(entries: &[(String, SpecTree)]) -> Vec<usize> {
    let mut sorted: Vec<usize> = (0..entries.len()).collect();
    sorted.sort_by(|&a, &b| entries[a].0.cmp(&entries[b].0));
    sorted
}

/// Entries in the iterator's order; a repeated key keeps its first place and takes its last
/// value (as [`Fields::insert`]). O(n log n).
impl FromIterator<(String, SpecTree)> for Fields {
    fn from_iter<I: IntoIterator<Item = (String, SpecTree)>>(iter: I) -> Self {
        let entries: Vec<(String, SpecTree)> = iter.into_iter().collect();
        let sorted = index(&entries);
        let repeated = sorted
            .windows(2)
            .any(|w| entries[w[0]].0 == entries[w[1]].0);
        if !repeated {
            return Fields { entries, sorted };
        }
        let mut out = Fields::new();
        for (k, v) in entries {
            out.insert(k, v);
        }
        out
    }
}

impl From<BTreeMap<String, SpecTree>> for Fields {
    fn from(map: BTreeMap<String, SpecTree>) -> Self {
        map.into_iter().collect()
    }
}

impl<const N: usize> From<[(String, SpecTree); N]> for Fields {
    fn from(entries: [(String, SpecTree); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a Fields {
    type Item = (&'a String, &'a SpecTree);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, SpecTree)>,
        fn(&'a (String, SpecTree)) -> (&'a String, &'a SpecTree),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl IntoIterator for Fields {
    type Item = (String, SpecTree);
    type IntoIter = std::vec::IntoIter<(String, SpecTree)>;
    fn into_iter(mut self) -> Self::IntoIter {
        std::mem::take(&mut self.entries).into_iter()
    }
}

/// The value of `key`; panics when there is none (as `BTreeMap`'s index).
impl std::ops::Index<&str> for Fields {
    type Output = SpecTree;
    fn index(&self, key: &str) -> &SpecTree {
        self.get(key).expect("no entry for the key")
    }
}

/// The same entries, in any order.
impl PartialEq for Fields {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter_by_key().eq(other.iter_by_key())
    }
}

impl Eq for Fields {}

/// Hashes the entries in key order (equal maps in any order hash alike).
impl Hash for Fields {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for (k, v) in self.iter_by_key() {
            k.hash(state);
            v.hash(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(keys: &[&str]) -> Fields {
        keys.iter()
            .enumerate()
            .map(|(i, k)| (k.to_string(), SpecTree::Int(i as i128)))
            .collect()
    }

    #[test]
    fn keeps_insertion_order_and_finds_by_key() {
        let mut f = fields(&["zeta", "alpha", "mid"]);
        assert_eq!(f.keys().collect::<Vec<_>>(), ["zeta", "alpha", "mid"]);
        assert_eq!(
            f.iter_by_key().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            ["alpha", "mid", "zeta"]
        );
        assert!(!f.is_in_key_order());
        assert_eq!(f["mid"], SpecTree::Int(2));
        assert_eq!(
            f.insert("alpha".into(), SpecTree::None),
            Some(SpecTree::Int(1))
        );
        assert_eq!(f.insert("beta".into(), SpecTree::Int(9)), None);
        assert_eq!(
            f.keys().collect::<Vec<_>>(),
            ["zeta", "alpha", "mid", "beta"]
        );
        assert_eq!(f.remove("zeta"), Some(SpecTree::Int(0)));
        assert_eq!(f.keys().collect::<Vec<_>>(), ["alpha", "mid", "beta"]);
        assert_eq!(f.get("beta"), Some(&SpecTree::Int(9)));
        assert!(f.get("zeta").is_none() && f.remove("zeta").is_none());
        // A repeated key keeps its first place and its last value.
        let f: Fields = [("b", 1), ("a", 2), ("b", 3)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), SpecTree::Int(v)))
            .collect();
        assert_eq!(f.keys().collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(f["b"], SpecTree::Int(3));
    }

    #[test]
    fn equality_and_hash_ignore_the_order() {
        use std::collections::hash_map::DefaultHasher;
        let a = fields(&["zeta", "alpha"]);
        let b: Fields = [("alpha", 1), ("zeta", 0)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), SpecTree::Int(v)))
            .collect();
        assert_eq!(a, b);
        let hash = |f: &Fields| {
            let mut h = DefaultHasher::new();
            f.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&a), hash(&b));
        assert_ne!(a, fields(&["zeta", "alpha", "mid"]));
        assert_ne!(a, fields(&["zeta", "beta"]));
    }

    #[test]
    fn reorders_by_a_permutation_only() {
        let f = fields(&["alpha", "mid", "zeta"]);
        let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let r = f
            .clone()
            .reordered(&keys(&["zeta", "alpha", "mid"]))
            .unwrap();
        assert_eq!(r.keys().collect::<Vec<_>>(), ["zeta", "alpha", "mid"]);
        assert_eq!(r, f);
        assert_eq!(
            f.clone().reordered(&keys(&["zeta", "alpha"])).unwrap_err(),
            "mid"
        );
        assert_eq!(
            f.clone()
                .reordered(&keys(&["zeta", "zeta", "mid"]))
                .unwrap_err(),
            "zeta"
        );
        assert_eq!(
            f.reordered(&keys(&["zeta", "nope", "mid"])).unwrap_err(),
            "nope"
        );
    }
}

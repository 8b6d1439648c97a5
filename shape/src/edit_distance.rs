//! Levenshtein edit distance, for "did you mean" hints (misspelt op names in `#[dispatch]`,
//! misspelt attribute keys in `#[extype(...)]`).

/// The number of single-character insertions, deletions and substitutions that turn `a` into `b`
/// (Levenshtein distance, counted in `char`s). O(len(a) · len(b)) time, O(len(b)) memory.
///
/// ```
/// use extype_shape::edit_distance::edit_distance;
/// assert_eq!(edit_distance("addd", "add"), 1);
/// assert_eq!(edit_distance("nmae", "name"), 2);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance as d;

    #[test]
    fn distances() {
        assert_eq!(d("", ""), 0);
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("abc", ""), 3);
        assert_eq!(d("name", "name"), 0);
        assert_eq!(d("shap", "shape"), 1);
        assert_eq!(d("nmae", "name"), 2);
        assert_eq!(d("kitten", "sitting"), 3);
        assert!(d("validate", "shape") > 2);
        // Counted in chars, not bytes.
        assert_eq!(d("größe", "grösse"), 2);
        // Symmetric.
        assert_eq!(
            d("reduce_summ", "reduce_sum"),
            d("reduce_sum", "reduce_summ")
        );
    }
}

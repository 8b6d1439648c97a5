//! Shape patterns at scale: parsing is linear in the number of distinct names.

use std::time::{Duration, Instant};

use extype_shape::ShapePattern;

/// `n` distinct names, `a0 a1 …`, each used twice.
fn names(n: usize) -> String {
    let mut text = String::new();
    for round in 0..2 {
        for i in 0..n {
            if round + i > 0 {
                text.push(' ');
            }
            text.push_str(&format!("a{i}"));
        }
    }
    text
}

#[test]
fn parsing_many_distinct_names_is_linear() {
    // 200,000 distinct names (400,000 items) took ~17 s with a quadratic name lookup; linear
    // parsing takes well under a second even in debug builds. The bound leaves room for a
    // loaded machine and still fails a quadratic parser by far.
    let text = names(200_000);
    let start = Instant::now();
    let pattern = ShapePattern::parse(&text).unwrap();
    let took = start.elapsed();
    assert_eq!(pattern.items().len(), 400_000);
    assert_eq!(pattern.names().count(), 200_000);
    assert!(took < Duration::from_secs(10), "took {took:?}");
    // Conflicts are still found among many names.
    let err = ShapePattern::parse(&format!("{text} *a199999")).unwrap_err();
    assert!(
        err.to_string()
            .contains("a segment name other than `a199999`"),
        "{err}"
    );
    let err = ShapePattern::parse(&format!("*a150000 {text}")).unwrap_err();
    assert!(
        err.to_string()
            .contains("which names the segment at position 1"),
        "{err}"
    );
}

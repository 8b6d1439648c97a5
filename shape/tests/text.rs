//! The text form's limits: dims above `isize::MAX` (`extype_shape::MAX_DIM`) are refused where
//! shapes and patterns are parsed, and errors quote a bounded excerpt of a bad input.

use extype_shape::error::EXCERPT_CHARS;
use extype_shape::{Dim, MAX_DIM, Shape, ShapeError, ShapePattern};

#[test]
fn one_size_limit_for_shapes_dims_and_patterns() {
    let max = format!("[{MAX_DIM}, 0]");
    assert_eq!(max.parse::<Shape>().unwrap(), Shape::known(&[MAX_DIM, 0]));
    let over = MAX_DIM as u128 + 1;
    for text in [
        format!("[{over}]"),
        format!("[{}]", usize::MAX),
        format!("[{}0]", usize::MAX),
    ] {
        let err = text.parse::<Shape>().unwrap_err().to_string();
        assert!(
            err.contains("expected a size of at most 9223372036854775807 (isize::MAX)"),
            "{err}"
        );
    }
    assert!(format!("{over}").parse::<Dim>().is_err());
    assert_eq!(
        format!("{MAX_DIM}").parse::<Dim>().unwrap(),
        Dim::Known(MAX_DIM)
    );
    assert!(ShapePattern::parse(&format!("b {over}")).is_err());
    assert!(ShapePattern::parse(&format!("b {MAX_DIM}")).is_ok());
}

fn parse_error(e: ShapeError) -> (String, usize, String) {
    let text = e.to_string();
    match e {
        ShapeError::Parse {
            input, position, ..
        } => (input, position, text),
        other => panic!("not a parse error: {other}"),
    }
}

#[test]
fn errors_quote_a_bounded_excerpt() {
    // A 200 kB bad shape (a hundred dims, then blanks: at most 254 dims parse): the message
    // stays short, and the position is still exact.
    let mut text = String::from("[");
    for _ in 0..100 {
        text.push_str("1, 2,");
    }
    text.push_str(&" ".repeat(200_000));
    text.push_str(" x, 3]");
    let (input, position, msg) = parse_error(text.parse::<Shape>().unwrap_err());
    assert_eq!(&text[position..position + 1], "x");
    assert!(msg.len() < 400, "{} bytes: {msg}", msg.len());
    assert!(input.starts_with('…'), "{input}");
    assert!(input.contains(" x, 3]"), "{input}");
    assert!(input.chars().count() <= 2 * EXCERPT_CHARS + 2);
    // A long run of digits is cut too.
    let digits = "9".repeat(100_000);
    let (_, _, msg) = parse_error(format!("[{digits}]").parse::<Shape>().unwrap_err());
    assert!(msg.len() < 400, "{msg}");
    // Long names and dots in patterns.
    let name = "n".repeat(100_000);
    let (_, _, msg) = parse_error(ShapePattern::parse(&format!("*{name} {name}")).unwrap_err());
    assert!(msg.len() < 600, "{msg}");
    let dots = ".".repeat(100_000);
    let (_, _, msg) = parse_error(ShapePattern::parse(&dots).unwrap_err());
    assert!(msg.len() < 400, "{msg}");
    // Multi-byte characters are cut at character boundaries.
    let wide = format!("[{}é]", "ü".repeat(50_000));
    let (input, _, _) = parse_error(wide.parse::<Shape>().unwrap_err());
    assert!(input.chars().count() <= 2 * EXCERPT_CHARS + 2);
    // Short inputs are quoted whole.
    assert_eq!(
        "[8, x]".parse::<Shape>().unwrap_err().to_string(),
        "cannot parse shape \"[8, x]\": at position 4, expected a dim (a size, `?`, `!1` or `$name`), found `x`"
    );
}

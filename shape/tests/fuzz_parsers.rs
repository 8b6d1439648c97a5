//! A bounded, seeded fuzz test of the text parsers: shape text (`Shape`, `Dim`) and shape
//! patterns, on mutations of valid texts (inserted tokens, deleted or repeated spans, huge
//! numbers, multi-byte characters, truncations). Every input must parse or give an error —
//! never panic; what parses prints back to text that parses to an equal value; errors stay short
//! (a bounded excerpt of the input); a parsed pattern enforces against random shapes without
//! panicking.
//!
//! The default run takes about a second in debug builds. A longer run:
//!
//! ```text
//! EXTYPE_FUZZ_ITERS=5000000 EXTYPE_FUZZ_SEED=7 cargo test --release -p extype-shape --test fuzz_parsers
//! ```
//!
//! `EXTYPE_FUZZ_ITERS` is the number of inputs per parser (default 20,000), `EXTYPE_FUZZ_SEED`
//! the seed (default fixed). A failure prints the seed and the input.

use std::panic::{AssertUnwindSafe, catch_unwind};

use extype_shape::{Dim, Shape, ShapePattern};

#[path = "support/fuzz.rs"]
mod fuzz;

use fuzz::{Rng, env_or};

const TOKENS: &[&str] = &[
    "[",
    "]",
    ",",
    " ",
    "?",
    "!",
    "!1",
    "*",
    "#",
    "...",
    "..",
    "_",
    "n",
    "b",
    "x1",
    "0",
    "1",
    "3",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "184467440737095516150",
    "-1",
    "é",
    "\u{0}",
    "\t",
    "\n",
    "..........",
    "*rest",
    "#n",
];

fn valid_shape(rng: &mut Rng) -> String {
    if rng.below(8) == 0 {
        return "*".into();
    }
    let dims: Vec<Dim> = (0..rng.below(5))
        .map(|_| match rng.below(6) {
            0 => Dim::Unknown,
            1 => Dim::NotOne,
            2 => Dim::Known(rng.pick(&[0, 1, isize::MAX as usize])),
            _ => Dim::Known(rng.below(10)),
        })
        .collect();
    Shape::from_dims(dims).to_string()
}

fn valid_pattern(rng: &mut Rng) -> String {
    let mut items: Vec<String> = (0..rng.below(6))
        .map(|_| match rng.below(5) {
            0 => "_".to_string(),
            1 => format!("#{}", rng.pick(&["n", "b", "c"])),
            2 => rng.below(5).to_string(),
            _ => rng.pick(&["n", "b", "h", "w"]).to_string(),
        })
        .collect();
    if rng.below(2) == 0 {
        let at = rng.below(items.len() + 1);
        items.insert(at, rng.pick(&["...", "*batch"]).to_string());
    }
    items.join(" ")
}

/// One mutation of `text`, at a character boundary.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len() + 1);
    let mut out: String = chars[..at].iter().collect();
    let rest: String = chars[at..].iter().collect();
    match rng.below(6) {
        0 | 1 => {
            out.push_str(rng.pick(TOKENS));
            out.push_str(&rest);
        }
        2 => out.push_str(&rest.chars().skip(1 + rng.below(3)).collect::<String>()),
        3 => {
            out.push_str(&rest);
            let copy: String = out.chars().take(rng.below(40)).collect();
            out.push_str(&copy);
        }
        4 => {} // truncated
        _ => {
            out.push_str(&rng.pick(TOKENS).repeat(1 + rng.below(200)));
            out.push_str(&rest);
        }
    }
    out
}

fn input(rng: &mut Rng, valid: fn(&mut Rng) -> String) -> String {
    let mut text = valid(rng);
    for _ in 0..rng.below(4) {
        text = mutate(rng, &text);
    }
    text
}

/// Runs `check` on `iters` inputs, reporting the seed and the input of a panic.
fn fuzz(what: &str, valid: fn(&mut Rng) -> String, check: impl Fn(&str)) {
    let iters = env_or("EXTYPE_FUZZ_ITERS", 20_000);
    let seed = env_or("EXTYPE_FUZZ_SEED", 0x5eed);
    let mut rng = Rng(seed);
    for i in 0..iters {
        let text = input(&mut rng, valid);
        if catch_unwind(AssertUnwindSafe(|| check(&text))).is_err() {
            panic!("{what}: EXTYPE_FUZZ_SEED={seed} iteration {i}: input {text:?}");
        }
    }
}

fn short(error: &impl ToString) -> String {
    let message = error.to_string();
    assert!(message.len() < 600, "{} bytes: {message}", message.len());
    message
}

#[test]
fn shape_text_never_panics() {
    fuzz("shape", valid_shape, |text| match text.parse::<Shape>() {
        Ok(shape) => {
            let again: Shape = shape.to_string().parse().expect("printed text parses");
            assert_eq!(again, shape);
        }
        Err(e) => {
            short(&e);
        }
    });
    fuzz(
        "dim",
        |rng| valid_shape(rng).replace(['[', ']'], ""),
        |text| match text.parse::<Dim>() {
            Ok(dim) => assert_eq!(dim.to_string().parse::<Dim>().unwrap(), dim),
            Err(e) => {
                short(&e);
            }
        },
    );
}

#[test]
fn patterns_never_panic() {
    fuzz("pattern", valid_pattern, |text| {
        match ShapePattern::parse(text) {
            Ok(pattern) => {
                let again = ShapePattern::parse(&pattern.to_string()).expect("printed text parses");
                assert_eq!(again, pattern);
                for shape in [&[][..], &[1], &[2, 3], &[0, 1, 4], &[usize::MAX, 2, 1, 3]] {
                    if let Err(e) = pattern.enforce(shape) {
                        short(&e);
                    }
                }
            }
            Err(e) => {
                short(&e);
            }
        }
    });
}

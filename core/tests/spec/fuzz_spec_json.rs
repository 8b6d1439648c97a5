//! A bounded, seeded fuzz test of the spec JSON reader on the library's own documents, mutated:
//! random spec trees (and typed specs: the hand-written `MaskedTensorSpec` of `common/`) are
//! written with `to_json`, then mutated: as text (inserted JSON tokens, deleted or repeated
//! spans, truncations, huge numbers, deep nesting) or as parsed JSON (values replaced, entries
//! removed, added or duplicated, down a random path). Every input must read or give an error — never
//! panic; whatever reads writes again and reads back equal (so every document the library
//! reads, it can write, and every document it writes, it reads); errors stay short.
//!
//! The default run takes a few seconds in debug builds. A longer run:
//!
//! ```text
//! EXTYPE_FUZZ_ITERS=2000000 EXTYPE_FUZZ_SEED=7 cargo test --release -p extype-core --test spec fuzz_spec_json
//! ```
//!
//! `EXTYPE_FUZZ_ITERS` is the number of documents (default 30,000), `EXTYPE_FUZZ_SEED` the seed
//! (default fixed). A failure prints the seed and the document.

use crate::common;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use common::MaskedTensorSpec;
use extype::serial::{spec_from_json, spec_to_json};
use extype::{DType, Dim, Shape, SpecTree, TensorSpec};

use crate::fuzz;

use fuzz::{Rng, env_or};

fn shape(rng: &mut Rng) -> Shape {
    if rng.below(8) == 0 {
        return Shape::unknown_rank();
    }
    Shape::from_dims((0..rng.below(4)).map(|_| match rng.below(5) {
        0 => Dim::Unknown,
        1 => Dim::NotOne,
        2 => Dim::Known(rng.pick(&[0, 1, isize::MAX as usize])),
        _ => Dim::Known(rng.below(9)),
    }))
}

fn tree(rng: &mut Rng, depth: usize) -> SpecTree {
    let leaf = depth == 0 || rng.below(3) == 0;
    if leaf {
        return match rng.below(9) {
            0 => SpecTree::None,
            1 => SpecTree::Bool(rng.below(2) == 0),
            2 => SpecTree::Int(rng.pick(&[0, -1, i64::MIN as i128, u64::MAX as i128, 7])),
            3 => SpecTree::Float(rng.pick(&[0.5, -0.0, f64::NAN, f64::INFINITY, 1e300])),
            4 => SpecTree::Str(rng.pick(&["", "x", "é\u{0}\"", "pkg.Name"]).to_string()),
            5 => SpecTree::DType(rng.pick(&DType::ALL)),
            6 => SpecTree::Shape(shape(rng)),
            _ => SpecTree::TensorSpec(TensorSpec::new(shape(rng), rng.pick(&DType::ALL))),
        };
    }
    let n = rng.below(4);
    match rng.below(4) {
        0 => SpecTree::List((0..n).map(|_| tree(rng, depth - 1)).collect()),
        1 => SpecTree::Tuple((0..n).map(|_| tree(rng, depth - 1)).collect()),
        2 => SpecTree::Map(
            (0..n)
                .map(|i| (format!("k{i}"), tree(rng, depth - 1)))
                .collect::<BTreeMap<_, _>>()
                .into(),
        ),
        _ => SpecTree::spec(
            rng.pick(&["pkg.A", "test.MaskedTensor"]),
            tree(rng, depth - 1),
        ),
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "true",
    "-",
    "0",
    "1e999",
    "-1",
    "18446744073709551616",
    "9223372036854775808",
    "\"shape\"",
    "\"[?, 3]\"",
    "\"[9223372036854775808]\"",
    "\"dtype\"",
    "\"f16\"",
    "\"f8\"",
    "\"tuple\"",
    "\"map\"",
    "\"spec\"",
    "\"value\"",
    "\"float\"",
    "\"nan\"",
    "\"tensor_spec\"",
    "\"extype_spec\"",
    "\\u0000",
    "é",
];

/// One mutation of `text`, at a character boundary.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len() + 1);
    let mut out: String = chars[..at].iter().collect();
    let rest: String = chars[at..].iter().collect();
    match rng.below(7) {
        0 | 1 => {
            out.push_str(rng.pick(TOKENS));
            out.push_str(&rest);
        }
        2 => out.push_str(&rest.chars().skip(1 + rng.below(4)).collect::<String>()),
        3 => {
            let span: String = rest.chars().take(1 + rng.below(30)).collect();
            out.push_str(&span);
            out.push_str(&rest);
        }
        4 => {} // truncated
        5 => {
            // Deep nesting around the rest: near, at and past the reader's limit.
            let n = rng.pick(&[100, 126, 127, 128, 1000]);
            out.push_str(&"[".repeat(n));
            out.push_str(&rest);
            out.push_str(&"]".repeat(n));
        }
        _ => {
            out.push_str(&rng.pick(TOKENS).repeat(1 + rng.below(100)));
            out.push_str(&rest);
        }
    }
    out
}

/// Replacement values for structural mutations.
fn random_json(rng: &mut Rng) -> serde_json::Value {
    let texts = [
        "null",
        "true",
        "-1",
        "1e300",
        "18446744073709551615",
        "\"f16\"",
        "\"f8\"",
        "\"bool\"",
        "\"[?, 3]\"",
        "\"[9223372036854775807]\"",
        "\"[9223372036854775808]\"",
        "{\"float\": \"nan\"}",
        "{\"float\": \"NaN\"}",
        "[]",
        "{}",
        "{\"tuple\": []}",
        "{\"map\": {}}",
        "{\"dtype\": \"u8\"}",
        "{\"shape\": \"*\"}",
        "{\"spec\": \"x\", \"value\": null}",
        "{\"tensor_spec\": {\"dtype\": \"f32\", \"shape\": \"[!1]\"}}",
    ];
    serde_json::from_str(rng.pick(&texts)).unwrap()
}

/// One structural mutation of a parsed document: somewhere down a random path, a value is
/// replaced, or an entry removed, added or duplicated.
fn mutate_json(rng: &mut Rng, v: &mut serde_json::Value) {
    use serde_json::Value as J;
    let stop = rng.below(4) == 0;
    match v {
        J::Object(o) if !o.is_empty() && !stop => {
            let keys: Vec<String> = o.keys().cloned().collect();
            let key = keys[rng.below(keys.len())].clone();
            match rng.below(6) {
                0 => {
                    o.remove(&key);
                }
                1 => {
                    o.insert(format!("{key}_"), random_json(rng));
                }
                _ => mutate_json(rng, o.get_mut(&key).unwrap()),
            }
        }
        J::Array(a) if !a.is_empty() && !stop => {
            let i = rng.below(a.len());
            match rng.below(6) {
                0 => {
                    a.remove(i);
                }
                1 => {
                    let copy = a[i].clone();
                    a.insert(i, copy);
                }
                _ => mutate_json(rng, &mut a[i]),
            }
        }
        _ => *v = random_json(rng),
    }
}

fn short(error: &extype::Error) {
    let message = error.to_string();
    assert!(message.len() < 1000, "{} bytes: {message}", message.len());
}

fn check_tree(text: &str) {
    match SpecTree::from_json(text) {
        Ok(read) => {
            let written = read.to_json().expect("what reads, writes");
            assert_eq!(SpecTree::from_json(&written).expect("and reads back"), read);
        }
        Err(e) => short(&e),
    }
}

fn check_typed(text: &str) {
    match spec_from_json::<MaskedTensorSpec>(text) {
        Ok(read) => {
            let written = spec_to_json(&read).expect("what reads, writes");
            assert_eq!(spec_from_json::<MaskedTensorSpec>(&written).unwrap(), read);
        }
        Err(e) => short(&e),
    }
}

#[test]
fn mutated_documents_never_panic() {
    let iters = env_or("EXTYPE_FUZZ_ITERS", 30_000);
    let seed = env_or("EXTYPE_FUZZ_SEED", 0x5eed);
    let mut rng = Rng(seed);
    let masked = MaskedTensorSpec {
        values: TensorSpec::new("[?, 3]".parse().unwrap(), DType::F32),
        mask: TensorSpec::new("[?, 3]".parse().unwrap(), DType::Bool),
    };
    let typed = spec_to_json(&masked).unwrap();
    let (mut read, mut typed_read) = (0u64, 0u64);
    for i in 0..iters {
        let typed_case = rng.below(4) == 0;
        let mut text = if typed_case {
            typed.clone()
        } else {
            tree(&mut rng, 4)
                .to_json()
                .expect("the generator stays within the limits")
        };
        if rng.below(2) == 0 {
            let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
            for _ in 0..1 + rng.below(3) {
                // Mostly inside the spec (the document wrapper has one valid form).
                match json.get_mut("spec") {
                    Some(spec) if rng.below(8) != 0 => mutate_json(&mut rng, spec),
                    _ => mutate_json(&mut rng, &mut json),
                }
            }
            text = json.to_string();
        } else {
            for _ in 0..1 + rng.below(3) {
                text = mutate(&mut rng, &text);
            }
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            if typed_case {
                check_typed(&text);
                typed_read += u64::from(spec_from_json::<MaskedTensorSpec>(&text).is_ok());
            } else {
                check_tree(&text);
            }
            read += u64::from(SpecTree::from_json(&text).is_ok());
        }));
        if outcome.is_err() {
            panic!("EXTYPE_FUZZ_SEED={seed} iteration {i}: document {text:?}");
        }
    }
    eprintln!("{iters} documents: {read} read as trees, {typed_read} as typed specs");
    assert!(
        read * 20 >= iters,
        "only {read} of {iters} mutated documents read"
    );
}

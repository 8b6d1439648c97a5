//! Spec trees at the edges: trees nested far deeper than any document (built in code) drop and
//! print without recursion and refuse to be written as JSON (the reader's limit, with the path);
//! and every tree the library writes, it reads back — dims up to `isize::MAX` included, larger
//! dims refused when writing.

use std::collections::BTreeMap;

use extype::spec_tree::json::MAX_NESTING;
use extype::{DType, Dim, Shape, SpecTree, TensorSpec};

const DEEP: usize = 100_000;

/// A tree nested `depth` levels deep, cycling through every kind of nested node.
fn deep(depth: usize) -> SpecTree {
    let mut tree = SpecTree::Int(7);
    for i in 0..depth {
        tree = match i % 4 {
            0 => SpecTree::List(vec![tree, SpecTree::None]),
            1 => SpecTree::Tuple(vec![tree]),
            2 => SpecTree::Map(BTreeMap::from([("k".to_string(), tree)]).into()),
            _ => SpecTree::spec("pkg.S", tree),
        };
    }
    tree
}

#[test]
fn deep_trees_drop_print_and_refuse_json() {
    let tree = deep(DEEP);
    let text = tree.to_string();
    assert!(
        text.starts_with("pkg.S { k: ([pkg.S { k: "),
        "{}",
        &text[..40]
    );
    assert!(text.contains("[7, None]"));
    let err = tree.to_json().unwrap_err().to_string();
    assert!(
        err.contains(&format!(
            "nested deeper than {MAX_NESTING} JSON arrays and objects"
        )),
        "{err}"
    );
    assert!(tree.to_json_pretty().is_err());
    assert!(serde_json::to_string(&tree).is_err());
    let clone = SpecTree::List(vec![SpecTree::spec("pkg.S", SpecTree::None)]);
    drop(clone);
    drop(tree);
    // A long chain of named specs only.
    let mut chain = SpecTree::None;
    for _ in 0..DEEP {
        chain = SpecTree::spec("a", chain);
    }
    let text = chain.to_string();
    assert_eq!(text.len(), DEEP * 3 + 4);
    assert!(text.starts_with("a(a(") && text.contains("a(None))"));
    drop(chain);
}

#[test]
fn display_forms_are_unchanged() {
    let t = TensorSpec::new("[8, ?]".parse::<Shape>().unwrap(), DType::F32);
    let fields = BTreeMap::from([
        ("values".to_string(), SpecTree::TensorSpec(t)),
        (
            "one".to_string(),
            SpecTree::Tuple(vec![SpecTree::Bool(true)]),
        ),
        ("none".to_string(), SpecTree::Tuple(vec![])),
        (
            "m".to_string(),
            SpecTree::Map(BTreeMap::from([("k".into(), SpecTree::Float(0.5))]).into()),
        ),
    ]);
    let v = SpecTree::spec("pkg.T", SpecTree::Map(fields.into()));
    assert_eq!(
        v.to_string(),
        "pkg.T { m: {\"k\": 0.5}, none: (), one: (true,), values: f32[8, ?] }"
    );
    assert_eq!(
        SpecTree::spec("pkg.E", SpecTree::Map(BTreeMap::new().into())).to_string(),
        "pkg.E {}"
    );
    assert_eq!(SpecTree::List(vec![]).to_string(), "[]");
}

#[test]
fn every_tree_written_reads_back() {
    // The deepest tree the writer accepts reads back equal.
    let mut depth = 0;
    let mut ok = deep(0);
    for d in 1..200 {
        let t = deep(d);
        if t.to_json().is_err() {
            break;
        }
        depth = d;
        ok = t;
    }
    assert!(depth > 40, "only {depth} levels written");
    let text = ok.to_json().unwrap();
    assert_eq!(SpecTree::from_json(&text).unwrap(), ok);
    // Dims: up to isize::MAX written and read; larger refused when writing (the reader would
    // refuse them), with the path.
    let max = isize::MAX as usize;
    for dims in [vec![max], vec![0, max], vec![max, max]] {
        let shape = Shape::known(&dims);
        for tree in [
            SpecTree::Shape(shape.clone()),
            SpecTree::TensorSpec(TensorSpec::new(shape.clone(), DType::U8)),
        ] {
            let text = tree.to_json().unwrap();
            assert_eq!(SpecTree::from_json(&text).unwrap(), tree);
        }
    }
    for d in [max + 1, usize::MAX] {
        let shape = Shape::from_dims([Dim::Unknown, Dim::Known(d)]);
        let tree = SpecTree::List(vec![SpecTree::TensorSpec(TensorSpec::new(
            shape.clone(),
            DType::F32,
        ))]);
        let err = tree.to_json().unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "spec json at $.spec[0].tensor_spec.shape: dim {d} at axis 1 is larger than the \
                 maximum {max}"
            )
        );
        assert!(SpecTree::Shape(shape).to_json().is_err());
        // Its text form is refused by the shape parser alike.
        assert!(format!("[{d}]").parse::<Shape>().is_err());
    }
}

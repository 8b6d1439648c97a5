//! Recursive types (TF's extension-type guide nests a type in itself): a field holding the type
//! (`children: Vec<Node>`, `Option<Box<Node>>`) derives; its spec is the value's, finite at any
//! depth; specs, files and batches round-trip; a document nested past the JSON limit is an
//! error, not a stack overflow.

use crate::common::TempDir;
use extype::serial::{spec_from_json, spec_to_json};
use extype::{ExtensionType, TypeSpec, io};
use ndarray::{ArrayD, array};

/// A tree node (the guide's `Node`): a value and any number of children.
#[derive(ExtensionType, Debug, Clone, PartialEq)]
#[extype(name = "tests.recursive.Node")]
pub struct Node {
    value: ArrayD<f32>,
    children: Vec<Node>,
}

/// A linked list: the type in an `Option<Box<_>>`.
#[derive(ExtensionType, Debug, Clone, PartialEq)]
#[extype(name = "tests.recursive.Link")]
pub struct Link {
    value: ArrayD<i64>,
    next: Option<Box<Link>>,
}

fn leaf(x: f32) -> Node {
    Node {
        value: array![x].into_dyn(),
        children: Vec::new(),
    }
}

fn tree() -> Node {
    Node {
        value: array![1.0f32, 2.0].into_dyn(),
        children: vec![
            leaf(3.0),
            Node {
                value: array![4.0f32].into_dyn(),
                children: vec![leaf(5.0)],
            },
        ],
    }
}

#[test]
fn a_recursive_type_has_the_spec_of_its_value() {
    let spec = tree().spec();
    assert_eq!(spec.children.len(), 2);
    assert_eq!(spec.children[1].children.len(), 1);
    assert!(spec.children[1].children[0].children.is_empty());
    let text = spec_to_json(&spec).unwrap();
    assert_eq!(spec_from_json::<NodeSpec>(&text).unwrap(), spec);
    assert!(spec.is_compatible_with(&tree().spec()));
    assert!(!spec.is_compatible_with(&leaf(1.0).spec()));
}

#[test]
fn recursive_values_round_trip_through_files() {
    let dir = TempDir::new("recursive");
    let path = dir.path("tree.safetensors");
    io::save(&path, &tree()).unwrap();
    assert_eq!(io::load_as::<Node>(&path).unwrap(), tree());
    let chain = Link {
        value: array![1i64].into_dyn(),
        next: Some(Box::new(Link {
            value: array![2i64, 3].into_dyn(),
            next: None,
        })),
    };
    let path = dir.path("chain.safetensors");
    io::save(&path, &chain).unwrap();
    assert_eq!(io::load_as::<Link>(&path).unwrap(), chain);
}

/// A value nested deeper than a spec document may be: saving says so (no stack overflow, no
/// file); a shallower one saves.
#[test]
fn nesting_past_the_document_limit_is_an_error() {
    let deep = |depth: usize| {
        (0..depth).fold(leaf(0.0), |child, _| Node {
            value: array![1.0f32].into_dyn(),
            children: vec![child],
        })
    };
    let dir = TempDir::new("recursive-deep");
    let path = dir.path("deep.safetensors");
    let err = io::save(&path, &deep(500)).unwrap_err().to_string();
    assert!(err.contains("nested deeper than"), "{err}");
    assert!(!path.exists());
    io::save(&path, &deep(20)).unwrap();
    assert_eq!(io::load_as::<Node>(&path).unwrap(), deep(20));
}

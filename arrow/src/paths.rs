//! Component paths as nested Arrow fields: the tree of a value's components by the segments of
//! their printed paths (core's [`segments`]: `items[1].mask` nests as `items` → `[1]` →
//! `mask`), and the spec subtree at a segment.

use arrow_array::ArrayRef;
use arrow_schema::Field;
use extype_core::SpecTree;
use extype_core::field::path::{join_segments, segments};

/// A tree of component indices by path segment, in component order.
pub(crate) enum Node {
    Leaf(usize),
    Inner(Vec<(String, Node)>),
}

fn insert(children: &mut Vec<(String, Node)>, segs: &[String], index: usize) -> bool {
    let (first, rest) = segs.split_first().expect("a path has a segment");
    if rest.is_empty() {
        if children.iter().any(|(name, _)| name == first) {
            return false;
        }
        children.push((first.clone(), Node::Leaf(index)));
        return true;
    }
    match children.last_mut() {
        Some((name, Node::Inner(grand))) if name == first => insert(grand, rest, index),
        _ => {
            if children.iter().any(|(name, _)| name == first) {
                return false;
            }
            let mut grand = Vec::new();
            let ok = insert(&mut grand, rest, index);
            children.push((first.clone(), Node::Inner(grand)));
            ok
        }
    }
}

/// The nodes of `paths`, nested by segment; a path that does not nest in order (which derived
/// types never produce) becomes a flat leaf named by its whole path.
pub(crate) fn tree(paths: &[String]) -> Vec<(String, Node)> {
    let mut root = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let segs = segments(path);
        let nests = join_segments(&segs.iter().map(String::as_str).collect::<Vec<_>>()) == *path;
        if !(nests && insert(&mut root, &segs, i)) {
            root.push((path.clone(), Node::Leaf(i)));
        }
    }
    root
}

/// The spec subtree at one path segment of `tree`, for the extension metadata of nested
/// registered types.
pub(crate) fn child_tree<'a>(tree: &'a SpecTree, segment: &str) -> Option<&'a SpecTree> {
    let tree = match tree {
        SpecTree::Spec(named) => &named.value,
        other => other,
    };
    match tree {
        SpecTree::Map(fields) => fields.get(segment),
        SpecTree::List(items) | SpecTree::Tuple(items) => {
            let i: usize = segment
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse()
                .ok()?;
            items.get(i)
        }
        _ => None,
    }
}

/// [`tree`], renaming the leaves that do not nest to their whole path.
pub(crate) fn tree_named(
    paths: &[String],
    leaves: &mut [Option<(Field, ArrayRef)>],
) -> Vec<(String, Node)> {
    let nodes = tree(paths);
    for (name, node) in &nodes {
        if let Node::Leaf(i) = node
            && let Some((f, _)) = &mut leaves[*i]
            && f.name() != name
        {
            *f = f.clone().with_name(name.clone());
        }
    }
    nodes
}

//! A compact, human-readable text form of [`SpecTree`], used by `Display` of specs.
//!
//! It is for people (errors, logs, examples), not for storage: the stable form is the JSON of
//! [`json`](super::json). Nested specs print as `name { field: value, … }`, tensor specs as
//! `f32[8, ?]`, lists as `[…]`, tuples as `(…)`, maps as `{key: value, …}`, fields and keys in
//! the map's order (a struct's declaration order).

use std::fmt;

use super::SpecTree;

/// What is left to print: a tree, or a piece of text (punctuation, a field or key label).
enum Task<'a> {
    Tree(&'a SpecTree),
    Text(&'static str),
    /// A struct field label: `name: `.
    Field(&'a str),
    /// A map key: `"key": `.
    Key(&'a str),
}

/// Printing is iterative (an explicit stack of tasks on the heap), so a tree nested to any
/// depth prints without recursion.
impl fmt::Display for SpecTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut tasks = vec![Task::Tree(self)];
        while let Some(task) = tasks.pop() {
            match task {
                Task::Text(t) => f.write_str(t)?,
                Task::Field(k) => write!(f, "{k}: ")?,
                Task::Key(k) => write!(f, "{k:?}: ")?,
                Task::Tree(tree) => leaf_or_push(f, tree, &mut tasks)?,
            }
        }
        Ok(())
    }
}

/// Prints a leaf, or pushes the tasks of a nested tree (in reverse: the stack pops them in
/// order).
fn leaf_or_push<'a>(
    f: &mut fmt::Formatter<'_>,
    tree: &'a SpecTree,
    tasks: &mut Vec<Task<'a>>,
) -> fmt::Result {
    /// Pushes `open item sep item … close`, each item after its label task, if any.
    fn seq<'a>(
        tasks: &mut Vec<Task<'a>>,
        open: &'static str,
        items: Vec<(Option<Task<'a>>, &'a SpecTree)>,
        sep: &'static str,
        close: &'static str,
    ) {
        tasks.push(Task::Text(close));
        for (i, (label, item)) in items.into_iter().enumerate().rev() {
            tasks.push(Task::Tree(item));
            if let Some(label) = label {
                tasks.push(label);
            }
            if i > 0 {
                tasks.push(Task::Text(sep));
            }
        }
        tasks.push(Task::Text(open));
    }
    match tree {
        SpecTree::None => f.write_str("None"),
        SpecTree::Bool(b) => write!(f, "{b}"),
        SpecTree::Int(i) => write!(f, "{i}"),
        SpecTree::Float(x) => write!(f, "{x:?}"),
        SpecTree::Str(s) => write!(f, "{s:?}"),
        SpecTree::DType(d) => write!(f, "{d}"),
        SpecTree::Shape(s) => write!(f, "{s}"),
        SpecTree::TensorSpec(t) => write!(f, "{t}"),
        SpecTree::Spec(named) => {
            f.write_str(&named.name)?;
            match &named.value {
                SpecTree::Map(fields) if fields.is_empty() => f.write_str(" {}"),
                SpecTree::Map(fields) => {
                    let items = fields
                        .iter()
                        .map(|(k, v)| (Some(Task::Field(k)), v))
                        .collect();
                    seq(tasks, " { ", items, ", ", " }");
                    Ok(())
                }
                other => {
                    seq(tasks, "(", vec![(None, other)], "", ")");
                    Ok(())
                }
            }
        }
        SpecTree::List(items) => {
            seq(
                tasks,
                "[",
                items.iter().map(|v| (None, v)).collect(),
                ", ",
                "]",
            );
            Ok(())
        }
        SpecTree::Tuple(items) if items.len() == 1 => {
            seq(tasks, "(", vec![(None, &items[0])], "", ",)");
            Ok(())
        }
        SpecTree::Tuple(items) => {
            seq(
                tasks,
                "(",
                items.iter().map(|v| (None, v)).collect(),
                ", ",
                ")",
            );
            Ok(())
        }
        SpecTree::Map(entries) => {
            let items = entries
                .iter()
                .map(|(k, v)| (Some(Task::Key(k)), v))
                .collect();
            seq(tasks, "{", items, ", ", "}");
            Ok(())
        }
    }
}

/// Writes `name { a: …, b: … }` with the fields in the order given.
pub fn write_struct<'a>(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    fields: impl IntoIterator<Item = (&'a str, &'a SpecTree)>,
) -> fmt::Result {
    f.write_str(name)?;
    f.write_str(" {")?;
    let mut any = false;
    for (i, (k, v)) in fields.into_iter().enumerate() {
        f.write_str(if i == 0 { " " } else { ", " })?;
        write!(f, "{k}: {v}")?;
        any = true;
    }
    f.write_str(if any { " }" } else { "}" })
}

#[cfg(test)]
mod tests {
    use crate::dtype::DType;
    use crate::spec_tree::{Fields, SpecTree};
    use crate::tensor::TensorSpec;
    use extype_shape::Shape;

    #[test]
    fn compact_forms() {
        let t = TensorSpec::new("[8, ?]".parse::<Shape>().unwrap(), DType::F32);
        let mut fields = Fields::new();
        fields.insert("values".to_string(), SpecTree::TensorSpec(t));
        fields.insert(
            "names".to_string(),
            SpecTree::List(vec![SpecTree::Str("x".into()), SpecTree::None]),
        );
        fields.insert(
            "pair".to_string(),
            SpecTree::Tuple(vec![SpecTree::Int(-3), SpecTree::Float(0.5)]),
        );
        fields.insert(
            "one".to_string(),
            SpecTree::Tuple(vec![SpecTree::Bool(true)]),
        );
        let v = SpecTree::spec("pkg.T", SpecTree::Map(fields));
        assert_eq!(
            v.to_string(),
            "pkg.T { values: f32[8, ?], names: [\"x\", None], pair: (-3, 0.5), one: (true,) }"
        );
        assert_eq!(
            SpecTree::spec("pkg.E", SpecTree::Map(Fields::new())).to_string(),
            "pkg.E {}"
        );
        assert_eq!(
            SpecTree::spec("pkg.I", SpecTree::Int(4)).to_string(),
            "pkg.I(4)"
        );
        let mut m = Fields::new();
        m.insert("k".to_string(), SpecTree::DType(DType::I64));
        assert_eq!(SpecTree::Map(m).to_string(), "{\"k\": i64}");
    }
}

//! A compact, human-readable text form of [`SpecTree`], used by `Display` of specs.
//!
//! It is for people (errors, logs, examples), not for storage: the stable form is the JSON of
//! [`json`](super::json). Nested specs print as `name { field: value, … }`, tensor specs as
//! `f32[8, ?]`, lists as `[…]`, tuples as `(…)`, maps as `{key: value, …}`.

use std::fmt;

use super::SpecTree;

impl fmt::Display for SpecTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecTree::None => f.write_str("None"),
            SpecTree::Bool(b) => write!(f, "{b}"),
            SpecTree::Int(i) => write!(f, "{i}"),
            SpecTree::Float(x) => write!(f, "{x:?}"),
            SpecTree::Str(s) => write!(f, "{s:?}"),
            SpecTree::DType(d) => write!(f, "{d}"),
            SpecTree::Shape(s) => write!(f, "{s}"),
            SpecTree::TensorSpec(t) => write!(f, "{t}"),
            SpecTree::Spec(named) => match &named.value {
                SpecTree::Map(fields) => {
                    write_struct(f, &named.name, fields.iter().map(|(k, v)| (k.as_str(), v)))
                }
                other => write!(f, "{}({other})", named.name),
            },
            SpecTree::List(items) => write_seq(f, "[", items, "]"),
            SpecTree::Tuple(items) if items.len() == 1 => write!(f, "({},)", items[0]),
            SpecTree::Tuple(items) => write_seq(f, "(", items, ")"),
            SpecTree::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k:?}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

fn write_seq(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: &[SpecTree],
    close: &str,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    f.write_str(close)
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
    use std::collections::BTreeMap;

    use crate::dtype::DType;
    use crate::shape::Shape;
    use crate::spec_tree::SpecTree;
    use crate::tensor::TensorSpec;

    #[test]
    fn compact_forms() {
        let t = TensorSpec::new("[8, ?]".parse::<Shape>().unwrap(), DType::F32);
        let mut fields = BTreeMap::new();
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
            "pkg.T { names: [\"x\", None], one: (true,), pair: (-3, 0.5), values: f32[8, ?] }"
        );
        assert_eq!(
            SpecTree::spec("pkg.E", SpecTree::Map(BTreeMap::new())).to_string(),
            "pkg.E {}"
        );
        assert_eq!(
            SpecTree::spec("pkg.I", SpecTree::Int(4)).to_string(),
            "pkg.I(4)"
        );
        let mut m = BTreeMap::new();
        m.insert("k".to_string(), SpecTree::DType(DType::I64));
        assert_eq!(SpecTree::Map(m).to_string(), "{\"k\": i64}");
    }
}

//! A compact, human-readable text form of [`SpecValue`], used by `Display` of specs.
//!
//! It is for people (errors, logs, examples), not for storage: the stable form is the JSON of
//! [`json`](super::json). Nested specs print as `name { field: value, … }`, tensor specs as
//! `f32[8, ?]`, lists as `[…]`, tuples as `(…)`, maps as `{key: value, …}`.

use std::fmt;

use super::SpecValue;

impl fmt::Display for SpecValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecValue::None => f.write_str("None"),
            SpecValue::Bool(b) => write!(f, "{b}"),
            SpecValue::Int(i) => write!(f, "{i}"),
            SpecValue::Float(x) => write!(f, "{x:?}"),
            SpecValue::Str(s) => write!(f, "{s:?}"),
            SpecValue::DType(d) => write!(f, "{d}"),
            SpecValue::Shape(s) => write!(f, "{s}"),
            SpecValue::TensorSpec(t) => write!(f, "{t}"),
            SpecValue::Spec(named) => match &named.value {
                SpecValue::Map(fields) => {
                    write_struct(f, &named.name, fields.iter().map(|(k, v)| (k.as_str(), v)))
                }
                other => write!(f, "{}({other})", named.name),
            },
            SpecValue::List(items) => write_seq(f, "[", items, "]"),
            SpecValue::Tuple(items) if items.len() == 1 => write!(f, "({},)", items[0]),
            SpecValue::Tuple(items) => write_seq(f, "(", items, ")"),
            SpecValue::Map(entries) => {
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
    items: &[SpecValue],
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
    fields: impl IntoIterator<Item = (&'a str, &'a SpecValue)>,
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
    use crate::spec_tree::SpecValue;
    use crate::tensor::TensorSpec;

    #[test]
    fn compact_forms() {
        let t = TensorSpec::new("[8, ?]".parse::<Shape>().unwrap(), DType::F32);
        let mut fields = BTreeMap::new();
        fields.insert("values".to_string(), SpecValue::TensorSpec(t));
        fields.insert(
            "names".to_string(),
            SpecValue::List(vec![SpecValue::Str("x".into()), SpecValue::None]),
        );
        fields.insert(
            "pair".to_string(),
            SpecValue::Tuple(vec![SpecValue::Int(-3), SpecValue::Float(0.5)]),
        );
        fields.insert(
            "one".to_string(),
            SpecValue::Tuple(vec![SpecValue::Bool(true)]),
        );
        let v = SpecValue::spec("pkg.T", SpecValue::Map(fields));
        assert_eq!(
            v.to_string(),
            "pkg.T { names: [\"x\", None], one: (true,), pair: (-3, 0.5), values: f32[8, ?] }"
        );
        assert_eq!(
            SpecValue::spec("pkg.E", SpecValue::Map(BTreeMap::new())).to_string(),
            "pkg.E {}"
        );
        assert_eq!(
            SpecValue::spec("pkg.I", SpecValue::Int(4)).to_string(),
            "pkg.I(4)"
        );
        let mut m = BTreeMap::new();
        m.insert("k".to_string(), SpecValue::DType(DType::I64));
        assert_eq!(SpecValue::Map(m).to_string(), "{\"k\": i64}");
    }
}

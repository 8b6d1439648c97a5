//! [`StructFields`]: reads the fields of a serialized struct spec, checking its name and its
//! field set (derived specs through their tables, and anonymous specs).

use crate::error::{Result, SpecError};
use crate::field::{FieldPath, data_error};
use crate::spec_tree::{Fields, SpecTree, short};

/// Reads the fields of a serialized derived struct, checking its name and its field set.
#[derive(Debug)]
pub struct StructFields<'a> {
    fields: &'a Fields,
    path: FieldPath<'a>,
}

impl<'a> StructFields<'a> {
    /// Opens a serialized struct spec named `name` (or `alias`, its default name); the map must
    /// hold exactly the `expected` fields.
    pub fn open_named(
        value: &'a SpecTree,
        path: &'a FieldPath<'a>,
        name: &str,
        alias: &str,
        expected: &[&'static str],
    ) -> Result<Self> {
        let SpecTree::Spec(named) = value else {
            return Err(data_error(path, format!("spec {name:?}"), value));
        };
        if named.name != name && named.name != alias {
            return Err(data_error(path, format!("spec {name:?}"), value));
        }
        let SpecTree::Map(fields) = &named.value else {
            return Err(data_error(
                path,
                format!("a map of the fields of {name:?}"),
                &named.value,
            ));
        };
        check_struct_keys(fields, path, name, expected)?;
        Ok(StructFields {
            fields,
            path: *path,
        })
    }

    /// The serialized spec of one field (its presence was checked by `open_named`).
    pub fn get(&self, field: &'static str) -> Result<&'a SpecTree> {
        self.fields.get(field).ok_or_else(|| {
            SpecError::Data {
                path: self.path.field(field).to_string(),
                expected: "a field".into(),
                found: "nothing (missing field)".into(),
            }
            .into()
        })
    }
}

/// Checks that a serialized struct spec (`fields`, of the type named `name`) has exactly the
/// `expected` keys; errors name the missing or unknown field's path.
fn check_struct_keys(
    fields: &Fields,
    path: &FieldPath<'_>,
    name: &str,
    expected: &[&'static str],
) -> Result<()> {
    for field in expected {
        if !fields.contains_key(field) {
            return Err(SpecError::Data {
                path: path.field(field).to_string(),
                expected: "a field".into(),
                found: "nothing (missing field)".into(),
            }
            .into());
        }
    }
    if let Some(extra) = fields.keys().find(|k| !expected.contains(&k.as_str())) {
        return Err(SpecError::Data {
            // The key comes from the input: quoted as a bounded excerpt.
            path: path.key(&short(extra)).to_string(),
            expected: format!("one of the fields {expected:?} of {name:?}"),
            found: "an unknown field".into(),
        }
        .into());
    }
    Ok(())
}

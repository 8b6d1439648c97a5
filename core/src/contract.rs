//! Shape contracts of derived extension types: `#[extype(shape = "b n")]` on fields.
//!
//! The patterns of one type's fields form one [`Unifier`]: names bind across fields, so a
//! MaskedTensor whose `values` and `mask` both say `"b n"` must have equal shapes. The contract is
//! checked whenever a value is validated (the checked constructor, rebuilding from components,
//! loading, reinterpreting), and refines partial specs when they are deserialized or refined by
//! hand.

use std::sync::OnceLock;

use crate::error::{Error, Result, SpecError};
use crate::field::FieldPath;
use crate::shape::{Shape, Unifier};
use crate::spec::TensorSpec;
use crate::tensor::Tensor;

/// A field that has a shape: what a shape contract can constrain.
#[diagnostic::on_unimplemented(
    message = "`extype(shape)` needs a tensor field, but `{Self}` is not one",
    label = "this field has no single shape",
    note = "put `#[extype(shape = \"...\")]` only on fields of type `Array<T, D>`, `ArcArray<T, D>` or `extype::Tensor`"
)]
pub trait ShapedField: crate::field::Field {
    /// The concrete shape of the value.
    fn concrete_shape(&self) -> &[usize];
    /// The (partial) shape in the field's spec.
    fn spec_shape(spec: &Self::Spec) -> &Shape;
    /// The (partial) shape in the field's spec, to refine it.
    fn spec_shape_mut(spec: &mut Self::Spec) -> &mut Shape;
}

impl<T: crate::dtype::Element, D: ndarray::Dimension + Send + Sync + 'static> ShapedField
    for ndarray::Array<T, D>
{
    fn concrete_shape(&self) -> &[usize] {
        self.shape()
    }
    fn spec_shape(spec: &TensorSpec) -> &Shape {
        &spec.shape
    }
    fn spec_shape_mut(spec: &mut TensorSpec) -> &mut Shape {
        &mut spec.shape
    }
}

impl<T: crate::dtype::Element, D: ndarray::Dimension + Send + Sync + 'static> ShapedField
    for ndarray::ArcArray<T, D>
{
    fn concrete_shape(&self) -> &[usize] {
        self.shape()
    }
    fn spec_shape(spec: &TensorSpec) -> &Shape {
        &spec.shape
    }
    fn spec_shape_mut(spec: &mut TensorSpec) -> &mut Shape {
        &mut spec.shape
    }
}

impl ShapedField for Tensor {
    fn concrete_shape(&self) -> &[usize] {
        self.shape()
    }
    fn spec_shape(spec: &TensorSpec) -> &Shape {
        &spec.shape
    }
    fn spec_shape_mut(spec: &mut TensorSpec) -> &mut Shape {
        &mut spec.shape
    }
}

/// The shape contract of one derived type: `(field path, pattern)` per constrained field, parsed
/// once on first use.
#[derive(Debug)]
pub struct ShapeContract {
    type_name: &'static str,
    fields: &'static [(&'static str, &'static str)],
    unifier: OnceLock<std::result::Result<Unifier, Error>>,
}

impl ShapeContract {
    /// A contract over `fields` (`(field path, pattern)`), for the type named `type_name`.
    pub const fn new(
        type_name: &'static str,
        fields: &'static [(&'static str, &'static str)],
    ) -> Self {
        ShapeContract {
            type_name,
            fields,
            unifier: OnceLock::new(),
        }
    }

    /// The fields and their patterns, in declaration order.
    pub fn fields(&self) -> &'static [(&'static str, &'static str)] {
        self.fields
    }

    /// The joint unifier of the patterns (they were validated when the type was compiled; a
    /// failure here is still reported as an error, not a panic).
    pub fn unifier(&self) -> Result<&Unifier> {
        self.unifier
            .get_or_init(|| {
                self.fields
                    .iter()
                    .try_fold(Unifier::new(), |u, (field, pattern)| {
                        u.input(field, pattern)
                    })
                    .map_err(|e| self.error(&FieldPath::Root, e.into()))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Checks the concrete shapes of the constrained fields (in declaration order) of the value
    /// at `path`.
    pub fn check(&self, path: &FieldPath<'_>, shapes: &[&[usize]]) -> Result<()> {
        self.unifier()?
            .unify(shapes)
            .map(|_| ())
            .map_err(|e| self.error(path, e.into()))
    }

    /// Refines the partial shapes of the constrained fields' specs in place with what the
    /// patterns imply jointly; fails when no value could satisfy both the specs and the contract.
    pub fn refine(&self, path: &FieldPath<'_>, shapes: &mut [&mut Shape]) -> Result<()> {
        let current: Vec<&Shape> = shapes.iter().map(|s| &**s).collect();
        let joint = self
            .unifier()?
            .refine(&current)
            .map_err(|e| self.error(path, e.into()))?;
        for (slot, refined) in shapes.iter_mut().zip(joint.shapes) {
            **slot = refined;
        }
        Ok(())
    }

    fn error(&self, path: &FieldPath<'_>, cause: Error) -> Error {
        SpecError::Invalid {
            type_name: self.type_name.to_string(),
            path: path.to_string(),
            message: format!("shape contract {}: {cause}", self.describe()),
        }
        .into()
    }

    fn describe(&self) -> String {
        let parts: Vec<String> = self
            .fields
            .iter()
            .map(|(field, pattern)| format!("{field}: \"{pattern}\""))
            .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static CONTRACT: ShapeContract =
        ShapeContract::new("test.Masked", &[("values", "b n"), ("mask", "b n")]);

    #[test]
    fn checks_concrete_shapes_jointly() {
        CONTRACT
            .check(&FieldPath::Root, &[&[2, 3], &[2, 3]])
            .unwrap();
        let err = CONTRACT
            .check(&FieldPath::Root, &[&[2, 3], &[2, 4]])
            .unwrap_err()
            .to_string();
        assert!(err.contains("test.Masked"), "{err}");
        assert!(err.contains("mask"), "{err}");
        assert!(err.contains('4') && err.contains('3'), "{err}");
        let err = CONTRACT
            .check(&FieldPath::Root, &[&[2, 3, 1], &[2, 3]])
            .unwrap_err()
            .to_string();
        assert!(err.contains("values"), "{err}");
    }

    #[test]
    fn refines_partial_shapes() {
        let mut a: Shape = "[8, ?]".parse().unwrap();
        let mut b: Shape = "[?, 5]".parse().unwrap();
        CONTRACT
            .refine(&FieldPath::Root, &mut [&mut a, &mut b])
            .unwrap();
        assert_eq!(
            (a.to_string(), b.to_string()),
            ("[8, 5]".into(), "[8, 5]".into())
        );
        let mut c: Shape = "[8, 4]".parse().unwrap();
        let mut d: Shape = "[?, 5]".parse().unwrap();
        assert!(
            CONTRACT
                .refine(&FieldPath::Root, &mut [&mut c, &mut d])
                .is_err()
        );
    }

    #[test]
    fn a_bad_pattern_is_an_error_not_a_panic() {
        static BAD: ShapeContract = ShapeContract::new("test.Bad", &[("x", "b ... ...")]);
        assert!(BAD.check(&FieldPath::Root, &[&[1]]).is_err());
    }
}

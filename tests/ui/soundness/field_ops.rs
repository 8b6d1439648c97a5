#![forbid(unsafe_code)]
// A hand-written `Field` impl has no table to override: the derive computes the table of each
// field's own type, so `Mine` cannot pass `String`'s off as its own.
use extype::field::FieldOps;
use extype::ndarray::ArrayD;
use extype::{ExtensionType, Field, FieldPath, Sink, SpecTree, Tensor, TensorSpec, TensorView};

#[derive(Clone, Debug)]
pub struct Mine(pub u8);

impl Field for Mine {
    type Spec = ();
    fn field_spec(&self) {}
    fn num_components(_: &()) -> usize {
        0
    }
    fn component_specs(_: &(), _: &FieldPath<'_>, _: &mut dyn Sink<TensorSpec>) {}
    fn push_views<'a>(&'a self, _: &FieldPath<'_>, _: &mut dyn Sink<TensorView<'a>>) {}
    fn push_components(self, _: &FieldPath<'_>, _: &mut dyn Sink<Tensor>) {}
    fn from_components(
        _: &(),
        _: &FieldPath<'_>,
        _: &mut extype::field::Components,
    ) -> extype::Result<Self> {
        Ok(Mine(0))
    }
    fn spec_to_value(_: &()) -> SpecTree {
        SpecTree::None
    }
    fn spec_from_value(_: &SpecTree, _: &FieldPath<'_>) -> extype::Result<()> {
        Ok(())
    }
    fn spec_is_compatible(_: &(), _: &()) -> bool {
        true
    }
    fn spec_most_specific_compatible(_: &(), _: &()) -> Option<()> {
        Some(())
    }
    const OPS: &'static FieldOps = FieldOps::of::<String>();
}

#[derive(Clone, Debug, ExtensionType)]
pub struct Holder {
    pub a: ArrayD<f32>,
    pub mine: Mine,
}

fn main() {}

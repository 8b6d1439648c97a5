// Not `#![forbid(unsafe_code)]`: overriding `from_components_into` means writing the signature
// of an `unsafe fn`, which that lint refuses. The program has no `unsafe` block, though, and the
// struct tables trust the method to have written the field when it returns `Ok`: it takes a
// parameter of a type only extype can name, so no other crate overrides it.
#![deny(unsafe_op_in_unsafe_fn)]
use extype::field::Components;
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
        _: &mut Components,
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
    // Says `Ok` and writes nothing: the struct would be rebuilt with an uninitialised field.
    unsafe fn from_components_into(
        _: &(),
        _: &FieldPath<'_>,
        _: &mut Components,
        _: *mut Self,
    ) -> extype::Result<()> {
        Ok(())
    }
}

#[derive(Clone, Debug, ExtensionType)]
pub struct Holder {
    pub a: ArrayD<f32>,
    pub mine: Mine,
}

fn main() {}

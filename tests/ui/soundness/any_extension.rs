// Not `#![forbid(unsafe_code)]`: implementing `AnyExtension` means writing the signature of its
// `unsafe fn move_into`, which that lint refuses. The program has no `unsafe` block, though:
// `Value::downcast` trusts `as_any` to name the type `move_into` writes, so the trait is an
// `unsafe trait` and this safe-looking impl (which writes nothing) is refused.
#![deny(unsafe_op_in_unsafe_fn)]
use std::any::Any;

use extype::{AnyExtension, AnySpec, ExtensionType, SharedExtension, Tensor, TensorView, Value};

#[derive(Clone, Debug, ExtensionType)]
pub struct Label {
    pub text: String,
}

static DECOY: Label = Label { text: String::new() };

pub struct Mine;

impl AnyExtension for Mine {
    fn as_any(&self) -> &dyn Any {
        &DECOY
    }
    unsafe fn move_into(self: Box<Self>, _out: *mut u8) {}
    fn type_name(&self) -> &'static str {
        "Mine"
    }
    fn name(&self) -> &str {
        "test.Mine"
    }
    fn any_spec(&self) -> Box<dyn AnySpec> {
        unimplemented!()
    }
    fn component_views(&self) -> Vec<TensorView<'_>> {
        Vec::new()
    }
    fn clone_components(&self) -> Vec<Tensor> {
        Vec::new()
    }
    fn into_components_boxed(self: Box<Self>) -> Vec<Tensor> {
        Vec::new()
    }
}

fn main() {
    let value = Value::Extension(SharedExtension::from_box(Box::new(Mine)));
    // Would read an uninitialised `Label`.
    let _ = value.downcast::<Label>();
}

#![forbid(unsafe_code)]
// A struct table cannot be forged in safe code: one whose offsets and field types are made up
// would make decoding a spec through it write anywhere.
use std::any::TypeId;

use extype::__private_v1::derived::TypeFns;
use extype::__private_v1::{FieldDesc, StructDesc, Vouched};
use extype::field::FieldOps;
use extype::ndarray::ArrayD;
use extype::ExtensionType;

#[derive(Clone, Debug, ExtensionType)]
pub struct Big {
    pub a: ArrayD<f32>,
}

fn main() {
    let fields: &'static [FieldDesc] = Box::leak(Box::new([FieldDesc {
        key: "a",
        position: None,
        value_offset: 1 << 20,
        spec_offset: 1 << 20,
        ops: FieldOps::of::<String>(),
        shape: None,
    }]));
    let desc: &'static StructDesc = Box::leak(Box::new(StructDesc {
        name: "forged",
        type_id: TypeId::of::<Big>(),
        spec_name: "BigSpec",
        tuple: false,
        fields,
        skipped: &[],
        contract: None,
        types: Box::leak(Box::new(TypeFns::of::<Big>())),
        validate: None,
        vouched: Vouched::new(),
        validity: &[],
        evolution: extype::__private_v1::Evolution::NONE,
    }));
    // The runtime (a registry entry's decoder, a spec's deserializer) walks whatever table it
    // is handed: building one must take `unsafe`.
    let _ = desc;
}

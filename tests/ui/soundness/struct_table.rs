#![forbid(unsafe_code)]
// A hand-written `Field` impl cannot borrow a derived type's struct table: the table is typed
// by the type it describes, so `Mine` cannot take `Big`'s (which would read a `Mine` as a `Big`).
use extype::__private_v1::StructTable;
use extype::ndarray::ArrayD;
use extype::{ExtensionType, Field};

#[derive(Clone, Debug, ExtensionType)]
pub struct Big {
    pub a: ArrayD<f32>,
    pub s: String,
}

pub struct Mine(pub u8);

impl Field for Mine {
    type Spec = <Big as Field>::Spec;
    const STRUCT: Option<StructTable<Self>> = <Big as Field>::STRUCT;
}

fn main() {
    let _ = Mine(7).field_spec();
}

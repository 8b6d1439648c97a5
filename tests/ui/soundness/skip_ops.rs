#![forbid(unsafe_code)]
// `#[extype(skip)]` fields are made and dropped through their own type's functions: a type that
// is not `Default` cannot claim `String`'s.
use extype::__private_v1::SkippedField;
use extype::__private_v1::SkipOps;
use extype::ndarray::ArrayD;
use extype::ExtensionType;

#[derive(Clone, Debug)]
pub struct Mine(pub u8);

impl SkippedField for Mine {
    const SKIP_OPS: &'static SkipOps = SkipOps::of::<String>();
}

#[derive(Clone, Debug, ExtensionType)]
pub struct Holder {
    pub a: ArrayD<f32>,
    #[extype(skip)]
    pub mine: Mine,
}

fn main() {}

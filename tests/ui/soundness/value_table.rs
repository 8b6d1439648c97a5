#![forbid(unsafe_code)]
// A hand-written `ExtensionType` impl cannot borrow a derived type's value table: the table is
// typed by the type it describes, so `Mine` cannot take `Big`'s.
use extype::__private_v1::ValueTable;
use extype::ndarray::ArrayD;
use extype::{ExtensionType, TypeSpec};

#[derive(Clone, Debug, ExtensionType)]
pub struct Big {
    pub a: ArrayD<f32>,
    pub s: String,
}

#[derive(Clone, Debug, ExtensionType)]
pub struct Small {
    pub b: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MineSpec;

#[derive(Clone)]
pub struct Mine(pub u8);

impl TypeSpec for MineSpec {
    type Value = Mine;
    fn component_specs(&self) -> Vec<extype::TensorSpec> {
        Vec::new()
    }
    fn to_components<'a>(&self, _: &'a Mine) -> Vec<extype::TensorView<'a>> {
        Vec::new()
    }
    fn from_components(&self, _: Vec<extype::Tensor>) -> extype::Result<Mine> {
        Ok(Mine(0))
    }
    fn serialize(&self) -> extype::SpecTree {
        extype::SpecTree::None
    }
    fn deserialize(_: &extype::SpecTree) -> extype::Result<Self> {
        Ok(MineSpec)
    }
    fn is_compatible_with(&self, _: &Self) -> bool {
        true
    }
    fn most_specific_compatible(&self, _: &Self) -> Option<Self> {
        Some(MineSpec)
    }
}

impl ExtensionType for Mine {
    type Spec = MineSpec;
    const NAME: &'static str = "test.Mine";
    const VALUE: Option<ValueTable<Self>> = <Big as ExtensionType>::VALUE;
}

fn main() {
    let _ = Mine(7).into_components();
}

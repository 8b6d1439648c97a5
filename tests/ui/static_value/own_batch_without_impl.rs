// `static_field!(T; impl StaticBatch)` declares a static value that batches by its own
// `extype::batch::StaticBatch` impl: without that impl, the missing impl is the error.
use extype::{FieldPath, Result, SpecTree, StaticValue};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Rank(u8);

impl StaticValue for Rank {
    fn to_spec_value(&self) -> SpecTree {
        SpecTree::Int(self.0.into())
    }
    fn from_spec_value(_value: &SpecTree, _path: &FieldPath<'_>) -> Result<Self> {
        Ok(Rank(0))
    }
}

extype::static_field!(Rank; impl StaticBatch);

fn main() {}

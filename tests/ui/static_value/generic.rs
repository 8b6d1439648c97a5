// `#[derive(StaticValue)]` names one concrete type: a generic type is refused.
#[derive(Clone, Debug, PartialEq, Eq, Hash, extype::StaticValue)]
pub struct Tagged<T> {
    pub tag: T,
}

fn main() {}

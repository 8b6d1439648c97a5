// A field of a struct deriving `StaticValue` must be static data itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash, extype::StaticValue)]
pub struct Params {
    pub factor: u32,
    pub started: std::time::Instant,
}

fn main() {}

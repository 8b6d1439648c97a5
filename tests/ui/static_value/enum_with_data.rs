// `#[derive(StaticValue)]` on an enum takes unit variants only (stored as the variant's name).
#[derive(Clone, Debug, PartialEq, Eq, Hash, extype::StaticValue)]
pub enum Interp {
    Linear,
    Lanczos(u32),
}

fn main() {}

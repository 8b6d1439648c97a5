// Unions are rejected.
use extype::ExtensionType;

#[derive(ExtensionType)]
pub union Foo {
    pub a: f32,
    pub b: u32,
}

fn main() {}

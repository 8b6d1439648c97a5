//! Compile-fail tests of `#[derive(ExtensionType)]`: each file under `tests/ui/<theme>/` is one
//! misuse, and its `.stderr` is the single diagnostic the user should see.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}

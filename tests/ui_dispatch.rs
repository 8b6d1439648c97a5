//! Compile-fail cases of `#[dispatch]`: each misuse is an error at the right span, with a message
//! that names the attribute and suggests the fix.

#[test]
fn ui_dispatch() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_dispatch/*.rs");
}

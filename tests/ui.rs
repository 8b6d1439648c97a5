//! Compile-fail tests of the macros, grouped by theme: each file under `tests/ui/<theme>/` is one
//! misuse, and its `.stderr` is the diagnostic the user should see. `attr`, `fields`, `shape`,
//! `types`, `validate` and `batch` (`#[extype(batchable)]`) are about `#[derive(ExtensionType)]`;
//! `static_value` about `#[derive(StaticValue)]`; `dispatch` is about `#[dispatch(...)]` (each
//! misuse is an error at the right span, with a message that names the
//! attribute and suggests the fix); `io` is about the file API (`io::map` is `unsafe`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}

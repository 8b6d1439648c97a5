//! Compile-fail tests of the macros, grouped by theme: each file under `tests/ui/<theme>/` is one
//! misuse, and its `.stderr` is the diagnostic the user should see. `attr`, `fields`, `shape`,
//! `types`, `validate` and `batch` (`#[extype(batchable)]`, and items the iterator adapters do
//! not take) are about `#[derive(ExtensionType)]`;
//! `static_value` about `#[derive(StaticValue)]` and `static_field!`; `dispatch` is about `#[dispatch(...)]` (each
//! misuse is an error at the right span, with a message that names the
//! attribute and suggests the fix). `soundness` holds programs without an `unsafe` block
//! (`#![forbid(unsafe_code)]` where the attempt needs no `unsafe fn` signature) that try to point
//! the runtime's tables at another type, or to override what its `unsafe` code trusts; each must
//! be a compile error; `door` is a macro crate and a runtime from different releases
//! (a version mismatch at `extype::__private`);
//! `io` is about the file API (`io::map` is `unsafe`); `tensor_like` about `#[extype(tensor_like …)]`;
//! `ragged` about the `ragged!` macro (scalars at different nesting depths).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    // Relative to this package, `tests/ui/` of the repository.
    t.compile_fail("*/*.rs");
}

//! Specs: the tree, its JSON form (properties and a bounded fuzz of the reader) and the laws of a
//! hand-written type's spec. One test binary, one module per concern (one link instead of four).

extern crate extype_core as extype;

#[path = "../common/mod.rs"]
mod common;
#[path = "../../../shape/tests/support/fuzz.rs"]
mod fuzz;

mod fuzz_spec_json;
mod spec_json_props;
mod spec_props;
mod spec_tree;

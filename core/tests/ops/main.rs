//! The ops of core on dense tensors and on a hand-written extension type: one test binary, one
//! module per concern (one link instead of six). None registers a type or a handler, so sharing a
//! process changes nothing they see.

extern crate extype_core as extype;

#[path = "../common/mod.rs"]
mod common;
#[path = "../../../shape/tests/support/fuzz.rs"]
mod fuzz;

mod fuzz_ops;
mod half_ops;
mod masked_tensor;
mod op_errors;
mod op_sizes;
mod ops_as;

//! Batching of derived types: stack and unstack (default and custom encoders), the spec laws,
//! their properties, and nested values in containers. One test binary (one link instead of
//! three); the batched types of `common/batching.rs` are registered once for all of them.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/batching.rs"]
mod types;

mod batch;
mod batching;
mod batching_props;

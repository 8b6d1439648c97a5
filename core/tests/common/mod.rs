//! Extension types shared by the integration tests, implemented by hand field by field, as a type
//! that does not use `#[derive(ExtensionType)]` would (see `masked.rs`, annotated).
#![allow(dead_code, unused_imports)]

pub mod batch;
pub mod masked;
pub mod ragged;
pub mod shared_pair;

pub use ragged::{RaggedTensor, RaggedTensorSpec, RowCount};

pub use batch::{Batch, BatchSpec};
pub use masked::{MaskedTensor, MaskedTensorSpec};
pub use shared_pair::{SharedPair, SharedPairSpec};

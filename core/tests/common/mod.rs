//! Extension types shared by the integration tests, written by hand exactly as
//! `#[derive(ExtensionType)]` will generate them (see `masked.rs` for the annotated template).
#![allow(dead_code, unused_imports)]

pub mod batch;
pub mod masked;
pub mod ragged;
pub mod shared_pair;

pub use ragged::{RaggedTensor, RaggedTensorSpec, RowCount};

pub use batch::{Batch, BatchSpec};
pub use masked::{MaskedTensor, MaskedTensorSpec};
pub use shared_pair::{SharedPair, SharedPairSpec};

//! Extension types shared by the integration tests that came from core (`batch`, `nest`,
//! `ragged_tensor`, `registry`) and by `benches/runtime.rs`: each derived, one per file, so a
//! registry entry names its file (`masked.rs`); and `supported`, the honesty check of
//! `ops::supported` (`tests/ops_supported.rs`).
#![allow(dead_code, unused_imports)]

pub mod batch;
pub mod masked;
pub mod ragged;
pub mod shared_pair;
pub mod supported;
pub mod temp_dir;

pub use batch::{Batch, BatchSpec};
pub use masked::{MaskedTensor, MaskedTensorSpec};
pub use ragged::{RaggedTensor, RaggedTensorSpec, RowCount};
pub use shared_pair::{SharedPair, SharedPairSpec};
pub use temp_dir::TempDir;

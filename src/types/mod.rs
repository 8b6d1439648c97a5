//! Standard extension types, written with the public `#[derive(ExtensionType)]` and
//! `#[dispatch]` exactly as a user writes their own: [`MaskedTensor`] (values with a validity
//! mask, TensorFlow's semantics for every op), [`RaggedTensor`] (flat values with row
//! partitions, TensorFlow's `tf.RaggedTensor`) and [`SparseTensor`] (N-d coordinate form,
//! TensorFlow's `tf.sparse` semantics).
//!
//! They live in the facade crate so that `extype::types::MaskedTensor` is the path users write
//! and the derive's generated paths (`::extype::…`) resolve here as in a user crate
//! (`extern crate self as extype;` in the crate root). Each type's module documents which
//! TensorFlow behaviour each op follows and every deliberate difference.

pub mod masked;
pub mod ragged;
mod size;
pub mod sparse;

pub use masked::{MaskedTensor, MaskedTensorSpec};
pub use ragged::{Nested, RaggedRow, RaggedShape, RaggedShapeSpec, RaggedTensor, RaggedTensorSpec};
pub use sparse::{SparseTensor, SparseTensorSpec};

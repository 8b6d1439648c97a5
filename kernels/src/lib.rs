//! # extype-kernels
//!
//! SIMD CPU kernels over ndarray views. This crate knows nothing of extension types: it takes
//! [`ndarray::ArrayView`]s of any strides and returns owned arrays.

pub mod cast;
pub mod compact;
pub mod element;
pub mod elementwise;
pub mod error;
pub mod gather;
pub(crate) mod layout;
pub mod parallel;
pub mod reduce;
pub mod select;
pub mod simd;
pub mod stack_concat;

pub use element::{Element, Float, Num};
pub use error::{KernelError, Result};

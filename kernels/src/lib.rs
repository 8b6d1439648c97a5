//! # extype-kernels
//!
//! SIMD CPU kernels over ndarray views. This crate knows nothing of extension types: it takes
//! [`ndarray::ArrayView`]s of any strides and returns owned arrays.

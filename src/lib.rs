//! # extype
//!
//! Extension types for Rust: turn your own structs of ndarray tensors into values with a static
//! type specification, zero-copy decomposition into components, a registry for loading by name,
//! batching, and op dispatch.
//!
//! This facade re-exports the runtime ([`extype_core`]) and the derive macros
//! ([`extype_macros`]). See the repository README for a tour.

pub use extype_core::*;

//! The one extension type of core's integration tests, implemented by hand on the public API (the
//! derived types are tested in the facade's `tests/`, which can use the derive).
#![allow(dead_code, unused_imports)]

pub mod masked;

pub use masked::{MaskedTensor, MaskedTensorSpec};

//! # extype-core
//!
//! The runtime of extype. Generated code from `extype-macros` calls into this crate; users reach it
//! through the `extype` facade.
//!
//! - [`shape`]: partial shapes ([`Dim`], [`Shape`]), broadcasting and shape patterns.
//! - [`error`]: the one [`Error`] type of the project.

pub mod error;
pub mod shape;

pub use error::{ArgRef, Error, Result, ShapeError};
pub use shape::{
    Bindings, BroadcastChecks, Dim, DimensionCalculator, Policy, Shape, ShapePattern,
    StaticBroadcast, Unifier, broadcast_shapes, broadcast_static, enforce_shape,
};

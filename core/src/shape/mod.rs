//! Partial shapes and everything built on them.
//!
//! A [`Shape`] is either of unknown rank (`*`) or a list of [`Dim`]s, each `Known(n)` (0 is a real
//! size and `[]` is a scalar), `NotOne` (known to differ from 1, otherwise unknown) or `Unknown`.
//! The dims form a lattice, from most to least specific:
//!
//! ```text
//!        Unknown (?)
//!        /        \
//!   NotOne (!1)   Known(1)
//!    /  |  \
//! Known(0) Known(2) Known(3) …
//! ```
//!
//! [`Shape::merge_with`] is the meet (it fails where no shape satisfies both), and
//! [`Shape::most_specific_compatible`] is the join (it never fails).
//!
//! ```
//! use extype_core::shape::Shape;
//! let a: Shape = "[8, 3]".parse().unwrap();
//! let b: Shape = "[8, 5]".parse().unwrap();
//! assert_eq!(a.most_specific_compatible(&b).to_string(), "[8, !1]");
//! assert!(a.is_compatible_with(&"[?, 3]".parse().unwrap()));
//! ```

mod broadcast;
mod dim;
mod partial;
mod pattern;
mod static_broadcast;
mod text;
mod unify;

pub use broadcast::{Sizes, broadcast_shapes};
pub use dim::Dim;
pub use partial::Shape;
pub use pattern::{
    AxisRef, Bindings, Enforced, EnforcedDim, PatternCheck, PatternDim, Refined, ShapePattern,
    enforce_shape,
};
pub use static_broadcast::{
    ArgAxis, BroadcastCheck, BroadcastChecks, Policy, StaticBroadcast, broadcast_static,
};
pub use unify::{DimensionCalculator, JointRefined, Unifier};

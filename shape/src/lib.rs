//! # extype-shape
//!
//! The leaf crate of extype: partial shapes and everything built on them, and the op signature
//! table. It depends on nothing of extype (only `thiserror` and `smallvec`), so the macro crate
//! builds on it without waiting for the runtime; `extype-core` re-exports it as `extype::shape`.
//!
//! - Shapes: [`Dim`], [`Shape`], broadcasting, shape patterns, joint unification (below).
//! - [`error`]: [`ShapeError`] and [`ArgRef`] (wrapped by `extype::Error::Shape`).
//! - [`signature`]: every catalog op's [`Signature`](signature::Signature) (name, kind, arity),
//!   name lookup and suggestions, and the dispatch key width
//!   ([`MAX_DISPATCH_ARGS`](signature::MAX_DISPATCH_ARGS)).
//! - [`edit_distance`]: the edit distance behind "did you mean" hints.
//!
//! A [`Shape`] is either of unknown rank (`*`) or a list of [`Dim`]s, each `Known(n)` (0 is a real
//! size and `[]` is a scalar), `NotOne` (known to differ from 1, otherwise unknown), `Unknown`, or
//! a named symbol `$n` (a size unknown now but equal at every occurrence of `$n`; `$n!1` when it is
//! also known not to be 1):
//!
//! | dim        | text   | admits                          | notes                                   |
//! |------------|--------|---------------------------------|-----------------------------------------|
//! | `Known(n)` | `8`    | `n`                             | 0 is an ordinary size                   |
//! | `NotOne`   | `!1`   | any size but 1                  | never broadcasts                        |
//! | `Unknown`  | `?`    | any size                        |                                         |
//! | `Symbol`   | `$n`   | one size, the same at every `$n`| names are ASCII identifiers, ≤ 22 bytes |
//! | `Symbol`   | `$n!1` | as `$n`, and not 1              | one `$n!1` makes every `$n` of a shape `!1` |
//!
//! The dims form a lattice, from most to least specific:
//!
//! ```text
//!        Unknown (?)
//!        /    |     \
//!   NotOne    $n    Known(1)
//!    / | \     |
//!   …  |  $n!1 …
//!  Known(0) Known(2) Known(3) …
//! ```
//!
//! [`Shape::merge_with`] is the meet (it fails where no shape satisfies both), and
//! [`Shape::most_specific_compatible`] is the join (it never fails). With symbols (shared between
//! the two shapes):
//!
//! | operation                 | result                                                         |
//! |---------------------------|----------------------------------------------------------------|
//! | `$n` compatible with …    | everything but `1` for `$n!1`; two symbols are compatible      |
//! | `$n` ∧ `$n`               | `$n`                                                           |
//! | `$n` ∧ `3`                | `3`, binding `$n = 3` ([`Dim::merge_binding`], [`Symbols`])    |
//! | `$n` ∧ `!1`               | `$n!1`                                                         |
//! | `$a` ∧ `$b`               | `$a`, binding `$b = $a` (the smaller name stays)               |
//! | `$n` ∨ `$n`               | `$n` (`$n` ∨ `$n!1` is `$n`)                                   |
//! | `$a` ∨ `$b`, `$n` ∨ `3`   | `?`; `!1` when both are known not 1 (`$a!1` ∨ `$b!1`)          |
//!
//! A shape merge applies what it learns to every axis (`[$n, $n]` ∧ `[?, 3]` is `[3, 3]`), and
//! [`Shape::merge_with_symbols`] returns those bindings.
//!
//! ```
//! use extype_shape::Shape;
//! let a: Shape = "[8, 3]".parse().unwrap();
//! let b: Shape = "[8, 5]".parse().unwrap();
//! assert_eq!(a.most_specific_compatible(&b).to_string(), "[8, !1]");
//! assert!(a.is_compatible_with(&"[?, 3]".parse().unwrap()));
//! let sq: Shape = "[$n, $n]".parse().unwrap();
//! assert!(sq.admits(&[4, 4]) && !sq.admits(&[4, 5]));
//! assert!(!sq.is_compatible_with(&"[4, 5]".parse().unwrap()));
//! ```
//!
//! ## Broadcasting
//!
//! [`broadcast_shapes`] broadcasts concrete shapes with NumPy's rules. [`broadcast_static`]
//! broadcasts partial shapes under a [`Policy`]: it returns the output shape and the
//! [`BroadcastChecks`] that make it true at run time. Per output axis:
//!
//! | participants                  | result | checks (`Numpy`)                     | checks (`Strict`)   |
//! |-------------------------------|--------|--------------------------------------|---------------------|
//! | a known `n ≠ 1`               | `n`    | each `?` ∈ {1, n}; each `!1` = n     | each `?`, `!1` = n  |
//! | no known `n ≠ 1`, some `!1`   | `!1`   | the sizes other than 1 agree (n-ary) | all equal (n-ary)   |
//! | only `?` (two or more)        | `?`    | the sizes other than 1 agree (n-ary) | all equal (n-ary)   |
//! | one `?` or `!1`, the rest `1` | it     | none                                 | none                |
//! | one symbol `$n` (at any number of inputs), the rest `1` | `$n` | none     | none                |
//!
//! A symbol counts as one participant however many inputs carry it (they are one size, checked
//! when the concrete shapes are matched against the static ones), as `?` (or `!1` for `$n!1`)
//! otherwise: two different symbols get the n-ary check.
//! Two different known sizes other than 1 at one axis fail statically. An input of unknown rank
//! makes the output's rank unknown; [`StaticBroadcast::trailing`] keeps what is known of its last
//! axes, and the checks then include a full broadcast of the concrete shapes.
//!
//! ## Shape patterns
//!
//! [`ShapePattern`] is whitespace-separated items, one per axis: `3` (exactly), `n` (a name: binds
//! on first use, must match afterwards), `_` (any size), `#n` (1, or else the name `n`), and at most
//! one variadic segment, `...` or `*name` (which binds the sizes of its axes). [`enforce_shape`] /
//! [`ShapePattern::enforce`] check a concrete shape and return the bound sizes ([`Bindings`]) and
//! the segment's axes and element count; [`ShapePattern::refine`] refines a partial shape and
//! returns the [`PatternCheck`]s still needed, the input's symbols it bound, the names it knows
//! (as sizes or symbols), and an [`Outline`] (minimum rank, prefix and suffix) when the rank is
//! unknown. [`ShapePattern::refine_symbolic`] gives every name nothing fixes the symbol of the
//! same name, so chained refinements share symbols as in the Array API proposal.
//!
//! ## Joint unification
//!
//! A [`Unifier`] matches several inputs' shapes against their patterns with shared names
//! (stannum's match dims), a declared leading batch dim, and `_` any-dims; output shapes come from
//! the bindings through a [`DimensionCalculator`] (a closure, or a pattern of bound names).

#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod broadcast;
mod calc;
mod dim;
mod merge;
mod partial;
mod pattern;
mod static_broadcast;
mod symbols;
mod text;
mod unify;

pub mod edit_distance;
pub mod error;
pub mod signature;

pub use broadcast::{Sizes, broadcast_shapes};
pub use calc::{DimExpr, DimValue, InferredOutput, OutputDim, OutputShape, ShapeCalculator};
pub use dim::{Dim, MAX_DIM, MAX_RANK, Merged, Symbol, SymbolBinding};
pub use error::{ArgRef, ShapeError};
pub use partial::Shape;
pub use pattern::{
    AxisRef, Bindings, Enforced, EnforcedDim, Outline, PatternCheck, PatternDim, Refined,
    ShapePattern, enforce_shape, refine_shape,
};
pub use static_broadcast::{
    ArgAxis, BroadcastCheck, BroadcastChecks, Policy, StaticBroadcast, broadcast_static,
};
pub use symbols::Symbols;
pub use unify::{DimensionCalculator, JointRefined, Unifier};

//! No library: this package holds extype's tour, the example `tour` (`tour.rs`), run with
//! `cargo run --example tour` at the repository root. It is a package of its own so that the
//! example builds no dev-dependency of the root package.

#![deny(clippy::undocumented_unsafe_blocks)]

//! No library: this package holds extype's compile-fail tests (`ui.rs`, one misuse per file
//! under `<theme>/`), kept out of the root package's `cargo test` because trybuild builds
//! extype and its dependencies once more to check them. Run them with
//! `cargo test -p extype-ui-tests` (or `cargo test --workspace`).

#![deny(clippy::undocumented_unsafe_blocks)]

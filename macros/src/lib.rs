//! # extype-macros
//!
//! Procedural macros of extype. They parse and validate their input, then emit calls into
//! `::extype::__private`; all behaviour lives in `extype-core`. Use them through the `extype` facade.

//! `#[dispatch]` handlers as users write them, for their own types only: anonymous values,
//! variadic arguments, user-written masked and ragged types. One test binary, one module per
//! concern (one link instead of four). Each module's handlers take its own types,
//! so sharing the dispatch table changes no call another module makes.
//!
//! Tests whose handlers take any operand (`&Value`, `&Operand`: a group handler over every
//! type, the precedence rules, operators, mixed dense arguments, `ops::supported`) are binaries of their own: two such
//! handlers for one group in one program are a duplicate, as `tests/dispatch_duplicates.rs`
//! shows on purpose.

#[path = "user_masked.rs"]
#[allow(dead_code)]
mod example;

mod dispatch_anonymous;
mod dispatch_masked;
mod dispatch_ragged;
mod dispatch_variadic;

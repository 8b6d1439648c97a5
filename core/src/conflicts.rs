//! The program-wide registration check: [`check()`] gathers every conflict among the
//! registrations linked into the program — the registry's names (`registry`) and the dispatch
//! table's keys (`dispatch`) — and reports them together. It sits above both, so neither needs to
//! know the other.

use crate::dispatch::table;
use crate::error::{Error, Result};
use crate::registry::registry;

/// Fails on any conflict among the program's registrations: a name given to two extension
/// types, a type registered under two names, a dispatch key given to two handlers (each error
/// names both definitions, file and line; several are listed together as [`Error::Many`]).
///
/// Without this call a conflict breaks only what uses it: loading the duplicated name, calling
/// the op with the duplicated key. A program (or a test) that wants to fail at start calls it
/// once:
///
/// ```
/// extype_core::check().expect("conflicting registrations");
/// ```
pub fn check() -> Result<()> {
    let mut conflicts = registry().conflicts();
    match table() {
        Ok(table) => conflicts.extend_from_slice(table.conflicts()),
        Err(build) => conflicts.push(build),
    }
    match Error::all(conflicts) {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

//! Op dispatch: the table of handlers registered with `#[dispatch(...)]`, and the rules that pick
//! one for a call.
//!
//! A handler is registered for one op (`#[dispatch(Add)]`, `#[dispatch(op = my_ops::SOFTPLUS)]`)
//! or for every op of a kind (`#[dispatch(unary_elementwise)]`, `binary_elementwise`,
//! `reduction`: a *group* handler, which receives the op as a callable on dense tensors with its
//! extra arguments bound — [`UnaryOp`], [`BinaryOp`], [`ReductionOp`]). Its key is the op (or
//! kind) and the type of each argument, read from the signature: `&T` for an extension type `T`
//! matches exactly `T`; `&Tensor` matches any dense argument (tensor, array, view); `&Value` and
//! `&Operand` match any argument (wildcards).
//!
//! ## Precedence
//!
//! For a call of op `f` on arguments of types `(A, B, …)`, candidates are tried in this order;
//! the first that does not decline gives the result:
//!
//! 1. **Exact**: the handler for `f` whose parameter types are exactly `(A, B, …)` (one hash
//!    lookup). With only extension-type arguments this is a handler taking those extension types;
//!    with dense arguments, one taking `&Tensor` in those positions (e.g. `(&Masked, &Tensor)`).
//! 2. **Wildcards**: handlers for `f` taking `&Value`/`&Operand` in some position, whose other
//!    positions match; fewer wildcards first, then source order (file, line).
//! 3. **Groups**: group handlers of `f`'s kind whose parameters match; exact ones (no wildcard)
//!    first, then by number of wildcards, then source order.
//! 4. **Dense default**: when every argument is dense, the op's kernels (or a user op's
//!    `dense = …`).
//!
//! A handler declines by returning `Ok(None)` (its return type is `Result<Option<T>>`); the next
//! candidate runs. An error from a handler is returned at once. When nothing takes the call the
//! error names the op, the argument types and every candidate tried:
//!
//! ```text
//! add: no handler for arguments (test.Masked, test.Ragged); tried: masked_binary(&Value, &Value)
//! at tests/x.rs:12 (declined); dense default (not applicable: argument 0 is test.Masked, not a
//! tensor)
//! ```
//!
//! Two handlers with the same key (same op or group, same parameter kinds) make the table fail to
//! build; the error names both functions with their file and line, and every call reports it
//! (as the [registry](crate::registry()) does). The table is built once, lazily, from every
//! handler linked into the program ([`table`]); [`DispatchTable::build`] builds one from an
//! explicit list (tests use it to check duplicate detection without breaking the global table).
//!
//! ## Cost
//!
//! A call builds the argument `TypeId`s in a fixed-size array (no allocation), does one hash
//! lookup (FxHash) for the exact key, and on a miss scans the op's short wildcard and group
//! lists. Measured with `cargo bench -p extype-core --bench dispatch`: see the figures in
//! `core/benches/dispatch.rs`'s header, copied here at each run of the benchmark:
//!
//! BENCH-FIGURES

pub mod entry;
pub mod group;
pub mod table;

pub use entry::{
    Call, DispatchEntry, Handled, HandlerFn, InferFn, IntoHandled, IntoInferred, ParamKind, Target,
};
pub use group::{BinaryOp, ReductionOp, UnaryOp};
pub use table::{DispatchTable, MAX_KEY, table};

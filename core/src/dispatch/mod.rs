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
//! ```ignore
//! use extype::{dispatch, BinaryOp, ExtensionType, Operand, Result, Tensor};
//!
//! #[derive(Clone, Debug, PartialEq, ExtensionType)]
//! #[extype(name = "my.Masked")]
//! pub struct Masked { pub values: Tensor, pub mask: Tensor }
//!
//! #[dispatch(Add)]                       // exact: (Masked, Masked)
//! fn masked_add(x: &Masked, y: &Masked) -> Result<Masked> { /* … */ }
//!
//! #[dispatch(binary_elementwise)]        // group, wildcard arguments; declines with Ok(None)
//! fn masked_binary(op: &BinaryOp, x: &Operand, y: &Operand) -> Result<Option<Masked>> { /* … */ }
//!
//! let z = extype::ops::add(&m1, &m2)?;  // -> masked_add
//! let w = extype::ops::mul(&m1, &dense)?; // -> masked_binary, `op.apply` runs the dense mul
//! ```
//!
//! (`examples/masked_tensor.rs` is the complete, tested version.) The attribute expands to a
//! [`DispatchEntry`] submitted to `inventory`; the same can be written by hand:
//!
//! ```
//! use extype_core::dispatch::{Call, DispatchEntry, DispatchTable, Handled, ParamKind, Target};
//! use extype_core::ops::{AsOperand, OpArgs, Operand, catalog};
//! use extype_core::{Result, Tensor, Value};
//!
//! fn dense_neg<'a>(_: &Call<'_>, args: &[Operand<'a>]) -> Result<Handled> {
//!     // Declines arrays of rank 0, takes the rest.
//!     let t = args[0].to_tensor().expect("a dense argument");
//!     if t.ndim() == 0 {
//!         return Ok(Handled::Declined);
//!     }
//!     Ok(Handled::Done(Value::Tensor(t.dense_op(&catalog::ABS, &OpArgs::none())?)))
//! }
//! static NEG_IS_ABS: DispatchEntry = DispatchEntry::new(
//!     Target::Op(&catalog::NEG), &[ParamKind::Tensor], dense_neg, None, "dense_neg", file!(), line!(),
//! );
//!
//! let table = DispatchTable::build([&NEG_IS_ABS])?;
//! let x = ndarray::array![-1.0f32, 2.0];
//! let y = table.call(&catalog::NEG, &[x.as_operand()], &OpArgs::none())?;
//! assert_eq!(y.into_tensor()?, Tensor::from(ndarray::array![1.0f32, 2.0].into_dyn()));
//! // A scalar: the handler declines and the dense default (the kernels' neg) runs.
//! let s = ndarray::arr0(3.0f32);
//! let y = table.call(&catalog::NEG, &[s.as_operand()], &OpArgs::none())?;
//! assert_eq!(y.into_tensor()?, Tensor::from(ndarray::arr0(-3.0f32).into_dyn()));
//! # Ok::<(), extype_core::Error>(())
//! ```
//!
//! ## Handler signatures
//!
//! - Arguments, in the op's order: `&T` (an extension type), `&Tensor` (a dense argument; an array
//!   view is copied into a tensor for it), `&Value` (any argument; an extension value passed by
//!   reference is rebuilt from clones of its components) or `&Operand` (any argument, no cost).
//!   An extra `&OpArgs` parameter (anywhere) receives the call's non-tensor arguments (axes,
//!   keepdims, dtype, …) and is not dispatched on.
//!   Parameters are read by trait ([`HandlerParam`]), not by the name of their type: aliases
//!   (`type T = Tensor;`) work, and a user extension type named `Value` is matched exactly.
//!   Counts that do not fit the op are compile errors.
//! - Group handlers take the op first: `op: &UnaryOp` / `&BinaryOp` / `&ReductionOp`, then 1, 2
//!   or 1 arguments. `op.apply(…)` runs the dense op with its extra arguments bound;
//!   [`ReductionOp::apply_masked`] runs the kernels' masked reductions.
//! - Return `Result<T>` or `Result<Option<T>>` (`Ok(None)` declines) with `T` an extension type,
//!   [`Tensor`](crate::Tensor) or [`Value`](crate::Value). Returning `Err` stops the dispatch with
//!   that error ([`Error::unsupported`](crate::error::Error::unsupported) for "cannot do this").
//! - `#[dispatch(Op, infer = f)]` registers `f(call: &Call, specs: &[&ValueSpec])` returning
//!   `Result<ValueSpec>` / `Result<Inferred>`, optionally in an `Option` to decline; it serves
//!   [`ops::infer_spec`](crate::ops::infer_spec) with the same precedence as calls. Without
//!   `infer = …` a handler gets a default from its return type (read through
//!   [`IntoHandled::DEFAULT_INFER`], never by the type's name): for an extension type `T`,
//!   component-wise inference ([`ops::infer::componentwise::<T>`](crate::ops::infer::componentwise):
//!   when `T` is tensor-like and the tensor fields of the first input of type `T` share the shape
//!   it shows, the op's dense inference on the inputs' tensor-like specs gives every component's
//!   shape and the dtype of the component `T` shows; a masked tensor's `add`, `greater`, `cast`,
//!   reductions, `reshape`, `where` infer with no code), otherwise it declines and the error says
//!   the handler has no spec inference; for `Tensor`, the op's dense inference on the inputs'
//!   tensor-like specs ([`ops::infer::on_tensor_like`](crate::ops::infer::on_tensor_like)); none
//!   for `Value`. `infer = f` replaces the default; `f` may call `componentwise` and adapt its
//!   result.
//! - `#[dispatch(operators)]` on an extension type (above its `#[derive]`) implements `&a + &b`,
//!   `-`, `*`, `/` (right-hand side: anything [`AsOperand`](crate::ops::AsOperand)) and unary `-`
//!   through `ops::add` & co., returning `Result<Value>`.
//!
//! Misuse (unknown op, wrong number of arguments for the op's kind, an argument not taken by
//! shared reference, `impl Trait`, generic or `async` functions, an unsupported return type, a
//! group handler without its op argument, …) is a compile error at the offending tokens.
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
//!    `dense = …`); otherwise the fallback the op's catalog entry carries for extension values,
//!    if it has one ([`Op::has_fallback`](crate::ops::Op::has_fallback): `stack` and `concat`
//!    join extension values of one batchable type on axis 0 with their batch encoders).
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
//! Two handlers with the same key (same op or group, same parameter kinds) break only that key:
//! a call (or spec inference) that reaches it returns the error naming both functions with their
//! file and line, and every other call works, as the [registry](crate::registry()) does for
//! names. [`crate::check()`] reports every such conflict at once, for a program or test that
//! wants to fail at start. The table is built once, lazily, from every handler linked into the
//! program ([`table()`]); [`DispatchTable::build`] builds one from an explicit list.
//!
//! ## Cost
//!
//! A call on a catalog op finds the op's handlers at its catalog slot (no hashing), compares
//! the argument `TypeId`s with its few exact handlers in turn (hashed past eight) and takes an
//! operand's `TypeId` from the type it was made from; the value a handler returns goes into a
//! block the thread kept from the last value it dropped, behind a one-word handle. Measured with
//! `cargo bench -p extype-core --bench dispatch`: `ops::add` on two small MaskedTensors costs a
//! few tens of nanoseconds more than the handler called directly, and so does `ops::add` on two
//! small dense tensors over the kernel; on large tensors it runs at the kernel's speed.
//! TensorFlow takes microseconds for the same dispatched add. For the figures, the method and
//! where the remaining time goes, see BENCHMARKS.md in the repository ("Op dispatch").

pub mod entry;
pub mod group;
pub mod param;
pub mod table;

pub use entry::{
    Call, DispatchEntry, Handled, HandlerFn, InferFn, IntoHandled, IntoInferred, ParamKind, Target,
};
pub use group::{BinaryOp, ReductionOp, UnaryOp};
pub use param::{GroupParam, HandlerParam};
pub use table::{DispatchTable, MAX_KEY, table};

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
//! let w = extype::ops::mul(&m1, &dense)?; // -> masked_binary, `op.apply_as` runs the dense mul
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
//!   view is copied into a tensor for it), `&TensorView` (a dense argument read in place: an
//!   array or scalar is not copied), [`&OrDense<T>`](OrDense) (a `T` or a dense argument: the
//!   handler is registered for every mix of `T` and dense arguments, but not all-dense, so one
//!   function serves `masked + masked`, `masked + array` and `scalar * masked` while dense calls
//!   keep the kernels' fast path), `&Value` (any argument; an extension value passed by
//!   reference is rebuilt from clones of its components) or `&Operand` (any argument, no cost).
//!   Last, for a variadic op (`concat`, `stack`): `&[&T]` takes every remaining argument, one
//!   or more, each of exactly the extension type `T`, so one handler serves a call of any
//!   length (a handler of a fixed arity for the same types still wins for its own length);
//!   `&[OrDense<T>]` takes them when each is a `T` or dense, in any mix (TensorFlow's
//!   `tf.stack([masked, dense])`), but not a call whose arguments are all dense (`&[&T]` is
//!   tried first where both match).
//!   An extra `&OpArgs` parameter (anywhere, at most one) receives the call's non-tensor
//!   arguments (axes, keepdims, dtype, …) and is not dispatched on.
//!   Parameters are read by trait ([`HandlerParam`]), not by the name of their type: aliases
//!   (`type T = Tensor;`) work, and a user extension type named `Value` is matched exactly.
//!   Counts that do not fit the op are compile errors.
//! - Group handlers take the op first: `op: &UnaryOp` / `&BinaryOp` / `&ReductionOp`, then 1, 2
//!   or 1 arguments. The op runs with the call's extra arguments bound, on **any operand**
//!   ([`AsOperand`](crate::ops::AsOperand): a [`Tensor`](crate::Tensor), an ndarray array or
//!   view, a Rust scalar, a [`Value`](crate::Value), an [`Operand`](crate::ops::Operand) or an
//!   extension value), like the `ops::*` functions:
//!   - `op.apply(x)` (binary: `op.apply(x, y)`) returns a [`Value`](crate::Value);
//!     `op.apply_as::<T>(x)` returns `T`: [`Tensor`](crate::Tensor), an extension type, or an
//!     ndarray `Array`/`ArcArray` moved out of the result without a copy — so a type with
//!     `ArrayD<f32>` fields writes `values: op.apply_as(&x.values)?` (any
//!     [`FromValue`](crate::ops::FromValue)).
//!   - Dense operands run the op's dense default at once (the kernels, or a user op's
//!     `dense = …`; no table lookup, and handlers registered for `&Tensor` arguments are not
//!     consulted, so a handler applying its op to its dense parts never reaches itself). An
//!     operand that is an extension value goes through the dispatch table, so a field that is
//!     itself an extension value works.
//!   - `op.result_dtype(dtype)` (binary: two dtypes) is the dtype the op returns (`is_nan`:
//!     `bool`; `reduce_mean` of `i32`: `f64`), for a handler whose type holds one dtype to
//!     decline (`Ok(None)`) ops whose result it cannot hold.
//!   - [`ReductionOp::apply_other`] / [`apply_other_as`](ReductionOp::apply_other_as) run
//!     another reduction with the same axes and keepdims (`reduce_any` of a mask);
//!     [`ReductionOp::apply_masked`] runs the kernels' masked reductions on dense operands.
//! - Return `Result<T>` or `Result<Option<T>>` (`Ok(None)` declines) with `T` an extension type,
//!   [`Tensor`](crate::Tensor) or [`Value`](crate::Value). Returning `Err` stops the dispatch with
//!   that error ([`Error::unsupported`](crate::error::Error::unsupported) for "cannot do this"),
//!   wrapped to name the op, the handler and its registration
//!   ([`DispatchError::Handler`](crate::error::DispatchError::Handler)):
//!   `is_nan via masked_unary (src/lib.rs:100): into_array: expected dtype f32, found bool`.
//!   A handler calling ops that reach another handler that fails gives a chain
//!   (`add via masked_binary (a.rs:1): logical_and via other (b.rs:2): …`); the same handler
//!   failing on the same op again (recursion into nested values) is named once. The handler's own
//!   error is the wrapper's `source()`, and
//!   [`Error::without_context`](crate::Error::without_context) strips every layer.
//! - `#[dispatch(Op, infer = f)]` registers `f(call: &Call, specs: &[&ValueSpec])` returning
//!   `Result<ValueSpec>` / `Result<Inferred>`, optionally in an `Option` to decline; it serves
//!   [`ops::infer_spec`](crate::ops::infer_spec) with the same precedence as calls. Its errors
//!   are wrapped the same way, saying so:
//!   `add spec inference via masked_add (src/lib.rs:90): …`.
//!   Without `infer = …` a handler gets a default from its return type (read through
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
//! - `#[dispatch(operators)]` on an extension type `T` (above its `#[derive]`) implements
//!   `&a + &b`, `-`, `*`, `/` and unary `-&a` through the catalog ops `ADD` & co., returning
//!   `Result<T>`, so results chain: `(&(&a + &b)? * &c)?` (a handler that returns something else
//!   than a `T` gives an error saying so; `ops::add` & co. return any `Value`). The right-hand
//!   side is a reference to anything [`AsOperand`](crate::ops::AsOperand) or a numeric scalar
//!   ([`OperatorRhs`](crate::ops::OperatorRhs): `i8` … `u64`, `f32`, `f64`; not `bool`, which
//!   takes no arithmetic; another type is a compile error listing these). On the left an `f64` or
//!   `i64` goes (`2.0 * &a`, `1 - &a`): one type per kind of literal, so unsuffixed literals
//!   infer; put other types on the right or widen them (`f64::from(k) - &a`). Scalars are weakly
//!   typed as Python scalars are in TensorFlow and JAX: they take the dtype of the other
//!   operand's tensor-like view, exactly or with an error
//!   ([`ops::scalar_like`](crate::ops::scalar_like)), so `&x_f32 + 1.0` adds in `f32`; beside a
//!   value that is not tensor-like they keep their own dtype.
//!   The runtime is [`ops::operators`](crate::ops::operators).
//!
//! Misuse (unknown op, wrong number of arguments for the op's kind, an argument not taken by
//! shared reference, `impl Trait`, generic or `async` functions, an unsupported return type, a
//! group handler without its op argument, …) is a compile error at the offending tokens.
//!
//! A group handler by hand (what `#[dispatch(unary_elementwise)] fn f32_only(op: &UnaryOp, x:
//! &Tensor) -> Result<Option<Tensor>>` generates, minus the checks), taking the result as an
//! array, declining ops whose result is not `f32`, and failing on other dtypes:
//!
//! ```
//! use extype_core::dispatch::{Call, DispatchEntry, DispatchTable, Handled, ParamKind, Target};
//! use extype_core::dispatch::UnaryOp;
//! use extype_core::ops::{AsOperand, OpArgs, OpKind, Operand, catalog};
//! use extype_core::{DType, Error, Result, Tensor, Value};
//! use ndarray::{ArrayD, array};
//!
//! fn f32_only(call: &Call<'_>, args: &[Operand<'_>]) -> Result<Handled> {
//!     let op = UnaryOp::new(call);
//!     let x = &args[0];
//!     if x.as_view().map(|v| v.dtype()) != Some(DType::F32) {
//!         return Err(Error::unsupported(op.name(), "takes f32 only"));
//!     }
//!     if op.result_dtype(DType::F32)? != DType::F32 {
//!         return Ok(Handled::Declined); // e.g. is_nan: bool
//!     }
//!     let y: ArrayD<f32> = op.apply_as(x)?; // the kernel's output, moved out: no copy
//!     Ok(Handled::Done(Value::Tensor(Tensor::from(y))))
//! }
//! static F32_ONLY: DispatchEntry = DispatchEntry::new(
//!     Target::Group(OpKind::UnaryElementwise), &[ParamKind::Tensor], f32_only, None,
//!     "f32_only", file!(), line!(),
//! );
//!
//! let table = DispatchTable::build([&F32_ONLY])?;
//! let none = OpArgs::none();
//! let x = array![1.0f32, -2.0];
//! let y = table.call(&catalog::NEG, &[x.as_operand()], &none)?.into_tensor()?;
//! assert_eq!(y, Tensor::from(array![-1.0f32, 2.0].into_dyn()));
//! // Declined: the dense default gives the bool result.
//! let nan = table.call(&catalog::IS_NAN, &[x.as_operand()], &none)?.into_tensor()?;
//! assert_eq!(nan.dtype(), DType::Bool);
//! // An error inside the handler names the op, the handler and its registration.
//! let err = table.call(&catalog::NEG, &[array![1i32].as_operand()], &none).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     format!("neg via f32_only ({}): neg: takes f32 only", F32_ONLY.location())
//! );
//! assert_eq!(err.without_context().to_string(), "neg: takes f32 only");
//! # Ok::<(), extype_core::Error>(())
//! ```
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
//! candidate runs. An error from a handler is returned at once, naming the handler (above). When nothing takes the call the
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
pub use param::{GroupParam, HandlerParam, OrDense};
pub use table::{DispatchTable, MAX_KEY, consultations, table};

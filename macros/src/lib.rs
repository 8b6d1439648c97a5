//! # extype-macros
//!
//! Procedural macros of extype: `#[derive(ExtensionType)]`, `#[derive(StaticValue)]` and
//! `#[dispatch]`. They parse and validate their input, then emit calls into
//! `::extype::__private`; all behaviour lives in `extype-core`. Use them through the `extype`
//! facade.
//!
//! The crate depends on syn, quote, proc-macro2 and the leaf crate `extype-shape` only (the
//! shape-pattern parser and unifier for `shape` contracts, the op signature table for
//! `#[dispatch]`, the edit distance for "did you mean"), never on `extype-core`: it builds in
//! parallel with the runtime, without waiting for ndarray, rayon or the kernels.
//!
//! The derive is organised like serde_derive: `ast` and `attr` parse the input into a model,
//! `check` validates it (collecting every error in a `ctxt::Ctxt`), and `expand` generates
//! code, split by concern. On invalid input the macro emits the errors plus a minimal stub impl,
//! so the user sees the real problem once instead of a cascade.
//!
//! ## Diagnostics
//!
//! Every misuse has a compile-fail case under `tests/ui/<theme>/` with its expected `.stderr`
//! (`cargo test --test ui`; regenerate with `TRYBUILD=overwrite cargo test --test ui` and read
//! each file). Misuse the macro detects (attributes, names, patterns, shapes of input) is one
//! error per mistake, spanned on the offending token, plus a stub so nothing else is reported.
//!
//! An unsupported field *type* can only be seen by the trait solver. Every generated item (the
//! spec struct and each impl) is bounded by `Ty: Field` for each field type, spanned at the
//! field: for an unsupported type the bound fails where it is written, every item's error is
//! the same error at the same span, and rustc prints it once, through `Field`'s
//! `on_unimplemented` (what a field may be; for a `Vec` or array of plain numbers,
//! `SequenceItem`'s: use a tensor, or `#[extype(static)]`). Inside the items the bound is
//! assumed, so nothing else reports it; the registry and batching entries, `static`s that cannot
//! carry bounds, reach the type through a probe (`__private_v1::Probe`) instead of naming its impls.
//! So one unsupported field type is one error, at the field (rustc's closing count still counts
//! the duplicates it folded); a use of the type elsewhere (`Foo::try_new`) is reported there, as
//! an impl whose bound on that field does not hold. The bounds cost compile time per item and
//! per bound, so the derive emits as few items as it can: `Field` and `ExtensionType` take their
//! methods from the type's table (see BENCHMARKS.md in the repository, "Compile time of the
//! derive").
//! `#[extype(skip)]` on a type without `Default` is one error at the field (the table's only use
//! of the type), and so is a bad field of a `#[derive(StaticValue)]` struct (every use of the
//! type is spanned alike, so rustc reports it once).
//!
//! `#[dispatch]` never classifies a handler's parameters by their types' names: the generated
//! code asks the trait (`HandlerParam`, `GroupParam` in core), so an unsupported parameter type
//! is one error at that type, through the trait's `on_unimplemented`. Whether the number of
//! dispatched arguments fits the op (`&OpArgs` does not count, and only the trait knows which
//! parameter is one) is a `const` check spanned at the parameter list. A handler takes at most
//! one `&OpArgs`, so with `n` parameters the count is `n` or `n - 1`: when neither fits the op
//! (`#[dispatch(Abs)]` on three parameters, `Add` on one), the macro reports it directly, a
//! plain error naming the op, its arity and the count. Only `n` parameters for an op of `n - 1`
//! arguments, none of them `&OpArgs`, is left to the `const` check (which then says that none is).
//! Two `&OpArgs` parameters are a `const` error too.
//!
//! A type deriving `ExtensionType` without `Clone` is one error at its name: every generated item
//! is bounded by `Foo: Clone` there (the same error for each, printed once), and assumes it inside.
//!
//! ## How derived types are compiled
//!
//! The struct-level logic (build the spec, walk the components, rebuild from components,
//! (de)serialize, compare, relax, clone, hash and print specs) lives once in
//! `extype_core::derived`, over a per-type table: `unsafe impl Derived for Foo { const DESC }`,
//! with each field's offset in `Foo` and in `FooSpec` (`offset_of!`) and the operations of the
//! field's *type* (`FieldOps::of::<Ty>()`, written here rather than read from a trait constant a
//! hand-written impl could override; one table per field type). The `Field` and `ExtensionType`
//! impls write no method: they name the table (`const STRUCT`, `const VALUE`, typed by the
//! type, so no other impl can borrow it) and inherit the traits' provided methods, which walk it; the spec's std traits are one
//! call each into that module; `FooSpec`'s `TypeSpec` impl is a blanket impl over `DerivedSpec`.
//! The registry entry (`RegistryEntry::derived::<Foo>`) reaches the table through a probe, and
//! specs and values it deserializes or rebuilds are `ErasedSpec` / `ErasedValue`: one
//! implementation of `dyn AnySpec` / `dyn AnyExtension` for all derived types, which still
//! downcast to `FooSpec` / `Foo` and compare, hash and print like them
//! (`tests/derive/derive_erased.rs`).
//!
//! ## Compile-time cost
//!
//! `python3 macros/compile_bench/gen.py --runs 7` builds the same 50 structs deriving nothing,
//! `ExtensionType`, or serde's `Serialize`/`Deserialize`, and compares their build times (full and
//! incremental). Its budget is 1.5× serde's; the full build is still over it (a fixed per-crate
//! cost, located in BENCHMARKS.md); for the figures, see BENCHMARKS.md in the repository (what each design step saved is in its history).

#![deny(clippy::undocumented_unsafe_blocks)]

mod ast;
mod attr;
mod check;
mod ctxt;
mod dispatch;
mod door;
mod expand;
mod static_value;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `ExtensionType` for a struct of tensors, nested extension types, containers and static
/// values. See the `extype` crate documentation for the attributes.
#[proc_macro_derive(ExtensionType, attributes(extype))]
pub fn derive_extension_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}

/// Derives `StaticValue` (and declares the type a static field, as `extype::static_field!`
/// does, with the default batching of `extype::batch::StaticBatch`: equal across a batch) for an
/// enum of unit variants, serialized as the variant's name, or a struct whose fields
/// are static values, serialized field by field. The type must also derive (or implement)
/// `Clone`, `Debug`, `PartialEq`, `Eq` and `Hash`. See the `extype` crate documentation.
#[proc_macro_derive(StaticValue)]
pub fn derive_static_value(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    static_value::derive(&input).into()
}

/// Registers a dispatch handler: `#[dispatch(Add)] fn masked_add(x: &MaskedTensor, y: &MaskedTensor)
/// -> extype::Result<MaskedTensor>`. The key is the op (a catalog name such as `Add` or
/// `reduce_sum`, a group `unary_elementwise` / `binary_elementwise` / `reduction`, or
/// `op = path::TO_OP` for an op declared with `declare_op!`) and the argument types of the
/// signature (`&T` for an extension type, `&Tensor`, `&Value` or `&Operand`; one `&OpArgs` for
/// the extra arguments), classified by trait in the generated code, never by the type's name, so
/// aliases work. `infer = path`
/// adds the handler's spec inference. On a struct `T`, `#[dispatch(operators)]` overloads `+ - * /`
/// and unary `-` through dispatch, returning `extype::Result<T>`, with numeric scalars on either
/// side (`&x + 1.0`, `2.0 * &x`; they take the other operand's dtype). See `extype::dispatch`
/// for the precedence rules.
#[proc_macro_attribute]
pub fn dispatch(args: TokenStream, input: TokenStream) -> TokenStream {
    dispatch::dispatch(args.into(), input.into()).into()
}

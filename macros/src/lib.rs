//! # extype-macros
//!
//! Procedural macros of extype. They parse and validate their input, then emit calls into
//! `::extype::__private`; all behaviour lives in `extype-core`. Use them through the `extype`
//! facade.
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
//! each file). Each shows exactly one error. Unsupported field types are reported through
//! `Field`'s `on_unimplemented`: the generated impls are bounded on `for<'__f> Ty: Field` (a
//! higher-ranked bound, so rustc does not reject it as trivially false), so only one place
//! proves the bound — the registry entry of a non-generic type, or a per-field assertion spanned
//! on the field's type for a generic one.
//!
//! ## Compile-time cost
//!
//! ```text
//! python3 macros/compile_bench/gen.py --runs 7
//! ```
//!
//! generates three throwaway crates under `target/compile_bench/` (own `[workspace]` tables, not
//! committed) with the same 50 structs of 3–5 fields (`ArrayD<f32>`, `Array2<i64>`,
//! `ArrayD<bool>`, `String` or `bool`, `Vec<ArrayD<f32>>`, a nested struct in every fifth, shape
//! contracts on a third), deriving `Clone, Debug` plus nothing (`base`), `ExtensionType`, or
//! serde's `Serialize, Deserialize`. After building the dependencies once it times
//! `touch src/lib.rs && cargo build` (dev profile), the crates taking turns, both incrementally
//! (what that command does by default) and with `CARGO_INCREMENTAL=0` (the full cost of the
//! crate, as in a clean or CI build), and prints medians and ratios.
//!
//! Measured 2026-11-21 on the shared 2-core build machine (Rust 1.95; other jobs running, so
//! single runs vary by ±15% and absolute times drift between sessions: compare ratios, or runs
//! made back to back). Medians of 7, the core before and after the change below, back to back:
//!
//! | mode                  | base   | serde  | extype before | extype now | extype / serde (before → now) |
//! |-----------------------|--------|--------|---------------|------------|-------------------------------|
//! | incremental           | 0.08 s | 0.29 s | 0.73 s        | 0.73 s     | 2.8× → 2.5×                   |
//! | `CARGO_INCREMENTAL=0` | 0.10 s | 0.75 s | 3.30 s        | 2.97 s     | 4.2× → 4.0×                   |
//!
//! (serde's medians from the "now" run; in the "before" run they were 0.26 s and 0.78 s, so the
//! incremental ratio moved mostly with serde's noise: extype's incremental time did not change.)
//!
//! **The 1.5× target is not met, in either mode.** Where the time goes (`RUSTC_BOOTSTRAP=1` rustc
//! with `-Zprint-mono-items` / `-Ztime-passes` on the generated crate, diagnostics only):
//! serde's derives emit only code generic over the serializer, so its crate codegens nothing;
//! every extension type registers itself (`inventory`), and its registry entry's function
//! pointers (`deserialize_spec`, `from_components`) box the spec as `dyn AnySpec` and the value as
//! `dyn AnyExtension`, whose vtables force each type's impls and the generic core code behind them
//! to be codegened in the deriving crate. LLVM and codegen are most of the full-build gap; in
//! incremental rebuilds the gap is the bookkeeping of those cached objects. The expansion itself
//! is comparable in size to serde's (about 3,500 tokens for a 4-field struct with a shape
//! contract).
//!
//! Reductions so far:
//! - `spec_to_value` and `Display` no longer call `__private::struct_spec_value::<Self, N>` /
//!   `fmt_struct_spec::<Self, N>`, whose iterator chains and `BTreeMap::from_iter` sort were
//!   monomorphized per type (incremental ratio 2.9× → about 2× then). `try_new` and
//!   `refine_shapes` are `#[inline]` so they are codegened only where called. Removing `#[inline]`
//!   from the trait methods made builds slower (they would be codegened eagerly), so it stays.
//! - Core (this step): the per-type generic helpers no longer carry closures, combinators or
//!   iterator chains, each of which was its own mono item per type: `component_paths::<T>` collects
//!   the paths in a non-generic function (that chain alone was ~12 items per type),
//!   `registered_name::<T>` is a one-line wrapper over a lookup by `TypeId`, the error builders of
//!   `from_components` / `validated` / the registry entry take names instead of `T`, and the
//!   `AnySpec` vtable methods and the registry's `deserialize_spec_of` / `from_components_of` use
//!   `match` instead of `?`, `map` and `is_some_and`. Function mono items of the 50-type crate:
//!   6,758 → 5,127, about 135 → 103 per type (`MONO_ITEM fn` lines of `-Zprint-mono-items=yes`,
//!   Rust 1.95; not comparable with counts made otherwise). Full build −10%, incremental
//!   unchanged (within noise).
//!
//! What is left per type is mostly irreducible without changing the core traits: the `Field`,
//! `TypeSpec` and `ExtensionType` impls, the 14 `AnySpec` and 8 `AnyExtension` vtable methods
//! (each a thin forwarder to the former at `opt-level = 0`), the spec's derived
//! `Clone`/`PartialEq`/`Hash`/`Debug`/`Display`, and `Arc<T>` construction and unwrapping. Closing
//! the gap needs a design change, e.g. one erased object per type instead of two blanket-impl
//! vtables plus a `TypeSpec` layer, or registering types lazily (not through fn pointers in a
//! static) so that nothing is codegened until a crate calls it; not attempted here.

mod ast;
mod attr;
mod check;
mod ctxt;
mod dispatch;
mod expand;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `ExtensionType` for a struct of tensors, nested extension types, containers and static
/// values. See the `extype` crate documentation for the attributes.
#[proc_macro_derive(ExtensionType, attributes(extype))]
pub fn derive_extension_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}

/// Registers a dispatch handler: `#[dispatch(Add)] fn masked_add(x: &MaskedTensor, y: &MaskedTensor)
/// -> extype::Result<MaskedTensor>`. The key is the op (a catalog name such as `Add` or
/// `reduce_sum`, a group `unary_elementwise` / `binary_elementwise` / `reduction`, or
/// `op = path::TO_OP` for an op declared with `declare_op!`) and the argument types of the
/// signature (`&T` for an extension type, `&Tensor`, `&Value` or `&Operand`). `infer = path`
/// adds the handler's spec inference. On a struct, `#[dispatch(operators)]` overloads `+ - * /`
/// and unary `-` through dispatch. See `extype::dispatch` for the precedence rules.
#[proc_macro_attribute]
pub fn dispatch(args: TokenStream, input: TokenStream) -> TokenStream {
    dispatch::dispatch(args.into(), input.into()).into()
}

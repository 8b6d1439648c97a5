//! The door generated code goes through: `::extype::__private`, version [`VERSION`]. Every
//! expansion names the door of that version, `::extype::__private_v1`, and checks that the
//! runtime carries that version (`__private::expect_version`), so a macro crate and a runtime
//! from different releases fail to compile with a message that says so.

use proc_macro2::TokenStream;
use quote::quote;

/// The version of `::extype::__private` this crate writes code against. Its module,
/// `__private_v1`, is spelled out wherever generated code names the door (here, and in the few
/// bounds generated outside a `const _` block): they change together.
pub const VERSION: u32 = 1;

/// `use ::extype::__private_v1 as __x;` and the version check, at the top of a generated
/// `const _: () = { … };` block.
pub fn open() -> TokenStream {
    quote! {
        use ::extype::__private_v1 as __x;
        const _: () = ::extype::__private::expect_version(#VERSION);
    }
}

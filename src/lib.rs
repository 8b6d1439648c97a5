//! # extype
//!
//! Extension types for Rust: turn your own structs of ndarray tensors into values with a static
//! type specification, zero-copy decomposition into components, a registry for loading by name,
//! batching, and op dispatch.
//!
//! This facade re-exports the runtime ([`extype_core`]) and the derive macros
//! ([`extype_macros`]). See the repository README for a tour.

pub use extype_core::*;
pub use extype_macros::{ExtensionType, dispatch};

#[cfg(test)]
mod tests {
    /// Generated code names `::extype::__private`; it must resolve through the facade.
    #[test]
    fn private_door_resolves() {
        let path = ::extype_core::__private::FieldPath::Root;
        let _: &crate::__private::FieldPath<'_> = &path;
        assert_eq!(
            crate::__private::registered_name::<crate::AnonymousExtension>(),
            "extype.Anonymous"
        );
    }
}

//! The name each extension type is registered under, looked up by `TypeId`.
//!
//! Specs need their type's registered name: [`AnySpec::name`](crate::AnySpec::name), the
//! serialized form of a derived spec (`SpecTree::Spec` carries the name), error messages. The
//! table that knows the names is the registry, and the registry sits *above* the specs and the
//! derived-type runtime: it decodes specs and rebuilds values, so it imports them. If `spec` or
//! `derived` asked the registry directly, the two layers would import each other.
//!
//! So the question lives here, below both, and the answer is plugged in from above (dependency
//! inversion): this module declares a [`NameSource`] — a function from `TypeId` to name — and
//! collects the sources submitted through `inventory`; the registry submits the one source core
//! has, which builds the registry on first use like every other access. A
//! link-time hook rather than a setter called at start-up: Rust runs no code before `main`, and a
//! name may be asked for before anything else touched the registry.
//!
//! [`registered_name_of`] asks the sources in turn and falls back to the type's default name
//! (`ExtensionType::NAME`) when none knows the type — not registered, or the registry failed to
//! build (duplicate names); it never fails. The typed front is
//! [`registered_name::<T>()`](crate::registered_name).

use std::any::TypeId;

/// A source of registered names: the name `type_id` is registered under, or `None`.
///
/// Submitted with `inventory::submit!`; core's registry submits the only one.
pub(crate) struct NameSource {
    lookup: fn(TypeId) -> Option<&'static str>,
}

impl NameSource {
    /// A source answering with `lookup`.
    pub(crate) const fn new(lookup: fn(TypeId) -> Option<&'static str>) -> Self {
        NameSource { lookup }
    }
}

inventory::collect!(NameSource);

/// The name the type `type_id` is registered under, or `fallback` (its default name) when no
/// source knows it. Not generic, so compiled once, not once per type.
pub(crate) fn registered_name_of(type_id: TypeId, fallback: &'static str) -> &'static str {
    for source in inventory::iter::<NameSource> {
        if let Some(name) = (source.lookup)(type_id) {
            return name;
        }
    }
    fallback
}

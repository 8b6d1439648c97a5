//! [`Probe`]: how the derive's link-time entries (registry, batching) reach a type's impls
//! without naming them where they might not apply.
//!
//! Every generated impl of a derived type is bounded by its field types, so an unsupported field
//! type is one error, at the field: the impls then simply do not apply. An inventory entry is a
//! `static` and cannot carry those bounds; naming `Foo: Derived` there would be a second error.
//! Instead the entry holds a function generated beside it, whose body asks through method
//! resolution on the concrete type (`(&Probe::<Foo>::NEW).derived_desc()`): the impl for
//! `Probe<T>` with `T: Derived` is chosen when it applies, the fallback for `&Probe<T>` (one
//! auto-reference further) otherwise. In a program that compiles the first always applies; the
//! fallback only keeps a failed build to its one error.

use std::marker::PhantomData;

use super::{Derived, StructDesc};

/// A zero-sized stand-in for the type `T`, on which the derive's entries call the probing
/// methods ([`ProbeDerived`] and its fallback [`NotDerived`]; the batching module adds its own).
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    /// The probe of `T`.
    pub const NEW: Probe<T> = Probe(PhantomData);
}

/// Chosen when `T: Derived` holds: the type's table.
pub trait ProbeDerived {
    /// The table of the probed type.
    fn derived_desc(&self) -> Option<&'static StructDesc>;
}

impl<T: Derived> ProbeDerived for Probe<T> {
    #[inline]
    fn derived_desc(&self) -> Option<&'static StructDesc> {
        Some(T::DESC)
    }
}

/// The fallback, one auto-reference further: the probed type's impls do not apply (its build
/// has already failed at a field).
pub trait NotDerived {
    /// `None`: no table.
    fn derived_desc(&self) -> Option<&'static StructDesc> {
        None
    }
}

impl<T> NotDerived for &Probe<T> {}

#[cfg(test)]
mod tests {
    // Both in scope, as in generated code: resolution picks the one that applies (derived types
    // take `ProbeDerived`: their registry entries decode specs in `tests/derive_registry.rs`).
    #[allow(unused_imports)]
    use super::{NotDerived as _, Probe, ProbeDerived as _};

    /// A type with no derived impls takes the fallback: no table, and no compile error.
    #[test]
    fn a_type_that_is_not_derived_has_no_table() {
        assert!((&Probe::<u8>::NEW).derived_desc().is_none());
        assert!((&Probe::<Vec<f32>>::NEW).derived_desc().is_none());
    }
}

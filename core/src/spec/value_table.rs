//! The `ExtensionType` methods of a derived struct, behind untyped pointers: [`ValueOps`], and
//! the [`ValueTable`] a derived type's `ExtensionType` impl names instead of writing them.
//!
//! Why: every generated impl of a derived type is bounded by its field types (so that an
//! unsupported field type is reported once, at the field), and every method body under those
//! bounds is checked per type. With the table, a derived `ExtensionType` impl is a spec type, a
//! name and a constant; the provided methods are compiled once, here and in
//! `__private_v1::derived`.

use std::fmt;
use std::marker::PhantomData;

use crate::error::Result;
use crate::tensor::Tensor;

/// What a derived value can do, over untyped pointers to it (or to uninitialised memory for its
/// spec, `out`). Implemented by the derive's struct tables (`__private_v1::StructDesc`);
/// not meant to be implemented elsewhere.
///
/// # Safety (of every method)
///
/// The table describes the value and spec types the pointers point to (what
/// [`ValueTable::new`] requires); `out` is valid for a write of one spec.
pub trait ValueOps: Sync {
    /// Writes the exact spec of the value at `value` to `out`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn write_spec(&self, value: *const u8, out: *mut u8);

    /// Moves the components out of the value at `value`, in component order. The value is given
    /// up: the caller neither uses nor drops it afterwards.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn components(&self, value: *mut u8) -> Vec<Tensor>;

    /// The value's validation: its nested extension values (recursively), its shape contract,
    /// then its own `validate = …` function.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn validate(&self, value: *const u8) -> Result<()>;
}

/// The table a derived type's [`ExtensionType::VALUE`](super::ExtensionType::VALUE) holds: its
/// [`ValueOps`], vouched for by the `unsafe` constructor.
///
/// Typed by the type it describes, so no `ExtensionType` impl can name another type's table:
/// `VALUE` is an `Option<ValueTable<Self>>`, and the only way to make one is
/// [`ValueTable::new`], whose caller vouches for it (`tests/ui/soundness/value_table.rs`).
pub struct ValueTable<T: ?Sized>(&'static dyn ValueOps, PhantomData<fn(T) -> T>);

impl<T: ?Sized> ValueTable<T> {
    /// The table of `T`, whose `ExtensionType::VALUE` this becomes.
    ///
    /// # Safety
    ///
    /// `table` describes `T` and its `ExtensionType::Spec` exactly (the derive passes the
    /// type's own `Derived::DESC`).
    pub const unsafe fn new(table: &'static dyn ValueOps) -> ValueTable<T> {
        ValueTable(table, PhantomData)
    }

    /// The operations (`const`: [`ExtensionType`](super::ExtensionType)'s provided methods read
    /// them in a constant).
    #[inline(always)]
    pub(super) const fn get(self) -> &'static dyn ValueOps {
        self.0
    }
}

// Written out: derived impls would ask `T: Clone` / `T: Debug`.
impl<T: ?Sized> Clone for ValueTable<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for ValueTable<T> {}

impl<T: ?Sized> fmt::Debug for ValueTable<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ValueTable")
    }
}

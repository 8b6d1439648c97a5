//! [`Value`]: a tensor or an extension value whose type is known only at run time.

use std::mem::ManuallyDrop;
use std::sync::Arc;

use super::{AnyExtension, AnySpec, ExtensionType};
use crate::error::{Error, Result, ValueError};
use crate::tensor::{Tensor, TensorSpec};

/// A tensor or an extension value (of any type, possibly anonymous). Clone is O(1).
///
/// ```
/// use extype_core::{Tensor, Value};
/// let v = Value::from(Tensor::from(ndarray::array![1i32, 2]));
/// assert!(v.as_tensor().is_ok());
/// assert_eq!(v.type_name(), "Tensor");
/// ```
#[derive(Clone, Debug)]
pub enum Value {
    /// A dense tensor.
    Tensor(Tensor),
    /// An extension value.
    Extension(SharedExtension),
}

/// An extension value of any type behind a shared pointer: what [`Value::Extension`] holds.
/// Derefs to [`dyn AnyExtension`](AnyExtension); clone is O(1).
///
/// One allocation holds the reference counts and the value (`Arc<dyn …>` of a private slot), so
/// wrapping a handler's result costs one allocation. Reference counting and dropping are code
/// shared by all types (through the `dyn`); per type there are only the slot's few methods.
#[derive(Clone)]
pub struct SharedExtension(Arc<dyn Shared>);

/// An extension value in its [`SharedExtension`] allocation, which a unique owner can move out.
struct Slot<T> {
    value: ManuallyDrop<T>,
    /// Whether `value` was moved out (then only the allocation is freed).
    taken: bool,
}

impl<T> Drop for Slot<T> {
    fn drop(&mut self) {
        if !self.taken {
            // SAFETY: `value` was not moved out, and is dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.value) }
        }
    }
}

/// The type-erased side of a [`Slot`].
trait Shared: Send + Sync {
    fn get(&self) -> &dyn AnyExtension;
    /// Moves the value out into a box.
    ///
    /// # Safety
    /// At most once per slot; afterwards the slot is only dropped.
    unsafe fn take_boxed(&mut self) -> Box<dyn AnyExtension>;
    /// Moves the value out as its components.
    ///
    /// # Safety
    /// As for [`take_boxed`](Shared::take_boxed).
    unsafe fn take_components(&mut self) -> Vec<Tensor>;
}

impl<T: ExtensionType> Shared for Slot<T> {
    #[inline]
    fn get(&self) -> &dyn AnyExtension {
        &*self.value
    }

    unsafe fn take_boxed(&mut self) -> Box<dyn AnyExtension> {
        self.taken = true;
        // SAFETY: the caller takes the value at most once; `taken` keeps `drop` off it.
        Box::new(unsafe { ManuallyDrop::take(&mut self.value) })
    }

    unsafe fn take_components(&mut self) -> Vec<Tensor> {
        self.taken = true;
        // SAFETY: as in `take_boxed`.
        unsafe { ManuallyDrop::take(&mut self.value) }.into_components()
    }
}

impl Shared for Slot<Box<dyn AnyExtension>> {
    #[inline]
    fn get(&self) -> &dyn AnyExtension {
        &**self.value
    }

    unsafe fn take_boxed(&mut self) -> Box<dyn AnyExtension> {
        self.taken = true;
        // SAFETY: as for `Slot<T>`.
        unsafe { ManuallyDrop::take(&mut self.value) }
    }

    unsafe fn take_components(&mut self) -> Vec<Tensor> {
        // SAFETY: forwarded from the caller.
        unsafe { self.take_boxed() }.into_components_boxed()
    }
}

impl SharedExtension {
    /// Wraps an extension value (one allocation).
    pub fn new<T: ExtensionType>(value: T) -> Self {
        SharedExtension(Arc::new(Slot {
            value: ManuallyDrop::new(value),
            taken: false,
        }))
    }

    /// Wraps a boxed extension value.
    pub fn from_box(value: Box<dyn AnyExtension>) -> Self {
        SharedExtension(Arc::new(Slot {
            value: ManuallyDrop::new(value),
            taken: false,
        }))
    }

    /// The value, if this is the only reference to it.
    pub fn try_unwrap(mut self) -> std::result::Result<Box<dyn AnyExtension>, SharedExtension> {
        match Arc::get_mut(&mut self.0) {
            // SAFETY: the only reference, consumed here: the slot is dropped right after.
            Some(slot) => Ok(unsafe { slot.take_boxed() }),
            None => Err(self),
        }
    }

    /// The components: moved out when this is the only reference, else those of a clone.
    pub fn into_components(mut self) -> Vec<Tensor> {
        match Arc::get_mut(&mut self.0) {
            // SAFETY: as in `try_unwrap`.
            Some(slot) => unsafe { slot.take_components() },
            None => self.clone_components(),
        }
    }

    /// Whether both point to the same value.
    pub fn ptr_eq(a: &SharedExtension, b: &SharedExtension) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl std::ops::Deref for SharedExtension {
    type Target = dyn AnyExtension;

    #[inline]
    fn deref(&self) -> &(dyn AnyExtension + 'static) {
        self.0.get()
    }
}

impl std::fmt::Debug for SharedExtension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// The spec of a [`Value`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueSpec {
    /// The spec of a dense tensor.
    Tensor(TensorSpec),
    /// The spec of an extension value.
    Extension(Box<dyn AnySpec>),
}

impl ValueSpec {
    /// Loose compatibility (tensor specs by shape/dtype, extension specs by their type's rule).
    pub fn is_compatible_with(&self, other: &ValueSpec) -> bool {
        match (self, other) {
            (ValueSpec::Tensor(a), ValueSpec::Tensor(b)) => a.is_compatible_with(b),
            (ValueSpec::Extension(a), ValueSpec::Extension(b)) => a.dyn_is_compatible_with(&**b),
            _ => false,
        }
    }

    /// The most specific spec compatible with both; `None` when none is.
    pub fn most_specific_compatible(&self, other: &ValueSpec) -> Option<ValueSpec> {
        match (self, other) {
            (ValueSpec::Tensor(a), ValueSpec::Tensor(b)) => {
                a.most_specific_compatible(b).map(ValueSpec::Tensor)
            }
            (ValueSpec::Extension(a), ValueSpec::Extension(b)) => a
                .dyn_most_specific_compatible(&**b)
                .map(ValueSpec::Extension),
            _ => None,
        }
    }
}

impl Value {
    /// Wraps an extension value.
    pub fn from_extension<T: ExtensionType>(value: T) -> Value {
        Value::Extension(SharedExtension::new(value))
    }

    /// `"Tensor"`, or the registered name of the extension type.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Tensor(_) => "Tensor",
            Value::Extension(e) => e.name(),
        }
    }

    /// The value's spec.
    pub fn spec(&self) -> ValueSpec {
        match self {
            Value::Tensor(t) => ValueSpec::Tensor(TensorSpec::from_tensor(t)),
            Value::Extension(e) => ValueSpec::Extension(e.any_spec()),
        }
    }

    /// The tensor, or an error naming what the value is.
    pub fn as_tensor(&self) -> Result<&Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            other => Err(other.mismatch("as_tensor", "Tensor")),
        }
    }

    /// The tensor, or an error naming what the value is.
    pub fn into_tensor(self) -> Result<Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            other => Err(other.mismatch("into_tensor", "Tensor")),
        }
    }

    /// Borrows the extension value as `T`, or errors naming the expected and actual types.
    pub fn downcast_ref<T: ExtensionType>(&self) -> Result<&T> {
        match self {
            Value::Extension(e) => e
                .as_any()
                .downcast_ref::<T>()
                .ok_or_else(|| self.mismatch("downcast_ref", std::any::type_name::<T>())),
            Value::Tensor(_) => Err(self.mismatch("downcast_ref", std::any::type_name::<T>())),
        }
    }

    /// Takes the extension value as `T` (moved out when this is the only reference, else
    /// cloned). An anonymous value is not reinterpreted: use [`Value::reinterpret`] (defined with
    /// the anonymous values, in the registry layer).
    pub fn downcast<T: ExtensionType>(self) -> Result<T> {
        match self {
            Value::Extension(e) if e.as_any().is::<T>() => {
                let not_t = || ValueError {
                    op: "downcast",
                    expected: std::any::type_name::<T>().into(),
                    found: "another type".into(),
                };
                match e.try_unwrap() {
                    Ok(owned) if owned.as_any().is::<T>() => {
                        let mut slot = std::mem::MaybeUninit::<T>::uninit();
                        // SAFETY: the value is a `T` (checked), moved into a slot for one.
                        unsafe {
                            owned.move_into(slot.as_mut_ptr() as *mut u8);
                            Ok(slot.assume_init())
                        }
                    }
                    Ok(_) => Err(not_t().into()),
                    Err(shared) => match shared.as_any().downcast_ref::<T>() {
                        Some(value) => Ok(value.clone()),
                        None => Err(not_t().into()),
                    },
                }
            }
            other => Err(other.mismatch("downcast", std::any::type_name::<T>())),
        }
    }

    fn mismatch(&self, op: &'static str, expected: &str) -> Error {
        let found = match self {
            Value::Tensor(t) => format!("a tensor ({})", TensorSpec::from_tensor(t)),
            Value::Extension(e) => format!("{} ({})", e.name(), e.type_name()),
        };
        ValueError {
            op,
            expected: expected.to_string(),
            found,
        }
        .into()
    }
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Self {
        Value::Tensor(t)
    }
}

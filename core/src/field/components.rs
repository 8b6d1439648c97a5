//! Where a field's components go ([`Sink`], [`PathSink`]) and where they come from when a value
//! is rebuilt ([`Components`], checked against their specs by [`check_tensor`]); where the new
//! component specs come from when a spec is rebuilt with other component specs
//! ([`ComponentSpecs`]).

use super::FieldPath;
use crate::error::{Error, Result, SpecError};
use crate::tensor::{Tensor, TensorSpec};

/// Where [`Field`](super::Field) pushes what it yields (views, tensors, component specs), with
/// each item's path.
///
/// `Vec<T>` ignores the paths (free: the path is never formatted); [`PathSink`] keeps them as text
/// (for naming components on disk).
pub trait Sink<T> {
    /// Accepts one item found at `path`.
    fn push(&mut self, path: &FieldPath<'_>, item: T);

    /// Hears that the component at `mask` is the validity of the component at `values` (a
    /// derived type's `#[extype(validity_of = …)]`, told by each struct as its component specs
    /// are walked, nested structs with their paths). Sinks that only collect items ignore it
    /// (the default); [`ValiditySink`] keeps it.
    fn validity(&mut self, mask: &FieldPath<'_>, values: &FieldPath<'_>) {
        let _ = (mask, values);
    }
}

/// A [`Sink`] of component specs that keeps only the validity declarations it hears, as
/// `(mask path, values path)` in the order the structs declare them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValiditySink(pub Vec<(String, String)>);

impl Sink<TensorSpec> for ValiditySink {
    fn push(&mut self, _path: &FieldPath<'_>, _item: TensorSpec) {}

    fn validity(&mut self, mask: &FieldPath<'_>, values: &FieldPath<'_>) {
        self.0.push((mask.to_string(), values.to_string()));
    }
}

impl<T> Sink<T> for Vec<T> {
    #[inline]
    fn push(&mut self, _path: &FieldPath<'_>, item: T) {
        Vec::push(self, item);
    }
}

/// A [`Sink`] that records each item with its path as text (`children[1].mask`).
#[derive(Debug, Clone, PartialEq)]
pub struct PathSink<T>(pub Vec<(String, T)>);

impl<T> Default for PathSink<T> {
    fn default() -> Self {
        PathSink(Vec::new())
    }
}

impl<T> Sink<T> for PathSink<T> {
    fn push(&mut self, path: &FieldPath<'_>, item: T) {
        self.0.push((path.to_string(), item));
    }
}

/// The components handed to [`Field::from_components`](super::Field::from_components), consumed
/// in order.
#[derive(Debug)]
pub struct Components {
    iter: std::vec::IntoIter<Tensor>,
}

impl Components {
    /// Wraps the flat component list.
    #[inline]
    pub fn new(components: Vec<Tensor>) -> Self {
        Components {
            iter: components.into_iter(),
        }
    }

    /// How many are left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.iter.len()
    }

    /// The next component, for the field at `path`; an error names the path when none is left.
    #[inline]
    pub fn next_for(&mut self, path: &FieldPath<'_>) -> Result<Tensor> {
        match self.iter.next() {
            Some(tensor) => Ok(tensor),
            None => Err(missing_component(path)),
        }
    }

    /// Like [`next_checked`](Self::next_checked), but checks the component where it lies and
    /// copies it straight to `out` (one move instead of several through `Result`s).
    ///
    /// # Safety
    /// `out` is valid for writing one `Tensor`; on `Err` nothing is written or consumed.
    #[inline]
    pub(crate) unsafe fn next_checked_into(
        &mut self,
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        out: *mut Tensor,
    ) -> Result<()> {
        let Some(next) = self.iter.as_slice().first() else {
            return Err(missing_component(path));
        };
        check_tensor(spec, next, path)?;
        // SAFETY: `next` is a live element of the list; it is copied to `out` (valid, by the
        // caller's contract) and then taken off the list and forgotten, so it is owned once.
        unsafe { std::ptr::copy_nonoverlapping(next, out, 1) };
        std::mem::forget(self.iter.next());
        Ok(())
    }

    /// The next component, checked against `spec` (dtype, and shape admitted by the spec).
    #[inline]
    pub fn next_checked(&mut self, spec: &TensorSpec, path: &FieldPath<'_>) -> Result<Tensor> {
        let tensor = self.next_for(path)?;
        check_tensor(spec, &tensor, path)?;
        Ok(tensor)
    }
}

/// The component specs handed to
/// [`Field::with_component_specs`](super::Field::with_component_specs), consumed in component
/// order: each tensor component of the spec being rebuilt takes the next one.
#[derive(Debug)]
pub struct ComponentSpecs {
    iter: std::vec::IntoIter<TensorSpec>,
}

impl ComponentSpecs {
    /// Wraps the flat list of component specs.
    #[inline]
    pub fn new(specs: Vec<TensorSpec>) -> Self {
        ComponentSpecs {
            iter: specs.into_iter(),
        }
    }

    /// How many are left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.iter.len()
    }

    /// The next component spec, for the component at `path`; an error names the path when none
    /// is left.
    #[inline]
    pub fn next_for(&mut self, path: &FieldPath<'_>) -> Result<TensorSpec> {
        match self.iter.next() {
            Some(spec) => Ok(spec),
            None => Err(missing_component_spec(path)),
        }
    }
}

#[cold]
#[inline(never)]
fn missing_component_spec(path: &FieldPath<'_>) -> Error {
    SpecError::Data {
        path: path.to_string(),
        expected: "a component spec".into(),
        found: "the end of the component spec list".into(),
    }
    .into()
}

// Error construction is kept out of line so the checks inline into the rebuild path: the hot path
// then moves each tensor once instead of through several large `Result`s.
#[cold]
#[inline(never)]
fn missing_component(path: &FieldPath<'_>) -> Error {
    SpecError::Data {
        path: path.to_string(),
        expected: "a component".into(),
        found: "the end of the component list".into(),
    }
    .into()
}

#[cold]
#[inline(never)]
fn component_mismatch(spec: &TensorSpec, tensor: &Tensor, path: &FieldPath<'_>) -> Error {
    if spec.dtype != tensor.dtype() {
        SpecError::ComponentDType {
            path: path.to_string(),
            expected: spec.dtype,
            found: tensor.dtype(),
        }
        .into()
    } else {
        SpecError::ComponentShape {
            path: path.to_string(),
            expected: Box::new(spec.shape.clone()),
            found: tensor.shape().to_vec(),
        }
        .into()
    }
}

/// Checks a component against its spec: dtype equal, shape admitted.
#[inline]
pub fn check_tensor(spec: &TensorSpec, tensor: &Tensor, path: &FieldPath<'_>) -> Result<()> {
    if spec.dtype == tensor.dtype() && spec.shape.admits(tensor.shape()) {
        Ok(())
    } else {
        Err(component_mismatch(spec, tensor, path))
    }
}

//! Nested structures (TF's `tf.nest`): [`flatten`], [`pack_sequence_as`], [`map_structure`],
//! [`assert_same_structure`] over tensors, ndarray arrays, extension values, tuples, `Vec`,
//! arrays, `Option` and `BTreeMap<String, _>`.
//!
//! With `expand_composites` on, an extension value is expanded into its tensor components (and
//! rebuilt from them with its spec's static data); off, it is one leaf. Leaves are [`Value`]s.
//! Leaves move out and back in: flattening never copies tensor data.
//!
//! ```
//! use extype_core::nest::{flatten, pack_sequence_as};
//! use ndarray::{Array1, array};
//!
//! let structure = (array![1.0f32, 2.0], vec![array![3i32], array![4i32]]);
//! let leaves = flatten(structure.clone(), true);
//! assert_eq!(leaves.len(), 3);
//! let back: (Array1<f32>, Vec<Array1<i32>>) = pack_sequence_as(&structure, leaves, true).unwrap();
//! assert_eq!(back, structure);
//! ```

use std::collections::BTreeMap;
use std::fmt;

use ndarray::{ArcArray, Array, Dimension};

use crate::dtype::DType;
use crate::error::{Error, NestError, RegistryError, Result};
use crate::field::FieldPath;
use crate::spec::Value;
use crate::spec::{AnySpec, ExtensionType, TensorSpec, TypeSpec};
use crate::spec_tree::SpecTree;
use crate::tensor::Element;
use crate::tensor::Tensor;
use extype_shape::Shape;

/// The shape of a nested structure, for [`assert_same_structure`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Structure {
    /// A tensor, an array, or (with `expand_composites` off) an extension value.
    Leaf,
    /// An extension value with `expand_composites` on: compared by spec compatibility.
    Extension(Box<dyn AnySpec>),
    /// A sequence: its kind (`"tuple"`, `"list"`, `"array"`) and elements.
    Sequence(&'static str, Vec<Structure>),
    /// An `Option`.
    Optional(Option<Box<Structure>>),
    /// A `BTreeMap<String, _>`, entries in key order.
    Map(Vec<(String, Structure)>),
}

impl fmt::Display for Structure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Structure::Leaf => f.write_str("a leaf"),
            Structure::Extension(spec) => write!(f, "extension value {}", spec.name()),
            Structure::Sequence(kind, items) => {
                let article = if kind.starts_with('a') { "an" } else { "a" };
                write!(f, "{article} {kind} of {}", items.len())
            }
            Structure::Optional(None) => f.write_str("None"),
            Structure::Optional(Some(_)) => f.write_str("Some"),
            Structure::Map(entries) => {
                let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
                write!(f, "a map with keys {keys:?}")
            }
        }
    }
}

/// The leaves handed to [`Nest::pack`], consumed in order.
#[derive(Debug)]
pub struct Leaves {
    iter: std::vec::IntoIter<Value>,
    taken: usize,
}

impl Leaves {
    /// Wraps a flat list.
    pub fn new(leaves: Vec<Value>) -> Self {
        Leaves {
            iter: leaves.into_iter(),
            taken: 0,
        }
    }

    /// How many are left.
    pub fn remaining(&self) -> usize {
        self.iter.len()
    }

    /// The next leaf (its index in the flat list, and the leaf) for the place at `path`.
    pub fn next_for(&mut self, path: &FieldPath<'_>) -> Result<(usize, Value)> {
        let index = self.taken;
        let leaf = self.iter.next().ok_or_else(|| NestError::Leaf {
            index,
            path: path.to_string(),
            expected: "a leaf".into(),
            found: "the end of the flat list".into(),
        })?;
        self.taken += 1;
        Ok((index, leaf))
    }

    /// The next leaf as a tensor of the given dtype (or any dtype when `None`).
    pub fn next_tensor(&mut self, path: &FieldPath<'_>, dtype: Option<DType>) -> Result<Tensor> {
        let (index, leaf) = self.next_for(path)?;
        match leaf {
            Value::Tensor(t) if dtype.is_none_or(|d| d == t.dtype()) => Ok(t),
            other => Err(NestError::Leaf {
                index,
                path: path.to_string(),
                expected: dtype.map_or_else(
                    || "a tensor".to_string(),
                    |d| format!("a tensor of dtype {d}"),
                ),
                found: describe(&other),
            }
            .into()),
        }
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Tensor(t) => format!("a tensor {}", TensorSpec::from_tensor(t)),
        Value::Extension(e) => format!("extension value {}", e.name()),
    }
}

/// A function applied to each leaf by [`map_structure`].
pub type LeafFn<'f> = dyn FnMut(Value) -> Result<Value> + 'f;

/// A nestable structure. Implemented for [`Tensor`], [`Value`], `Array`/`ArcArray`, every
/// [`ExtensionType`], and tuples (up to 6), `Vec`, `[T; N]`, `Option`, `BTreeMap<String, _>` of
/// nestable structures.
pub trait Nest: Sized {
    /// Moves the leaves out, in order.
    fn flatten_into(self, expand_composites: bool, out: &mut Vec<Value>);

    /// The number of leaves.
    fn count_leaves(&self, expand_composites: bool) -> usize;

    /// Builds a value shaped like `self` (static data from `self`) from the next leaves.
    fn pack(
        &self,
        expand_composites: bool,
        leaves: &mut Leaves,
        path: &FieldPath<'_>,
    ) -> Result<Self>;

    /// Applies `f` to every leaf, keeping the structure.
    fn map_leaves(
        self,
        expand_composites: bool,
        f: &mut LeafFn<'_>,
        path: &FieldPath<'_>,
    ) -> Result<Self>;

    /// The structure, for comparisons.
    fn structure(&self, expand_composites: bool) -> Structure;
}

/// The leaves of `structure`, in order (moved out; no tensor data is copied).
pub fn flatten<S: Nest>(structure: S, expand_composites: bool) -> Vec<Value> {
    let mut out = Vec::with_capacity(structure.count_leaves(expand_composites));
    structure.flatten_into(expand_composites, &mut out);
    out
}

/// A value shaped like `structure`, with static data from `structure` and the tensors (so their
/// shapes) from `flat`. Errors on a count mismatch, or a leaf that does not fit its place (wrong
/// kind, dtype, or the static rank of an `Array` field); a rebuilt extension value must still
/// pass its type's validation.
pub fn pack_sequence_as<S: Nest>(
    structure: &S,
    flat: Vec<Value>,
    expand_composites: bool,
) -> Result<S> {
    let expected = structure.count_leaves(expand_composites);
    if flat.len() != expected {
        return Err(NestError::Count {
            expected,
            found: flat.len(),
        }
        .into());
    }
    let mut leaves = Leaves::new(flat);
    structure.pack(expand_composites, &mut leaves, &FieldPath::Root)
}

/// Applies `f` to each leaf and rebuilds the structure. With `expand_composites`, `f` sees the
/// components of extension values; each value is rebuilt with its static data, so `f` must keep
/// dtypes (shapes may change as long as the type's validation accepts the result).
pub fn map_structure<S: Nest>(
    structure: S,
    expand_composites: bool,
    mut f: impl FnMut(Value) -> Result<Value>,
) -> Result<S> {
    structure.map_leaves(expand_composites, &mut f, &FieldPath::Root)
}

/// Checks that two structures have the same nesting: same sequence kinds and lengths, same
/// `Option` variants and map keys; with `expand_composites`, extension values must have a
/// compatible spec in common. Errors name the first place they differ.
pub fn assert_same_structure<A: Nest, B: Nest>(
    a: &A,
    b: &B,
    expand_composites: bool,
) -> Result<()> {
    same(
        &a.structure(expand_composites),
        &b.structure(expand_composites),
        &FieldPath::Root,
    )
}

fn same(a: &Structure, b: &Structure, path: &FieldPath<'_>) -> Result<()> {
    let differ = || -> Error {
        NestError::Structure {
            path: path.to_string(),
            left: a.to_string(),
            right: b.to_string(),
        }
        .into()
    };
    match (a, b) {
        (Structure::Leaf, Structure::Leaf) => Ok(()),
        (Structure::Extension(x), Structure::Extension(y)) => {
            if x.dyn_most_specific_compatible(&**y).is_some() {
                Ok(())
            } else {
                Err(NestError::Structure {
                    path: path.to_string(),
                    left: format!("{x:?}"),
                    right: format!("{y:?} (no compatible spec)"),
                }
                .into())
            }
        }
        (Structure::Sequence(ka, xa), Structure::Sequence(kb, xb))
            if ka == kb && xa.len() == xb.len() =>
        {
            xa.iter().zip(xb).enumerate().try_for_each(|(i, (x, y))| {
                let element = if *ka == "tuple" {
                    path.tuple(i)
                } else {
                    path.index(i)
                };
                same(x, y, &element)
            })
        }
        (Structure::Optional(None), Structure::Optional(None)) => Ok(()),
        (Structure::Optional(Some(x)), Structure::Optional(Some(y))) => same(x, y, path),
        (Structure::Map(xa), Structure::Map(xb))
            if xa.len() == xb.len() && xa.iter().zip(xb).all(|((ka, _), (kb, _))| ka == kb) =>
        {
            xa.iter()
                .zip(xb)
                .try_for_each(|((k, x), (_, y))| same(x, y, &path.key(k)))
        }
        _ => Err(differ()),
    }
}

// ---------------------------------------------------------------------------------------------
// Leaves

impl Nest for Tensor {
    fn flatten_into(self, _expand: bool, out: &mut Vec<Value>) {
        out.push(Value::Tensor(self));
    }
    fn count_leaves(&self, _expand: bool) -> usize {
        1
    }
    fn pack(&self, _expand: bool, leaves: &mut Leaves, path: &FieldPath<'_>) -> Result<Self> {
        leaves.next_tensor(path, Some(self.dtype()))
    }
    fn map_leaves(self, _expand: bool, f: &mut LeafFn<'_>, path: &FieldPath<'_>) -> Result<Self> {
        let dtype = self.dtype();
        let mut one = Leaves::new(vec![f(Value::Tensor(self))?]);
        one.next_tensor(path, Some(dtype))
    }
    fn structure(&self, _expand: bool) -> Structure {
        Structure::Leaf
    }
}

/// A [`Value`] is a leaf, or (an extension value with `expand_composites`) its components, moved
/// out when the value is not shared (else taken from a clone).
impl Nest for Value {
    fn flatten_into(self, expand: bool, out: &mut Vec<Value>) {
        match self {
            Value::Extension(e) if expand => {
                out.extend(e.into_components().into_iter().map(Value::Tensor));
            }
            leaf => out.push(leaf),
        }
    }
    fn count_leaves(&self, expand: bool) -> usize {
        match self {
            Value::Extension(e) if expand => e.any_spec().dyn_num_components(),
            _ => 1,
        }
    }
    fn pack(&self, expand: bool, leaves: &mut Leaves, path: &FieldPath<'_>) -> Result<Self> {
        match self {
            Value::Extension(e) if expand => {
                let spec = e.any_spec();
                let n = spec.dyn_num_components();
                let tensors = (0..n)
                    .map(|_| leaves.next_tensor(path, None))
                    .collect::<Result<Vec<_>>>()?;
                pack_any(&*spec, tensors)
            }
            Value::Tensor(t) => leaves.next_tensor(path, Some(t.dtype())).map(Value::Tensor),
            Value::Extension(_) => leaves.next_for(path).map(|(_, leaf)| leaf),
        }
    }
    fn map_leaves(self, expand: bool, f: &mut LeafFn<'_>, path: &FieldPath<'_>) -> Result<Self> {
        match self {
            Value::Extension(e) if expand => {
                // The spec is taken first so the value itself can give its components up.
                let spec = e.any_spec();
                let mapped = e
                    .into_components()
                    .into_iter()
                    .map(|t| f(Value::Tensor(t)))
                    .collect::<Result<Vec<_>>>()?;
                let mut leaves = Leaves::new(mapped);
                let tensors = (0..spec.dyn_num_components())
                    .map(|_| leaves.next_tensor(path, None))
                    .collect::<Result<Vec<_>>>()?;
                pack_any(&*spec, tensors)
            }
            Value::Tensor(t) => t.map_leaves(expand, f, path).map(Value::Tensor),
            leaf => f(leaf),
        }
    }
    fn structure(&self, expand: bool) -> Structure {
        match self {
            Value::Extension(e) if expand => Structure::Extension(e.any_spec()),
            _ => Structure::Leaf,
        }
    }
}

fn take_array<R>(
    leaves: &mut Leaves,
    path: &FieldPath<'_>,
    expected: impl FnOnce() -> String,
    convert: impl FnOnce(Tensor) -> Result<R>,
) -> Result<R> {
    let (index, leaf) = leaves.next_for(path)?;
    let found = describe(&leaf);
    let converted = match leaf {
        Value::Tensor(t) => convert(t).ok(),
        Value::Extension(_) => None,
    };
    converted.ok_or_else(|| {
        NestError::Leaf {
            index,
            path: path.to_string(),
            expected: expected(),
            found,
        }
        .into()
    })
}

fn expected_array<T: Element, D: Dimension>() -> String {
    match D::NDIM {
        Some(n) => format!("a tensor of dtype {} and rank {n}", T::DTYPE),
        None => format!("a tensor of dtype {}", T::DTYPE),
    }
}

macro_rules! array_leaf {
    ($ty:ident, $from:ident, $into:ident) => {
        impl<T: Element, D: Dimension> Nest for $ty<T, D> {
            fn flatten_into(self, _expand: bool, out: &mut Vec<Value>) {
                out.push(Value::Tensor(Tensor::$from(self)));
            }
            fn count_leaves(&self, _expand: bool) -> usize {
                1
            }
            fn pack(
                &self,
                _expand: bool,
                leaves: &mut Leaves,
                path: &FieldPath<'_>,
            ) -> Result<Self> {
                take_array(leaves, path, expected_array::<T, D>, |t| t.$into::<T, D>())
            }
            fn map_leaves(
                self,
                _expand: bool,
                f: &mut LeafFn<'_>,
                path: &FieldPath<'_>,
            ) -> Result<Self> {
                let mut one = Leaves::new(vec![f(Value::Tensor(Tensor::$from(self)))?]);
                take_array(&mut one, path, expected_array::<T, D>, |t| {
                    t.$into::<T, D>()
                })
            }
            fn structure(&self, _expand: bool) -> Structure {
                Structure::Leaf
            }
        }
    };
}

array_leaf!(Array, from_array, into_array);
array_leaf!(ArcArray, from_arc_array, into_arc_array);

/// Extension values: expanded into components, or one leaf.
impl<E: ExtensionType> Nest for E {
    fn flatten_into(self, expand: bool, out: &mut Vec<Value>) {
        if expand {
            out.extend(self.into_components().into_iter().map(Value::Tensor));
        } else {
            out.push(Value::from_extension(self));
        }
    }
    fn count_leaves(&self, expand: bool) -> usize {
        if expand {
            TypeSpec::num_components(&self.spec())
        } else {
            1
        }
    }
    fn pack(&self, expand: bool, leaves: &mut Leaves, path: &FieldPath<'_>) -> Result<Self> {
        pack_extension(self.spec(), expand, leaves, path)
    }
    fn map_leaves(self, expand: bool, f: &mut LeafFn<'_>, path: &FieldPath<'_>) -> Result<Self> {
        let spec = self.spec();
        let mapped = flatten(self, expand)
            .into_iter()
            .map(&mut *f)
            .collect::<Result<Vec<_>>>()?;
        let mut leaves = Leaves::new(mapped);
        pack_extension(spec, expand, &mut leaves, path)
    }
    fn structure(&self, expand: bool) -> Structure {
        if expand {
            Structure::Extension(Box::new(self.spec()))
        } else {
            Structure::Leaf
        }
    }
}

fn pack_extension<E: ExtensionType>(
    spec: E::Spec,
    expand: bool,
    leaves: &mut Leaves,
    path: &FieldPath<'_>,
) -> Result<E> {
    if expand {
        let specs = TypeSpec::component_specs(&spec);
        let tensors = specs
            .iter()
            .map(|s| leaves.next_tensor(path, Some(s.dtype)))
            .collect::<Result<Vec<_>>>()?;
        if specs.iter().zip(&tensors).all(|(s, t)| s.admits(t)) {
            return TypeSpec::from_components(&spec, tensors);
        }
        // Shapes come from the leaves, static data from the structure: rebuild with the
        // structure's spec with every tensor shape relaxed (the type's validation still runs).
        let relaxed = E::Spec::deserialize(&relax_tensor_shapes(&spec.serialize()))?;
        return TypeSpec::from_components(&relaxed, tensors);
    }
    let (index, leaf) = leaves.next_for(path)?;
    let found = describe(&leaf);
    leaf.reinterpret::<E>().map_err(|e| match e {
        // A name registered twice: that error, not a mismatch.
        Error::Registry(r) if matches!(*r, RegistryError::DuplicateName { .. }) => {
            Error::Registry(r)
        }
        _ => NestError::Leaf {
            index,
            path: path.to_string(),
            expected: format!("extension value {}", crate::spec::registered_name::<E>()),
            found,
        }
        .into(),
    })
}

/// The same serialized spec with every tensor spec's shape made unknown (rank included).
fn relax_tensor_shapes(value: &SpecTree) -> SpecTree {
    match value {
        SpecTree::TensorSpec(t) => {
            SpecTree::TensorSpec(TensorSpec::new(Shape::unknown_rank(), t.dtype))
        }
        SpecTree::Spec(named) => {
            SpecTree::spec(named.name.clone(), relax_tensor_shapes(&named.value))
        }
        SpecTree::List(items) => SpecTree::List(items.iter().map(relax_tensor_shapes).collect()),
        SpecTree::Tuple(items) => SpecTree::Tuple(items.iter().map(relax_tensor_shapes).collect()),
        SpecTree::Map(entries) => SpecTree::Map(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), relax_tensor_shapes(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Rebuilds a dynamically typed extension value like [`pack_extension`] does.
fn pack_any(spec: &dyn AnySpec, tensors: Vec<Tensor>) -> Result<Value> {
    let specs = spec.dyn_component_specs();
    if specs.len() != tensors.len() || specs.iter().zip(&tensors).all(|(s, t)| s.admits(t)) {
        return spec.dyn_from_components(tensors);
    }
    let relaxed = relax_tensor_shapes(&spec.dyn_serialize());
    match crate::registry::registry().deserialize_spec(&relaxed) {
        Ok(relaxed) => relaxed.dyn_from_components(tensors),
        // Not registered (or no registry): only the exact spec is available.
        Err(_) => spec.dyn_from_components(tensors),
    }
}

// ---------------------------------------------------------------------------------------------
// Containers

impl<T: Nest> Nest for Option<T> {
    fn flatten_into(self, expand: bool, out: &mut Vec<Value>) {
        if let Some(v) = self {
            v.flatten_into(expand, out);
        }
    }
    fn count_leaves(&self, expand: bool) -> usize {
        self.as_ref().map_or(0, |v| v.count_leaves(expand))
    }
    fn pack(&self, expand: bool, leaves: &mut Leaves, path: &FieldPath<'_>) -> Result<Self> {
        self.as_ref()
            .map(|v| v.pack(expand, leaves, path))
            .transpose()
    }
    fn map_leaves(self, expand: bool, f: &mut LeafFn<'_>, path: &FieldPath<'_>) -> Result<Self> {
        self.map(|v| v.map_leaves(expand, f, path)).transpose()
    }
    fn structure(&self, expand: bool) -> Structure {
        Structure::Optional(self.as_ref().map(|v| Box::new(v.structure(expand))))
    }
}

impl<T: Nest> Nest for Vec<T> {
    fn flatten_into(self, expand: bool, out: &mut Vec<Value>) {
        for v in self {
            v.flatten_into(expand, out);
        }
    }
    fn count_leaves(&self, expand: bool) -> usize {
        self.iter().map(|v| v.count_leaves(expand)).sum()
    }
    fn pack(&self, expand: bool, leaves: &mut Leaves, path: &FieldPath<'_>) -> Result<Self> {
        self.iter()
            .enumerate()
            .map(|(i, v)| v.pack(expand, leaves, &path.index(i)))
            .collect()
    }
    fn map_leaves(self, expand: bool, f: &mut LeafFn<'_>, path: &FieldPath<'_>) -> Result<Self> {
        self.into_iter()
            .enumerate()
            .map(|(i, v)| v.map_leaves(expand, f, &path.index(i)))
            .collect()
    }
    fn structure(&self, expand: bool) -> Structure {
        Structure::Sequence("list", self.iter().map(|v| v.structure(expand)).collect())
    }
}

fn into_array<T, const N: usize>(items: Vec<T>) -> [T; N] {
    match items.try_into() {
        Ok(array) => array,
        // Every caller maps an `[_; N]` element-wise.
        Err(_) => unreachable!("mapped from an array of length N"),
    }
}

impl<T: Nest, const N: usize> Nest for [T; N] {
    fn flatten_into(self, expand: bool, out: &mut Vec<Value>) {
        for v in self {
            v.flatten_into(expand, out);
        }
    }
    fn count_leaves(&self, expand: bool) -> usize {
        self.iter().map(|v| v.count_leaves(expand)).sum()
    }
    fn pack(&self, expand: bool, leaves: &mut Leaves, path: &FieldPath<'_>) -> Result<Self> {
        let items = self
            .iter()
            .enumerate()
            .map(|(i, v)| v.pack(expand, leaves, &path.index(i)))
            .collect::<Result<Vec<_>>>()?;
        Ok(into_array(items))
    }
    fn map_leaves(self, expand: bool, f: &mut LeafFn<'_>, path: &FieldPath<'_>) -> Result<Self> {
        let items = self
            .into_iter()
            .enumerate()
            .map(|(i, v)| v.map_leaves(expand, f, &path.index(i)))
            .collect::<Result<Vec<_>>>()?;
        Ok(into_array(items))
    }
    fn structure(&self, expand: bool) -> Structure {
        Structure::Sequence("array", self.iter().map(|v| v.structure(expand)).collect())
    }
}

impl<T: Nest> Nest for BTreeMap<String, T> {
    fn flatten_into(self, expand: bool, out: &mut Vec<Value>) {
        for v in self.into_values() {
            v.flatten_into(expand, out);
        }
    }
    fn count_leaves(&self, expand: bool) -> usize {
        self.values().map(|v| v.count_leaves(expand)).sum()
    }
    fn pack(&self, expand: bool, leaves: &mut Leaves, path: &FieldPath<'_>) -> Result<Self> {
        self.iter()
            .map(|(k, v)| Ok((k.clone(), v.pack(expand, leaves, &path.key(k))?)))
            .collect()
    }
    fn map_leaves(self, expand: bool, f: &mut LeafFn<'_>, path: &FieldPath<'_>) -> Result<Self> {
        self.into_iter()
            .map(|(k, v)| {
                let mapped = v.map_leaves(expand, f, &path.key(&k))?;
                Ok((k, mapped))
            })
            .collect()
    }
    fn structure(&self, expand: bool) -> Structure {
        Structure::Map(
            self.iter()
                .map(|(k, v)| (k.clone(), v.structure(expand)))
                .collect(),
        )
    }
}

macro_rules! tuple_nest {
    ($($name:ident $idx:tt),+) => {
        impl<$($name: Nest),+> Nest for ($($name,)+) {
            fn flatten_into(self, expand: bool, out: &mut Vec<Value>) {
                $(self.$idx.flatten_into(expand, out);)+
            }
            fn count_leaves(&self, expand: bool) -> usize {
                0 $(+ self.$idx.count_leaves(expand))+
            }
            fn pack(&self, expand: bool, leaves: &mut Leaves, path: &FieldPath<'_>) -> Result<Self> {
                Ok(($(self.$idx.pack(expand, leaves, &path.tuple($idx))?,)+))
            }
            fn map_leaves(self, expand: bool, f: &mut LeafFn<'_>, path: &FieldPath<'_>) -> Result<Self> {
                Ok(($(self.$idx.map_leaves(expand, f, &path.tuple($idx))?,)+))
            }
            fn structure(&self, expand: bool) -> Structure {
                Structure::Sequence("tuple", vec![$(self.$idx.structure(expand)),+])
            }
        }
    };
}

tuple_nest!(A 0);
tuple_nest!(A 0, B 1);
tuple_nest!(A 0, B 1, C 2);
tuple_nest!(A 0, B 1, C 2, D 3);
tuple_nest!(A 0, B 1, C 2, D 3, E 4);
tuple_nest!(A 0, B 1, C 2, D 3, E 4, G 5);

#[cfg(test)]
mod tests {
    use ndarray::{Array1, Array2, array};

    use super::*;
    use crate::dtype::DType;

    #[test]
    fn flatten_pack_plain_structures() {
        let mut map = BTreeMap::new();
        map.insert("b".to_string(), Some(array![1u8]));
        map.insert("a".to_string(), None);
        let structure = (vec![array![[1.0f32]]], [Tensor::from(array![true])], map);
        let leaves = flatten(structure.clone(), false);
        assert_eq!(leaves.len(), 3);
        let back = pack_sequence_as(&structure, leaves, false).unwrap();
        assert_eq!(back, structure);
    }

    #[test]
    fn flatten_moves_arrays() {
        let a = array![1.0f64, 2.0];
        let ptr = a.as_ptr();
        let leaves = flatten(a.clone(), true);
        let back: Array1<f64> = pack_sequence_as(&a, leaves, true).unwrap();
        assert_eq!(back, a);
        let moved = flatten(a, true);
        assert_eq!(
            moved[0]
                .as_tensor()
                .unwrap()
                .as_arc_array::<f64>()
                .unwrap()
                .as_ptr(),
            ptr
        );
    }

    #[test]
    fn pack_errors() {
        let structure = (array![1.0f32], array![[1i64]]);
        let err = pack_sequence_as(
            &structure,
            vec![Value::from(Tensor::from(array![1.0f32]))],
            false,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "pack_sequence_as: the structure has 2 leaves, the flat list 1"
        );
        let wrong = vec![
            Value::from(Tensor::from(array![1.0f32])),
            Value::from(Tensor::from(array![[1.0f32]])),
        ];
        let err = pack_sequence_as(&structure, wrong, false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "leaf 1 (at 1): expected a tensor of dtype i64 and rank 2, found a tensor f32[1, 1]"
        );
        let t = Tensor::from(array![1u8]);
        let err =
            pack_sequence_as(&t, vec![Value::from(Tensor::from(array![1i8]))], true).unwrap_err();
        assert!(
            err.to_string().contains("expected a tensor of dtype u8"),
            "{err}"
        );
    }

    #[test]
    fn map_structure_keeps_types() {
        let structure = (array![1.0f32, 2.0], vec![Tensor::from(array![3i32])]);
        let doubled = map_structure(structure, true, |v| {
            let t = v.into_tensor()?;
            Ok(Value::Tensor(match t.dtype() {
                DType::F32 => Tensor::from(t.as_array::<f32, ndarray::IxDyn>()?.mapv(|x| x * 2.0)),
                _ => t,
            }))
        })
        .unwrap();
        assert_eq!(doubled.0, array![2.0f32, 4.0]);
        let err = map_structure(array![1.0f32], true, |_| {
            Ok(Value::from(Tensor::from(array![1u8])))
        })
        .unwrap_err();
        assert!(err.to_string().contains("dtype f32"), "{err}");
    }

    #[test]
    fn same_structure() {
        let a = (array![1.0f32], vec![array![1i32], array![2i32]]);
        let b = (array![5.0f32, 6.0], vec![array![1i32], array![2i32]]);
        assert_same_structure(&a, &b, true).unwrap();
        let c = (array![1.0f32], vec![array![1i32]]);
        let err = assert_same_structure(&a, &c, true).unwrap_err();
        assert_eq!(
            err.to_string(),
            "structures differ at 1: a list of 2 vs a list of 1"
        );
        let d: (Array1<f32>, [Array2<i32>; 2]) = (array![1.0], [array![[1]], array![[2]]]);
        let err = assert_same_structure(&a, &d, true).unwrap_err();
        assert!(
            err.to_string().contains("a list of 2 vs an array of 2"),
            "{err}"
        );
        assert!(assert_same_structure(&Some(array![1u8]), &None::<Array1<u8>>, false).is_err());
    }
}

//! Containers of fields: `Option`, `Vec`, `Box`, `[F; N]`, `BTreeMap<String, F>` and tuples up
//! to 6. Their spec is the same container of specs; components come in order (map entries by
//! key), with paths `[i]`, `.key` and `.i`.

use std::collections::BTreeMap;
use std::fmt;

use super::{ComponentSpecs, Components, Field, FieldPath, Sink, data_error};
use crate::error::Result;
use crate::spec::SpecSource;
use crate::spec_tree::SpecTree;
use crate::tensor::{Tensor, TensorSpec, TensorView};

/// What a `Vec` or array field may hold: every field type but the plain numbers and `bool`.
///
/// A `Vec<f32>` or `[f32; N]` field is tensor data more often than metadata, and as static data
/// it would silently contribute no components; so it is a compile error that suggests a tensor,
/// or `#[extype(static)]` when the numbers really are metadata (kept in the spec, compared by
/// equality). Field types implement this marker beside [`Field`]: tensors, derived types (the
/// derive emits it), static data other than numbers (through
/// [`static_field!`](crate::static_field)), containers of fields.
///
/// ```compile_fail
/// fn needs_field<F: extype_core::Field>() {}
/// needs_field::<Vec<f32>>(); // use `Array1<f32>`, or mark the field `#[extype(static)]`
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an item of a `Vec` or array field of an extension type",
    label = "a `Vec` or array of `{Self}`",
    note = "a `Vec` or array of plain numbers or bools is not a field: for tensor data use a tensor (`Array1<{Self}>` or `ArrayD<{Self}>`); if it is metadata, mark the field `#[extype(static)]` to keep it in the spec (compared by equality)",
    note = "any other item must be a field itself: a tensor, a type deriving `ExtensionType`, `String`, `DType`, `Shape`, a type deriving `StaticValue`, or a container of fields"
)]
pub trait SequenceItem: Field {}

impl<F: Field> SequenceItem for Option<F> {}
impl<F: SequenceItem> SequenceItem for Vec<F> {}
impl<F: Field> SequenceItem for Box<F> {}
impl<F: SequenceItem, const N: usize> SequenceItem for [F; N] {}
impl<F: Field> SequenceItem for BTreeMap<String, F> {}

/// The spec a [`SpecSource`] gives for the whole container at `path` as a static value, if it
/// gives one (a container of static data, such as a `Vec<String>`).
fn given<F: Field>(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Option<Result<F::Spec>> {
    source
        .take_static(&path.to_string())
        .map(|value| F::spec_from_value(&value, path))
}

/// `None` has no components; `Some` has its value's. Serialized as `none` or the inner spec, so
/// `Option<Option<_>>` (whose `Some(None)` would read back as `None`) is not a supported field.
impl<F: Field> Field for Option<F> {
    type Spec = Option<F::Spec>;

    #[inline]
    fn field_spec(&self) -> Self::Spec {
        self.as_ref().map(F::field_spec)
    }
    #[inline]
    fn num_components(spec: &Self::Spec) -> usize {
        spec.as_ref().map_or(0, F::num_components)
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        if let Some(s) = spec {
            F::component_specs(s, path, out);
        }
    }
    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        if let Some(v) = self {
            v.push_views(path, out);
        }
    }
    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        if let Some(v) = self {
            v.push_components(path, out);
        }
    }
    fn validate_nested(&self, path: &FieldPath<'_>) -> Result<()> {
        self.as_ref().map_or(Ok(()), |v| v.validate_nested(path))
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        spec.as_ref()
            .map(|s| F::from_components(s, path, components))
            .transpose()
    }
    fn with_component_specs(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
    ) -> Result<Self::Spec> {
        match spec {
            Some(s) => F::with_component_specs(s, path, specs).map(Some),
            None => Ok(None),
        }
    }
    /// The static value given for `path`; else `Some` when a tensor lies under `path`, `None`
    /// when none does.
    fn spec_from_source(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Result<Self::Spec> {
        if let Some(spec) = given::<Self>(path, source) {
            return spec;
        }
        match source.has_under(&path.to_string()) {
            true => F::spec_from_source(path, source).map(Some),
            false => Ok(None),
        }
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        spec.as_ref().map_or(SpecTree::None, F::spec_to_value)
    }
    fn spec_fmt(spec: &Self::Spec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match spec {
            Some(s) => F::spec_fmt(s, f),
            None => f.write_str("None"),
        }
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        match value {
            SpecTree::None => Ok(None),
            other => F::spec_from_value(other, path).map(Some),
        }
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => F::spec_is_compatible(a, b),
            _ => false,
        }
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        match (a, b) {
            (None, None) => Some(None),
            (Some(a), Some(b)) => F::spec_most_specific_compatible(a, b).map(Some),
            _ => None,
        }
    }
}

/// The length is static spec data; elements are `[i]` in paths.
impl<F: SequenceItem> Field for Vec<F> {
    type Spec = Vec<F::Spec>;

    fn field_spec(&self) -> Self::Spec {
        self.iter().map(F::field_spec).collect()
    }
    fn num_components(spec: &Self::Spec) -> usize {
        spec.iter().map(F::num_components).sum()
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        for (i, s) in spec.iter().enumerate() {
            F::component_specs(s, &path.index(i), out);
        }
    }
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        for (i, v) in self.iter().enumerate() {
            v.push_views(&path.index(i), out);
        }
    }
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        for (i, v) in self.into_iter().enumerate() {
            v.push_components(&path.index(i), out);
        }
    }
    fn validate_nested(&self, path: &FieldPath<'_>) -> Result<()> {
        self.iter()
            .enumerate()
            .try_for_each(|(i, v)| v.validate_nested(&path.index(i)))
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        spec.iter()
            .enumerate()
            .map(|(i, s)| F::from_components(s, &path.index(i), components))
            .collect()
    }
    fn with_component_specs(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
    ) -> Result<Self::Spec> {
        spec.iter()
            .enumerate()
            .map(|(i, s)| F::with_component_specs(s, &path.index(i), specs))
            .collect()
    }
    /// The static value given for `path`; else one element per index `i` with a tensor under
    /// `path[i]`, from 0 up to the first index without one.
    fn spec_from_source(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Result<Self::Spec> {
        if let Some(spec) = given::<Self>(path, source) {
            return spec;
        }
        let mut out = Vec::new();
        while source.has_under(&path.index(out.len()).to_string()) {
            out.push(F::spec_from_source(&path.index(out.len()), source)?);
        }
        Ok(out)
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        SpecTree::List(spec.iter().map(F::spec_to_value).collect())
    }
    fn spec_fmt(spec: &Self::Spec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_seq(
            f,
            "[",
            spec.iter()
                .map(|s| move |f: &mut fmt::Formatter<'_>| F::spec_fmt(s, f)),
            "]",
        )
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        list_from_value(value, path, F::spec_from_value)
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(a, b)| F::spec_is_compatible(a, b))
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        if a.len() != b.len() {
            return None;
        }
        a.iter()
            .zip(b)
            .map(|(a, b)| F::spec_most_specific_compatible(a, b))
            .collect()
    }
}

/// The spec is the boxed inner spec (so recursive types have finite specs).
impl<F: Field> Field for Box<F> {
    type Spec = Box<F::Spec>;

    #[inline]
    fn field_spec(&self) -> Self::Spec {
        Box::new(F::field_spec(self))
    }
    #[inline]
    fn num_components(spec: &Self::Spec) -> usize {
        F::num_components(spec)
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        F::component_specs(spec, path, out);
    }
    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        F::push_views(self, path, out);
    }
    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        F::push_components(*self, path, out);
    }
    fn validate_nested(&self, path: &FieldPath<'_>) -> Result<()> {
        (**self).validate_nested(path)
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        F::from_components(spec, path, components).map(Box::new)
    }
    fn with_component_specs(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
    ) -> Result<Self::Spec> {
        F::with_component_specs(spec, path, specs).map(Box::new)
    }
    fn spec_from_source(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Result<Self::Spec> {
        F::spec_from_source(path, source).map(Box::new)
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        F::spec_to_value(spec)
    }
    fn spec_fmt(spec: &Self::Spec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        F::spec_fmt(spec, f)
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        F::spec_from_value(value, path).map(Box::new)
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        F::spec_is_compatible(a, b)
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        F::spec_most_specific_compatible(a, b).map(Box::new)
    }
}

/// The items of a list spec value, each read by `item` at its path `[i]`.
pub(super) fn list_from_value<S>(
    value: &SpecTree,
    path: &FieldPath<'_>,
    item: impl Fn(&SpecTree, &FieldPath<'_>) -> Result<S>,
) -> Result<Vec<S>> {
    match value {
        SpecTree::List(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| item(v, &path.index(i)))
            .collect(),
        other => Err(data_error(path, "a list", other)),
    }
}

pub(super) fn into_array<T, const N: usize>(items: Vec<T>) -> [T; N] {
    match items.try_into() {
        Ok(array) => array,
        // Every caller builds exactly N items from an `[_; N]`.
        Err(_) => unreachable!("built from an array of length N"),
    }
}

/// Fixed length `N`; serialized as a tuple; elements are `[i]` in paths.
impl<F: SequenceItem, const N: usize> Field for [F; N] {
    type Spec = [F::Spec; N];

    fn field_spec(&self) -> Self::Spec {
        std::array::from_fn(|i| self[i].field_spec())
    }
    fn num_components(spec: &Self::Spec) -> usize {
        spec.iter().map(F::num_components).sum()
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        for (i, s) in spec.iter().enumerate() {
            F::component_specs(s, &path.index(i), out);
        }
    }
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        for (i, v) in self.iter().enumerate() {
            v.push_views(&path.index(i), out);
        }
    }
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        for (i, v) in self.into_iter().enumerate() {
            v.push_components(&path.index(i), out);
        }
    }
    fn validate_nested(&self, path: &FieldPath<'_>) -> Result<()> {
        self.iter()
            .enumerate()
            .try_for_each(|(i, v)| v.validate_nested(&path.index(i)))
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        let items = spec
            .iter()
            .enumerate()
            .map(|(i, s)| F::from_components(s, &path.index(i), components))
            .collect::<Result<Vec<F>>>()?;
        Ok(into_array(items))
    }
    fn with_component_specs(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
    ) -> Result<Self::Spec> {
        let items = spec
            .iter()
            .enumerate()
            .map(|(i, s)| F::with_component_specs(s, &path.index(i), specs))
            .collect::<Result<Vec<_>>>()?;
        Ok(into_array(items))
    }
    /// The static value given for `path`; else each element from `path[i]`.
    fn spec_from_source(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Result<Self::Spec> {
        if let Some(spec) = given::<Self>(path, source) {
            return spec;
        }
        let items = (0..N)
            .map(|i| F::spec_from_source(&path.index(i), source))
            .collect::<Result<Vec<_>>>()?;
        Ok(into_array(items))
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        SpecTree::Tuple(spec.iter().map(F::spec_to_value).collect())
    }
    fn spec_fmt(spec: &Self::Spec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if N == 1 {
            f.write_str("(")?;
            F::spec_fmt(&spec[0], f)?;
            return f.write_str(",)");
        }
        fmt_seq(
            f,
            "(",
            spec.iter()
                .map(|s| move |f: &mut fmt::Formatter<'_>| F::spec_fmt(s, f)),
            ")",
        )
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        match value {
            SpecTree::Tuple(items) if items.len() == N => {
                let specs = items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| F::spec_from_value(v, &path.index(i)))
                    .collect::<Result<Vec<_>>>()?;
                Ok(into_array(specs))
            }
            other => Err(data_error(path, format!("a tuple of {N}"), other)),
        }
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        a.iter().zip(b).all(|(a, b)| F::spec_is_compatible(a, b))
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        let specs = a
            .iter()
            .zip(b)
            .map(|(a, b)| F::spec_most_specific_compatible(a, b))
            .collect::<Option<Vec<_>>>()?;
        Some(into_array(specs))
    }
}

/// Entries in key order; entries are `.key` in paths; the key set is static spec data.
impl<F: Field> Field for BTreeMap<String, F> {
    type Spec = BTreeMap<String, F::Spec>;

    fn field_spec(&self) -> Self::Spec {
        self.iter()
            .map(|(k, v)| (k.clone(), v.field_spec()))
            .collect()
    }
    fn num_components(spec: &Self::Spec) -> usize {
        spec.values().map(F::num_components).sum()
    }
    fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
        for (k, s) in spec {
            F::component_specs(s, &path.key(k), out);
        }
    }
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        for (k, v) in self {
            v.push_views(&path.key(k), out);
        }
    }
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        for (k, v) in self {
            v.push_components(&path.key(&k), out);
        }
    }
    fn validate_nested(&self, path: &FieldPath<'_>) -> Result<()> {
        self.iter()
            .try_for_each(|(k, v)| v.validate_nested(&path.key(k)))
    }
    fn from_components(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        spec.iter()
            .map(|(k, s)| Ok((k.clone(), F::from_components(s, &path.key(k), components)?)))
            .collect()
    }
    fn with_component_specs(
        spec: &Self::Spec,
        path: &FieldPath<'_>,
        specs: &mut ComponentSpecs,
    ) -> Result<Self::Spec> {
        spec.iter()
            .map(|(k, s)| Ok((k.clone(), F::with_component_specs(s, &path.key(k), specs)?)))
            .collect()
    }
    /// The static value given for `path`; else one entry per key `k` of the tensors named
    /// `path.k…` (a key holding `.` or `[` cannot be told apart from a deeper path).
    fn spec_from_source(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Result<Self::Spec> {
        if let Some(spec) = given::<Self>(path, source) {
            return spec;
        }
        source
            .keys_under(&path.to_string())
            .into_iter()
            .map(|k| {
                let spec = F::spec_from_source(&path.key(&k), source)?;
                Ok((k, spec))
            })
            .collect()
    }
    fn spec_to_value(spec: &Self::Spec) -> SpecTree {
        SpecTree::Map(
            spec.iter()
                .map(|(k, s)| (k.clone(), F::spec_to_value(s)))
                .collect(),
        )
    }
    fn spec_fmt(spec: &Self::Spec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (k, s)) in spec.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{k:?}: ")?;
            F::spec_fmt(s, f)?;
        }
        f.write_str("}")
    }
    fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
        match value {
            SpecTree::Map(entries) => entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), F::spec_from_value(v, &path.key(k))?)))
                .collect(),
            other => Err(data_error(path, "a map", other)),
        }
    }
    fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|((ka, a), (kb, b))| ka == kb && F::spec_is_compatible(a, b))
    }
    fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
        if a.len() != b.len() {
            return None;
        }
        a.iter()
            .zip(b)
            .map(|((ka, a), (kb, b))| {
                (ka == kb)
                    .then(|| F::spec_most_specific_compatible(a, b))
                    .flatten()
                    .map(|s| (ka.clone(), s))
            })
            .collect()
    }
}

macro_rules! tuple_field {
    ($len:literal; $($name:ident $idx:tt),+) => {
        /// Serialized as a tuple; elements are `.i` in paths.
        impl<$($name: Field),+> SequenceItem for ($($name,)+) {}

        /// Serialized as a tuple; elements are `.i` in paths.
        impl<$($name: Field),+> Field for ($($name,)+) {
            type Spec = ($($name::Spec,)+);

            #[inline]
            fn field_spec(&self) -> Self::Spec {
                ($(self.$idx.field_spec(),)+)
            }
            #[inline]
            fn num_components(spec: &Self::Spec) -> usize {
                0 $(+ $name::num_components(&spec.$idx))+
            }
            fn component_specs(spec: &Self::Spec, path: &FieldPath<'_>, out: &mut dyn Sink<TensorSpec>) {
                $($name::component_specs(&spec.$idx, &path.tuple($idx), out);)+
            }
            #[inline]
            fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
                $(self.$idx.push_views(&path.tuple($idx), out);)+
            }
            #[inline]
            fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
                $(self.$idx.push_components(&path.tuple($idx), out);)+
            }
            fn validate_nested(&self, path: &FieldPath<'_>) -> Result<()> {
                $(self.$idx.validate_nested(&path.tuple($idx))?;)+
                Ok(())
            }
            fn from_components(spec: &Self::Spec, path: &FieldPath<'_>, components: &mut Components) -> Result<Self> {
                Ok(($($name::from_components(&spec.$idx, &path.tuple($idx), components)?,)+))
            }
            fn with_component_specs(spec: &Self::Spec, path: &FieldPath<'_>, specs: &mut ComponentSpecs) -> Result<Self::Spec> {
                Ok(($($name::with_component_specs(&spec.$idx, &path.tuple($idx), specs)?,)+))
            }
            fn spec_from_source(path: &FieldPath<'_>, source: &mut dyn SpecSource) -> Result<Self::Spec> {
                if let Some(spec) = given::<Self>(path, source) {
                    return spec;
                }
                Ok(($($name::spec_from_source(&path.tuple($idx), source)?,)+))
            }
            fn spec_to_value(spec: &Self::Spec) -> SpecTree {
                SpecTree::Tuple(vec![$($name::spec_to_value(&spec.$idx)),+])
            }
            fn spec_fmt(spec: &Self::Spec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("(")?;
                $(
                    if $idx > 0 {
                        f.write_str(", ")?;
                    }
                    $name::spec_fmt(&spec.$idx, f)?;
                )+
                f.write_str(if $len == 1 { ",)" } else { ")" })
            }
            fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<Self::Spec> {
                match value {
                    SpecTree::Tuple(items) if items.len() == $len => {
                        Ok(($($name::spec_from_value(&items[$idx], &path.tuple($idx))?,)+))
                    }
                    other => Err(data_error(path, concat!("a tuple of ", $len), other)),
                }
            }
            fn spec_is_compatible(a: &Self::Spec, b: &Self::Spec) -> bool {
                true $(&& $name::spec_is_compatible(&a.$idx, &b.$idx))+
            }
            fn spec_most_specific_compatible(a: &Self::Spec, b: &Self::Spec) -> Option<Self::Spec> {
                Some(($($name::spec_most_specific_compatible(&a.$idx, &b.$idx)?,)+))
            }
        }
    };
}

tuple_field!(1; A 0);
tuple_field!(2; A 0, B 1);
tuple_field!(3; A 0, B 1, C 2);
tuple_field!(4; A 0, B 1, C 2, D 3);
tuple_field!(5; A 0, B 1, C 2, D 3, E 4);
tuple_field!(6; A 0, B 1, C 2, D 3, E 4, G 5);

/// Writes `open a, b, … close`, each item by its own writer.
fn fmt_seq<W: Fn(&mut fmt::Formatter<'_>) -> fmt::Result>(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: impl Iterator<Item = W>,
    close: &str,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        item(f)?;
    }
    f.write_str(close)
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use ndarray::{Array1, array};

    use super::*;
    use crate::dtype::DType;
    use extype_shape::Shape;

    fn round_trip<F: Field + fmt::Debug + PartialEq + Clone>(value: F) {
        let spec = value.field_spec();
        let mut views = Vec::new();
        value.push_views(&FieldPath::Root, &mut views);
        let mut specs = Vec::new();
        F::component_specs(&spec, &FieldPath::Root, &mut specs);
        assert_eq!(views.len(), F::num_components(&spec));
        assert_eq!(specs.len(), views.len());
        for (s, v) in specs.iter().zip(&views) {
            assert!(s.admits_view(v));
        }
        let mut tensors = Vec::new();
        value
            .clone()
            .push_components(&FieldPath::Root, &mut tensors);
        let mut components = Components::new(tensors);
        let back = F::from_components(&spec, &FieldPath::Root, &mut components).unwrap();
        assert_eq!(components.remaining(), 0);
        assert_eq!(back, value);
        let serialized = F::spec_to_value(&spec);
        assert_eq!(
            F::spec_from_value(&serialized, &FieldPath::Root).unwrap(),
            spec
        );
        assert!(F::spec_is_compatible(&spec, &spec));
        assert_eq!(
            F::spec_most_specific_compatible(&spec, &spec),
            Some(spec.clone())
        );
    }

    #[test]
    fn containers_round_trip() {
        round_trip(array![1.0f32, 2.0]);
        round_trip(Some(array![[true]]));
        round_trip(None::<Array1<u8>>);
        round_trip(vec![array![1i32], array![2, 3]]);
        round_trip(Box::new(array![0.5f64]));
        round_trip([array![1u16], array![2u16]]);
        round_trip((array![1i8], 3u32, String::from("x"), 1.5f32));
        round_trip(
            [
                ("a".to_string(), array![1u64]),
                ("b".to_string(), array![2u64]),
            ]
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
        );
        round_trip((DType::F32, Shape::known(&[2, 3]), true, -4i64, 2.5f64));
        round_trip(((), std::marker::PhantomData::<fn() -> u8>, 7usize));
        let err = <()>::spec_from_value(&SpecTree::Bool(true), &FieldPath::Root.field("unit"));
        assert_eq!(
            err.unwrap_err().to_string(),
            "spec unit: expected none, found bool true"
        );
    }

    /// Every component spec of `spec` with its dtype set to `dtype` and its shape to `shape`.
    fn replaced<F: Field>(spec: &F::Spec, dtype: DType, shape: &str) -> Result<F::Spec> {
        let mut old = Vec::new();
        F::component_specs(spec, &FieldPath::Root, &mut old);
        let new: Vec<TensorSpec> = old
            .iter()
            .map(|_| TensorSpec::new(shape.parse().unwrap(), dtype))
            .collect();
        let mut specs = ComponentSpecs::new(new);
        let out = F::with_component_specs(spec, &FieldPath::Root.field("f"), &mut specs)?;
        assert_eq!(specs.remaining(), 0);
        Ok(out)
    }

    fn component_texts<F: Field>(spec: &F::Spec) -> Vec<String> {
        let mut out = crate::field::PathSink::default();
        F::component_specs(spec, &FieldPath::Root.field("f"), &mut out);
        out.0.iter().map(|(p, s)| format!("{p}: {s}")).collect()
    }

    #[test]
    fn containers_replace_component_specs_in_order_keeping_static_data() {
        type Fields = (
            Option<Tensor>,
            Vec<ndarray::ArrayD<f32>>,
            [Tensor; 2],
            BTreeMap<String, Tensor>,
            (Box<Tensor>, String, Option<Tensor>),
        );
        let t = |shape: &[usize]| Tensor::from(ndarray::ArrayD::<f32>::zeros(shape));
        let value: Fields = (
            Some(t(&[1])),
            vec![
                ndarray::ArrayD::zeros(vec![2]),
                ndarray::ArrayD::zeros(vec![3]),
            ],
            [t(&[4]), t(&[5])],
            [("k".to_string(), t(&[6]))].into_iter().collect(),
            (Box::new(t(&[7])), "static".to_string(), None),
        );
        let spec = value.field_spec();
        let new = replaced::<Fields>(&spec, DType::F32, "[9, ?]").unwrap();
        assert_eq!(
            component_texts::<Fields>(&new),
            [
                "f.0: f32[9, ?]",
                "f.1[0]: f32[9, ?]",
                "f.1[1]: f32[9, ?]",
                "f.2[0]: f32[9, ?]",
                "f.2[1]: f32[9, ?]",
                "f.3.k: f32[9, ?]",
                "f.4.0: f32[9, ?]",
            ]
        );
        // Static data, lengths, keys and `None` are kept.
        assert_eq!(new.4.1, "static");
        assert_eq!(new.4.2, None);
        assert_eq!(new.1.len(), 2);
        // A `Vec<ArrayD<f32>>` item takes only f32: the error names the item.
        let err = replaced::<Fields>(&spec, DType::I64, "[9]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "spec f.1[0]: expected a component spec of dtype f32 (the field's element type), \
             found i64[9]"
        );
        // Too few specs: the first component without one is named.
        let mut specs = ComponentSpecs::new(vec![TensorSpec::new(Shape::scalar(), DType::F32)]);
        let err = Fields::with_component_specs(&spec, &FieldPath::Root.field("f"), &mut specs)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "spec f.1[0]: expected a component spec, found the end of the component spec list"
        );
        // A fixed-rank array inside a container checks the rank.
        let arrays = vec![ndarray::Array2::<u8>::zeros((1, 2))];
        let err =
            replaced::<Vec<ndarray::Array2<u8>>>(&arrays.field_spec(), DType::U8, "[1, 2, 3]")
                .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("spec f[0]: expected a component spec of rank 2")
        );
        // Static fields have no components: the spec itself.
        assert_eq!(
            replaced::<(u8, DType)>(&(3, DType::F64), DType::F32, "[]").unwrap(),
            (3, DType::F64)
        );
    }

    #[test]
    fn rebuild_errors_name_the_path() {
        let spec: Vec<TensorSpec> = vec![
            TensorSpec::new("[2]".parse().unwrap(), DType::F32),
            TensorSpec::new("[?, 3]".parse().unwrap(), DType::F32),
        ];
        type V = Vec<ndarray::ArrayD<f32>>;
        let root = FieldPath::Root;
        let path = root.field("children");
        let bad_dtype = vec![
            Tensor::from(array![1.0f32, 2.0]),
            Tensor::from(array![[1i32, 2, 3]]),
        ];
        let err = V::from_components(&spec, &path, &mut Components::new(bad_dtype)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "component children[1]: expected dtype f32, found i32"
        );
        let bad_shape = vec![
            Tensor::from(array![1.0f32, 2.0]),
            Tensor::from(array![[1.0f32, 2.0]]),
        ];
        let err = V::from_components(&spec, &path, &mut Components::new(bad_shape)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "component children[1]: shape [1, 2] is not compatible with spec shape [?, 3]"
        );
        let short = vec![Tensor::from(array![1.0f32, 2.0])];
        let err = V::from_components(&spec, &path, &mut Components::new(short)).unwrap_err();
        assert!(err.to_string().contains("children[1]"), "{err}");
    }
}

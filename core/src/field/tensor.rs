//! Tensor fields: `Array<T, D>` (static rank `D`), `ArcArray<T, D>` and [`Tensor`]. Their spec is a
//! [`TensorSpec`]; each is one component.

use ndarray::{ArcArray, Array, Dimension};

use super::{ComponentSpecs, Components, Field, FieldPath, Sink, check_tensor, data_error};
use crate::dtype::DType;
use crate::error::{Error, Result, SpecError};
use crate::spec::SpecSource;
use crate::spec_tree::SpecTree;
use crate::tensor::{Element, Tensor, TensorSpec, TensorView};
use extype_shape::Shape;

fn tensor_spec_from_value(
    value: &SpecTree,
    path: &FieldPath<'_>,
    dtype: Option<DType>,
    rank: Option<usize>,
) -> Result<TensorSpec> {
    let SpecTree::TensorSpec(spec) = value else {
        return Err(data_error(path, "a tensor spec", value));
    };
    if let Some(dtype) = dtype.filter(|&d| d != spec.dtype) {
        return Err(data_error(
            path,
            format!("a tensor spec of dtype {dtype}"),
            &SpecTree::Str(format!("tensor spec {spec}")),
        ));
    }
    if let Some(rank) = rank.filter(|&r| spec.shape.rank().is_some_and(|s| s != r)) {
        return Err(data_error(
            path,
            format!("a tensor spec of rank {rank}"),
            &SpecTree::Str(format!("tensor spec {spec}")),
        ));
    }
    Ok(spec.clone())
}

/// A replacement component spec for a tensor field whose Rust type fixes `dtype` and `rank`
/// (`None`: any): checked against them, an unknown rank refined to the fixed one.
fn replaced_spec(
    spec: TensorSpec,
    path: &FieldPath<'_>,
    dtype: Option<DType>,
    rank: Option<usize>,
) -> Result<TensorSpec> {
    if let Some(dtype) = dtype.filter(|&d| d != spec.dtype) {
        let expected = format!("a component spec of dtype {dtype} (the field's element type)");
        return Err(bad_replacement(path, expected, &spec));
    }
    match (rank, spec.shape.rank()) {
        (Some(rank), Some(found)) if rank != found => {
            let expected = format!("a component spec of rank {rank} (the field's array rank)");
            Err(bad_replacement(path, expected, &spec))
        }
        (Some(rank), None) => Ok(TensorSpec::new(Shape::unknown(rank), spec.dtype)),
        _ => Ok(spec),
    }
}

#[cold]
#[inline(never)]
fn bad_replacement(path: &FieldPath<'_>, expected: String, found: &TensorSpec) -> Error {
    SpecError::Data {
        path: path.to_string(),
        expected,
        found: found.to_string(),
    }
    .into()
}

/// The error of a tensor field with no tensor of its path in a [`SpecSource`].
#[cold]
#[inline(never)]
fn missing_tensor(path: &FieldPath<'_>) -> Error {
    SpecError::Data {
        path: path.to_string(),
        expected: "a tensor of this name (a tensor field of the type)".into(),
        found: "no tensor of that name".into(),
    }
    .into()
}

#[inline]
fn rank_checked(
    spec: &TensorSpec,
    tensor: &Tensor,
    rank: Option<usize>,
    path: &FieldPath<'_>,
) -> Result<()> {
    check_tensor(spec, tensor, path)?;
    match rank {
        Some(rank) if rank != tensor.ndim() => Err(rank_mismatch(rank, tensor, path)),
        _ => Ok(()),
    }
}

#[cold]
#[inline(never)]
fn rank_mismatch(rank: usize, tensor: &Tensor, path: &FieldPath<'_>) -> Error {
    SpecError::ComponentShape {
        path: path.to_string(),
        expected: Box::new(Shape::unknown(rank)),
        found: tensor.shape().to_vec(),
    }
    .into()
}

macro_rules! tensor_field_common {
    ($dtype:expr, $rank:expr) => {
        type Spec = TensorSpec;

        #[inline]
        fn unknown_spec() -> Option<TensorSpec> {
            let dtype: Option<DType> = $dtype;
            let rank: Option<usize> = $rank;
            let shape = rank.map_or_else(Shape::unknown_rank, Shape::unknown);
            dtype.map(|dtype| TensorSpec::new(shape, dtype))
        }

        #[inline]
        fn num_components(_spec: &TensorSpec) -> usize {
            1
        }

        #[inline]
        fn component_specs(
            spec: &TensorSpec,
            path: &FieldPath<'_>,
            out: &mut dyn Sink<TensorSpec>,
        ) {
            out.push(path, spec.clone());
        }

        fn with_component_specs(
            _spec: &TensorSpec,
            path: &FieldPath<'_>,
            specs: &mut ComponentSpecs,
        ) -> Result<TensorSpec> {
            replaced_spec(specs.next_for(path)?, path, $dtype, $rank)
        }

        fn spec_from_source(
            path: &FieldPath<'_>,
            source: &mut dyn SpecSource,
        ) -> Result<TensorSpec> {
            match source.tensor(&path.to_string())? {
                Some(spec) => replaced_spec(spec, path, $dtype, $rank),
                None => Err(missing_tensor(path)),
            }
        }

        fn spec_to_value(spec: &TensorSpec) -> SpecTree {
            SpecTree::TensorSpec(spec.clone())
        }

        fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<TensorSpec> {
            tensor_spec_from_value(value, path, $dtype, $rank)
        }

        #[inline]
        fn spec_is_compatible(a: &TensorSpec, b: &TensorSpec) -> bool {
            a.is_compatible_with(b)
        }

        #[inline]
        fn spec_most_specific_compatible(a: &TensorSpec, b: &TensorSpec) -> Option<TensorSpec> {
            a.most_specific_compatible(b)
        }
    };
}

/// An owned array: its static rank `D` is part of what a spec must agree with.
impl<T: Element, D: Dimension + Send + Sync + 'static> super::SequenceItem for Array<T, D> {}

impl<T: Element, D: Dimension + Send + Sync + 'static> Field for Array<T, D> {
    tensor_field_common!(Some(T::DTYPE), D::NDIM);

    #[inline]
    fn field_spec(&self) -> TensorSpec {
        TensorSpec::from_shape_dtype(self.shape(), T::DTYPE)
    }

    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        out.push(path, TensorView::from_array(self.view()));
    }

    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        out.push(path, Tensor::from_array(self));
    }

    #[inline]
    fn from_components(
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        let tensor = components.next_for(path)?;
        rank_checked(spec, &tensor, D::NDIM, path)?;
        // Moves when the tensor is uniquely owned (the usual case after `into_components`).
        tensor.into_array::<T, D>()
    }
}

/// A shared array: O(1) clone, never copied.
impl<T: Element, D: Dimension + Send + Sync + 'static> super::SequenceItem for ArcArray<T, D> {}

impl<T: Element, D: Dimension + Send + Sync + 'static> Field for ArcArray<T, D> {
    tensor_field_common!(Some(T::DTYPE), D::NDIM);

    #[inline]
    fn field_spec(&self) -> TensorSpec {
        TensorSpec::from_shape_dtype(self.shape(), T::DTYPE)
    }

    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        out.push(path, TensorView::from_array(self.view()));
    }

    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        out.push(path, Tensor::from_arc_array(self));
    }

    #[inline]
    fn from_components(
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        let tensor = components.next_for(path)?;
        rank_checked(spec, &tensor, D::NDIM, path)?;
        tensor.into_arc_array::<T, D>()
    }
}

/// A dtype-erased tensor: any dtype and rank, fixed by the spec.
impl super::SequenceItem for Tensor {}

impl Field for Tensor {
    tensor_field_common!(None, None);

    #[inline]
    fn field_spec(&self) -> TensorSpec {
        TensorSpec::from_tensor(self)
    }

    #[inline]
    fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
        out.push(path, self.view());
    }

    #[inline]
    fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
        out.push(path, self);
    }

    #[inline]
    fn from_components(
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        components: &mut Components,
    ) -> Result<Self> {
        components.next_checked(spec, path)
    }

    #[inline]
    unsafe fn from_components_into(
        spec: &TensorSpec,
        path: &FieldPath<'_>,
        components: &mut Components,
        out: *mut Self,
        _: crate::spec::seal::Seal,
    ) -> Result<()> {
        // SAFETY: forwarded from the caller.
        unsafe { components.next_checked_into(spec, path, out) }
    }
}

#[cfg(test)]
mod tests {
    use ndarray::{Array2, Ix2};

    use super::*;

    #[test]
    fn static_rank_is_checked() {
        let spec = TensorSpec::new(Shape::unknown_rank(), DType::F32);
        let rank3 = vec![Tensor::from(ndarray::Array3::<f32>::zeros((1, 1, 1)))];
        let root = FieldPath::Root;
        let err =
            Array2::<f32>::from_components(&spec, &root.field("x"), &mut Components::new(rank3))
                .unwrap_err();
        assert!(err.to_string().contains("component x"), "{err}");
        let rank1 = SpecTree::TensorSpec(TensorSpec::new("[3]".parse().unwrap(), DType::F32));
        assert!(ndarray::ArcArray::<f32, Ix2>::spec_from_value(&rank1, &root).is_err());
        let wrong_dtype =
            SpecTree::TensorSpec(TensorSpec::new("[3, 3]".parse().unwrap(), DType::F64));
        let err = Array2::<f32>::spec_from_value(&wrong_dtype, &root.field("v")).unwrap_err();
        assert!(err.to_string().contains("dtype f32"), "{err}");
    }

    /// A hand-written field type with a component that does not implement
    /// `with_component_specs`.
    #[derive(Clone, Debug)]
    struct Wrapped(Tensor);

    impl Field for Wrapped {
        type Spec = TensorSpec;
        fn field_spec(&self) -> TensorSpec {
            self.0.field_spec()
        }
        fn num_components(_: &TensorSpec) -> usize {
            1
        }
        fn component_specs(
            spec: &TensorSpec,
            path: &FieldPath<'_>,
            out: &mut dyn Sink<TensorSpec>,
        ) {
            Tensor::component_specs(spec, path, out)
        }
        fn push_views<'a>(&'a self, path: &FieldPath<'_>, out: &mut dyn Sink<TensorView<'a>>) {
            self.0.push_views(path, out)
        }
        fn push_components(self, path: &FieldPath<'_>, out: &mut dyn Sink<Tensor>) {
            self.0.push_components(path, out)
        }
        fn from_components(
            spec: &TensorSpec,
            path: &FieldPath<'_>,
            components: &mut Components,
        ) -> Result<Self> {
            Tensor::from_components(spec, path, components).map(Wrapped)
        }
        fn spec_to_value(spec: &TensorSpec) -> SpecTree {
            Tensor::spec_to_value(spec)
        }
        fn spec_from_value(value: &SpecTree, path: &FieldPath<'_>) -> Result<TensorSpec> {
            Tensor::spec_from_value(value, path)
        }
        fn spec_is_compatible(a: &TensorSpec, b: &TensorSpec) -> bool {
            Tensor::spec_is_compatible(a, b)
        }
        fn spec_most_specific_compatible(a: &TensorSpec, b: &TensorSpec) -> Option<TensorSpec> {
            Tensor::spec_most_specific_compatible(a, b)
        }
    }

    #[test]
    fn a_hand_written_field_type_with_components_must_say_how_to_replace_them() {
        let spec = TensorSpec::new("[2]".parse().unwrap(), DType::F32);
        let mut specs = ComponentSpecs::new(vec![spec.clone()]);
        let err = Wrapped::with_component_specs(&spec, &FieldPath::Root.field("w"), &mut specs)
            .unwrap_err();
        assert!(
            err.to_string().starts_with(
                "spec w: expected a field type that rebuilds its spec from component specs"
            ) && err.to_string().ends_with("Wrapped"),
            "{err}"
        );
        // Without components (static data), the spec itself.
        let mut none = ComponentSpecs::new(Vec::new());
        assert_eq!(
            <(u8, String)>::with_component_specs(&(1, "s".into()), &FieldPath::Root, &mut none)
                .unwrap(),
            (1, "s".to_string())
        );
    }

    #[test]
    fn replaced_specs_are_checked_against_the_rust_type() {
        let spec = |text: &str, dtype| TensorSpec::new(text.parse().unwrap(), dtype);
        let root = FieldPath::Root;
        let path = root.field("x");
        let old = spec("[2, 3]", DType::F32);
        let replace = |new: TensorSpec| {
            let mut specs = ComponentSpecs::new(vec![new]);
            Array2::<f32>::with_component_specs(&old, &path, &mut specs)
        };
        assert_eq!(
            replace(spec("[4, ?]", DType::F32)).unwrap(),
            spec("[4, ?]", DType::F32)
        );
        // An unknown rank is refined to the array's.
        assert_eq!(
            replace(TensorSpec::new(Shape::unknown_rank(), DType::F32)).unwrap(),
            spec("[?, ?]", DType::F32)
        );
        let err = replace(spec("[4, 3, 2]", DType::F32)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "spec x: expected a component spec of rank 2 (the field's array rank), found \
             f32[4, 3, 2]"
        );
        let err = replace(spec("[4, 3]", DType::F64)).unwrap_err();
        assert!(err.to_string().contains("of dtype f32"), "{err}");
        // A `Tensor` field takes any dtype and rank; none left is an error naming the path.
        let mut specs = ComponentSpecs::new(vec![spec("[1, 2, 3]", DType::Bool)]);
        let new = Tensor::with_component_specs(&old, &path, &mut specs).unwrap();
        assert_eq!(new, spec("[1, 2, 3]", DType::Bool));
        let err = Tensor::with_component_specs(&old, &path, &mut specs).unwrap_err();
        assert!(
            err.to_string()
                .contains("spec x: expected a component spec"),
            "{err}"
        );
    }
}

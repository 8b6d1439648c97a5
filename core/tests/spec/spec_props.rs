//! Property tests of specs over a hand-written type (`common/masked.rs`): rebuilding accepts
//! exactly the components the spec admits, compatibility is symmetric, and relaxation is an upper
//! bound of both sides.

use crate::common;

use common::{MaskedTensor, MaskedTensorSpec};
use extype::{DType, Dim, ExtensionType, Shape, Tensor, TensorSpec, TypeSpec};
use ndarray::ArrayD;
use proptest::prelude::*;

fn concrete() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..4, 0..4)
}

fn partial() -> impl Strategy<Value = Shape> {
    let dim = prop_oneof![
        (0usize..4).prop_map(Dim::Known),
        Just(Dim::NotOne),
        Just(Dim::Unknown)
    ];
    prop_oneof![
        1 => Just(Shape::unknown_rank()),
        6 => prop::collection::vec(dim, 0..4).prop_map(Shape::from_dims),
    ]
}

fn spec(values: Shape, mask: Shape) -> MaskedTensorSpec {
    MaskedTensorSpec {
        values: TensorSpec::new(values, DType::F32),
        mask: TensorSpec::new(mask, DType::Bool),
    }
}

fn value(shape: &[usize]) -> MaskedTensor {
    MaskedTensor {
        values: ArrayD::zeros(shape.to_vec()),
        mask: ArrayD::from_elem(shape.to_vec(), true),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rebuild_accepts_exactly_what_the_spec_admits(
        values in partial(), mask in partial(), a in concrete(), b in concrete()
    ) {
        let s = spec(values.clone(), mask.clone());
        let components = vec![
            Tensor::from(ArrayD::<f32>::zeros(a.clone())),
            Tensor::from(ArrayD::from_elem(b.clone(), true)),
        ];
        let admitted = values.admits(&a) && mask.admits(&b) && a == b;
        let rebuilt = s.from_components(components);
        prop_assert_eq!(rebuilt.is_ok(), admitted, "{:?}", rebuilt.err());
    }

    #[test]
    fn compatibility_is_symmetric_and_relaxation_bounds_both(
        v1 in partial(), m1 in partial(), v2 in partial(), m2 in partial(), shape in concrete()
    ) {
        let x = spec(v1, m1);
        let y = spec(v2, m2);
        prop_assert_eq!(x.is_compatible_with(&y), y.is_compatible_with(&x));
        let joined = x.most_specific_compatible(&y).expect("same dtypes always relax");
        prop_assert_eq!(Some(joined.clone()), y.most_specific_compatible(&x));
        prop_assert!(joined.is_compatible_with(&x) && joined.is_compatible_with(&y));
        let v = value(&shape);
        for side in [&x, &y] {
            if side.from_components(v.clone().into_components()).is_ok() {
                prop_assert!(joined.from_components(v.clone().into_components()).is_ok());
            }
        }
    }

    #[test]
    fn spec_of_a_value_admits_it(shape in concrete()) {
        let v = value(&shape);
        let s = v.spec();
        prop_assert_eq!(s.values.shape.to_known(), Some(shape));
        prop_assert_eq!(s.from_components(v.clone().into_components()).unwrap(), v);
    }
}

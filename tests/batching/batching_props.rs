//! Property tests of batching: stack∘unstack is the identity and the spec laws hold, over
//! shapes including zero-size and rank-0 components, for the default and the ragged encoders.

use crate::types;

use extype::batch::{self, BatchableSpec};
use extype::ndarray::{ArcArray, ArrayD, IxDyn};
use extype::{ExtensionType, Shape, Tensor, TypeSpec};
use proptest::prelude::*;
use types::{Masked, Ragged};

/// A batchable type with a dtype-erased tensor of another shape and a static shape.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.BatchPair", batchable)]
struct Pair {
    a: Masked,
    b: Tensor,
    frame: Shape,
}

fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..4, 0..4)
}

fn masked(shape: &[usize], seed: u32) -> Masked {
    let n: usize = shape.iter().product();
    let values: Vec<f32> = (0..n).map(|i| (i as f32) - (seed % 7) as f32).collect();
    let mask: Vec<bool> = values.iter().map(|v| *v >= 0.0).collect();
    Masked {
        values: ArrayD::from_shape_vec(IxDyn(shape), values).unwrap(),
        mask: ArcArray::from_shape_vec(IxDyn(shape), mask).unwrap(),
    }
}

fn pair(s1: &[usize], s2: &[usize], seed: u32) -> Pair {
    let n: usize = s2.iter().product();
    let b: Vec<i32> = (0..n).map(|i| i as i32 * seed as i32).collect();
    Pair {
        a: masked(s1, seed),
        b: Tensor::from(ArrayD::from_shape_vec(IxDyn(s2), b).unwrap()),
        frame: Shape::known(s2),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn stack_unstack_is_identity(s1 in shape(), s2 in shape(), n in 1usize..6) {
        let items: Vec<Pair> = (0..n as u32).map(|i| pair(&s1, &s2, i)).collect();
        let b = batch::stack(&items).unwrap();
        prop_assert_eq!(b.spec(), items[0].spec().batched(Some(n)));
        prop_assert_eq!(batch::batch_len(&b).unwrap(), n);
        prop_assert_eq!(b.spec().unbatched().unwrap(), items[0].spec());
        prop_assert_eq!(batch::unstack(b).unwrap(), items);
    }

    #[test]
    fn spec_batched_unbatched_round_trip(s1 in shape(), s2 in shape(), n in proptest::option::of(0usize..9)) {
        let spec = pair(&s1, &s2, 1).spec();
        prop_assert_eq!(spec.batched(n).unbatched().unwrap(), spec);
    }

    #[test]
    fn empty_batch_has_the_batched_spec(s1 in shape(), s2 in shape()) {
        let spec = pair(&s1, &s2, 1).spec();
        let empty = batch::stack_with_spec::<Pair>(&[], &spec).unwrap();
        prop_assert_eq!(empty.spec(), spec.batched(Some(0)));
    }

    #[test]
    fn split_concat_is_identity(s1 in shape(), n in 1usize..8, cut in 0usize..8) {
        let items: Vec<Masked> = (0..n as u32).map(|i| masked(&s1, i)).collect();
        let b = batch::stack(&items).unwrap();
        let cut = cut.min(n);
        let parts = batch::split(b.clone(), &[cut, n - cut]).unwrap();
        prop_assert_eq!(batch::concat(&parts).unwrap(), b);
    }

    #[test]
    fn ragged_round_trip(rows in prop::collection::vec(0usize..6, 1..8)) {
        let items: Vec<Ragged> = rows
            .iter()
            .enumerate()
            .map(|(i, &len)| Ragged::row((0..len).map(|j| (i * 10 + j) as f32).collect()))
            .collect();
        let b = batch::stack(&items).unwrap();
        prop_assert!(b.spec().is_compatible_with(&items[0].spec().batched(Some(items.len()))));
        prop_assert_eq!(b.values.shape()[0], rows.iter().sum::<usize>());
        prop_assert_eq!(batch::unstack(b.clone()).unwrap(), items);
        // Ragged rank 2: a batch of two ragged batches.
        let b2 = batch::stack(&[b.clone(), b.clone()]).unwrap();
        prop_assert_eq!(batch::unstack(b2).unwrap(), vec![b.clone(), b]);
    }
}

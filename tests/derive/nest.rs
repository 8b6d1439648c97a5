//! `nest` over structures holding extension values, with `expand_composites` on and off.

use crate::common;

use std::collections::BTreeMap;

use common::{MaskedTensor, RaggedTensor};
use extype::nest::{Structure, assert_same_structure, flatten, map_structure, pack_sequence_as};
use extype::{DType, Tensor, Value};
use ndarray::{Array1, IxDyn, array};

fn masked(n: usize) -> MaskedTensor {
    MaskedTensor {
        values: Array1::from_iter((0..n).map(|i| i as f32)).into_dyn(),
        mask: Array1::from_elem(n, true).into_dyn(),
    }
}

fn ragged() -> RaggedTensor {
    RaggedTensor {
        values: Tensor::from(array![1i32, 2, 3]),
        row_splits: array![0, 1, 3].into_shared(),
    }
}

type Nested = (
    Vec<MaskedTensor>,
    Option<RaggedTensor>,
    BTreeMap<String, Array1<f64>>,
);

fn nested() -> Nested {
    let mut attrs = BTreeMap::new();
    attrs.insert("height".to_string(), array![1.5]);
    (vec![masked(2), masked(3)], Some(ragged()), attrs)
}

#[test]
fn expand_composites_flattens_to_components() {
    let leaves = flatten(nested(), true);
    assert_eq!(leaves.len(), 7);
    let dtypes: Vec<DType> = leaves
        .iter()
        .map(|l| l.as_tensor().unwrap().dtype())
        .collect();
    assert_eq!(
        dtypes,
        [
            DType::F32,
            DType::Bool,
            DType::F32,
            DType::Bool,
            DType::I32,
            DType::I64,
            DType::F64
        ]
    );
    let back = pack_sequence_as(&nested(), leaves, true).unwrap();
    assert_eq!(back, nested());
}

#[test]
fn without_expansion_extension_values_are_leaves() {
    let leaves = flatten(nested(), false);
    assert_eq!(leaves.len(), 4);
    assert_eq!(leaves[0].type_name(), "test.MaskedTensor");
    assert_eq!(leaves[2].type_name(), "test.RaggedTensor");
    let back = pack_sequence_as(&nested(), leaves, false).unwrap();
    assert_eq!(back, nested());
}

#[test]
fn pack_takes_static_data_from_the_structure_and_checks_leaves() {
    let structure = nested();
    let mut leaves = flatten(nested(), true);
    leaves[1] = Value::from(Tensor::from(array![1u8, 0]));
    let err = pack_sequence_as(&structure, leaves, true).unwrap_err();
    assert_eq!(
        err.to_string(),
        "leaf 1 (at 0[0]): expected a tensor of dtype bool, found a tensor u8[2]"
    );
    let err =
        pack_sequence_as(&structure, flatten(nested(), true)[..6].to_vec(), true).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pack_sequence_as: the structure has 7 leaves, the flat list 6"
    );
    let mut leaves = flatten(nested(), false);
    leaves.swap(0, 2);
    let err = pack_sequence_as(&structure, leaves, false).unwrap_err();
    assert!(
        err.to_string()
            .contains("expected extension value test.MaskedTensor"),
        "{err}"
    );
}

#[test]
fn map_structure_rebuilds_extension_values() {
    let negated = map_structure(nested(), true, |leaf| {
        let t = leaf.into_tensor()?;
        Ok(Value::Tensor(match t.dtype() {
            DType::F32 => Tensor::from(t.as_array::<f32, IxDyn>()?.mapv(|x| -x)),
            _ => t,
        }))
    })
    .unwrap();
    assert_eq!(negated.0[1].values, array![-0.0f32, -1.0, -2.0].into_dyn());
    assert_eq!(negated.1, Some(ragged()));
    // Shapes may change; the type's validation still guards its invariants.
    let grown = map_structure(masked(2), true, |leaf| {
        let t = leaf.into_tensor()?;
        Ok(Value::Tensor(match t.dtype() {
            DType::F32 => Tensor::from(array![1.0f32, 2.0, 3.0].into_dyn()),
            _ => Tensor::from(array![true, false, true].into_dyn()),
        }))
    })
    .unwrap();
    assert_eq!(grown.mask, array![true, false, true].into_dyn());
    let err = map_structure(masked(2), true, |leaf| {
        let t = leaf.into_tensor()?;
        Ok(Value::Tensor(match t.dtype() {
            DType::F32 => Tensor::from(array![1.0f32, 2.0, 3.0].into_dyn()),
            _ => t,
        }))
    })
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("values shape [3] differs from mask shape [2]"),
        "{err}"
    );
    let err = map_structure(ragged(), true, |leaf| {
        let t = leaf.into_tensor()?;
        Ok(Value::Tensor(match t.dtype() {
            DType::I32 => Tensor::from(array![1i32, 2, 3, 4]),
            _ => t,
        }))
    })
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("row_splits ends at 3 but values have Some(4) rows"),
        "{err}"
    );
    // Dynamically typed values relax through the registry too.
    let as_value = Value::from_extension(masked(2));
    let leaves = vec![
        Value::from(Tensor::from(array![5.0f32].into_dyn())),
        Value::from(Tensor::from(array![false].into_dyn())),
    ];
    let packed = pack_sequence_as(&as_value, leaves, true).unwrap();
    assert_eq!(
        packed.downcast_ref::<MaskedTensor>().unwrap().values,
        array![5.0f32].into_dyn()
    );
    let counted = map_structure(nested(), false, Ok).unwrap();
    assert_eq!(counted, nested());
}

#[test]
fn same_structure_uses_spec_compatibility_when_expanding() {
    let a = (masked(2), vec![ragged()]);
    let b = (masked(5), vec![ragged()]);
    assert_same_structure(&a, &b, false).unwrap();
    // [2] and [5] relax to [!1]: a compatible spec exists.
    assert_same_structure(&a, &b, true).unwrap();
    let c = (ragged(), vec![ragged()]);
    assert_same_structure(&a, &c, false).unwrap();
    let err = assert_same_structure(&a, &c, true).unwrap_err();
    assert!(
        err.to_string().starts_with("structures differ at 0:"),
        "{err}"
    );
    let d = (masked(2), vec![ragged(), ragged()]);
    let err = assert_same_structure(&a, &d, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "structures differ at 1: a list of 1 vs a list of 2"
    );
    let s = extype::nest::Nest::structure(&a, true);
    assert!(matches!(s, Structure::Sequence("tuple", _)));
}

#[test]
fn values_nest_too() {
    let values = vec![
        Value::from_extension(masked(2)),
        Value::from(Tensor::from(array![1u16])),
    ];
    let leaves = flatten(values.clone(), true);
    assert_eq!(leaves.len(), 3);
    let back = pack_sequence_as(&values, leaves, true).unwrap();
    assert_eq!(back[0].downcast_ref::<MaskedTensor>().unwrap(), &masked(2));
    // A value that is not shared gives its components up without a copy.
    let value = masked(2);
    let ptr = value.values.as_ptr();
    let leaves = flatten(Value::from_extension(value), true);
    let first = leaves[0]
        .as_tensor()
        .unwrap()
        .as_arc_array::<f32>()
        .unwrap();
    assert_eq!(first.as_ptr(), ptr);
}

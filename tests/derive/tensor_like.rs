//! The tensor-like interface: `#[extype(tensor_like = field)]`, `#[extype(tensor_like)]` with a
//! hand-written impl, and what reads it (`ops::shape`, `ops::rank`, spec inference, `Display`).

use extype::ops::{self, OpArgs, catalog};
use extype::{DType, ExtensionType, Shape, Tensor, TensorLike, TensorSpec, Value, ValueSpec};
use ndarray::{ArrayD, IxDyn, array};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_like.Masked", tensor_like = values)]
pub struct Masked {
    #[extype(shape = "*dims")]
    pub values: Tensor,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

/// A ragged-like type: rows of different lengths; its second dimension is unknown.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_like.Rows", tensor_like)]
pub struct Rows {
    pub flat: ArrayD<f64>,
    pub row_splits: ArrayD<i64>,
}

impl TensorLike for Rows {
    fn dtype(&self) -> DType {
        DType::F64
    }
    fn shape(&self) -> Shape {
        Shape::from_dims([
            extype::Dim::Known(self.row_splits.len().saturating_sub(1)),
            extype::Dim::Unknown,
        ])
    }
}

impl TensorLike for RowsSpec {
    fn dtype(&self) -> DType {
        self.flat.dtype
    }
    fn shape(&self) -> Shape {
        let rows = match self.row_splits.shape.dims() {
            Some([extype::Dim::Known(n)]) => extype::Dim::Known(n.saturating_sub(1)),
            _ => extype::Dim::Unknown,
        };
        Shape::from_dims([rows, extype::Dim::Unknown])
    }
}

/// Not tensor-like.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_like.Pair")]
pub struct Pair {
    pub a: Tensor,
    pub b: Tensor,
}

fn masked() -> Masked {
    Masked::try_new(
        Tensor::from(array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]].into_dyn()),
        ArrayD::from_elem(IxDyn(&[2, 3]), true),
    )
    .unwrap()
}

#[test]
fn a_field_shows_the_dtype_and_shape_of_value_and_spec() {
    let m = masked();
    assert_eq!(TensorLike::dtype(&m), DType::F32);
    assert_eq!(TensorLike::shape(&m), Shape::known(&[2, 3]));
    assert_eq!(TensorLike::rank(&m), Some(2));
    let spec = m.spec();
    assert_eq!(spec.tensor_like_spec().to_string(), "f32[2, 3]");
    // Partial specs stay partial.
    let partial = MaskedSpec {
        values: "f32[?, 3]".parse().unwrap(),
        mask: "bool[?, 3]".parse().unwrap(),
    };
    assert_eq!(TensorLike::shape(&partial).to_string(), "[?, 3]");
    // Behind `dyn`: values, specs, operands, and values the registry rebuilt (erased).
    let value = Value::from_extension(m.clone());
    assert_eq!(value.tensor_like().unwrap().dtype(), DType::F32);
    assert_eq!(
        value.spec().tensor_like().unwrap().shape(),
        Shape::known(&[2, 3])
    );
    let rebuilt = extype::registry()
        .rebuild(
            &extype::TypeSpec::serialize(&m.spec()),
            m.clone().into_components(),
        )
        .unwrap();
    assert_eq!(
        rebuilt.tensor_like().unwrap().shape(),
        Shape::known(&[2, 3])
    );
    assert!(
        Value::from_extension(Pair {
            a: Tensor::from(array![1.0f32].into_dyn()),
            b: Tensor::from(array![1.0f32].into_dyn()),
        })
        .tensor_like()
        .is_none()
    );
}

#[test]
fn display_starts_with_dtype_and_shape() {
    let text = Value::from_extension(masked()).to_string();
    assert!(
        text.starts_with("f32[2, 3] test_like.Masked { values: f32[2, 3], mask: bool[2, 3] }"),
        "{text}"
    );
    let rows = Rows {
        flat: ArrayD::zeros(IxDyn(&[5])),
        row_splits: array![0i64, 2, 5].into_dyn(),
    };
    let text = Value::from_extension(rows).to_string();
    assert!(text.starts_with("f64[2, ?] test_like.Rows"), "{text}");
}

#[test]
fn shape_and_rank_read_it() {
    let m = masked();
    let shape: Tensor = ops::shape_as(&m).unwrap();
    assert_eq!(shape, Tensor::from(array![2i64, 3].into_dyn()));
    assert_eq!(ops::rank(&m).unwrap(), 2);
    assert_eq!(ops::rank(&Value::from_extension(m)).unwrap(), 2);
    // A ragged dimension has no single size.
    let rows = Rows {
        flat: ArrayD::zeros(IxDyn(&[5])),
        row_splits: array![0i64, 2, 5].into_dyn(),
    };
    assert_eq!(ops::rank(&rows).unwrap(), 2);
    let err = ops::shape(&rows).unwrap_err().to_string();
    assert_eq!(
        err,
        "shape: argument 0: expected a value whose every dimension is a known size (register a \
         `Shape` handler for a type with ragged dimensions), found test_like.Rows of shape [2, ?]"
    );
    let pair = Pair {
        a: Tensor::from(array![1.0f32].into_dyn()),
        b: Tensor::from(array![1.0f32].into_dyn()),
    };
    let err = ops::rank(&pair).unwrap_err().to_string();
    assert!(
        err.starts_with("rank: argument 0: expected a tensor"),
        "{err}"
    );
    assert!(err.ends_with("found test_like.Pair"), "{err}");
    assert!(ops::shape(&pair).is_err());
}

#[test]
fn spec_inference_of_shape_reads_it() {
    let spec = ValueSpec::Extension(Box::new(MaskedSpec {
        values: "f32[?, 3]".parse().unwrap(),
        mask: "bool[?, 3]".parse().unwrap(),
    }));
    let out = ops::infer_spec(&catalog::SHAPE, &[&spec], &OpArgs::none()).unwrap();
    assert_eq!(
        out.spec,
        ValueSpec::Tensor(TensorSpec::new(Shape::known(&[2]), DType::I64))
    );
}

/// A tensor-like type with static data, not batchable.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_like.Tagged", tensor_like = values)]
pub struct Tagged {
    pub values: Tensor,
    pub tag: String,
}

#[test]
fn stack_and_concat_join_tensor_like_values_component_by_component() {
    use extype::AsOperand;
    let a = Tagged {
        values: Tensor::from(array![[1i32, 2]].into_dyn()),
        tag: "a".into(),
    };
    let joined: Tagged = ops::concat_as(&[a.as_operand(), a.as_operand()], 1).unwrap();
    assert_eq!(
        joined.values,
        Tensor::from(array![[1i32, 2, 1, 2]].into_dyn())
    );
    assert_eq!(joined.tag, "a");
    let stacked: Tagged = ops::stack_as(&[a.as_operand(), a.as_operand()], 0).unwrap();
    assert_eq!(stacked.values.shape(), &[2, 1, 2]);
    // Static data must agree: nothing is silently dropped.
    let b = Tagged {
        tag: "b".into(),
        ..a.clone()
    };
    let err = ops::concat(&[a.as_operand(), b.as_operand()], 0)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("concat: the values: expected values whose static data are equal"),
        "{err}"
    );
    // A type that is not tensor-like (nor batchable) has no such fallback.
    let pair = Pair {
        a: Tensor::from(array![1.0f32].into_dyn()),
        b: Tensor::from(array![1.0f32].into_dyn()),
    };
    assert!(ops::concat(&[pair.as_operand(), pair.as_operand()], 0).is_err());
}

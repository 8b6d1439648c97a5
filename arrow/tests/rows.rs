//! The row layout: a custom encoder's batch whose components do not share a leading batch axis
//! and whose encoder declares no list layout (this test's ragged type, a sparse batch) becomes
//! one `arrow.variable_shape_tensor` row per item, and comes back as the same batch. (The
//! library's `RaggedTensor` declares the list layout: `tests/lists.rs`.)

#[path = "../../tests/common/batching.rs"]
mod types;

use extype::{Tensor, Value, batch};
use extype_arrow::arrow_array::{Array, ListArray, StructArray};
use extype_arrow::arrow_schema::DataType;
use extype_arrow::*;
use types::Ragged;

fn ragged_batch() -> Ragged {
    let items = vec![
        Ragged::row(vec![1.0, 2.0, 3.0]),
        Ragged::row(vec![]),
        Ragged::row(vec![4.0]),
        Ragged::row(vec![5.0, 6.0]),
    ];
    batch::stack(&items).unwrap()
}

#[test]
fn a_ragged_batch_is_one_variable_shape_tensor_row_per_item() {
    let b = ragged_batch();
    assert_eq!(b.values.shape(), &[6]);
    let rb = to_record_batch(&[("r", &Value::from_extension(b.clone()))]).unwrap();
    assert_eq!(rb.num_rows(), 4);
    let schema = rb.schema();
    let field = schema.field(0);
    assert_eq!(field.metadata()[EXTENSION_NAME], "test.BatchRagged");
    assert!(field.metadata()[ITEM_SPEC].contains("test.BatchRagged"));
    let DataType::Struct(children) = field.data_type() else {
        panic!()
    };
    assert_eq!(children.len(), 1, "the items' one component: values");
    assert_eq!(
        children[0].metadata()[EXTENSION_NAME],
        VARIABLE_SHAPE_TENSOR
    );
    // Row by row: the lists hold each item's values.
    let st = rb.column(0).as_any().downcast_ref::<StructArray>().unwrap();
    let vst = st.column(0).as_any().downcast_ref::<StructArray>().unwrap();
    let data = vst.column_by_name("data").unwrap();
    let lists = data.as_any().downcast_ref::<ListArray>().unwrap();
    let lens: Vec<i32> = (0..4).map(|i| lists.value_length(i)).collect();
    assert_eq!(lens, [3, 0, 1, 2]);
    let back: Ragged = column_as(&rb, "r").unwrap();
    assert_eq!(back, b);
    // Through an IPC stream too.
    let mut bytes = Vec::new();
    write_ipc_stream(&mut bytes, std::slice::from_ref(&rb)).unwrap();
    let read = read_ipc_stream(bytes.as_slice()).unwrap();
    assert_eq!(column_as::<Ragged>(&read[0], "r").unwrap(), b);
    // A part of the rows is a batch of those items.
    let part: Ragged = column_as(&rb.slice(2, 2), "r").unwrap();
    assert_eq!(
        batch::unstack(part).unwrap(),
        vec![Ragged::row(vec![4.0]), Ragged::row(vec![5.0, 6.0])]
    );
}

#[test]
fn the_row_layout_needs_the_type_and_consistent_rows() {
    let b = ragged_batch();
    let rb = to_record_batch(&[("r", &Value::from_extension(b))]).unwrap();
    let schema = rb.schema();
    let mut meta = schema.field(0).metadata().clone();
    for key in [EXTENSION_METADATA, ITEM_SPEC] {
        let text = meta[key].replace("test.BatchRagged", "elsewhere.Ragged");
        meta.insert(key.to_string(), text);
    }
    meta.insert(EXTENSION_NAME.to_string(), "elsewhere.Ragged".to_string());
    let f = schema.field(0).clone().with_metadata(meta);
    let err = from_array(&f, rb.column(0).as_ref())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("elsewhere.Ragged") && err.contains("not linked"),
        "{err}"
    );
    // Items of different ranks cannot share a column.
    let t = |shape: &[usize]| Tensor::from(extype::ndarray::ArrayD::<f32>::zeros(shape));
    let two = Ragged {
        values: t(&[2, 3]),
        row_splits: vec![],
    };
    let one = Ragged {
        values: t(&[2]),
        row_splits: vec![],
    };
    assert!(
        batch::stack(&[two, one]).is_err(),
        "the encoder refuses them first"
    );
}

#[test]
fn a_batch_of_library_ragged_tensors_of_bf16_round_trips() {
    use extype::half::bf16;
    use extype::types::RaggedTensor;
    let row = |v: &[f32], splits: Vec<i64>| {
        RaggedTensor::from_row_splits(
            extype::ndarray::Array1::from_iter(v.iter().map(|&x| bf16::from_f32(x))),
            extype::ndarray::Array1::from(splits),
        )
        .unwrap()
    };
    let items = vec![
        row(&[1.0, 2.0, 3.0], vec![0, 2, 3]),
        row(&[], vec![0]),
        row(&[4.5, f32::NAN], vec![0, 0, 2]),
    ];
    let b: RaggedTensor = batch::stack(&items).unwrap();
    let rb = to_record_batch(&[("r", &Value::from_extension(b.clone()))]).unwrap();
    assert_eq!(rb.num_rows(), 3);
    let back: RaggedTensor = column_as(&rb, "r").unwrap();
    assert_eq!(back.to_string(), b.to_string());
    assert_eq!(back.nested_row_splits(), b.nested_row_splits());
    let items_back = batch::unstack(back).unwrap();
    assert_eq!(items_back.len(), 3);
    assert_eq!(items_back[2].to_string(), items[2].to_string());
}

/// The library's RaggedTensor (ragged rank 1 items, a batch of ragged rank 2) and SparseTensor
/// (whose entries can number exactly the batch size): a column of zero rows reads back as the
/// empty batch of the column's item spec, and an empty batch writes and reads back.
#[test]
fn an_empty_ragged_or_sparse_column_round_trips() {
    use extype::ExtensionType;
    use extype::types::{RaggedTensor, SparseTensor};
    use ndarray::array;
    let item = |v: Vec<f32>, s: Vec<i64>| {
        RaggedTensor::from_row_splits(
            Tensor::from(ndarray::Array1::from(v).into_dyn()),
            Tensor::from(ndarray::Array1::from(s).into_dyn()),
        )
        .unwrap()
    };
    let b = batch::stack(&[
        item(vec![1.0, 2.0, 3.0], vec![0, 2, 3]),
        item(vec![4.0], vec![0, 0, 1]),
    ])
    .unwrap();
    let rb = to_record_batch(&[("r", &Value::from_extension(b.clone()))]).unwrap();
    let empty: RaggedTensor = column_as(&rb.slice(0, 0), "r").unwrap();
    assert_eq!(empty.nrows(), 0);
    assert_eq!(empty.ragged_rank(), 2);
    let direct =
        batch::stack_with_spec::<RaggedTensor>(&[], &batch::unstack(b).unwrap()[0].spec()).unwrap();
    assert_eq!(empty, direct);
    // The empty batch itself: written as nested lists of no rows, read back.
    let rb = to_record_batch(&[("r", &Value::from_extension(empty.clone()))]).unwrap();
    assert_eq!(rb.num_rows(), 0);
    assert!(rb.schema().field(0).metadata().contains_key(LIST_LAYOUT));
    assert_eq!(column_as::<RaggedTensor>(&rb, "r").unwrap(), empty);
    let mut bytes = Vec::new();
    write_ipc_stream(&mut bytes, std::slice::from_ref(&rb)).unwrap();
    let read = read_ipc_stream(bytes.as_slice()).unwrap();
    let back = read
        .first()
        .map(|rb| column_as::<RaggedTensor>(rb, "r").unwrap());
    if let Some(back) = back {
        assert_eq!(back, empty);
    }

    // Three sparse items with three entries: the row layout still (the entries do not follow
    // the batch size), and zero rows read back as an empty batch of dense shape [0, 2, 3].
    let items = [
        SparseTensor::new(array![[0i64, 1]], array![1.5f32], &[2, 3]).unwrap(),
        SparseTensor::new(array![[1i64, 0], [1, 2]], array![2.0f32, 3.0], &[2, 3]).unwrap(),
        SparseTensor::new(
            ndarray::Array2::<i64>::zeros((0, 2)),
            ndarray::Array1::<f32>::zeros(0),
            &[2, 3],
        )
        .unwrap(),
    ];
    let st = batch::stack(&items).unwrap();
    let rb = to_record_batch(&[("s", &Value::from_extension(st.clone()))]).unwrap();
    assert!(rb.schema().field(0).metadata().contains_key(ITEM_SPEC));
    assert_eq!(column_as::<SparseTensor>(&rb, "s").unwrap(), st);
    let empty: SparseTensor = column_as(&rb.slice(0, 0), "s").unwrap();
    assert_eq!(empty.dense_shape(), &[0, 2, 3]);
    assert_eq!(empty.nnz(), 0);
    let rb = to_record_batch(&[("s", &Value::from_extension(empty.clone()))]).unwrap();
    assert_eq!(column_as::<SparseTensor>(&rb, "s").unwrap(), empty);
}

//! The list layout: a batch whose encoder declares a `ListLayout` (every `RaggedTensor`, and a
//! user type with an encoder of its own) is one Arrow `LargeList` level per splits component
//! (the splits are the offsets, not copied) around the flat values (a `FixedSizeList` for
//! uniform inner dimensions), and reads back exactly: in memory, through IPC and Parquet, in
//! parts, at every dtype, empty rows and zero rows. Files of the earlier row layout still load.

use std::path::PathBuf;
use std::sync::Arc;

use extype::batch::{BatchEncoder, BatchableSpec, ListLayout};
use extype::ndarray::{ArcArray1, ArrayD, IxDyn, array};
use extype::types::RaggedTensor;
use extype::{DType, Dim, ExtensionType, Shape, Tensor, TensorSpec, TensorView, Value, batch};
use extype_arrow::arrow_array::{
    Array, ArrayRef, Float32Array, LargeListArray, ListArray, RecordBatch,
};
use extype_arrow::arrow_buffer::OffsetBuffer;
use extype_arrow::arrow_schema::{DataType, Field, Schema};
use extype_arrow::*;

fn splits(v: &[i64]) -> Tensor {
    Tensor::from(ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap())
}

/// Three items of ragged rank 1: `[[1, 2], []]`, `[]`, `[[3], [4, 5, 6]]`.
fn batch2() -> RaggedTensor {
    RaggedTensor::from_nested_row_splits(
        array![1.0f32, 2., 3., 4., 5., 6.],
        vec![splits(&[0, 2, 2, 4]), splits(&[0, 2, 2, 3, 6])],
    )
    .unwrap()
}

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("extype-lists-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `r` as a column, back in memory, through an IPC file and a Parquet file: equal values and
/// spec every time.
fn round_trip(r: &RaggedTensor, tag: &str) -> RecordBatch {
    let rb = to_record_batch(&[("r", &Value::from_extension(r.clone()))]).unwrap();
    let check = |rb: &RecordBatch, how: &str| {
        let back: RaggedTensor = column_as(rb, "r").unwrap_or_else(|e| panic!("{how}: {e}"));
        assert_eq!(&back, r, "{how}");
        assert_eq!(back.spec(), r.spec(), "{how}");
        assert_eq!(back.dtype(), r.dtype(), "{how}");
    };
    check(&rb, "in memory");
    let d = dir(tag);
    write_ipc_file(d.join("r.arrow"), std::slice::from_ref(&rb)).unwrap();
    let read = read_ipc_file(d.join("r.arrow")).unwrap();
    check(&read[0], "IPC");
    write_parquet(d.join("r.parquet"), std::slice::from_ref(&rb)).unwrap();
    let read = read_parquet(d.join("r.parquet")).unwrap();
    if rb.num_rows() > 0 {
        assert_eq!(read.len(), 1);
        check(&read[0], "Parquet");
    } else {
        // A Parquet file of no rows reads as no batches (its schema is the file's).
        assert!(read.iter().all(|b| b.num_rows() == 0));
    }
    std::fs::remove_dir_all(d).unwrap();
    rb
}

#[test]
fn a_ragged_batch_is_nested_large_lists_with_the_splits_as_offsets() {
    let r = batch2();
    let rb = round_trip(&r, "nested");
    assert_eq!(rb.num_rows(), 3);
    let schema = rb.schema();
    let field = schema.field(0);
    assert_eq!(field.metadata()[EXTENSION_NAME], "extype.RaggedTensor");
    assert!(field.metadata()[EXTENSION_METADATA].contains("extype.RaggedTensor"));
    assert_eq!(
        field.metadata()[LIST_LAYOUT],
        r#"{"splits":["nested_row_splits[0]","nested_row_splits[1]"],"values":"flat_values"}"#
    );
    assert!(!field.metadata().contains_key(ITEM_SPEC));
    // Non-null items: no row and no value is missing.
    let item = Arc::new(Field::new("item", DataType::Float32, false));
    let inner = DataType::LargeList(item);
    let outer = DataType::LargeList(Arc::new(Field::new("item", inner, false)));
    assert_eq!(field.data_type(), &outer);
    // Zero-copy: each level's offsets are its splits' buffer, the values the flat values'.
    let top = rb
        .column(0)
        .as_any()
        .downcast_ref::<LargeListArray>()
        .unwrap();
    let ptr = |t: &Tensor| match t.view() {
        TensorView::I64(a) => a.as_ptr() as usize,
        TensorView::F32(a) => a.as_ptr() as usize,
        _ => unreachable!(),
    };
    assert_eq!(
        top.offsets().as_ptr() as usize,
        ptr(&r.nested_row_splits()[0])
    );
    let rows = top
        .values()
        .as_any()
        .downcast_ref::<LargeListArray>()
        .unwrap();
    assert_eq!(
        rows.offsets().as_ptr() as usize,
        ptr(&r.nested_row_splits()[1])
    );
    let values = rows
        .values()
        .as_any()
        .downcast_ref::<Float32Array>()
        .unwrap();
    assert_eq!(values.values().as_ptr() as usize, ptr(r.flat_values()));
    // And back: the splits view the offsets.
    let back: RaggedTensor = column_as(&rb, "r").unwrap();
    assert_eq!(
        ptr(&back.nested_row_splits()[0]),
        top.offsets().as_ptr() as usize
    );
    assert_eq!(ptr(back.flat_values()), values.values().as_ptr() as usize);
}

#[test]
fn ragged_rank_one_three_and_uniform_inner_dimensions_round_trip() {
    // Ragged rank 1: a column of variable-length rows (`var * float32`).
    let r1 = RaggedTensor::from_row_splits(array![1.0f64, 2., 3.], array![0i64, 0, 3, 3]).unwrap();
    let rb = round_trip(&r1, "rank1");
    assert_eq!(
        rb.schema().field(0).data_type(),
        &DataType::LargeList(Arc::new(Field::new("item", DataType::Float64, false)))
    );
    // Ragged rank 3, the last level with an empty row.
    let r3 = RaggedTensor::from_nested_row_splits(
        array![1i32, 2, 3, 4],
        vec![
            splits(&[0, 1, 3]),
            splits(&[0, 2, 3, 3]),
            splits(&[0, 1, 1, 4]),
        ],
    )
    .unwrap();
    round_trip(&r3, "rank3");
    // Uniform inner dimensions: a fixed-size list (an `arrow.fixed_shape_tensor`) of each row.
    let inner =
        ArrayD::from_shape_vec(IxDyn(&[3, 2, 2]), (0..12).map(|i| i as f32).collect()).unwrap();
    let ri = RaggedTensor::from_nested_row_splits(inner, vec![splits(&[0, 1, 1]), splits(&[0, 3])])
        .unwrap();
    let rb = round_trip(&ri, "inner");
    let DataType::LargeList(rows) = rb.schema().field(0).data_type().clone() else {
        panic!()
    };
    let DataType::LargeList(values) = rows.data_type().clone() else {
        panic!()
    };
    assert_eq!(
        values.data_type(),
        &DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, true)), 4)
    );
    assert_eq!(values.metadata()[EXTENSION_NAME], FIXED_SHAPE_TENSOR);
    // A uniform partition (TF's `uniform_row_length`) stays a list level; its spec says uniform.
    let ru = RaggedTensor::from_uniform_row_length(array![1u8, 2, 3, 4], 2, None).unwrap();
    round_trip(
        &ru.with_outer_splits(array![0i64, 1, 2]).unwrap(),
        "uniform",
    );
}

#[test]
fn every_dtype_and_empty_rows_and_zero_rows_round_trip() {
    for dtype in [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ] {
        let values = extype::ops::cast(&Tensor::from(array![1.0f32, 0.0, 3.0].into_dyn()), dtype)
            .unwrap()
            .as_tensor()
            .unwrap()
            .clone();
        let r = RaggedTensor::from_nested_row_splits(
            values,
            vec![splits(&[0, 0, 2, 3]), splits(&[0, 0, 3, 3])],
        )
        .unwrap();
        let rb = round_trip(&r, &format!("{dtype:?}"));
        if dtype == DType::BF16 {
            // Arrow has no bfloat16: its bits as UInt16; the spec says bf16.
            assert!(format!("{}", rb.schema().field(0).data_type()).contains("UInt16"));
        }
    }
    // Zero rows: the empty batch of an item spec.
    let item = batch::unstack(batch2()).unwrap().remove(0);
    let empty = batch::stack_with_spec::<RaggedTensor>(&[], &item.spec()).unwrap();
    let rb = round_trip(&empty, "empty");
    assert_eq!(rb.num_rows(), 0);
}

#[test]
fn a_part_of_the_rows_reads_as_the_batch_of_those_items() {
    let r = batch2();
    let rb = to_record_batch(&[("r", &Value::from_extension(r.clone()))]).unwrap();
    for (start, len) in [(0, 1), (1, 2), (2, 1), (3, 0)] {
        let part: RaggedTensor = column_as(&rb.slice(start, len), "r").unwrap();
        let items: Vec<RaggedTensor> =
            batch::unstack(r.clone()).unwrap()[start..start + len].to_vec();
        let spec = r.spec().unbatched().unwrap();
        assert_eq!(
            part,
            batch::stack_with_spec(&items, &spec).unwrap(),
            "{start}+{len}"
        );
    }
    // Parquet read in small batches gives parts too.
    let d = dir("parts");
    let big = RaggedTensor::from_nested_row_splits(
        Tensor::from(
            ArrayD::from_shape_vec(IxDyn(&[3000]), (0..3000).map(|i| i as f32).collect()).unwrap(),
        ),
        vec![
            splits(&(0..=1000).map(|i| i * 2).collect::<Vec<_>>()),
            splits(&(0..=2000).map(|i| i * 3 / 2).collect::<Vec<_>>()),
        ],
    )
    .unwrap();
    let rb = to_record_batch(&[("r", &Value::from_extension(big.clone()))]).unwrap();
    write_parquet(
        d.join("big.parquet"),
        &[rb.slice(0, 500), rb.slice(500, 500)],
    )
    .unwrap();
    let read = read_parquet(d.join("big.parquet")).unwrap();
    let parts: Vec<RaggedTensor> = read.iter().map(|b| column_as(b, "r").unwrap()).collect();
    assert_eq!(batch::concat(&parts).unwrap(), big);
    std::fs::remove_dir_all(d).unwrap();
}

/// A column of `List` (i32 offsets) levels, as pyarrow writes `list<list<float>>`, with offsets
/// not from 0 (a slice): read with one copy of the offsets.
#[test]
fn list_levels_and_offsets_not_from_zero_are_read() {
    let r = batch2();
    let rb = to_record_batch(&[("r", &Value::from_extension(r.clone()))]).unwrap();
    let meta = rb.schema().field(0).metadata().clone();
    let values: ArrayRef = Arc::new(Float32Array::from(vec![9.0f32, 1., 2., 3., 4., 5., 6.]));
    let item = Arc::new(Field::new("item", DataType::Float32, true));
    // Rows over values 1.. (offset 1), then the items over rows 0..4.
    let rows = ListArray::new(
        item.clone(),
        OffsetBuffer::new(vec![1i32, 3, 3, 4, 7].into()),
        values,
        None,
    );
    let row_field = Arc::new(Field::new("item", rows.data_type().clone(), true));
    let items = ListArray::new(
        row_field,
        OffsetBuffer::new(vec![0i32, 2, 2, 4].into()),
        Arc::new(rows),
        None,
    );
    let field = Field::new("r", items.data_type().clone(), false).with_metadata(meta);
    let back: RaggedTensor = from_array_as(&field, &items).unwrap();
    assert_eq!(back, r);
}

#[test]
fn malformed_list_columns_are_errors_naming_the_field() {
    let r = batch2();
    let rb = to_record_batch(&[("r", &Value::from_extension(r.clone()))]).unwrap();
    let field = rb.schema().field(0).clone();
    let meta = field.metadata().clone();
    let item = Arc::new(Field::new("item", DataType::Float32, true));
    // One list level where the spec has two.
    let one = LargeListArray::new(
        item.clone(),
        OffsetBuffer::new(vec![0i64, 2, 2, 6].into()),
        Arc::new(Float32Array::from(vec![1.0f32; 6])),
        None,
    );
    let f = Field::new("r", one.data_type().clone(), false).with_metadata(meta.clone());
    let err = from_array(&f, &one).unwrap_err().to_string();
    assert!(
        err.contains("r.nested_row_splits[1]") && err.contains("LargeList"),
        "{err}"
    );
    // A wrong element type.
    let top = rb
        .column(0)
        .as_any()
        .downcast_ref::<LargeListArray>()
        .unwrap();
    let rows = top
        .values()
        .as_any()
        .downcast_ref::<LargeListArray>()
        .unwrap();
    let ints = LargeListArray::new(
        Arc::new(Field::new("item", DataType::Int32, true)),
        rows.offsets().clone(),
        Arc::new(extype_arrow::arrow_array::Int32Array::from(vec![1; 6])),
        None,
    );
    let wrong = LargeListArray::new(
        Arc::new(Field::new("item", ints.data_type().clone(), true)),
        top.offsets().clone(),
        Arc::new(ints),
        None,
    );
    let f = Field::new("r", wrong.data_type().clone(), false).with_metadata(meta.clone());
    let err = from_array(&f, &wrong).unwrap_err().to_string();
    assert!(
        err.contains("r.flat_values") && err.contains("Int32"),
        "{err}"
    );
    // Null rows.
    let nulls = LargeListArray::new(
        Arc::new(Field::new("item", rows.data_type().clone(), true)),
        top.offsets().clone(),
        top.values().clone(),
        Some(vec![true, false, true].into()),
    );
    let err = from_array(&field, &nulls).unwrap_err().to_string();
    assert!(
        err.contains("null rows") && err.contains("nested_row_splits[0]"),
        "{err}"
    );
    // A layout in the metadata that is not the type's.
    let mut other = meta.clone();
    other.insert(LIST_LAYOUT.into(), r#"{"values":"x","splits":[]}"#.into());
    let err = from_array(&field.clone().with_metadata(other), top)
        .unwrap_err()
        .to_string();
    assert!(err.contains(LIST_LAYOUT), "{err}");
    // Not a list: a struct where the spec wants lists is refused too (no panic).
    let float = Field::new("r", DataType::Float32, false).with_metadata(meta);
    let err = from_array(&float, &Float32Array::from(vec![1.0f32; 3]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("`r`"), "{err}");
}

/// Files of the earlier layout (each row an `arrow.variable_shape_tensor` struct) still load:
/// one written by the row layout now, and the golden files checked in.
#[test]
fn files_of_the_row_layout_still_load() {
    let r = batch2();
    let (field, array) = to_row_array(&r, "r").unwrap();
    assert!(matches!(field.data_type(), DataType::Struct(_)));
    assert!(field.metadata().contains_key(ITEM_SPEC));
    let rb = RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![array]).unwrap();
    assert_eq!(column_as::<RaggedTensor>(&rb, "r").unwrap(), r);
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    if std::env::var_os("EXTYPE_WRITE_GOLDEN").is_some() {
        std::fs::create_dir_all(&golden).unwrap();
        write_ipc_file(golden.join("ragged_rows.arrow"), std::slice::from_ref(&rb)).unwrap();
        write_parquet(
            golden.join("ragged_rows.parquet"),
            std::slice::from_ref(&rb),
        )
        .unwrap();
    }
    for read in [
        read_ipc_file(golden.join("ragged_rows.arrow")).unwrap(),
        read_parquet(golden.join("ragged_rows.parquet")).unwrap(),
    ] {
        assert!(matches!(
            read[0].schema().field(0).data_type(),
            DataType::Struct(_)
        ));
        let back: RaggedTensor = column_as(&read[0], "r").unwrap();
        assert_eq!(back, r);
        assert_eq!(back.spec(), r.spec());
    }
}

/// A user type whose batch is values and one level of row splits: its encoder declares the
/// list layout, so its column is a `LargeList`, as a ragged tensor's.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.lists.Jagged", batchable = JaggedEncoder)]
struct Jagged {
    values: Tensor,
    splits: ArcArray1<i64>,
}

struct JaggedEncoder;

fn any_rows(s: &TensorSpec) -> TensorSpec {
    TensorSpec::new(Shape::from_dims([Dim::Unknown]), s.dtype)
}

impl BatchEncoder<Jagged> for JaggedEncoder {
    fn batched_spec(spec: &JaggedSpec, n: Option<usize>) -> JaggedSpec {
        JaggedSpec {
            values: any_rows(&spec.values),
            splits: TensorSpec::new(
                Shape::from_dims([n.map_or(Dim::Unknown, |n| Dim::Known(n + 1))]),
                DType::I64,
            ),
        }
    }
    fn unbatched_spec(spec: &JaggedSpec) -> extype::Result<JaggedSpec> {
        Ok(JaggedSpec {
            values: any_rows(&spec.values),
            splits: TensorSpec::new(Shape::known(&[2]), DType::I64),
        })
    }
    fn batch_len(batch: &Jagged) -> extype::Result<usize> {
        Ok(batch.splits.len() - 1)
    }
    fn stack(items: &[&Jagged]) -> extype::Result<Jagged> {
        let mut splits = vec![0i64];
        for j in items {
            splits.push(splits[splits.len() - 1] + j.values.shape()[0] as i64);
        }
        let values: Vec<&Tensor> = items.iter().map(|j| &j.values).collect();
        Ok(Jagged {
            values: batch::concat_rows(&values, "values")?,
            splits: ArcArray1::from(splits),
        })
    }
    fn unstack(batch: Jagged) -> extype::Result<Vec<Jagged>> {
        (0..batch.splits.len() - 1)
            .map(|i| {
                let (a, b) = (batch.splits[i] as usize, batch.splits[i + 1] as usize);
                Ok(Jagged {
                    values: batch::slice_rows(&batch.values, a, b)?,
                    splits: ArcArray1::from(vec![0, (b - a) as i64]),
                })
            })
            .collect()
    }
    fn list_layout(_: &JaggedSpec) -> Option<ListLayout> {
        Some(ListLayout {
            values: "values".into(),
            splits: vec!["splits".into()],
        })
    }
}

#[test]
fn a_user_type_whose_encoder_declares_the_list_layout_is_a_list_column() {
    let items = [
        Jagged {
            values: Tensor::from(array![1.0f32, 2.0].into_dyn()),
            splits: ArcArray1::from(vec![0, 2]),
        },
        Jagged {
            values: Tensor::from(ArrayD::<f32>::zeros(IxDyn(&[0]))),
            splits: ArcArray1::from(vec![0, 0]),
        },
    ];
    let b = batch::stack(&items).unwrap();
    let rb = to_record_batch(&[("j", &Value::from_extension(b.clone()))]).unwrap();
    let field = rb.schema().field(0).clone();
    assert_eq!(field.metadata()[EXTENSION_NAME], "tests.lists.Jagged");
    assert!(matches!(field.data_type(), DataType::LargeList(_)));
    let lists = rb
        .column(0)
        .as_any()
        .downcast_ref::<LargeListArray>()
        .unwrap();
    assert_eq!(lists.value_length(0), 2);
    assert_eq!(lists.value_length(1), 0);
    let back: Jagged = column_as(&rb, "j").unwrap();
    assert_eq!(back, b);
    // Splits that do not count the values are an error of the write, not a panic.
    let bad = Jagged {
        values: Tensor::from(array![1.0f32].into_dyn()),
        splits: ArcArray1::from(vec![0, 2]),
    };
    let err = to_array(&bad, "j").unwrap_err().to_string();
    assert!(
        err.contains("splits") && err.contains("ending at 1"),
        "{err}"
    );
}

/// A ragged batch larger than `ROW_GROUP_BYTES` is written as several row groups (one Parquet
/// leaf, which then decodes a row group per thread) and reads back as one batch, exactly.
#[test]
fn a_large_ragged_batch_is_several_row_groups_and_reads_back_whole() {
    // 4096 items of 0-15 rows of 0-63 values: about 3.9 Mi f32, 15.6 MiB.
    let (mut outer, mut inner, mut n) = (vec![0i64], vec![0i64], 0i64);
    for i in 0..4096usize {
        for k in 0..i % 16 {
            n += ((i * 5 + 11 * k) % 64) as i64 * 17;
            inner.push(n);
        }
        outer.push(inner.len() as i64 - 1);
    }
    let values: Vec<f32> = (0..n).map(|v| (v % 977) as f32 * 0.25).collect();
    let r = RaggedTensor::from_nested_row_splits(
        Tensor::from(ArrayD::from_shape_vec(IxDyn(&[values.len()]), values).unwrap()),
        vec![splits(&outer), splits(&inner)],
    )
    .unwrap();
    let bytes = r.flat_values().len() * 4;
    assert!(
        bytes > 2 * ROW_GROUP_BYTES,
        "{bytes} bytes: too few for two groups"
    );
    let rb = to_record_batch(&[("r", &Value::from_extension(r.clone()))]).unwrap();
    let d = dir("row-groups");
    let path = d.join("r.parquet");
    write_parquet(&path, std::slice::from_ref(&rb)).unwrap();
    let reader =
        parquet::file::reader::SerializedFileReader::new(std::fs::File::open(&path).unwrap())
            .unwrap();
    let groups = parquet::file::reader::FileReader::metadata(&reader).num_row_groups();
    assert!(groups >= 2, "{groups} row group(s)");
    let read = read_parquet(&path).unwrap();
    assert_eq!(read.len(), 1);
    let back: RaggedTensor = column_as(&read[0], "r").unwrap();
    assert_eq!(back, r);
    assert_eq!(back.spec(), r.spec());
    std::fs::remove_dir_all(d).unwrap();
}

/// `ParquetFile` reads a file a row group at a time, any projection in any order: the groups
/// together are what `read_parquet` reads (a ragged column through the direct decoder, a
/// masked one and a dictionary-encoded ragged one through arrow-rs's reader); a group or column
/// the file lacks and a file of another format are errors naming the file.
#[test]
fn a_parquet_file_reads_row_group_by_row_group_as_read_parquet_does() {
    use extype::types::MaskedTensor;
    use extype_arrow::parquet::file::properties::WriterProperties;
    let items = 500usize;
    let (mut outer, mut inner, mut n) = (vec![0i64], vec![0i64], 0i64);
    for i in 0..items {
        for k in 0..i % 4 {
            n += ((i + 3 * k) % 5) as i64;
            inner.push(n);
        }
        outer.push(inner.len() as i64 - 1);
    }
    let values: Vec<f32> = (0..n).map(|v| v as f32 * 0.5 - 7.0).collect();
    let r = RaggedTensor::from_nested_row_splits(
        Tensor::from(ArrayD::from_shape_vec(IxDyn(&[values.len()]), values).unwrap()),
        vec![splits(&outer), splits(&inner)],
    )
    .unwrap();
    let m = MaskedTensor::new(
        ArrayD::from_shape_fn(IxDyn(&[items, 3]), |i| (i[0] * 3 + i[1]) as f32),
        ArrayD::from_shape_fn(IxDyn(&[items, 3]), |i| (i[0] + i[1]) % 3 != 0),
    )
    .unwrap();
    let rb = to_record_batch(&[
        ("r", &Value::from_extension(r.clone())),
        ("m", &Value::from_extension(m)),
    ])
    .unwrap();
    let d = dir("parquet-file");
    for (name, dictionary) in [("plain.parquet", false), ("dict.parquet", true)] {
        let path = d.join(name);
        let props = WriterProperties::builder()
            .set_dictionary_enabled(dictionary)
            .set_max_row_group_row_count(Some(128))
            .build();
        write_parquet_with(&path, std::slice::from_ref(&rb), props).unwrap();
        let whole = read_parquet(&path).unwrap().remove(0);
        let file = ParquetFile::open(&path).unwrap();
        assert_eq!(file.path(), path.as_path());
        assert_eq!(file.schema(), whole.schema());
        assert_eq!(file.num_row_groups(), 4, "{name}");
        assert_eq!(file.num_rows(), items);
        for columns in [vec![0, 1], vec![1, 0], vec![0], vec![1]] {
            let want = whole.project(&columns).unwrap();
            let mut offset = 0;
            for g in 0..file.num_row_groups() {
                let group = file.read_row_group(g, &columns).unwrap();
                assert_eq!(group.num_rows(), file.row_group_rows(g));
                let part = want.slice(offset, group.num_rows());
                assert_eq!(group, part, "{name}, columns {columns:?}, row group {g}");
                offset += group.num_rows();
            }
            assert_eq!(offset, items);
        }
        // No column: the rows alone.
        let rows = file.read_row_group(1, &[]).unwrap();
        assert_eq!((rows.num_rows(), rows.num_columns()), (128, 0));
        let e = file.read_row_group(4, &[0]).unwrap_err().to_string();
        assert!(
            e.contains(name) && e.contains("expected a row group below 4"),
            "{e}"
        );
        let e = file.read_row_group(0, &[2]).unwrap_err().to_string();
        assert!(
            e.contains(name) && e.contains("expected a column below 2"),
            "{e}"
        );
    }
    let ipc = d.join("x.arrow");
    write_ipc_file(&ipc, std::slice::from_ref(&rb)).unwrap();
    let e = ParquetFile::open(&ipc).unwrap_err().to_string();
    assert!(
        e.contains("x.arrow") && e.contains("is an Arrow IPC file"),
        "{e}"
    );
    std::fs::remove_dir_all(d).unwrap();
}

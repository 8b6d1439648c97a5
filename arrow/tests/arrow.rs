//! Batches of extension values ↔ Arrow: record batch columns, metadata, round trips, the
//! canonical tensor metadata, errors, anonymous values, zero-copy, IPC and Parquet files.

use std::collections::HashMap;
use std::sync::Arc;

use extype::ndarray::{ArrayD, IxDyn, array};
use extype::types::MaskedTensor;
use extype::{
    AnyExtension, ExtensionType, Shape, Tensor, TensorView, TypeSpec, Value, batch, serial,
};
use extype_arrow::arrow_array::{
    Array, ArrayRef, BooleanArray, FixedSizeListArray, Float32Array, Int32Array, RecordBatch,
    StructArray,
};
use extype_arrow::arrow_schema::{DataType, Field, Fields, Schema};
use extype_arrow::*;

/// A nested batchable type: a nested registered type, a `Vec` of tensors, a static shape and a
/// static list.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.arrow.Sample", batchable)]
struct Sample {
    signal: MaskedTensor,
    times: Tensor,
    bands: Vec<Tensor>,
    frame: Shape,
    #[extype(static)]
    gains: Vec<f32>,
}

fn masked(n: usize, seed: f32) -> MaskedTensor {
    let values: Vec<f32> = (0..n).map(|i| i as f32 + seed).collect();
    let mask: Vec<bool> = (0..n)
        .map(|i| !(i + seed as usize).is_multiple_of(3))
        .collect();
    MaskedTensor::new(
        ArrayD::from_shape_vec(IxDyn(&[n]), values).unwrap(),
        ArrayD::from_shape_vec(IxDyn(&[n]), mask).unwrap(),
    )
    .unwrap()
}

fn sample(seed: f32) -> Sample {
    Sample {
        signal: masked(4, seed),
        times: Tensor::from(ArrayD::from_shape_vec(IxDyn(&[4]), vec![seed as i64; 4]).unwrap()),
        bands: vec![
            Tensor::from(array![[seed, 1.0], [2.0, 3.0]].into_dyn()),
            Tensor::from(extype::ndarray::arr0(seed as u8).into_dyn()),
        ],
        frame: "[2, 2]".parse().unwrap(),
        gains: vec![0.5, 2.0],
    }
}

fn masked_batch(n: usize, width: usize) -> MaskedTensor {
    let items: Vec<MaskedTensor> = (0..n).map(|i| masked(width, i as f32)).collect();
    batch::stack(&items).unwrap()
}

/// `m` with its masked-out values zero (what Parquet, which stores no value for a null
/// element, reads back).
fn zero_masked(m: &MaskedTensor) -> MaskedTensor {
    let zero: Tensor = extype::ops::cast_as(&extype::ndarray::arr0(0.0f32), m.dtype()).unwrap();
    m.filled(&zero).unwrap()
}

fn record_batch(name: &str, value: Value) -> RecordBatch {
    to_record_batch(&[(name, &value)]).unwrap()
}

#[test]
fn a_masked_batch_is_a_struct_column_with_extension_metadata() {
    let b = masked_batch(5, 3);
    let rb = record_batch("m", Value::from_extension(b.clone()));
    let schema = rb.schema();
    let field = schema.field(0);
    assert_eq!(field.metadata()[EXTENSION_NAME], "extype.MaskedTensor");
    assert_eq!(
        field.metadata()[EXTENSION_METADATA],
        serial::spec_to_json(&b.spec()).unwrap()
    );
    let DataType::Struct(children) = field.data_type() else {
        panic!("{:?}", field.data_type())
    };
    // The mask is the values' validity bitmap, not a child of its own.
    let names: Vec<&str> = children.iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["values"]);
    assert_eq!(children[0].metadata()[EXTENSION_NAME], FIXED_SHAPE_TENSOR);
    assert_eq!(
        children[0].metadata()[EXTENSION_METADATA],
        r#"{"shape":[3]}"#
    );
    assert_eq!(children[0].metadata()[VALIDITY], "mask");
    let st = rb.column(0).as_any().downcast_ref::<StructArray>().unwrap();
    let list = st
        .column(0)
        .as_any()
        .downcast_ref::<FixedSizeListArray>()
        .unwrap();
    let masked_out = b
        .mask()
        .as_array::<bool, IxDyn>()
        .unwrap()
        .iter()
        .filter(|v| !**v)
        .count();
    assert_eq!(list.values().null_count(), masked_out);
    assert_eq!(rb.num_rows(), 5);
    let back: MaskedTensor = column_as(&rb, "m").unwrap();
    assert_eq!(back, b);
    assert_eq!(back.spec(), b.spec());
}

#[test]
fn nested_types_nest_and_round_trip_exactly() {
    let b = batch::stack(&[sample(1.0), sample(2.0), sample(3.0)]).unwrap();
    let rb = record_batch("s", Value::from_extension(b.clone()));
    let schema = rb.schema();
    let field = schema.field(0);
    let DataType::Struct(children) = field.data_type() else {
        panic!()
    };
    let names: Vec<&str> = children.iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["signal", "times", "bands"]);
    // The nested registered type carries its own extension metadata.
    assert_eq!(
        children[0].metadata()[EXTENSION_NAME],
        "extype.MaskedTensor"
    );
    let DataType::Struct(bands) = children[2].data_type() else {
        panic!()
    };
    assert_eq!(bands[0].name(), "[0]");
    assert_eq!(
        bands[0].metadata()[EXTENSION_METADATA],
        r#"{"shape":[2,2]}"#
    );
    // Rank-0 items are a plain column.
    assert_eq!(bands[1].data_type(), &DataType::UInt8);
    // Static fields live in the metadata.
    let meta = &field.metadata()[EXTENSION_METADATA];
    assert!(meta.contains("gains") && meta.contains("frame"), "{meta}");
    let back: Sample = column_as(&rb, "s").unwrap();
    assert_eq!(back, b);
    assert_eq!(back.spec(), b.spec());
    assert_eq!(back.gains, vec![0.5, 2.0]);
    let items = batch::unstack(back).unwrap();
    assert_eq!(items[2], sample(3.0));
}

#[test]
fn a_type_not_linked_in_loads_as_an_anonymous_value() {
    let b = masked_batch(4, 2);
    let rb = record_batch("m", Value::from_extension(b.clone()));
    let renamed = rename(&rb, "m", "elsewhere.Masked");
    let value = column(&renamed, "m").unwrap();
    assert_eq!(value.type_name(), "elsewhere.Masked");
    let anon = value.downcast::<extype::AnonymousExtension>().unwrap();
    let comps = anon.clone_components();
    assert_eq!(comps[0], b.values().clone());
    assert_eq!(comps[1], b.mask().clone());
}

/// The record batch with column `name`'s extension name replaced (in the name and the spec).
fn rename(rb: &RecordBatch, name: &str, to: &str) -> RecordBatch {
    let schema = rb.schema();
    let (i, f) = schema.column_with_name(name).unwrap();
    let mut meta = f.metadata().clone();
    let old = meta[EXTENSION_NAME].clone();
    meta.insert(EXTENSION_NAME.into(), to.into());
    let json = meta[EXTENSION_METADATA].replace(&format!("\"{old}\""), &format!("\"{to}\""));
    meta.insert(EXTENSION_METADATA.into(), json);
    replace_column(
        rb,
        i,
        f.as_ref().clone().with_metadata(meta),
        rb.column(i).clone(),
    )
}

fn replace_column(rb: &RecordBatch, i: usize, field: Field, array: ArrayRef) -> RecordBatch {
    let schema = rb.schema();
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut columns = rb.columns().to_vec();
    fields[i] = field;
    columns[i] = array;
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

/// The column's struct with child `child` replaced.
fn replace_child(rb: &RecordBatch, child: usize, field: Field, array: ArrayRef) -> RecordBatch {
    let schema = rb.schema();
    let st = rb.column(0).as_any().downcast_ref::<StructArray>().unwrap();
    let mut fields: Vec<Field> = st.fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut arrays = st.columns().to_vec();
    fields[child] = field;
    arrays[child] = array;
    let st = StructArray::try_new(Fields::from(fields), arrays, None).unwrap();
    let f = schema
        .field(0)
        .clone()
        .with_data_type(st.data_type().clone());
    replace_column(rb, 0, f, Arc::new(st))
}

/// Column 0 (a batch of `MaskedTensor`) in the layout of files written before masks were
/// validity bitmaps: the values without a bitmap, and `mask` (its own, or `mask`) a child.
fn old_layout(rb: &RecordBatch, mask: Option<(Field, ArrayRef)>) -> RecordBatch {
    let st = rb.column(0).as_any().downcast_ref::<StructArray>().unwrap();
    let values = st
        .column(0)
        .as_any()
        .downcast_ref::<FixedSizeListArray>()
        .unwrap();
    let (vf, va, mf, ma) = {
        let m: MaskedTensor = column_as(rb, rb.schema().field(0).name()).unwrap();
        let (vf, va) = tensor_to_array(m.values(), "values").unwrap();
        let (mf, ma) = tensor_to_array(m.mask(), "mask").unwrap();
        (vf, va, mf, ma)
    };
    assert_eq!(va.len(), values.len());
    let (mf, ma) = mask.unwrap_or((mf, ma));
    let st = StructArray::try_new(Fields::from(vec![vf, mf]), vec![va, ma], None).unwrap();
    let f = rb
        .schema()
        .field(0)
        .clone()
        .with_data_type(st.data_type().clone());
    replace_column(rb, 0, f, Arc::new(st))
}

#[test]
fn a_wrong_storage_type_names_the_field_and_both_types() {
    let b = masked_batch(3, 2);
    let rb = record_batch("m", Value::from_extension(b));
    let ints: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
    let validity = HashMap::from([(VALIDITY.to_string(), "mask".to_string())]);
    let ints_field = Field::new("values", DataType::Int32, true).with_metadata(validity);
    let bad = replace_child(&rb, 0, ints_field, ints);
    let err = column(&bad, "m").unwrap_err().to_string();
    assert!(
        err.contains("`m.values`") && err.contains("Float32") && err.contains("Int32"),
        "{err}"
    );
    // Not a struct at all.
    let f = rb.schema().field(0).clone().with_data_type(DataType::Int32);
    let bad = replace_column(&rb, 0, f, Arc::new(Int32Array::from(vec![1, 2, 3])));
    let err = column(&bad, "m").unwrap_err().to_string();
    assert!(
        err.contains("`m`") && err.contains("values: f32") && err.contains("found Int32"),
        "{err}"
    );
    // A missing component.
    let st = rb.column(0).as_any().downcast_ref::<StructArray>().unwrap();
    let mut values_only = st.fields()[0].as_ref().clone();
    values_only.metadata_mut().remove(VALIDITY);
    let only = StructArray::try_new(
        Fields::from(vec![values_only]),
        vec![st.column(0).clone()],
        None,
    )
    .unwrap();
    let f = rb
        .schema()
        .field(0)
        .clone()
        .with_data_type(only.data_type().clone());
    let bad = replace_column(&rb, 0, f, Arc::new(only));
    let err = column(&bad, "m").unwrap_err().to_string();
    assert!(
        err.contains("a struct of values") && err.contains("mask: bool"),
        "{err}"
    );
}

#[test]
fn validation_and_contracts_run_on_import() {
    let b = masked_batch(3, 2);
    let rb = record_batch("m", Value::from_extension(b));
    // A mask of another item shape than the values: the shape contract `*dims` fails. The spec
    // says [3, 2]; a mask column of 3 per row is refused by the spec or the contract.
    let mask = BooleanArray::from(vec![true; 9]);
    let list = FixedSizeListArray::try_new(
        Arc::new(Field::new("item", DataType::Boolean, true)),
        3,
        Arc::new(mask),
        None,
    )
    .unwrap();
    // The layout of files written before masks were validity bitmaps: a `mask` child.
    let f = Field::new("mask", list.data_type().clone(), false);
    let bad = old_layout(&rb, Some((f, Arc::new(list))));
    let err = column(&bad, "m").unwrap_err().to_string();
    assert!(err.contains("m") && err.contains("mask"), "{err}");
    // Unlinked spec with a wrong metadata name: the name and the spec must agree.
    let schema = rb.schema();
    let mut meta = schema.field(0).metadata().clone();
    meta.insert(EXTENSION_NAME.into(), "other.Name".into());
    let f = schema.field(0).clone().with_metadata(meta);
    let bad = replace_column(&rb, 0, f, rb.column(0).clone());
    let err = column(&bad, "m").unwrap_err().to_string();
    assert!(
        err.contains("\"other.Name\"") && err.contains("extype.MaskedTensor"),
        "{err}"
    );
    // Null rows are refused.
    let st = rb.column(0).as_any().downcast_ref::<StructArray>().unwrap();
    let nulls = extype_arrow::arrow_array::new_null_array(st.data_type(), 3);
    let f = schema.field(0).clone().with_nullable(true);
    let err = from_array(&f, nulls.as_ref()).unwrap_err().to_string();
    assert!(err.contains("3 null rows"), "{err}");
}

fn tensor_field(name: &str, meta: &str, child_nullable: bool, size: i32) -> Field {
    Field::new(
        name,
        DataType::FixedSizeList(
            Arc::new(Field::new("item", DataType::Float32, child_nullable)),
            size,
        ),
        false,
    )
    .with_metadata(HashMap::from([
        (EXTENSION_NAME.to_string(), FIXED_SHAPE_TENSOR.to_string()),
        (EXTENSION_METADATA.to_string(), meta.to_string()),
    ]))
}

fn tensor_column(field: &Field, values: Vec<f32>, size: i32) -> ArrayRef {
    let DataType::FixedSizeList(item, _) = field.data_type() else {
        panic!()
    };
    Arc::new(
        FixedSizeListArray::try_new(
            item.clone(),
            size,
            Arc::new(Float32Array::from(values)),
            None,
        )
        .unwrap(),
    )
}

#[test]
fn fixed_shape_tensors_read_in_every_form_the_spec_and_writers_allow() {
    let physical: Vec<f32> = (0..12).map(|i| i as f32).collect();
    // Physical [3, 2] per item, logical [2, 3] through permutation [1, 0] (pyarrow's layout of a
    // transposed NumPy array); canonical key, arrow-rs's legacy key, dim_names, both children.
    let logical = ArrayD::from_shape_vec(IxDyn(&[2, 3, 2]), physical.clone())
        .unwrap()
        .permuted_axes(IxDyn(&[0, 2, 1]))
        .as_standard_layout()
        .into_owned();
    for (meta, nullable) in [
        (r#"{"shape":[3,2],"permutation":[1,0]}"#, true),
        (
            r#"{"shape":[3,2],"permutations":[1,0],"dim_names":null}"#,
            false,
        ),
        (
            r#"{"shape":[3,2],"dim_names":["a","b"],"permutation":[1,0]}"#,
            true,
        ),
    ] {
        let f = tensor_field("t", meta, nullable, 6);
        let a = tensor_column(&f, physical.clone(), 6);
        let t = from_array(&f, a.as_ref()).unwrap().into_tensor().unwrap();
        assert_eq!(t, Tensor::from(logical.clone()), "{meta}");
    }
    for (meta, nullable) in [(r#"{"shape":[3,2]}"#, true), (r#"{"shape":[3,2]}"#, false)] {
        let f = tensor_field("t", meta, nullable, 6);
        let a = tensor_column(&f, physical.clone(), 6);
        let t = from_array(&f, a.as_ref()).unwrap().into_tensor().unwrap();
        assert_eq!(t.shape(), &[2, 3, 2]);
        assert_eq!(
            t.view(),
            TensorView::from(
                ArrayD::from_shape_vec(IxDyn(&[2, 3, 2]), physical.clone())
                    .unwrap()
                    .view()
            )
        );
    }
    // A shape that does not fit the list size, and null elements, are errors naming the field.
    let f = tensor_field("t", r#"{"shape":[4,2]}"#, true, 6);
    let a = tensor_column(&f, physical.clone(), 6);
    let err = from_array(&f, a.as_ref()).unwrap_err().to_string();
    assert!(err.contains("`t`") && err.contains("[4, 2]"), "{err}");
    let f = tensor_field("t", r#"{"shape":[3,2]}"#, true, 6);
    let mut with_null: Vec<Option<f32>> = physical.iter().map(|&x| Some(x)).collect();
    with_null[4] = None;
    let DataType::FixedSizeList(item, _) = f.data_type() else {
        panic!()
    };
    let a = FixedSizeListArray::try_new(
        item.clone(),
        6,
        Arc::new(Float32Array::from(with_null)),
        None,
    )
    .unwrap();
    let err = from_array(&f, &a).unwrap_err().to_string();
    assert!(err.contains("`t`") && err.contains("null"), "{err}");
}

#[test]
fn written_tensor_metadata_is_the_canonical_form() {
    let t = Tensor::from(ArrayD::<f64>::zeros(IxDyn(&[4, 2, 3])));
    let (f, a) = tensor_to_array(&t, "t").unwrap();
    assert_eq!(f.metadata()[EXTENSION_METADATA], r#"{"shape":[2,3]}"#);
    assert!(!f.metadata()[EXTENSION_METADATA].contains("null"));
    assert_eq!(
        from_array(&f, a.as_ref()).unwrap().into_tensor().unwrap(),
        t
    );
}

#[test]
fn from_columns_builds_a_derived_type_from_plain_tensor_columns() {
    let b = masked_batch(4, 3);
    let (fv, av) = tensor_to_array(b.values(), "values").unwrap();
    let (fm, am) = tensor_to_array(b.mask(), "mask").unwrap();
    let rb = RecordBatch::try_new(Arc::new(Schema::new(vec![fv, fm])), vec![av, am]).unwrap();
    let back: MaskedTensor = from_columns_as(&rb).unwrap();
    assert_eq!(back, b);
    // No mask column and values without nulls: every element valid.
    let only_values = rb.project(&[0]).unwrap();
    let back: MaskedTensor = from_columns_as(&only_values).unwrap();
    assert_eq!(back.values(), b.values());
    assert!(all_true(back.mask()));
}

fn all_true(t: &Tensor) -> bool {
    match t.view() {
        TensorView::Bool(a) => a.iter().all(|&v| v),
        other => panic!("{:?}", other.dtype()),
    }
}

/// Two plain tensor components, neither the validity of the other.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.arrow.Pair", batchable)]
struct Pair {
    a: Tensor,
    b: Tensor,
}

#[test]
fn from_columns_takes_a_missing_mask_as_all_valid_only_where_declared() {
    // A user's masked type, the values' column without nulls among a sibling column: the mask
    // is all `true`, of the values' shape (not of the sibling's).
    let readings = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[3, 2]), |i| i[1] as f32));
    let weight = Tensor::from(ArrayD::from_shape_fn(IxDyn(&[3]), |i| i[0] as f64));
    let (fw, aw) = tensor_to_array(&weight, "weight").unwrap();
    let (fr, ar) = tensor_to_array(&readings, "readings").unwrap();
    let rb = RecordBatch::try_new(Arc::new(Schema::new(vec![fw, fr])), vec![aw, ar]).unwrap();
    let f: Flagged = from_columns_as(&rb).unwrap();
    assert_eq!(f.readings, readings);
    assert_eq!(f.weight, weight);
    assert_eq!(f.ok.shape(), &[3, 2]);
    assert!(all_true(&f.ok));
    // A type that declares no validity: a missing column is an error naming it.
    let (fa, aa) = tensor_to_array(&readings, "a").unwrap();
    let only_a = RecordBatch::try_new(Arc::new(Schema::new(vec![fa])), vec![aa]).unwrap();
    let err = from_columns_as::<Pair>(&only_a).unwrap_err().to_string();
    assert!(err.contains("spec b") && err.contains("no tensor"), "{err}");
}

fn data_ptr(t: &Tensor) -> *const u8 {
    match t.view() {
        TensorView::F32(a) => a.as_ptr() as *const u8,
        TensorView::I64(a) => a.as_ptr() as *const u8,
        other => panic!("{:?}", other.dtype()),
    }
}

#[test]
fn export_and_import_share_memory_without_copies() {
    let b = masked_batch(8, 4);
    let (field, array) = to_array(&b, "m").unwrap();
    let st = array.as_any().downcast_ref::<StructArray>().unwrap();
    let values = st
        .column(0)
        .as_any()
        .downcast_ref::<FixedSizeListArray>()
        .unwrap();
    let arrow_ptr = values.values().to_data().buffers()[0].as_ptr();
    assert_eq!(arrow_ptr, data_ptr(b.values()), "export views the tensor");
    drop(b); // the Arrow buffer keeps the tensor's memory alive
    let back: MaskedTensor = from_array_as(&field, array.as_ref()).unwrap();
    assert!(matches!(back.values(), Tensor::External(_)));
    assert_eq!(
        data_ptr(back.values()),
        arrow_ptr,
        "import views the Arrow buffer"
    );
    drop(array);
    assert_eq!(back.values().shape(), &[8, 4]);
    assert_eq!(back, masked_batch(8, 4));
}

#[test]
fn non_standard_layouts_are_copied_on_export() {
    let a = ArrayD::from_shape_vec(IxDyn(&[3, 2]), vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    let t = Tensor::from(a.reversed_axes());
    let (f, arr) = tensor_to_array(&t, "t").unwrap();
    assert_eq!(
        from_array(&f, arr.as_ref()).unwrap().into_tensor().unwrap(),
        t
    );
}

#[test]
fn ipc_files_streams_and_parquet_keep_the_extension() {
    let dir = std::env::temp_dir().join(format!("extype-arrow-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let m = masked_batch(6, 3);
    let s = batch::stack(&[
        sample(1.0),
        sample(2.0),
        sample(3.0),
        sample(4.0),
        sample(5.0),
        sample(6.0),
    ])
    .unwrap();
    let rb = to_record_batch(&[
        ("m", &Value::from_extension(m.clone())),
        ("s", &Value::from_extension(s.clone())),
    ])
    .unwrap();
    // Exact, values under a false mask included; Parquet stores no value for a null element,
    // so those read back as zero there.
    let check = |batches: Vec<RecordBatch>, m: &MaskedTensor, s: &Sample| {
        assert_eq!(batches.len(), 1);
        assert_eq!(batches[0].schema(), rb.schema());
        assert_eq!(column_as::<MaskedTensor>(&batches[0], "m").unwrap(), *m);
        assert_eq!(column_as::<Sample>(&batches[0], "s").unwrap(), *s);
    };
    write_ipc_file(dir.join("x.arrow"), std::slice::from_ref(&rb)).unwrap();
    check(read_ipc_file(dir.join("x.arrow")).unwrap(), &m, &s);
    let mut bytes = Vec::new();
    write_ipc_stream(&mut bytes, std::slice::from_ref(&rb)).unwrap();
    check(read_ipc_stream(bytes.as_slice()).unwrap(), &m, &s);
    write_parquet(dir.join("x.parquet"), std::slice::from_ref(&rb)).unwrap();
    let zeroed = Sample {
        signal: zero_masked(&s.signal),
        ..s.clone()
    };
    check(
        read_parquet(dir.join("x.parquet")).unwrap(),
        &zero_masked(&m),
        &zeroed,
    );
    let err = read_ipc_file(dir.join("missing.arrow"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing.arrow"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_column_holding_part_of_a_batch_loads_as_a_batch_of_its_rows() {
    let items: Vec<Sample> = (0..5).map(|i| sample(i as f32)).collect();
    let b = batch::stack(&items).unwrap();
    let rb = record_batch("s", Value::from_extension(b));
    // A slice (as a file read in chunks, or an engine's partition): its spec says 2 rows.
    let part: Sample = column_as(&rb.slice(1, 2), "s").unwrap();
    let expected = batch::stack(&items[1..3]).unwrap();
    assert_eq!(part.signal, expected.signal);
    assert_eq!(part.times, expected.times);
    assert_eq!(part.bands, expected.bands);
    assert_eq!(batch::unstack(part).unwrap(), items[1..3].to_vec());
    // Chunks written one by one come back one by one.
    let dir = std::env::temp_dir().join(format!("extype-arrow-chunks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let chunks = [rb.slice(0, 3), rb.slice(3, 2)];
    write_ipc_file(dir.join("c.arrow"), &chunks).unwrap();
    let read = read_ipc_file(dir.join("c.arrow")).unwrap();
    let second: Sample = column_as(&read[1], "s").unwrap();
    assert_eq!(batch::unstack(second).unwrap(), items[3..].to_vec());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn zero_size_items_and_empty_batches_round_trip() {
    // Items of shape [0]: lists of size 0, whose row count only the column length knows.
    let items: Vec<MaskedTensor> = (0..3).map(|_| masked(0, 0.0)).collect();
    let b = batch::stack(&items).unwrap();
    let rb = record_batch("m", Value::from_extension(b.clone()));
    assert_eq!(rb.num_rows(), 3);
    assert_eq!(column_as::<MaskedTensor>(&rb, "m").unwrap(), b);
    // An empty batch.
    let empty = batch::stack_with_spec::<MaskedTensor>(&[], &masked(2, 0.0).spec()).unwrap();
    let rb = record_batch("m", Value::from_extension(empty.clone()));
    assert_eq!(rb.num_rows(), 0);
    assert_eq!(column_as::<MaskedTensor>(&rb, "m").unwrap(), empty);
}

#[test]
fn half_precision_components_round_trip_through_arrays_and_files() {
    use extype::half::{bf16, f16};
    let dir = std::env::temp_dir().join(format!("extype-arrow-half-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let values = array![[1.5f32, -0.0, 65504.0], [f32::NAN, f32::INFINITY, 1e-7]];
    let mask = array![[true, false, true], [true, true, false]];
    let halves = MaskedTensor::new(values.mapv(f16::from_f32), mask.clone()).unwrap();
    let brains = MaskedTensor::new(values.mapv(bf16::from_f32), mask).unwrap();
    let rb = to_record_batch(&[
        ("h", &Value::from_extension(halves.clone())),
        ("b", &Value::from_extension(brains.clone())),
    ])
    .unwrap();
    // f16 is Arrow's Float16; Arrow has no bfloat16, so bf16 travels as its bits (UInt16) and
    // the spec in the extension metadata says bf16.
    let child_type = |column: &str| {
        let field = rb.schema().field_with_name(column).unwrap().clone();
        let DataType::Struct(children) = field.data_type() else {
            panic!("{field:?}");
        };
        let DataType::FixedSizeList(item, 3) = children[0].data_type() else {
            panic!("{children:?}");
        };
        item.data_type().clone()
    };
    assert_eq!(child_type("h"), DataType::Float16);
    assert_eq!(child_type("b"), DataType::UInt16);
    let bits = |m: &MaskedTensor| -> Vec<u16> {
        match m.values().view() {
            TensorView::F16(a) => a.iter().map(|x| x.to_bits()).collect(),
            TensorView::BF16(a) => a.iter().map(|x| x.to_bits()).collect(),
            other => panic!("{other:?}"),
        }
    };
    // Bit for bit (NaN included); Parquet reads zero under a false mask.
    let check = |batches: Vec<RecordBatch>, parquet: bool| {
        let h: MaskedTensor = column_as(&batches[0], "h").unwrap();
        let b: MaskedTensor = column_as(&batches[0], "b").unwrap();
        let expected = |m: &MaskedTensor| -> Vec<u16> {
            let mask = m.mask().as_array::<bool, IxDyn>().unwrap();
            bits(m)
                .into_iter()
                .zip(mask.iter())
                .map(|(b, &valid)| if valid || !parquet { b } else { 0 })
                .collect()
        };
        assert_eq!(bits(&h), expected(&halves));
        assert_eq!(bits(&b), expected(&brains));
        assert_eq!(h.mask(), halves.mask());
        assert_eq!(b.spec(), brains.spec());
    };
    check(vec![rb.clone()], false);
    write_ipc_file(dir.join("h.arrow"), std::slice::from_ref(&rb)).unwrap();
    check(read_ipc_file(dir.join("h.arrow")).unwrap(), false);
    write_parquet(dir.join("h.parquet"), std::slice::from_ref(&rb)).unwrap();
    check(read_parquet(dir.join("h.parquet")).unwrap(), true);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_write_leaves_the_previous_file_intact() {
    let dir = std::env::temp_dir().join(format!("extype-arrow-atomic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = record_batch("m", Value::from_extension(masked_batch(4, 3)));
    // A second batch of another schema: the Parquet writer refuses it after the first batch
    // was written (the IPC and Parquet writers share `write_atomically`).
    let other = record_batch(
        "m",
        Value::from_extension(batch::stack(&[sample(1.0), sample(2.0)]).unwrap()),
    );
    let ipc = dir.join("keep.arrow");
    let pq = dir.join("keep.parquet");
    write_ipc_file(&ipc, std::slice::from_ref(&good)).unwrap();
    write_parquet(&pq, std::slice::from_ref(&good)).unwrap();
    let pq_before = std::fs::read(&pq).unwrap();
    let err = write_parquet(&pq, &[good.clone(), other.clone()])
        .unwrap_err()
        .to_string();
    assert!(err.contains("keep.parquet"), "{err}");
    assert_eq!(std::fs::read(&pq).unwrap(), pq_before);
    // No temporary file is left beside them.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(read_ipc_file(&ipc).unwrap()[0], good);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `read_parquet`'s single reader path (plain columns, no struct to split), over a file of
/// several row groups larger than its chunk of rows: one batch, equal to what was written.
#[test]
fn plain_columns_of_several_row_groups_read_as_one_batch() {
    use extype_arrow::arrow_array::Int64Array;
    use extype_arrow::parquet::arrow::ArrowWriter;
    use extype_arrow::parquet::file::properties::WriterProperties;
    let column = Int64Array::from_iter((0..70_000i64).map(|i| (i % 3 != 0).then_some(i)));
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(column)]).unwrap();
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_max_row_group_row_count(Some(20_000))
        .build();
    let mut writer = ArrowWriter::try_new(Vec::new(), schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    let bytes = writer.into_inner().unwrap();
    let dir = std::env::temp_dir().join(format!("extype-arrow-single-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("single.parquet");
    std::fs::write(&path, bytes).unwrap();
    assert_eq!(read_parquet(&path).unwrap(), vec![batch]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A user's own masked type: the mask declared before the values, a field between them, and a
/// type nesting it in a `Vec` beside a `MaskedTensor`.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.arrow.Flagged", batchable)]
struct Flagged {
    #[extype(shape = "*dims", validity_of = readings)]
    ok: Tensor,
    weight: Tensor,
    #[extype(shape = "*dims")]
    readings: Tensor,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.arrow.Station", batchable)]
struct Station {
    sensors: Vec<Flagged>,
    wind: MaskedTensor,
}

fn flagged(seed: i32, valid: &[bool]) -> Flagged {
    let n = valid.len();
    Flagged {
        ok: Tensor::from(ArrayD::from_shape_vec(IxDyn(&[n]), valid.to_vec()).unwrap()),
        weight: Tensor::from(extype::ndarray::arr0(seed as f64).into_dyn()),
        readings: Tensor::from(
            ArrayD::from_shape_vec(IxDyn(&[n]), (0..n as i32).map(|i| i + seed).collect()).unwrap(),
        ),
    }
}

/// `m` through every path: in memory, IPC file and stream (exact), Parquet (zero under a false
/// mask, which Parquet does not store), for `T` and for a program without the type (anonymous).
fn round_trips<T: ExtensionType + PartialEq + std::fmt::Debug + Clone>(
    value: &T,
    zeroed: &T,
    tag: &str,
) {
    let rb = record_batch("x", Value::from_extension(value.clone()));
    assert_eq!(
        column_as::<T>(&rb, "x").unwrap(),
        *value,
        "{tag}: in memory"
    );
    let dir = std::env::temp_dir().join(format!("extype-arrow-valid-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    write_ipc_file(dir.join("x.arrow"), std::slice::from_ref(&rb)).unwrap();
    let read = read_ipc_file(dir.join("x.arrow")).unwrap();
    assert_eq!(
        column_as::<T>(&read[0], "x").unwrap(),
        *value,
        "{tag}: IPC file"
    );
    let mut bytes = Vec::new();
    write_ipc_stream(&mut bytes, std::slice::from_ref(&rb)).unwrap();
    let read = read_ipc_stream(bytes.as_slice()).unwrap();
    assert_eq!(
        column_as::<T>(&read[0], "x").unwrap(),
        *value,
        "{tag}: IPC stream"
    );
    write_parquet(dir.join("x.parquet"), std::slice::from_ref(&rb)).unwrap();
    let read = read_parquet(dir.join("x.parquet")).unwrap();
    assert_eq!(
        column_as::<T>(&read[0], "x").unwrap(),
        *zeroed,
        "{tag}: Parquet"
    );
    // Without the type: an anonymous value of the same components, in the same order.
    let unlinked = rename(&rb, "x", "elsewhere.Unlinked");
    let anonymous = column(&unlinked, "x").unwrap();
    let Value::Extension(e) = &anonymous else {
        panic!("{tag}: {anonymous:?}")
    };
    assert_eq!(
        e.clone_components(),
        value.clone().into_components(),
        "{tag}: anonymous"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn masks_of_every_form_are_validity_bitmaps_and_round_trip() {
    let stack = |items: &[(Vec<f32>, Vec<bool>)], item: &[usize]| -> MaskedTensor {
        let items: Vec<MaskedTensor> = items
            .iter()
            .map(|(v, m)| {
                MaskedTensor::new(
                    ArrayD::from_shape_vec(IxDyn(item), v.clone()).unwrap(),
                    ArrayD::from_shape_vec(IxDyn(item), m.clone()).unwrap(),
                )
                .unwrap()
            })
            .collect();
        batch::stack(&items).unwrap()
    };
    let inf = f32::INFINITY;
    let cases: Vec<(&str, MaskedTensor)> = vec![
        (
            "all_false",
            stack(
                &[
                    (vec![1.0, inf], vec![false; 2]),
                    (vec![3.0, 4.0], vec![false; 2]),
                ],
                &[2],
            ),
        ),
        (
            "all_true",
            stack(
                &[
                    (vec![1.0, 2.0], vec![true; 2]),
                    (vec![3.0, 4.0], vec![true; 2]),
                ],
                &[2],
            ),
        ),
        (
            "zero_size",
            stack(&[(vec![], vec![]), (vec![], vec![])], &[2, 0]),
        ),
        (
            "rank0",
            stack(
                &[
                    (vec![1.5], vec![true]),
                    (vec![7.0], vec![false]),
                    (vec![2.0], vec![true]),
                ],
                &[],
            ),
        ),
        (
            "rank2",
            stack(
                &[
                    (vec![1.0, 2.0, 3.0, 4.0], vec![true, false, false, true]),
                    (vec![5.0, 6.0, 7.0, 8.0], vec![false, true, true, true]),
                ],
                &[2, 2],
            ),
        ),
    ];
    for (tag, m) in &cases {
        let rb = record_batch("x", Value::from_extension(m.clone()));
        let st = rb.column(0).as_any().downcast_ref::<StructArray>().unwrap();
        assert_eq!(st.num_columns(), 1, "{tag}: the mask is no child");
        let elements = match st.column(0).as_any().downcast_ref::<FixedSizeListArray>() {
            Some(list) => list.values().clone(),
            None => st.column(0).clone(), // rank-0 items: the array's own validity
        };
        let masked_out = m
            .mask()
            .as_array::<bool, IxDyn>()
            .unwrap()
            .iter()
            .filter(|v| !**v)
            .count();
        assert_eq!(elements.null_count(), masked_out, "{tag}");
        if masked_out == 0 {
            assert!(
                elements.nulls().is_none(),
                "{tag}: no bitmap when all are valid"
            );
        }
        round_trips(m, &zero_masked(m), tag);
    }
    // Nested: a user's type declaring its own mask (before the values, a field between), in a
    // `Vec`, beside a MaskedTensor.
    let station = |seed: i32| Station {
        sensors: vec![
            flagged(seed, &[true, false, true]),
            flagged(seed + 1, &[false, false, true]),
        ],
        wind: masked(2, seed as f32),
    };
    let b = batch::stack(&[station(1), station(2), station(3)]).unwrap();
    assert_eq!(
        b.spec().validity(),
        [
            (
                "sensors[0].ok".to_string(),
                "sensors[0].readings".to_string()
            ),
            (
                "sensors[1].ok".to_string(),
                "sensors[1].readings".to_string()
            ),
            ("wind.mask".to_string(), "wind.values".to_string()),
        ]
    );
    let rb = record_batch("x", Value::from_extension(b.clone()));
    let DataType::Struct(children) = rb.schema().field(0).data_type().clone() else {
        panic!()
    };
    let DataType::Struct(sensors) = children[0].data_type() else {
        panic!()
    };
    let DataType::Struct(first) = sensors[0].data_type() else {
        panic!()
    };
    let names: Vec<&str> = first.iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["weight", "readings"]);
    assert_eq!(first[1].metadata()[VALIDITY], "ok");
    let zero_flagged = |f: &Flagged| {
        let ok = f.ok.as_array::<bool, IxDyn>().unwrap();
        let r = f.readings.as_array::<i32, IxDyn>().unwrap();
        Flagged {
            readings: Tensor::from(ArrayD::from_shape_fn(r.raw_dim(), |d| {
                if ok[&d] { r[&d] } else { 0 }
            })),
            ..f.clone()
        }
    };
    let zeroed = Station {
        sensors: b.sensors.iter().map(zero_flagged).collect(),
        wind: zero_masked(&b.wind),
    };
    round_trips(&b, &zeroed, "nested");
}

#[test]
fn files_with_a_mask_child_still_load() {
    // The layout written before masks were validity bitmaps: `values` and a bool `mask` child.
    let b = masked_batch(5, 3);
    let rb = record_batch("m", Value::from_extension(b.clone()));
    let old = old_layout(&rb, None);
    let DataType::Struct(children) = old.schema().field(0).data_type().clone() else {
        panic!()
    };
    assert_eq!(children.len(), 2);
    assert_eq!(column_as::<MaskedTensor>(&old, "m").unwrap(), b);
    let dir = std::env::temp_dir().join(format!("extype-arrow-old-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    write_ipc_file(dir.join("old.arrow"), std::slice::from_ref(&old)).unwrap();
    let read = read_ipc_file(dir.join("old.arrow")).unwrap();
    assert_eq!(column_as::<MaskedTensor>(&read[0], "m").unwrap(), b);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A type whose declared mask is not checked by the type itself (no contract, no validation).
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.arrow.Loose", batchable)]
struct Loose {
    values: Tensor,
    #[extype(validity_of = values)]
    mask: Tensor,
}

#[test]
fn a_mask_that_is_not_bool_of_the_values_shape_is_an_error_at_write_time() {
    let ints = Loose {
        values: Tensor::from(array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn()),
        mask: Tensor::from(array![[1u8, 0], [1, 1]].into_dyn()),
    };
    let err = to_array(&ints, "l").unwrap_err().to_string();
    assert!(
        err.contains("`mask` is the validity of `values`")
            && err.contains("expected bool")
            && err.contains("found u8"),
        "{err}"
    );
    let shape = Loose {
        values: Tensor::from(array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn()),
        mask: Tensor::from(array![[true], [false]].into_dyn()),
    };
    let err = to_array(&shape, "l").unwrap_err().to_string();
    assert!(
        err.contains("shape [2, 2]") && err.contains("[2, 1]"),
        "{err}"
    );
}

#[test]
fn hostile_validity_metadata_is_an_error_not_a_panic() {
    let b = masked_batch(3, 2);
    let rb = record_batch("m", Value::from_extension(b));
    let st = rb.column(0).as_any().downcast_ref::<StructArray>().unwrap();
    let with_validity = |name: &str| {
        let mut f = st.fields()[0].as_ref().clone();
        f.metadata_mut()
            .insert(VALIDITY.to_string(), name.to_string());
        replace_child(&rb, 0, f, st.column(0).clone())
    };
    // Naming a component the type does not have.
    let err = column(&with_validity("bogus"), "m")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bogus (the validity of values)") && err.contains("mask: bool"),
        "{err}"
    );
    // Not a field name.
    for name in ["", "a.b", "[0]"] {
        let err = column(&with_validity(name), "m").unwrap_err().to_string();
        assert!(
            err.contains(VALIDITY) && err.contains("sibling field"),
            "{name:?}: {err}"
        );
    }
    // Both a bitmap and a mask child.
    let (mf, ma) = tensor_to_array(masked_batch(3, 2).mask(), "mask").unwrap();
    let fields = Fields::from(vec![st.fields()[0].as_ref().clone(), mf]);
    let both = StructArray::try_new(fields, vec![st.column(0).clone(), ma], None).unwrap();
    let f = rb
        .schema()
        .field(0)
        .clone()
        .with_data_type(both.data_type().clone());
    let err = column(&replace_column(&rb, 0, f, Arc::new(both)), "m")
        .unwrap_err()
        .to_string();
    assert!(err.contains("the bitmap or the child"), "{err}");
    // An unlinked type: the metadata's name is a component of the anonymous value, placed
    // after the values.
    let renamed = rename(&with_validity("bogus"), "m", "elsewhere.Masked");
    let value = column(&renamed, "m").unwrap();
    let Value::Extension(e) = value else { panic!() };
    assert_eq!(e.any_spec().dyn_component_paths().len(), 2);
}

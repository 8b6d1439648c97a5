//! Hostile input, one regression per kind: crafted IPC and Parquet files of each panic and
//! abort arrow-rs 59 had on them (each an error naming the file now), a zero-width column of
//! 2^40 rows, writes of batches of two schemas and of values that fail their validation (errors
//! that leave the old file), and a tensor shape whose element count overflows (one error in
//! debug and release builds).
//!
//! The crafted files are the ones extype writes with one field changed, found through the
//! flatbuffers (IPC) and Thrift (Parquet) structures, so they follow the writer's layout.

use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use extype::Value;
use extype_arrow::arrow_array::{Array, ArrayRef, FixedSizeListArray, RecordBatch, StructArray};
use extype_arrow::arrow_ipc;
use extype_arrow::arrow_schema::{DataType, Field, Schema};
use extype_arrow::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use extype_arrow::parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use extype_arrow::*;

#[path = "support/hostile.rs"]
mod hostile;

use hostile::{
    FORMATS, Format, bytes_of, done, masked, parquet_footer_replace, replace_le, scratch_dir,
    seed_batches,
};

/// The seed batch of masked, dense, integer and bool columns.
fn mixed() -> RecordBatch {
    seed_batches().remove(0).1
}

/// Where `part` (a reference into `base`) lies in `base`.
fn pos_of<T>(base: &[u8], part: &T) -> usize {
    part as *const T as usize - base.as_ptr() as usize
}

/// Overwrites `bytes[at..]` with `value`.
fn put_at(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
}

/// The footer's range in an IPC file.
fn footer(bytes: &[u8]) -> Range<usize> {
    let n = bytes.len();
    let len = i32::from_le_bytes(bytes[n - 10..n - 6].try_into().unwrap()) as usize;
    n - 10 - len..n - 10
}

/// The metadata flatbuffer of record batch 0 of an IPC file, or of the first message after the
/// schema of an IPC stream (the continuation marker and length skipped).
fn batch_meta(bytes: &[u8], format: Format) -> Range<usize> {
    let start = match format {
        Format::IpcFile => {
            let f = arrow_ipc::root_as_footer(&bytes[footer(bytes)]).unwrap();
            f.recordBatches().unwrap().get(0).offset() as usize
        }
        _ => {
            let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
            let m = arrow_ipc::root_as_message(&bytes[8..8 + len]).unwrap();
            8 + len + m.bodyLength() as usize
        }
    };
    let len = i32::from_le_bytes(bytes[start + 4..start + 8].try_into().unwrap()) as usize;
    start + 8..start + 8 + len
}

/// The schema flatbuffer's buffer range: the footer of a file, the first message of a stream.
fn schema_buf(bytes: &[u8], format: Format) -> Range<usize> {
    match format {
        Format::IpcFile => footer(bytes),
        _ => {
            let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
            8..8 + len
        }
    }
}

/// The position in `bytes` of a scalar of the top-level schema field `name` (of its first
/// child when `child`): `at` gives the location of the table holding it and the scalar's vtable
/// entry (0: not stored).
fn schema_scalar(
    bytes: &[u8],
    format: Format,
    name: &str,
    child: bool,
    at: impl Fn(arrow_ipc::Field<'_>) -> (usize, u16),
) -> usize {
    let range = schema_buf(bytes, format);
    let buf = &bytes[range.clone()];
    let schema = match format {
        Format::IpcFile => arrow_ipc::root_as_footer(buf).unwrap().schema().unwrap(),
        _ => arrow_ipc::root_as_message(buf)
            .unwrap()
            .header_as_schema()
            .unwrap(),
    };
    let mut field = schema
        .fields()
        .unwrap()
        .iter()
        .find(|f| f.name() == Some(name))
        .unwrap();
    if child {
        field = field.children().unwrap().get(0);
    }
    let (loc, entry) = at(field);
    assert!(entry > 0, "{name}: the scalar is not stored (a default)");
    range.start + loc + entry as usize
}

/// The IPC bytes of the mixed batch in `format`, with `edit` applied; the reader's error on
/// them (it must be one, naming the file and containing `needles`).
fn ipc_error(format: Format, edit: impl Fn(&mut Vec<u8>), needles: &[&str]) -> String {
    let dir = scratch_dir(&format!("hostile-{format:?}"));
    let mut bytes = bytes_of(format, &[mixed()], &dir);
    edit(&mut bytes);
    let path = dir.join("crafted.arrow");
    std::fs::write(&path, &bytes).unwrap();
    let (at, read) = match format {
        Format::IpcFile => (path.display().to_string(), read_ipc_file(&path)),
        _ => ("IPC stream".to_string(), read_ipc_stream(bytes.as_slice())),
    };
    let err = read.expect_err("a crafted file reads").to_string();
    assert!(err.contains(&at), "{format:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{format:?}: no {needle:?} in: {err}");
    }
    done(&dir);
    err
}

/// The record batch 0 message of IPC `bytes`: `(meta start, nodes, buffers)` positions, nodes
/// and buffers as the positions of their first field.
fn batch_layout(bytes: &[u8], format: Format) -> (usize, Vec<usize>, Vec<usize>, usize) {
    let range = batch_meta(bytes, format);
    let m = arrow_ipc::root_as_message(&bytes[range.clone()]).unwrap();
    let b = m.header_as_record_batch().unwrap();
    let nodes = b
        .nodes()
        .unwrap()
        .iter()
        .map(|n| pos_of(bytes, n))
        .collect();
    let buffers = b
        .buffers()
        .unwrap()
        .iter()
        .map(|x| pos_of(bytes, x))
        .collect();
    let body_len = range.start
        + m._tab.loc()
        + m._tab.vtable().get(arrow_ipc::Message::VT_BODYLENGTH) as usize;
    (range.start, nodes, buffers, body_len)
}

// 1. Crafted IPC files: each of arrow-ipc's panics and aborts, an error now.

#[test]
fn an_unknown_float_precision_is_an_error() {
    for format in [Format::IpcFile, Format::IpcStream] {
        // arrow-ipc: "FloatingPoint type with precision of <UNKNOWN 7> not supported".
        ipc_error(
            format,
            |b| {
                let at = schema_scalar(b, format, "col_dense", true, |f| {
                    let t = f.type_as_floating_point().unwrap()._tab;
                    (
                        t.loc(),
                        t.vtable().get(arrow_ipc::FloatingPoint::VT_PRECISION),
                    )
                });
                put_at(b, at, &7i16.to_le_bytes());
            },
            &["col_dense.item", "FloatingPoint"],
        );
    }
}

#[test]
fn a_type_none_or_unknown_is_an_error() {
    for format in [Format::IpcFile, Format::IpcStream] {
        // arrow-ipc: "not implemented: Type NONE not supported" (and `<UNKNOWN 99>`).
        for ty in [0u8, 99] {
            ipc_error(
                format,
                |b| {
                    let at = schema_scalar(b, format, "col_ints", false, |f| {
                        (
                            f._tab.loc(),
                            f._tab.vtable().get(arrow_ipc::Field::VT_TYPE_TYPE),
                        )
                    });
                    b[at] = ty;
                },
                &["col_ints", "is not read"],
            );
        }
    }
}

#[test]
fn an_int_of_an_unknown_width_is_an_error() {
    // arrow-ipc: "Int type with bit width of 12 and signed of true not supported".
    ipc_error(
        Format::IpcFile,
        |b| {
            let at = schema_scalar(b, Format::IpcFile, "col_ints", false, |f| {
                let t = f.type_as_int().unwrap()._tab;
                (t.loc(), t.vtable().get(arrow_ipc::Int::VT_BITWIDTH))
            });
            put_at(b, at, &12i32.to_le_bytes());
        },
        &["col_ints", "parameters"],
    );
}

#[test]
fn a_buffer_past_the_body_is_an_error() {
    for format in [Format::IpcFile, Format::IpcStream] {
        // arrow-buffer: "the offset of the new Buffer cannot exceed the existing length".
        for (field, value) in [(0, 1u64 << 40), (8, 1 << 20)] {
            ipc_error(
                format,
                |b| {
                    let (_, _, buffers, _) = batch_layout(b, format);
                    // Buffer 6: the f64 values of `col_dense` (after `col_masked`'s struct
                    // validity, its values' list validity, element validity and elements);
                    // its offset, then its length.
                    put_at(b, buffers[6] + field, &value.to_le_bytes());
                },
                &["col_dense", "past the body"],
            );
        }
    }
}

#[test]
fn a_buffer_of_a_partial_element_is_an_error_not_a_panic() {
    // arrow-buffer: "assertion failed: prefix.is_empty() && suffix.is_empty()"
    // (`Buffer::typed_data`, through arrow-data's validation of a list's offsets buffer of 17
    // bytes). Every buffer of the ragged batch one byte longer: no panic, and some errors.
    let dir = scratch_dir("hostile-partial");
    let ragged = seed_batches()
        .into_iter()
        .find(|(n, _)| *n == "ragged")
        .unwrap()
        .1;
    let bytes = bytes_of(Format::IpcFile, &[ragged], &dir);
    let path = dir.join("crafted.arrow");
    let (_, _, buffers, _) = batch_layout(&bytes, Format::IpcFile);
    let mut errors = 0;
    for at in buffers {
        let mut crafted = bytes.clone();
        let len = i64::from_le_bytes(crafted[at + 8..at + 16].try_into().unwrap());
        if len == 0 {
            continue;
        }
        put_at(&mut crafted, at + 8, &(len + 1).to_le_bytes());
        std::fs::write(&path, &crafted).unwrap();
        if let Err(e) = read_ipc_file(&path) {
            assert!(e.to_string().contains(&path.display().to_string()), "{e}");
            errors += 1;
        }
    }
    assert!(errors > 0);
    done(&dir);
}

#[test]
fn a_validity_bitmap_shorter_than_its_rows_is_an_error() {
    for format in [Format::IpcFile, Format::IpcStream] {
        // arrow-buffer: "buffer not large enough (bit_offset: 0, bit_len: 4, buffer_len: 0)",
        // the struct column `col_masked` claiming a null with an empty validity buffer.
        ipc_error(
            format,
            |b| {
                let (_, nodes, _, _) = batch_layout(b, format);
                put_at(b, nodes[0] + 8, &1i64.to_le_bytes());
            },
            &["col_masked", "validity"],
        );
    }
}

#[test]
fn a_mask_bitmap_shorter_than_its_elements_is_an_error() {
    for format in [Format::IpcFile, Format::IpcStream] {
        // `col_masked`'s mask is the validity bitmap of its values' elements (buffer 2, after
        // the struct's and the lists' validity): cut to no bytes, it cannot hold 12 bits.
        ipc_error(
            format,
            |b| {
                let (_, _, buffers, _) = batch_layout(b, format);
                put_at(b, buffers[2] + 8, &0i64.to_le_bytes());
            },
            &["col_masked"],
        );
    }
}

#[test]
fn a_fixed_size_list_length_overflowing_is_an_error() {
    // arrow-data: "integer overflow computing expected number of expected values in
    // FixedListSize" (node 3, after `col_masked`'s struct, lists and elements: the lists of
    // `col_dense`, 6 values a row).
    ipc_error(
        Format::IpcFile,
        |b| {
            let (_, nodes, _, _) = batch_layout(b, Format::IpcFile);
            put_at(b, nodes[3], &(1i64 << 62).to_le_bytes());
        },
        &["col_dense", "exceed memory"],
    );
}

#[test]
fn a_body_longer_than_the_file_is_an_error_not_an_allocation() {
    // arrow-ipc allocates the body a block (file) or a message (stream) claims before reading
    // it: 2^50 bytes aborted the process ("memory allocation of 1125899906842624 bytes failed").
    ipc_error(
        Format::IpcFile,
        |b| {
            let f = arrow_ipc::root_as_footer(&b[footer(b)]).unwrap();
            let block = pos_of(b, f.recordBatches().unwrap().get(0));
            put_at(b, block + 16, &(1i64 << 50).to_le_bytes());
        },
        &["record batch 0", "does not fit"],
    );
    ipc_error(
        Format::IpcStream,
        |b| {
            let (_, _, _, body_len) = batch_layout(b, Format::IpcStream);
            put_at(b, body_len, &(1i64 << 50).to_le_bytes());
        },
        &["claims a body of 1125899906842624 bytes"],
    );
}

// 1. Crafted Parquet files.

/// Reads `bytes` as a Parquet file: the error it must be, naming the file.
fn parquet_error(bytes: &[u8], needles: &[&str]) -> String {
    let dir = scratch_dir("hostile-parquet");
    let path = dir.join("crafted.parquet");
    std::fs::write(&path, bytes).unwrap();
    let err = read_parquet(&path)
        .expect_err("a crafted file reads")
        .to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
    for needle in needles {
        assert!(err.contains(needle), "no {needle:?} in: {err}");
    }
    done(&dir);
    err
}

/// `batch` as Parquet bytes, and their metadata.
fn parquet_of(batch: RecordBatch) -> (Vec<u8>, ParquetMetaData) {
    let dir = scratch_dir("hostile-parquet-seed");
    let bytes = bytes_of(Format::Parquet, &[batch], &dir);
    let path = dir.join("seed.parquet");
    std::fs::write(&path, &bytes).unwrap();
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&std::fs::File::open(&path).unwrap())
        .unwrap();
    done(&dir);
    (bytes, meta)
}

#[test]
fn a_negative_column_chunk_offset_is_an_error() {
    // parquet: "column start and length should not be negative" (`ColumnChunkMetaData::
    // byte_range`, an assertion).
    let (bytes, meta) = parquet_of(mixed());
    let offset = meta.row_group(0).column(1).data_page_offset();
    let (crafted, n) = parquet_footer_replace(&bytes, offset, -offset);
    assert!(n > 0);
    parquet_error(&crafted, &["column chunk", &format!("of -{offset}")]);
}

#[test]
fn an_unknown_type_in_the_stored_arrow_schema_is_an_error() {
    // The Arrow schema a Parquet file stores goes through arrow-ipc's conversion: "FloatingPoint
    // type with precision of <UNKNOWN 7> not supported", from parquet's footer decoder.
    let (bytes, meta) = parquet_of(mixed());
    let encoded = meta
        .file_metadata()
        .key_value_metadata()
        .unwrap()
        .iter()
        .find(|kv| kv.key == "ARROW:schema")
        .and_then(|kv| kv.value.clone())
        .unwrap();
    let engine = base64::engine::general_purpose::STANDARD;
    let mut schema = base64::Engine::decode(&engine, &encoded).unwrap();
    let at = schema_scalar(&schema, Format::IpcStream, "col_dense", true, |f| {
        let t = f.type_as_floating_point().unwrap()._tab;
        (
            t.loc(),
            t.vtable().get(arrow_ipc::FloatingPoint::VT_PRECISION),
        )
    });
    put_at(&mut schema, at, &7i16.to_le_bytes());
    let crafted_text = base64::Engine::encode(&engine, &schema);
    assert_eq!(crafted_text.len(), encoded.len());
    let mut crafted = bytes.clone();
    assert_eq!(
        replace_le(&mut crafted, encoded.as_bytes(), crafted_text.as_bytes()),
        1
    );
    parquet_error(&crafted, &["the stored Arrow schema", "col_dense.item"]);
}

#[test]
fn a_page_that_panics_parquet_s_decoder_is_an_error() {
    // parquet: "Decoder for dict should have been set" (a data page's encoding flipped to a
    // dictionary one, in a column chunk without a dictionary page): found by flipping the bits
    // of the first page header one at a time until parquet's own reader panics. A file of one
    // plain column, which one reader decodes (not split into units on threads).
    std::panic::set_hook(Box::new(|info| eprintln!("{info}")));
    let ints = Value::Tensor(extype::Tensor::from(extype::ndarray::array![
        1i32, -2, 3, 4
    ]));
    let (bytes, meta) = parquet_of(to_record_batch(&[("col_ints", &ints)]).unwrap());
    let dir = scratch_dir("hostile-parquet-page");
    let path = dir.join("crafted.parquet");
    let start = meta.row_group(0).column(0).data_page_offset() as usize;
    let mut found = 0;
    for at in start..start + 48 {
        for bit in 0..8 {
            let mut crafted = bytes.clone();
            crafted[at] ^= 1 << bit;
            std::fs::write(&path, &crafted).unwrap();
            let upstream = catch_unwind(AssertUnwindSafe(|| {
                let file = std::fs::File::open(&path).unwrap();
                if let Ok(reader) =
                    ParquetRecordBatchReaderBuilder::try_new(file).and_then(|b| b.build())
                {
                    // The reader repeats an error for ever: stop at the first.
                    for batch in reader {
                        if batch.is_err() {
                            break;
                        }
                    }
                }
            }));
            if upstream.is_err() {
                found += 1;
                let err = read_parquet(&path)
                    .expect_err("a crafted file reads")
                    .to_string();
                assert!(err.contains(&path.display().to_string()), "{err}");
            }
        }
    }
    assert!(
        found > 0,
        "no flipped bit of the first page header panics parquet any more"
    );
    done(&dir);
}

#[test]
fn parquet_files_of_types_the_ipc_reader_does_not_take_still_read() {
    // The stored Arrow schema is checked for what its conversion takes: maps and dictionaries
    // (which the IPC reader refuses) read from Parquet as before.
    use extype_arrow::arrow_array::DictionaryArray;
    use extype_arrow::arrow_array::builder::{Int32Builder, MapBuilder, StringBuilder};
    use extype_arrow::arrow_array::types::Int32Type;
    let mut maps = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    for i in 0..3 {
        maps.keys().append_value(format!("k{i}"));
        maps.values().append_value(i);
        maps.append(true).unwrap();
    }
    let maps = maps.finish();
    let words: DictionaryArray<Int32Type> = ["a", "b", "a"].into_iter().collect();
    let schema = Schema::new(vec![
        Field::new("col_map", maps.data_type().clone(), true),
        Field::new("col_dict", words.data_type().clone(), true),
    ]);
    let rb = RecordBatch::try_new(Arc::new(schema), vec![Arc::new(maps), Arc::new(words)]).unwrap();
    let dir = scratch_dir("hostile-types");
    let path = dir.join("types.parquet");
    write_parquet(&path, std::slice::from_ref(&rb)).unwrap();
    assert_eq!(read_parquet(&path).unwrap(), vec![rb.clone()]);
    // The IPC reader refuses them, naming the first.
    write_ipc_file(dir.join("types.arrow"), &[rb]).unwrap();
    let err = read_ipc_file(dir.join("types.arrow"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("field `col_map`: IPC type Map is not read"),
        "{err}"
    );
    done(&dir);
}

// 2. Zero-width rows.

#[test]
fn zero_width_rows_claiming_2_40_are_refused_naming_the_column_and_the_bound() {
    let dir = scratch_dir("hostile-zero");
    let rows = 70_001usize;
    let rb =
        to_record_batch(&[("col_zero", &Value::from_extension(masked(rows, &[3, 0])))]).unwrap();
    let path = dir.join("zero.bin");
    for format in FORMATS {
        let mut bytes = bytes_of(format, std::slice::from_ref(&rb), &dir);
        let n = if format == Format::Parquet {
            let (b, n) = parquet_footer_replace(&bytes, rows as i64, 1 << 40);
            bytes = b;
            n
        } else {
            replace_le(
                &mut bytes,
                &(rows as u64).to_le_bytes(),
                &(1u64 << 40).to_le_bytes(),
            )
        };
        assert!(n > 0, "{format:?}");
        std::fs::write(&path, &bytes).unwrap();
        let err = match format {
            Format::IpcFile => read_ipc_file(&path),
            Format::IpcStream => read_ipc_stream(bytes.as_slice()),
            Format::Parquet => read_parquet(&path),
        }
        .expect_err("2^40 rows read")
        .to_string();
        for needle in ["col_zero", "1099511627776 rows", "reading bound of"] {
            assert!(err.contains(needle), "{format:?}: no {needle:?} in {err}");
        }
    }
    done(&dir);
    // In memory, such a column is read without an allocation per row.
    let (field, array) = zero_width_column(1 << 40);
    let start = std::time::Instant::now();
    let value = from_array(&field, array.as_ref()).unwrap();
    // A guard against work per row (2^40 rows: hours), generous under load.
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    let Value::Extension(e) = value else { panic!() };
    assert_eq!(e.clone_components()[0].shape(), &[1 << 40, 3, 0]);
}

/// A column of `rows` masked items of shape `[3, 0]`, built in memory.
fn zero_width_column(rows: usize) -> (Field, ArrayRef) {
    let small =
        to_record_batch(&[("col_zero", &Value::from_extension(masked(2, &[3, 0])))]).unwrap();
    let schema = small.schema();
    let field = schema.field(0).clone();
    let st = small
        .column(0)
        .as_any()
        .downcast_ref::<StructArray>()
        .unwrap();
    let children: Vec<ArrayRef> = st
        .columns()
        .iter()
        .map(|c| {
            let l = c.as_any().downcast_ref::<FixedSizeListArray>().unwrap();
            let DataType::FixedSizeList(item, 0) = l.data_type() else {
                panic!()
            };
            Arc::new(
                FixedSizeListArray::try_new_with_length(
                    item.clone(),
                    0,
                    l.values().clone(),
                    None,
                    rows,
                )
                .unwrap(),
            ) as ArrayRef
        })
        .collect();
    let big = StructArray::try_new_with_length(st.fields().clone(), children, None, rows).unwrap();
    (field, Arc::new(big))
}

// 3. Batches of two schemas.

/// A masked column `col_x` of f64 values (the other batches' are f32).
fn masked_f64(n: usize) -> RecordBatch {
    let items: Vec<extype::types::MaskedTensor> = (0..n)
        .map(|i| {
            extype::types::MaskedTensor::new(
                extype::ndarray::ArrayD::from_elem(extype::ndarray::IxDyn(&[3]), i as f64),
                extype::ndarray::ArrayD::from_elem(extype::ndarray::IxDyn(&[3]), true),
            )
            .unwrap()
        })
        .collect();
    let b = extype::batch::stack(&items).unwrap();
    to_record_batch(&[("col_x", &Value::from_extension(b))]).unwrap()
}

/// Checks that every writer refuses `batches` with an error containing `needles`, leaving a
/// file already written as it was and writing nothing to a stream.
fn every_writer_refuses(batches: &[RecordBatch], needles: &[&str]) {
    let dir = scratch_dir("hostile-write");
    let good = [one_masked()];
    for format in FORMATS {
        let path = dir.join(format!("{format:?}.bin"));
        let (before, err) = match format {
            Format::IpcStream => {
                let mut out = Vec::new();
                let err = write_ipc_stream(&mut out, batches);
                assert!(out.is_empty(), "a refused stream wrote {} bytes", out.len());
                (Vec::new(), err)
            }
            Format::IpcFile => {
                write_ipc_file(&path, &good).unwrap();
                (
                    std::fs::read(&path).unwrap(),
                    write_ipc_file(&path, batches),
                )
            }
            Format::Parquet => {
                write_parquet(&path, &good).unwrap();
                (std::fs::read(&path).unwrap(), write_parquet(&path, batches))
            }
        };
        let err = err.expect_err("the write succeeded").to_string();
        for needle in needles {
            assert!(err.contains(needle), "{format:?}: no {needle:?} in {err}");
        }
        if format != Format::IpcStream {
            assert_eq!(
                std::fs::read(&path).unwrap(),
                before,
                "{format:?}: the old file changed"
            );
            let names: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert!(names.len() <= 2, "a temporary file is left: {names:?}");
        }
    }
    done(&dir);
}

/// A good one-batch file's batch: masked f32 items in `col_x`.
fn one_masked() -> RecordBatch {
    to_record_batch(&[("col_x", &Value::from_extension(masked(4, &[3])))]).unwrap()
}

#[test]
fn writing_batches_of_two_schemas_is_an_error_naming_the_batch() {
    // The IPC writers took batch 1's f64 values under batch 0's schema: read back, f64 bytes
    // read as f32 in a "valid" masked tensor.
    let batches = [one_masked(), masked_f64(4)];
    every_writer_refuses(
        &batches,
        &["record batch 1 has the schema", "Float64", "Float32"],
    );
}

// 4. Values that fail their validation are never written.

/// A masked column whose values are `[4, 3]` and mask `[4, 2]`: built from Arrow arrays, it
/// fails the shape contract when read.
fn invalid_masked() -> RecordBatch {
    let good = to_record_batch(&[("col_bad", &Value::from_extension(masked(4, &[3])))]).unwrap();
    let gs = good.schema();
    // A bitmap has the values' shape by construction, so the mismatch is built in the layout
    // of files written before masks were validity bitmaps (read as ever): a `mask` child.
    let (values_field, values) = tensor_to_array(masked(4, &[3]).values(), "values").unwrap();
    let (mask_field, mask) = tensor_to_array(masked(4, &[2]).mask(), "mask").unwrap();
    let fields = extype_arrow::arrow_schema::Fields::from(vec![values_field, mask_field]);
    let st = StructArray::try_new(fields.clone(), vec![values, mask], None).unwrap();
    let field = Field::new("col_bad", DataType::Struct(fields), false)
        .with_metadata(gs.field(0).metadata().clone());
    RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![Arc::new(st)]).unwrap()
}

#[test]
fn writing_a_value_that_fails_its_validation_is_an_error_and_keeps_the_old_file() {
    let bad = invalid_masked();
    let schema = bad.schema();
    let read = from_array(schema.field(0), bad.column(0).as_ref());
    assert!(read.is_err(), "the crafted column reads as a valid value");
    every_writer_refuses(
        &[bad],
        &["record batch 0, column `col_bad` does not read back"],
    );
}

/// `array` with the leaf at `path` (struct children by name) replaced by `edit` of it.
fn edit_leaf(array: &ArrayRef, path: &[&str], edit: &dyn Fn(&ArrayRef) -> ArrayRef) -> ArrayRef {
    let Some((first, rest)) = path.split_first() else {
        return edit(array);
    };
    let st = array.as_any().downcast_ref::<StructArray>().unwrap();
    let (fields, mut columns, nulls) = st.clone().into_parts();
    let i = fields.iter().position(|f| f.name() == first).unwrap();
    columns[i] = edit_leaf(&columns[i], rest, edit);
    Arc::new(StructArray::new(fields, columns, nulls))
}

#[test]
fn writing_a_ragged_batch_whose_row_splits_fail_validation_is_an_error() {
    use extype_arrow::arrow_array::{Int64Array, ListArray};
    // The row layout of a ragged batch: item 0's row splits made to start at 1.
    let good = seed_batches()
        .into_iter()
        .find(|(n, _)| *n == "ragged_rows")
        .unwrap()
        .1;
    let bump = |a: &ArrayRef| -> ArrayRef {
        let (field, offsets, values, nulls) = a
            .as_any()
            .downcast_ref::<ListArray>()
            .unwrap()
            .clone()
            .into_parts();
        let mut splits = values
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .values()
            .to_vec();
        splits[0] += 1;
        Arc::new(ListArray::new(
            field,
            offsets,
            Arc::new(Int64Array::from(splits)),
            nulls,
        ))
    };
    let column = edit_leaf(good.column(0), &["nested_row_splits", "[0]", "data"], &bump);
    let bad = RecordBatch::try_new(good.schema(), vec![column]).unwrap();
    let schema = bad.schema();
    let read = from_array(schema.field(0), bad.column(0).as_ref());
    assert!(read.is_err(), "the crafted column reads as a valid value");
    every_writer_refuses(&[bad], &["column `col_ragged` does not read back"]);
}

// 5. Overflowing shapes: the same error in debug and release builds.

#[test]
fn a_tensor_shape_whose_element_count_overflows_is_an_error() {
    use extype_arrow::arrow_array::Float32Array;
    let dir = scratch_dir("hostile-overflow");
    // 2^32 * 2^32 * 16 wraps to 0 in a release build (the lists' size: accepted as a shape of
    // no elements), and panics in a debug build.
    for shape in [vec![1usize << 32, 1 << 32, 16], vec![1 << 40, 1 << 40, 0]] {
        let item = Arc::new(Field::new("item", DataType::Float32, true));
        let values = Arc::new(Float32Array::from(Vec::<f32>::new()));
        let list = FixedSizeListArray::try_new_with_length(item, 0, values, None, 3).unwrap();
        let meta = FixedShapeTensor {
            shape: shape.clone(),
            dim_names: None,
            permutation: None,
        };
        let field = Field::new("col_t", list.data_type().clone(), false)
            .with_metadata(meta.field_metadata());
        let err = from_array(&field, &list).unwrap_err().to_string();
        assert!(
            err.contains("col_t") && err.contains("more elements than an index"),
            "{err}"
        );
        // Through a file too.
        let rb =
            RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![Arc::new(list)]).unwrap();
        let path = dir.join("t.arrow");
        write_ipc_file(&path, &[rb]).unwrap();
        let read = read_ipc_file(&path).unwrap();
        let err = from_record_batch(&read[0]).unwrap_err().to_string();
        assert!(
            err.contains("more elements than an index"),
            "{shape:?}: {err}"
        );
    }
    done(&dir);
}

/// A legitimate file of highly repetitive data decodes to far more than the default bound
/// allows for its size: refused by default with a message that names the way out, read in full
/// with a larger [`ReadLimit`].
#[test]
fn highly_repetitive_parquet_reads_with_a_larger_limit() {
    let dir = std::env::temp_dir().join(format!("extype-arrow-limit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("constant.parquet");
    let zeros = extype::Tensor::from(ndarray::Array2::<f32>::zeros((1 << 22, 1)));
    let rb = to_record_batch(&[("x", &Value::Tensor(zeros))]).unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_dictionary_enabled(true)
        .build();
    write_parquet_with(&path, std::slice::from_ref(&rb), props).unwrap();
    let file_len = std::fs::metadata(&path).unwrap().len();
    assert!(file_len * EXPANSION < 16 << 20, "{file_len} bytes");
    let e = read_parquet(&path).unwrap_err().to_string();
    assert!(
        e.contains("reading bound") && e.contains("read_parquet_with_limit"),
        "{e}"
    );
    let back = read_parquet_with_limit(&path, ReadLimit::bytes(1 << 30)).unwrap();
    assert_eq!(back.iter().map(|b| b.num_rows()).sum::<usize>(), 1 << 22);
    assert_eq!(back[0].column(0).as_ref(), rb.column(0).as_ref());
    std::fs::remove_dir_all(&dir).unwrap();
}

//! Arrow IPC (file and stream) and Parquet files of record batches, with the extension
//! metadata on their fields kept: what [`to_record_batch`](crate::to_record_batch) makes is
//! written as is, and what is read converts back with [`column()`](crate::column).
//!
//! Parquet keeps Arrow field metadata through the Arrow schema it stores in the file's key-value
//! metadata (`ARROW:schema`), as the Arrow project's writers do; readers that do not read it
//! (DuckDB) see the components as plain nested columns. Parquet files are written uncompressed by
//! default; reading takes Snappy too (pyarrow's and DuckDB's default), other codecs with the
//! crate's features `zstd`, `lz4`, `flate2`, `brotli`.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use arrow_array::{Array, RecordBatch};
use arrow_ipc::writer::{FileWriter, StreamEncoder};
use extype_core::io::{FileKind, write_atomically};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use crate::error::{Error, Result, arrow, parquet};
use crate::ipc_read::{self, Format};
use crate::metadata::EXTENSION_NAME;
use crate::validate::malformed;

fn create(path: &Path) -> Result<BufWriter<File>> {
    File::create(path)
        .map(BufWriter::new)
        .map_err(|source| Error::File {
            path: path.display().to_string(),
            source,
        })
}

pub(crate) fn open(path: &Path) -> Result<File> {
    File::open(path).map_err(|source| Error::File {
        path: path.display().to_string(),
        source,
    })
}

/// Refuses input of another known format given where `expected` was asked for, naming what it
/// is and the reader that takes it (a safetensors file handed to the Parquet reader), before
/// any decoder reads it as what it is not.
pub(crate) fn refuse_other_kind(prefix: &[u8], expected: FileKind, at: &str) -> Result<()> {
    match FileKind::sniff(prefix) {
        Some(kind) if kind != expected => Err(malformed(at, kind.refused_as(expected))),
        _ => Ok(()),
    }
}

/// The schema of `batches` for a file or stream (`what`), checked before anything is written:
/// at least one batch, every batch of the first one's schema (fields and metadata), and every
/// column of an extype extension read back through the registry ([`crate::from_array`]: the
/// spec's checks, the shape contract, the type's validation), so that a value which fails its
/// own validation is never written.
fn checked_schema(batches: &[RecordBatch], what: &str) -> Result<arrow_schema::SchemaRef> {
    let schema = batches
        .first()
        .map(RecordBatch::schema)
        .ok_or_else(|| Error::Value {
            op: "write",
            message: format!("{what}: no record batch to write (the schema comes from the first)"),
        })?;
    for (i, b) in batches.iter().enumerate() {
        if b.schema() != schema {
            return Err(Error::Value {
                op: "write",
                message: format!(
                    "{what}: record batch {i} has the schema {}, the first batch's (the \
                     file's) is {schema}",
                    b.schema()
                ),
            });
        }
        for (field, column) in schema.fields().iter().zip(b.columns()) {
            let extension = field.metadata().get(EXTENSION_NAME);
            if extension.is_some_and(|name| !name.starts_with("arrow.")) {
                crate::from_array(field, column.as_ref()).map_err(|e| Error::Value {
                    op: "write",
                    message: format!(
                        "{what}: record batch {i}, column `{}` does not read back as its \
                         type: {e}",
                        field.name()
                    ),
                })?;
            }
        }
    }
    Ok(schema)
}

/// Writes `batches` (at least one; all of the first one's schema) as an Arrow IPC file,
/// atomically: a failed write leaves a file already at `path` as it was
/// ([`extype_core::io::write_atomically`]). Checked first: a batch of another schema, or a
/// column of an extype extension that does not read back as its type (a value that fails its
/// validation), is an error naming the batch and the column, and nothing is written.
pub fn write_ipc_file(path: impl AsRef<Path>, batches: &[RecordBatch]) -> Result<()> {
    let path = path.as_ref();
    let at = path.display().to_string();
    let schema = checked_schema(batches, &at)?;
    write_atomically(path, |temp| {
        let mut w = FileWriter::try_new(create(temp)?, &schema).map_err(arrow(at.clone()))?;
        for b in batches {
            w.write(b).map_err(arrow(at.clone()))?;
        }
        w.finish().map_err(arrow(at.clone()))?;
        w.into_inner()
            .map_err(arrow(at.clone()))?
            .flush()
            .map_err(|source| Error::File {
                path: at.clone(),
                source,
            })
    })
}

/// Reads every record batch of an Arrow IPC file.
///
/// The file is read into memory and checked before it is decoded (its footer, every message's
/// metadata, buffers and lengths), and the decoded arrays are validated in full: a malformed
/// file is an error naming it, never a panic, and nothing is allocated for a length the file
/// claims but does not hold. Not read: dictionary-encoded fields, compressed bodies,
/// big-endian data, and unions, maps, run-end encoded and view types.
pub fn read_ipc_file(path: impl AsRef<Path>) -> Result<Vec<RecordBatch>> {
    let path = path.as_ref();
    let at = path.display().to_string();
    let bytes = read_all(open(path)?, &at)?;
    refuse_other_kind(&bytes, FileKind::ArrowIpcFile, &at)?;
    ipc_read::read(bytes, Format::File, &at)
}

/// The first [`FileKind::PREFIX_LEN`] bytes of `file` (fewer in a shorter file), read through a
/// shared reference so the caller's handle stays at its position for the readers that seek.
pub(crate) fn prefix(mut file: &File, at: &str) -> Result<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    let mut bytes = Vec::with_capacity(FileKind::PREFIX_LEN);
    let io = |source| Error::File {
        path: at.to_string(),
        source,
    };
    file.take(FileKind::PREFIX_LEN as u64)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    Ok(bytes)
}

/// The whole of `input` (named `at` in errors).
pub(crate) fn read_all(mut input: impl Read, at: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|source| Error::File {
            path: at.to_string(),
            source,
        })?;
    Ok(bytes)
}

/// Writes `batches` (at least one) to `out` as an Arrow IPC stream. The tensor data is written
/// from the Arrow buffers themselves (arrow-ipc's `StreamEncoder`), not gathered into a message
/// buffer first: for an exported batch, straight from extype's tensors. Checked first as
/// [`write_ipc_file`] does: nothing is written when a batch fails.
pub fn write_ipc_stream(mut out: impl Write, batches: &[RecordBatch]) -> Result<()> {
    let schema = checked_schema(batches, "IPC stream")?;
    let io = |source| Error::File {
        path: "IPC stream".into(),
        source,
    };
    let mut encoder = StreamEncoder::try_new(&schema).map_err(arrow("IPC stream"))?;
    for b in batches {
        for buffer in encoder.encode(b).map_err(arrow("IPC stream"))? {
            out.write_all(buffer.as_slice()).map_err(io)?;
        }
    }
    for buffer in encoder.finish().map_err(arrow("IPC stream"))? {
        out.write_all(buffer.as_slice()).map_err(io)?;
    }
    out.flush().map_err(io)
}

/// Reads every record batch of an Arrow IPC stream: the whole of `input`, checked and
/// validated as [`read_ipc_file`] does (errors name the `IPC stream`).
pub fn read_ipc_stream(input: impl Read) -> Result<Vec<RecordBatch>> {
    let at = "IPC stream";
    let bytes = read_all(input, at)?;
    refuse_other_kind(&bytes, FileKind::ArrowIpcStream, at)?;
    ipc_read::read(bytes, Format::Stream, at)
}

/// Writes `batches` (at least one) as a Parquet file, the Arrow schema (with the extension
/// metadata) stored in it, with extype's defaults for tensor data: plain encoding (no
/// dictionary: it hashes every element and rarely pays for tensor values) and no page
/// statistics (min/max per page of tensor elements prune nothing useful); uncompressed. Those
/// two defaults made writing twice as fast (BENCHMARKS.md, "Arrow"); row groups of about
/// [`ROW_GROUP_BYTES`], so that a large column reads back on several threads.
/// [`write_parquet_with`] takes other properties.
///
/// The children of struct columns (a batch of extension values is one) are encoded in
/// parallel, one thread per core at most, each with arrow-rs's own column writers: the file is
/// the one `parquet::arrow::ArrowWriter` writes (the same row groups, pages and metadata).
pub fn write_parquet(path: impl AsRef<Path>, batches: &[RecordBatch]) -> Result<()> {
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::None)
        .set_max_row_group_row_count(Some(row_group_rows(batches)))
        .build();
    write_parquet_with(path, batches, props)
}

/// About the Arrow data (bytes of buffers) in a row group [`write_parquet`] writes. A row group
/// is what readers decode in parallel when a column cannot split further
/// ([`read_parquet`](crate::read_parquet) reads a ragged column, one Parquet leaf, a row group
/// per thread; extype-datafusion's dataset scan reads a row group at a time), so a large batch
/// is written as several: a 33 MiB ragged batch as four.
/// Large enough that a group's own cost (one column chunk and its metadata per leaf, a
/// reader's setup) stays small against decoding 8 MiB.
pub const ROW_GROUP_BYTES: usize = 8 << 20;

/// The rows per row group of [`write_parquet`]: about [`ROW_GROUP_BYTES`] of the batches' data
/// (the bytes their arrays' slices use, divided evenly over their rows), a multiple of 1024
/// rows (the column writers' mini-batch, so pages fall where they would in one group), at
/// least 1024 and at most parquet's default of 1 Mi rows.
fn row_group_rows(batches: &[RecordBatch]) -> usize {
    const MAX: usize = parquet::file::properties::DEFAULT_MAX_ROW_GROUP_ROW_COUNT;
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let bytes: usize = batches
        .iter()
        .flat_map(|b| b.columns())
        .map(|c| {
            let data = c.to_data();
            data.get_slice_memory_size()
                .unwrap_or_else(|_| data.get_buffer_memory_size())
        })
        .sum();
    if rows == 0 || bytes == 0 {
        return MAX;
    }
    let per_row = bytes.div_ceil(rows);
    (ROW_GROUP_BYTES / per_row / 1024 * 1024).clamp(1024, MAX)
}

/// [`write_parquet`] with the writer properties `props` (compression, encodings, statistics,
/// row group size). Atomic as [`write_ipc_file`]: a failed write leaves the previous file.
pub fn write_parquet_with(
    path: impl AsRef<Path>,
    batches: &[RecordBatch],
    props: WriterProperties,
) -> Result<()> {
    let path = path.as_ref();
    let at = path.display().to_string();
    let schema = checked_schema(batches, &at)?;
    write_atomically(path, |temp| {
        crate::parquet_columns::write(
            crate::parquet_columns::cores(),
            create(temp)?,
            schema,
            batches,
            props,
        )
        .map_err(parquet(at.clone()))?
        .flush()
        .map_err(|source| Error::File {
            path: at.clone(),
            source,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{FixedSizeListArray, Float32Array};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;

    /// A batch of `rows` rows of 64 `f32` (256 bytes a row).
    fn wide(rows: usize) -> RecordBatch {
        let item = Arc::new(Field::new("item", DataType::Float32, false));
        let values = Float32Array::from(vec![0.5f32; rows * 64]);
        let list = FixedSizeListArray::try_new_with_length(item, 64, Arc::new(values), None, rows)
            .unwrap();
        let field = Field::new("w", list.data_type().clone(), false);
        RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![Arc::new(list)]).unwrap()
    }

    #[test]
    fn row_groups_hold_about_row_group_bytes_of_the_rows_written() {
        // 256 bytes a row: 32 Ki rows in 8 MiB, whether the batch is whole or a slice.
        let b = wide(40_000);
        assert_eq!(row_group_rows(std::slice::from_ref(&b)), 32 * 1024);
        assert_eq!(row_group_rows(&[b.slice(100, 1000)]), 32 * 1024);
        // Narrow rows: parquet's default at most; wide rows: 1024 at least; none: the default.
        let narrow = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("x", DataType::Float32, false)])),
            vec![Arc::new(Float32Array::from(vec![1.0f32; 10]))],
        )
        .unwrap();
        let max = parquet::file::properties::DEFAULT_MAX_ROW_GROUP_ROW_COUNT;
        assert_eq!(row_group_rows(&[narrow]), max);
        assert_eq!(row_group_rows(&[wide(0)]), max);
        let huge = FixedSizeListArray::try_new_with_length(
            Arc::new(Field::new("item", DataType::Float32, false)),
            1 << 20,
            Arc::new(Float32Array::from(vec![0f32; 2 << 20])),
            None,
            2,
        )
        .unwrap();
        let huge = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new(
                "h",
                huge.data_type().clone(),
                false,
            )])),
            vec![Arc::new(huge)],
        )
        .unwrap();
        assert_eq!(row_group_rows(&[huge]), 1024);
    }
}

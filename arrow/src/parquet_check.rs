//! The metadata of a Parquet file checked before the readers decode it.
//!
//! The Arrow schema the file stores (base64 of an IPC schema message) is checked as an IPC
//! file's is before parquet converts it (its conversion panics on a type it does not know).
//!
//! parquet-rs checks each page against the bytes its column chunk claims, but takes the chunk's
//! own offset and size from the footer as given (a negative one panics), and the row counts as
//! given. So before any reader is built: the footer's row count is the sum of its row groups'
//! (none negative), every column chunk's offsets and sizes are non-negative and its bytes lie
//! within the file, and the rows decode to no more than
//! the [`ReadLimit`] for each column (rows of zero width
//! included: they still cost a level each to decode). Then the pages themselves
//! ([`parquet_pages`](crate::parquet_pages)).

use std::fs::File;
use std::sync::Arc;

use base64::Engine;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::file::metadata::ParquetMetaDataReader;

use crate::error::{Result, parquet};
use crate::parquet_pages::chunk_error;
use crate::validate::{ReadLimit, check_rows, contain, malformed};

/// The key of the Arrow schema in a Parquet file's key-value metadata.
const ARROW_SCHEMA: &str = "ARROW:schema";

/// The metadata of the Parquet `file` (at `at`, of `file_len` bytes), its stored Arrow schema
/// checked before parquet converts it, all of it checked ([`check`]), and then every page
/// header ([`parquet_pages`](crate::parquet_pages)).
pub(crate) fn load(
    file: &File,
    file_len: u64,
    at: &str,
    limit: &ReadLimit,
) -> Result<ArrowReaderMetadata> {
    let metadata = contain(at, "parquet's footer decoder", || {
        ParquetMetaDataReader::new()
            .parse_and_finish(file)
            .map_err(parquet(at))
    })?;
    let stored = metadata
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .filter(|kv| kv.key == ARROW_SCHEMA)
        .filter_map(|kv| kv.value.as_deref());
    for encoded in stored {
        check_arrow_schema(encoded, at)?;
    }
    let meta = contain(at, "parquet's schema conversion", || {
        ArrowReaderMetadata::try_new(Arc::new(metadata), ArrowReaderOptions::default())
            .map_err(parquet(at))
    })?;
    check(&meta, file_len, at, limit)?;
    crate::parquet_pages::check(file, meta.metadata(), file_len, at, limit)?;
    Ok(meta)
}

/// Checks the stored Arrow schema `encoded` as parquet will decode it (base64, an optional
/// continuation marker and length, an IPC message). What does not decode is left to parquet,
/// which reports it as an error.
fn check_arrow_schema(encoded: &str, at: &str) -> Result<()> {
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(encoded) else {
        return Ok(());
    };
    let slice = if bytes.len() > 8 && bytes[..4] == [0xff; 4] {
        &bytes[8..]
    } else {
        &bytes[..]
    };
    match arrow_ipc::root_as_message(slice).map(|m| m.header_as_schema()) {
        Ok(Some(schema)) => crate::ipc_read::check_schema(
            schema,
            crate::ipc_read::Takes::Conversion,
            &format!("{at}: the stored Arrow schema"),
        ),
        _ => Ok(()),
    }
}

/// Checks the metadata `meta` of the Parquet file at `at` of `file_len` bytes.
fn check(meta: &ArrowReaderMetadata, file_len: u64, at: &str, limit: &ReadLimit) -> Result<()> {
    let md = meta.metadata();
    let claimed = md.file_metadata().num_rows();
    let mut total = 0u64;
    for (g, group) in md.row_groups().iter().enumerate() {
        let rows = u64::try_from(group.num_rows())
            .map_err(|_| malformed(at, format!("row group {g}: {} rows", group.num_rows())))?;
        total = total
            .checked_add(rows)
            .ok_or_else(|| malformed(at, format!("row group {g}: the row count overflows")))?;
        for column in group.columns() {
            let bad = |message: String| chunk_error(at, g, column, message);
            let start = column
                .dictionary_page_offset()
                .unwrap_or(column.data_page_offset());
            let fields = [
                ("data page offset", column.data_page_offset()),
                ("start", start),
                ("compressed size", column.compressed_size()),
                ("uncompressed size", column.uncompressed_size()),
                ("value count", column.num_values()),
            ];
            for (what, value) in fields {
                if value < 0 {
                    return Err(bad(format!("a {what} of {value}")));
                }
            }
            let (start, len) = (start as u64, column.compressed_size() as u64);
            if start.checked_add(len).is_none_or(|end| end > file_len) {
                return Err(bad(format!(
                    "{len} bytes at {start} reach past the file's {file_len} bytes"
                )));
            }
        }
    }
    if u64::try_from(claimed) != Ok(total) {
        return Err(malformed(
            at,
            format!("the footer claims {claimed} rows, its row groups hold {total}"),
        ));
    }
    for field in meta.schema().fields() {
        check_rows(at, field.name(), field.data_type(), total, file_len, limit)?;
    }
    Ok(())
}

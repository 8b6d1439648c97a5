//! The metadata of a Parquet file checked before the readers decode it.
//!
//! parquet-rs checks each page against the bytes its column chunk claims, but takes the chunk's
//! own offset and size from the footer as given (a negative one panics), and the row counts as
//! given. So before any reader is built: the footer's row count is the sum of its row groups'
//! (none negative), every column chunk's offsets and sizes are non-negative and its bytes lie
//! within the file, and the rows decode to no more than
//! [`decode_bound`](crate::validate::decode_bound) for each column (rows of zero width
//! included: they still cost a level each to decode).

use parquet::arrow::arrow_reader::ArrowReaderMetadata;

use crate::error::Result;
use crate::validate::{check_rows, malformed};

/// Checks the metadata `meta` of the Parquet file at `at` of `file_len` bytes.
pub(crate) fn check(meta: &ArrowReaderMetadata, file_len: u64, at: &str) -> Result<()> {
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
            let name = column.column_path().string();
            let bad = |message: String| {
                malformed(
                    at,
                    format!("row group {g}, column chunk `{name}`: {message}"),
                )
            };
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
        check_rows(at, field.name(), field.data_type(), total, file_len)?;
    }
    Ok(())
}

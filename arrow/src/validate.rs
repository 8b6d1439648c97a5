//! What the readers of IPC and Parquet files check on every file, whatever its format: how many
//! bytes its rows may decode to (a bound from the file's own size, so that a count the file
//! claims but does not hold is refused before anything is allocated for it), panics of the
//! upstream decoders contained at the reader's boundary, and the decoded arrays validated in
//! full before extype views their buffers.

use std::panic::{AssertUnwindSafe, catch_unwind};

use arrow_array::RecordBatch;
use arrow_schema::DataType;

use crate::error::{Error, Result};

/// How many times its own size a file may decode to by default: plain data decodes to about its
/// size, Snappy-compressed tensors to a few times it. A file claiming more (a row count of
/// 2^40, a run of levels expanding to terabytes) is refused as hostile.
pub const EXPANSION: u64 = 64;

/// The decoded bytes any file may have by default, however small it is.
pub const FLOOR: u64 = 4 << 20;

/// The error of a malformed file at `path`.
pub(crate) fn malformed(path: &str, message: impl Into<String>) -> Error {
    Error::Malformed {
        path: path.to_string(),
        message: message.into(),
    }
}

/// Runs `f` (an upstream decoder over the file at `path`), turning a panic into an error naming
/// the file and `what` panicked. Allocations too large to make abort the process instead, which
/// nothing can catch: the readers check sizes before they get here.
pub(crate) fn contain<T>(path: &str, what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        Err(malformed(
            path,
            format!("{what} panicked on this input: {text}"),
        ))
    })
}

/// The least bytes one row of `data_type` decodes to (bits rounded down: a boolean or a null
/// row counts 0 here, and one bit in [`check_rows`]).
pub(crate) fn row_bytes(data_type: &DataType) -> u64 {
    match data_type {
        DataType::Struct(fields) => fields
            .iter()
            .fold(0u64, |sum, f| sum.saturating_add(row_bytes(f.data_type()))),
        DataType::FixedSizeList(child, size) => {
            u64::try_from(*size).map_or(0, |n| n.saturating_mul(row_bytes(child.data_type())))
        }
        DataType::FixedSizeBinary(width) => u64::try_from(*width).unwrap_or(0),
        DataType::List(_) | DataType::Map(..) | DataType::Utf8 | DataType::Binary => 4,
        DataType::LargeList(_) | DataType::LargeUtf8 | DataType::LargeBinary => 8,
        DataType::ListView(_) => 8,
        DataType::LargeListView(_) | DataType::Utf8View | DataType::BinaryView => 16,
        DataType::Dictionary(key, _) => row_bytes(key),
        DataType::Boolean | DataType::Null | DataType::RunEndEncoded(..) => 0,
        other => other.primitive_width().map_or(0, |w| w as u64),
    }
}

/// How many bytes a file may decode to, so that a small file cannot claim terabytes (a row count
/// of 2^40, pages that decompress to gigabytes): by default [`EXPANSION`] times its size, at
/// least [`FLOOR`]. Plain and Snappy-compressed tensor data stays far below; a Parquet file of
/// highly repetitive data (a constant column, dictionary and run-length encoded) can decode to
/// more, and is read with a larger limit ([`read_parquet_with_limit`](crate::read_parquet_with_limit)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimit {
    /// How many times its own size a file may decode to.
    pub expansion: u64,
    /// The decoded bytes any file may have, however small it is.
    pub floor: u64,
}

impl Default for ReadLimit {
    fn default() -> ReadLimit {
        ReadLimit {
            expansion: EXPANSION,
            floor: FLOOR,
        }
    }
}

impl ReadLimit {
    /// A limit of `bytes` decoded bytes, whatever the file's size.
    ///
    /// ```
    /// let limit = extype_arrow::ReadLimit::bytes(1 << 30);
    /// assert_eq!((limit.expansion, limit.floor), (0, 1 << 30));
    /// ```
    pub fn bytes(bytes: u64) -> ReadLimit {
        ReadLimit {
            expansion: 0,
            floor: bytes,
        }
    }

    /// The bytes a file of `file_len` bytes may decode to.
    pub(crate) fn bound(&self, file_len: u64) -> u64 {
        file_len.saturating_mul(self.expansion).max(self.floor)
    }

    /// The bound for a file of `file_len` bytes, in words, for errors.
    pub(crate) fn describe(&self, file_len: u64) -> String {
        format!(
            "the reading bound of {} bytes ({}x the file's {file_len} bytes, at least {}; \
             read_parquet_with_limit takes a larger ReadLimit)",
            self.bound(file_len),
            self.expansion,
            self.floor
        )
    }
}

/// Checks that `rows` rows of the column `column` (of `data_type`) of the file at `path` (of
/// `file_len` bytes) decode to no more than `limit` allows: each row counts its [`row_bytes`]
/// and at least one bit, so rows of zero width (an item shape `[0]`) are bounded too.
pub(crate) fn check_rows(
    path: &str,
    column: &str,
    data_type: &DataType,
    rows: u64,
    file_len: u64,
    limit: &ReadLimit,
) -> Result<()> {
    let bound = limit.bound(file_len);
    let width = row_bytes(data_type);
    let decoded = rows
        .checked_mul(width)
        .and_then(|b| b.checked_add(rows.div_ceil(8)));
    match decoded {
        Some(d) if d <= bound => Ok(()),
        _ => Err(malformed(
            path,
            format!(
                "column `{column}`: {rows} rows of {width} bytes (and a bit) each exceed {}",
                limit.describe(file_len)
            ),
        )),
    }
}

/// Validates every column of `batch` (read from `path`) in full: offsets, lengths, null counts,
/// UTF-8, children, as `ArrayData::validate_full` does.
pub(crate) fn validate_batch(path: &str, batch: &RecordBatch) -> Result<()> {
    let schema = batch.schema();
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        column
            .to_data()
            .validate_full()
            .map_err(crate::error::arrow(format!(
                "{path}: column `{}`",
                field.name()
            )))?;
    }
    Ok(())
}

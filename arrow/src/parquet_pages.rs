//! The pages of a Parquet file walked before it is decoded: each page header (Thrift's compact
//! protocol) read for its type, sizes and value count.
//!
//! parquet-rs checks a page's compressed size against its column chunk, but allocates the
//! uncompressed size a header claims before decompressing into it (up to 2 GiB a page), and
//! decodes as many values as a header claims, which runs of levels encode in a few bytes (a
//! run of nulls, of empty lists). So every page header is read first: its sizes non-negative
//! and its page within the chunk, and the file's uncompressed pages and decoded values (each
//! leaf's value count times its width) within the [`ReadLimit`].

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use parquet::basic::Type as Physical;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData};

use crate::error::{Error, Result};
use crate::validate::{ReadLimit, malformed};

/// Nesting deeper than this in a page header is refused (parquet's headers nest three deep).
const MAX_DEPTH: usize = 16;

/// The sizes and value count of one page header, and a data page's (v1) encodings.
#[derive(Debug, Default)]
pub(crate) struct Header {
    /// The header's own length in bytes.
    pub len: usize,
    /// The page type (0: a data page, 2: a dictionary page, 3: a data page v2).
    pub kind: i64,
    pub uncompressed: i64,
    pub compressed: i64,
    pub values: i64,
    /// A data page's (v1) encodings of its values, definition and repetition levels (0:
    /// plain, 3: RLE); -1 when the header does not say.
    pub encodings: [i64; 3],
}

/// A cursor over Thrift compact bytes.
struct Thrift<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Thrift<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut out = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            out |= u64::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(out);
            }
        }
        None
    }

    fn zigzag(&mut self) -> Option<i64> {
        let v = self.varint()?;
        Some((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn skip_bytes(&mut self, n: u64) -> Option<()> {
        let end = self.pos.checked_add(usize::try_from(n).ok()?)?;
        (end <= self.bytes.len()).then(|| self.pos = end)
    }

    /// Skips a value of compact type `ty`.
    fn skip(&mut self, ty: u8, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match ty {
            1 | 2 => Some(()),
            3 => self.byte().map(drop),
            4..=6 => self.varint().map(drop),
            7 => self.skip_bytes(8),
            8 => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            9 | 10 => {
                let head = self.byte()?;
                let n = match head >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                let elem = head & 0x0f;
                for _ in 0..n {
                    // A boolean element takes a byte; every element at least one, so a count
                    // beyond the input ends at the input's end.
                    if matches!(elem, 1 | 2) {
                        self.byte()?;
                    } else {
                        self.skip(elem, depth + 1)?;
                    }
                }
                Some(())
            }
            11 => {
                let n = self.varint()?;
                if n == 0 {
                    return Some(());
                }
                let types = self.byte()?;
                for _ in 0..n {
                    self.skip(types >> 4, depth + 1)?;
                    self.skip(types & 0x0f, depth + 1)?;
                }
                Some(())
            }
            12 => self.fields(depth + 1, |t, _, ty| t.skip(ty, depth + 1)),
            _ => None,
        }
    }

    /// Reads a struct's fields up to its stop, calling `field` with each id and type (it must
    /// consume the value).
    fn fields(
        &mut self,
        depth: usize,
        mut field: impl FnMut(&mut Self, i16, u8) -> Option<()>,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut id = 0i16;
        loop {
            let head = self.byte()?;
            let ty = head & 0x0f;
            if ty == 0 {
                return Some(());
            }
            id = match head >> 4 {
                0 => i16::try_from(self.zigzag()?).ok()?,
                delta => id.checked_add(i16::from(delta))?,
            };
            field(self, id, ty)?;
        }
    }

    /// An `i32` field's value.
    fn int(&mut self, ty: u8) -> Option<i64> {
        (ty == 5).then(|| self.zigzag())?
    }
}

/// The page header at the start of `bytes`.
pub(crate) fn header(bytes: &[u8]) -> Option<Header> {
    let mut t = Thrift { bytes, pos: 0 };
    let mut h = Header {
        kind: -1,
        encodings: [-1; 3],
        ..Header::default()
    };
    t.fields(0, |t, id, ty| {
        match id {
            1 => h.kind = t.int(ty)?,
            2 => h.uncompressed = t.int(ty)?,
            3 => h.compressed = t.int(ty)?,
            // The data page, dictionary page and data page v2 headers: field 1 is the count;
            // a data page's fields 2 to 4 its encodings.
            5 | 7 | 8 if ty == 12 => {
                return t.fields(1, |t, inner, ty| match inner {
                    1 => {
                        h.values = t.int(ty)?;
                        Some(())
                    }
                    2..=4 if id == 5 => {
                        h.encodings[usize::try_from(inner - 2).ok()?] = t.int(ty)?;
                        Some(())
                    }
                    _ => t.skip(ty, 2),
                });
            }
            _ => return t.skip(ty, 1),
        }
        Some(())
    })?;
    h.len = t.pos;
    Some(h)
}

/// The bytes one value of a leaf of `physical` type decodes to, at least.
fn value_width(physical: Physical, type_length: i32) -> u64 {
    match physical {
        Physical::BOOLEAN => 1,
        Physical::INT32 | Physical::FLOAT | Physical::BYTE_ARRAY => 4,
        Physical::INT64 | Physical::DOUBLE => 8,
        Physical::INT96 => 12,
        Physical::FIXED_LEN_BYTE_ARRAY => u64::try_from(type_length).unwrap_or(0).max(1),
    }
}

/// The error of the column chunk `column` of row group `group` of the file at `at`.
pub(crate) fn chunk_error(
    at: &str,
    group: usize,
    column: &ColumnChunkMetaData,
    message: String,
) -> crate::Error {
    malformed(
        at,
        format!(
            "row group {group}, column chunk `{}`: {message}",
            column.column_path().string()
        ),
    )
}

/// Walks every page of every column chunk of the Parquet file `file` (at `at`, of `file_len`
/// bytes, whose metadata `md` is checked: the chunks lie within the file): each header parses,
/// its sizes are non-negative and its page lies within its chunk, and the file's uncompressed
/// page bytes and decoded values stay within the reading bound.
pub(crate) fn check(
    file: &File,
    md: &ParquetMetaData,
    file_len: u64,
    at: &str,
    limit: &ReadLimit,
) -> Result<()> {
    let bound = limit.bound(file_len);
    let over = |what: &str| {
        malformed(
            at,
            format!(
                "its pages claim more {what} than {}",
                limit.describe(file_len)
            ),
        )
    };
    let (mut uncompressed, mut decoded) = (0u64, 0u64);
    let mut chunk = Vec::new();
    for (g, group) in md.row_groups().iter().enumerate() {
        for column in group.columns() {
            let bad = |message: String| chunk_error(at, g, column, message);
            let (start, len) = column.byte_range();
            chunk.resize(usize::try_from(len).map_err(|_| bad("too long".into()))?, 0);
            let mut reader = file;
            reader
                .seek(SeekFrom::Start(start))
                .and_then(|_| reader.read_exact(&mut chunk))
                .map_err(|source| Error::File {
                    path: at.to_string(),
                    source,
                })?;
            let descr = column.column_descr();
            let width = value_width(descr.physical_type(), descr.type_length());
            let mut pos = 0usize;
            while pos < chunk.len() {
                let h = header(&chunk[pos..])
                    .ok_or_else(|| bad(format!("the page header at byte {pos} does not parse")))?;
                let page = usize::try_from(h.compressed)
                    .ok()
                    .filter(|_| h.uncompressed >= 0);
                let end = page.and_then(|p| pos.checked_add(h.len)?.checked_add(p));
                let Some(end) = end.filter(|&e| e <= chunk.len()) else {
                    return Err(bad(format!(
                        "the page at byte {pos} ({} bytes, {} uncompressed) does not fit in \
                         the chunk's {} bytes",
                        h.compressed,
                        h.uncompressed,
                        chunk.len()
                    )));
                };
                let values = u64::try_from(h.values)
                    .map_err(|_| bad(format!("a page of {} values", h.values)))?;
                uncompressed = uncompressed
                    .checked_add(h.uncompressed as u64)
                    .filter(|&u| u <= bound)
                    .ok_or_else(|| over("uncompressed bytes"))?;
                decoded = values
                    .checked_mul(width)
                    .and_then(|v| decoded.checked_add(v))
                    .filter(|&d| d <= bound)
                    .ok_or_else(|| over("bytes of decoded values"))?;
                pos = end;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_page_header_s_sizes_and_count_and_refuses_what_does_not_parse() {
        // A data page: 100 bytes uncompressed, 60 compressed, a data page header of 25 values
        // (PLAIN), then the page's bytes.
        let bytes = [
            0x15, 0x00, 0x15, 200, 1, 0x15, 120, 0x2c, 0x15, 50, 0x15, 0x00, 0x00, 0x00, 0xff,
        ];
        let h = header(&bytes).unwrap();
        assert_eq!(
            (h.len, h.uncompressed, h.compressed, h.values),
            (14, 100, 60, 25)
        );
        // Cut short, nested a hundred deep, a list claiming 2^32 elements: no header.
        assert!(header(&bytes[..5]).is_none());
        let mut deep = vec![0x1c; 100];
        deep.extend([0u8; 100]);
        assert!(header(&deep).is_none());
        let list = [0x19, 0xf5, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00];
        assert!(header(&list).is_none());
    }
}

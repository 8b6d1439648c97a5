//! Arrow IPC files and streams read from memory, checked before arrow-ipc decodes them.
//!
//! arrow-ipc trusts the lengths a file states: it allocates a message's claimed body before
//! reading it, slices buffers at the offsets the message gives, builds a validity bitmap of the
//! claimed length from whatever buffer is there, and converts a schema by panicking on any type
//! parameter it does not know. So the whole input is read first (the allocation is the size of
//! what is there, not of what it claims), its layout located and checked (the magic and footer
//! of a file, each message's metadata and body length within the input), the schema checked
//! against the types this reader takes, and each record batch's field nodes and buffers walked
//! against the schema (every buffer within the body, every length, null count and buffer size
//! consistent, rows of zero width within [`check_rows`](crate::validate::check_rows)). Only
//! then does arrow-ipc decode the batch, zero-copy over the input, under
//! [`contain`](crate::validate::contain), and the result is validated in full.
//!
//! The body of each message and every buffer in it must be 8-byte aligned, as the format
//! requires (the input is read into memory aligned for any element type).
//!
//! Not read: dictionary-encoded fields, compressed bodies (this build has no IPC codec),
//! big-endian data, and the types extype never writes and arrow-ipc cannot check without
//! trusting the file (unions, maps, run-end encoded, list and string views).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::{Endianness, MessageHeader, Precision, TimeUnit, Type};
use arrow_schema::{DataType, SchemaRef};

use crate::error::Result;
use crate::validate::{ReadLimit, check_rows, contain, malformed, validate_batch};

/// The two IPC formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// The random-access file (`ARROW1` magic, footer).
    File,
    /// The stream (a schema message, then batches, then an end marker).
    Stream,
}

const MAGIC: &[u8; 6] = b"ARROW1";
/// The alignment the IPC format requires of message bodies and of the buffers in them (8 bytes;
/// arrow-rs writes 64). arrow-data's validation panics on a misaligned offsets buffer.
const ALIGN: usize = 8;
const CONTINUATION: [u8; 4] = [0xff; 4];

/// One record batch message located in the input: its flatbuffer metadata and its body.
struct Located {
    meta: Range<usize>,
    body: Range<usize>,
}

/// Every record batch of the IPC input `bytes` (of `format`); `at` names it in errors.
pub(crate) fn read(bytes: Vec<u8>, format: Format, at: &str) -> Result<Vec<RecordBatch>> {
    let file_len = bytes.len() as u64;
    let (schema, located) = match format {
        Format::File => file_layout(&bytes, at)?,
        Format::Stream => stream_layout(&bytes, at)?,
    };
    let data = Buffer::from_vec(bytes);
    let mut out = Vec::with_capacity(located.len());
    for (i, loc) in located.iter().enumerate() {
        let what = format!("record batch {i}");
        let message = arrow_ipc::root_as_message(&data[loc.meta.clone()])
            .map_err(|e| malformed(at, format!("{what}: its metadata: {e}")))?;
        let batch = message.header_as_record_batch().ok_or_else(|| {
            malformed(
                at,
                format!(
                    "{what}: a {:?} message where a record batch was expected",
                    message.header_type()
                ),
            )
        })?;
        if !loc.body.start.is_multiple_of(ALIGN) {
            return Err(malformed(
                at,
                format!(
                    "{what}: a body at byte {}, not {ALIGN}-byte aligned as the IPC format requires",
                    loc.body.start
                ),
            ));
        }
        check_batch(&schema, batch, loc.body.len(), file_len, at, &what)?;
        let body = data.slice_with_length(loc.body.start, loc.body.len());
        let decoded = contain(at, "arrow-ipc's record batch decoder", || {
            arrow_ipc::reader::read_record_batch(
                &body,
                batch,
                schema.clone(),
                &HashMap::new(),
                None,
                &message.version(),
            )
            .map_err(crate::error::arrow(format!("{at}: {what}")))
        })?;
        validate_batch(at, &decoded)?;
        out.push(decoded);
    }
    Ok(out)
}

/// The schema and the row count of each record batch of the IPC input `bytes`, from the layout
/// and each batch's metadata alone (checked as [`read`] checks them; no body is decoded).
pub(crate) fn summary(bytes: &[u8], format: Format, at: &str) -> Result<(SchemaRef, Vec<u64>)> {
    let (schema, located) = match format {
        Format::File => file_layout(bytes, at)?,
        Format::Stream => stream_layout(bytes, at)?,
    };
    let mut rows = Vec::with_capacity(located.len());
    for (i, loc) in located.iter().enumerate() {
        let message = arrow_ipc::root_as_message(&bytes[loc.meta.clone()])
            .map_err(|e| malformed(at, format!("record batch {i}: its metadata: {e}")))?;
        let length = message
            .header_as_record_batch()
            .map(|b| b.length())
            .ok_or_else(|| malformed(at, format!("record batch {i}: not a record batch")))?;
        let length = u64::try_from(length)
            .map_err(|_| malformed(at, format!("record batch {i}: a length of {length} rows")))?;
        rows.push(length);
    }
    Ok((schema, rows))
}

/// A little-endian `i32` at `at..at + 4` of `b`, if there.
fn i32_at(b: &[u8], at: usize) -> Option<i32> {
    let end = at.checked_add(4)?;
    Some(i32::from_le_bytes(b.get(at..end)?.try_into().ok()?))
}

/// `start..start + len` when it lies within `limit`.
fn span(start: usize, len: usize, limit: usize) -> Option<Range<usize>> {
    let end = start.checked_add(len)?;
    (end <= limit).then_some(start..end)
}

/// The schema and record batches of an IPC file: the magic at both ends, the footer within the
/// file, each block's metadata and body within the data before the footer.
fn file_layout(b: &[u8], at: &str) -> Result<(SchemaRef, Vec<Located>)> {
    let n = b.len();
    if n < 8 + 10 || &b[..6] != MAGIC || &b[n - 6..] != MAGIC {
        return Err(malformed(
            at,
            format!(
                "not an Arrow IPC file: expected the ARROW1 magic at both ends of its {n} bytes"
            ),
        ));
    }
    let footer_end = n - 10;
    let footer_len = i32_at(b, footer_end).unwrap_or(-1);
    let footer_start = usize::try_from(footer_len)
        .ok()
        .and_then(|len| footer_end.checked_sub(len))
        .filter(|&start| start >= 8)
        .ok_or_else(|| {
            malformed(
                at,
                format!("a footer of {footer_len} bytes does not fit in the file's {n} bytes"),
            )
        })?;
    let footer = arrow_ipc::root_as_footer(&b[footer_start..footer_end])
        .map_err(|e| malformed(at, format!("the footer: {e}")))?;
    let fb_schema = footer
        .schema()
        .ok_or_else(|| malformed(at, "the footer has no schema"))?;
    let schema = schema_of(fb_schema, at)?;
    if footer.dictionaries().is_some_and(|d| !d.is_empty()) {
        return Err(malformed(at, "dictionary batches are not read"));
    }
    let mut out = Vec::new();
    for (i, block) in footer.recordBatches().iter().flatten().enumerate() {
        let bad = || {
            malformed(
                at,
                format!(
                    "record batch {i}: a block at {} of {} metadata and {} body bytes does not \
                     fit before the footer at {footer_start}",
                    block.offset(),
                    block.metaDataLength(),
                    block.bodyLength()
                ),
            )
        };
        let offset = usize::try_from(block.offset()).map_err(|_| bad())?;
        let meta_len = usize::try_from(block.metaDataLength()).map_err(|_| bad())?;
        let body_len = usize::try_from(block.bodyLength()).map_err(|_| bad())?;
        let meta = span(offset, meta_len, footer_start)
            .filter(|m| m.start >= 8)
            .ok_or_else(bad)?;
        let body = span(meta.end, body_len, footer_start).ok_or_else(bad)?;
        // The metadata: a continuation marker and a length, or (before 0.15) a length only.
        let prefix = if b[meta.clone()].starts_with(&CONTINUATION) {
            8
        } else {
            4
        };
        if meta.len() < prefix {
            return Err(bad());
        }
        out.push(Located {
            meta: meta.start + prefix..meta.end,
            body,
        });
    }
    Ok((schema, out))
}

/// The schema and record batches of an IPC stream: messages one after another, each's metadata
/// and body within the input, up to the end marker (or the end of the input).
fn stream_layout(b: &[u8], at: &str) -> Result<(SchemaRef, Vec<Located>)> {
    let n = b.len();
    let mut pos = 0usize;
    let mut schema = None;
    let mut out = Vec::new();
    while pos < n {
        let i = out.len();
        let len_at = if b[pos..].starts_with(&CONTINUATION) {
            pos + 4
        } else {
            pos
        };
        let len = i32_at(b, len_at).ok_or_else(|| {
            malformed(at, format!("a message length cut off at byte {pos} of {n}"))
        })?;
        if len == 0 {
            break;
        }
        let meta = usize::try_from(len)
            .ok()
            .and_then(|len| span(len_at + 4, len, n))
            .ok_or_else(|| {
                malformed(
                    at,
                    format!(
                        "a message of {len} metadata bytes at byte {pos} does not fit in the \
                         input's {n} bytes"
                    ),
                )
            })?;
        let message = arrow_ipc::root_as_message(&b[meta.clone()])
            .map_err(|e| malformed(at, format!("the message at byte {pos}: {e}")))?;
        let body = usize::try_from(message.bodyLength())
            .ok()
            .and_then(|len| span(meta.end, len, n))
            .ok_or_else(|| {
                malformed(
                    at,
                    format!(
                        "the message at byte {pos} claims a body of {} bytes; {} are left",
                        message.bodyLength(),
                        n - meta.end
                    ),
                )
            })?;
        pos = body.end;
        match message.header_type() {
            MessageHeader::Schema if schema.is_none() => {
                let fb = message
                    .header_as_schema()
                    .ok_or_else(|| malformed(at, "a schema message without its schema"))?;
                schema = Some(schema_of(fb, at)?);
            }
            MessageHeader::RecordBatch if schema.is_some() => out.push(Located { meta, body }),
            MessageHeader::DictionaryBatch => {
                return Err(malformed(at, "dictionary batches are not read"));
            }
            other => {
                return Err(malformed(
                    at,
                    format!(
                        "message {i} at byte {}: a {other:?} message where {} was expected",
                        meta.start,
                        if schema.is_some() {
                            "a record batch"
                        } else {
                            "the schema"
                        }
                    ),
                ));
            }
        }
    }
    let schema = schema.ok_or_else(|| malformed(at, "an IPC stream without a schema"))?;
    Ok((schema, out))
}

/// The Arrow schema of a flatbuffer schema, its fields checked first ([`check_field`]) so that
/// arrow-ipc's conversion, which panics on what it does not know, never sees one it would.
fn schema_of(fb: arrow_ipc::Schema<'_>, at: &str) -> Result<SchemaRef> {
    check_schema(fb, Takes::Read, at)?;
    contain(at, "arrow-ipc's schema conversion", || {
        Ok(Arc::new(arrow_ipc::convert::fb_to_schema(fb)))
    })
}

/// What a schema's types are checked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Takes {
    /// Reading IPC batches: the types [`Walk`] checks, not dictionary-encoded.
    Read,
    /// arrow-ipc's conversion only (the Arrow schema a Parquet file stores, whose data parquet
    /// decodes): every type whose parameters it converts without panicking.
    Conversion,
}

/// Checks that arrow-ipc converts the flatbuffer schema `fb` (of the input `at`) without
/// panicking, and that its types are ones `takes` ([`check_field`]).
pub(crate) fn check_schema(fb: arrow_ipc::Schema<'_>, takes: Takes, at: &str) -> Result<()> {
    if fb.endianness() == Endianness::Big {
        return Err(malformed(at, "big-endian IPC data is not read"));
    }
    let fields = fb
        .fields()
        .ok_or_else(|| malformed(at, "a schema without its list of fields"))?;
    for field in fields {
        check_field(field, "", takes, at)?;
    }
    Ok(())
}

/// Checks that arrow-ipc converts the flatbuffer field `f` (under `parent`) without panicking
/// and that its type is one `takes`: its type's parameters are ones the format defines, and a
/// list has its one child.
fn check_field(f: arrow_ipc::Field<'_>, parent: &str, takes: Takes, at: &str) -> Result<()> {
    let name = f.name().unwrap_or_default();
    let path = if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    };
    let bad = |what: String| malformed(at, format!("field `{path}`: {what}"));
    let missing = || bad(format!("a {:?} type without its parameters", f.type_type()));
    if let Some(dictionary) = f.dictionary() {
        let index = dictionary.indexType();
        if takes == Takes::Read {
            return Err(bad("dictionary-encoded fields are not read".into()));
        } else if !index.is_some_and(|i| matches!(i.bitWidth(), 8 | 16 | 32 | 64)) {
            return Err(bad(
                "a dictionary without an index type of 8 to 64 bits".into()
            ));
        }
    }
    let children = f.children();
    let child_count = children.map_or(0, |c| c.len());
    let units = [
        TimeUnit::SECOND,
        TimeUnit::MILLISECOND,
        TimeUnit::MICROSECOND,
        TimeUnit::NANOSECOND,
    ];
    let ok = match f.type_type() {
        Type::Null
        | Type::Bool
        | Type::Binary
        | Type::LargeBinary
        | Type::Utf8
        | Type::LargeUtf8 => true,
        Type::Int => {
            let int = f.type_as_int().ok_or_else(missing)?;
            matches!(int.bitWidth(), 8 | 16 | 32 | 64)
        }
        Type::FloatingPoint => {
            let float = f.type_as_floating_point().ok_or_else(missing)?;
            matches!(
                float.precision(),
                Precision::HALF | Precision::SINGLE | Precision::DOUBLE
            )
        }
        Type::FixedSizeBinary => {
            f.type_as_fixed_size_binary()
                .ok_or_else(missing)?
                .byteWidth()
                >= 0
        }
        Type::Date => matches!(
            f.type_as_date().ok_or_else(missing)?.unit(),
            arrow_ipc::DateUnit::DAY | arrow_ipc::DateUnit::MILLISECOND
        ),
        Type::Time => {
            let time = f.type_as_time().ok_or_else(missing)?;
            matches!(
                (time.bitWidth(), time.unit()),
                (32, TimeUnit::SECOND | TimeUnit::MILLISECOND)
                    | (64, TimeUnit::MICROSECOND | TimeUnit::NANOSECOND)
            )
        }
        Type::Timestamp => units.contains(&f.type_as_timestamp().ok_or_else(missing)?.unit()),
        Type::Duration => units.contains(&f.type_as_duration().ok_or_else(missing)?.unit()),
        Type::Interval => matches!(
            f.type_as_interval().ok_or_else(missing)?.unit(),
            arrow_ipc::IntervalUnit::YEAR_MONTH
                | arrow_ipc::IntervalUnit::DAY_TIME
                | arrow_ipc::IntervalUnit::MONTH_DAY_NANO
        ),
        Type::Decimal => {
            let d = f.type_as_decimal().ok_or_else(missing)?;
            matches!(d.bitWidth(), 32 | 64 | 128 | 256)
                && u8::try_from(d.precision()).is_ok()
                && i8::try_from(d.scale()).is_ok()
        }
        Type::List | Type::LargeList => child_count == 1,
        Type::FixedSizeList => {
            f.type_as_fixed_size_list().ok_or_else(missing)?.listSize() >= 0 && child_count == 1
        }
        Type::Struct_ => true,
        Type::Utf8View | Type::BinaryView if takes == Takes::Conversion => true,
        Type::ListView | Type::LargeListView if takes == Takes::Conversion => child_count == 1,
        Type::RunEndEncoded if takes == Takes::Conversion => child_count == 2,
        Type::Map if takes == Takes::Conversion => f.type_as_map().is_some() && child_count == 1,
        Type::Union if takes == Takes::Conversion => {
            let union = f.type_as_union().ok_or_else(missing)?;
            let ids: Option<Vec<i32>> = union.typeIds().map(|ids| ids.iter().collect());
            let mut seen = [false; 128];
            matches!(
                union.mode(),
                arrow_ipc::UnionMode::Sparse | arrow_ipc::UnionMode::Dense
            ) && child_count <= 128
                && ids.is_none_or(|ids| {
                    ids.len() == child_count
                        && ids.iter().all(|&id| {
                            usize::try_from(id)
                                .ok()
                                .and_then(|i| seen.get_mut(i))
                                .is_some_and(|s| !std::mem::replace(s, true))
                        })
                })
        }
        other => {
            return Err(bad(format!("IPC type {other:?} is not read")));
        }
    };
    if !ok {
        return Err(bad(format!(
            "a {:?} type whose parameters (or {child_count} children) the IPC format does not \
             define",
            f.type_type()
        )));
    }
    for child in children.iter().flatten() {
        check_field(child, &path, takes, at)?;
    }
    Ok(())
}

/// Checks a record batch message against `schema` before arrow-ipc decodes it: no compression
/// or variadic counts, a row count within the bound for the file's size, and the field nodes
/// and buffers walked as arrow-ipc reads them ([`Walk`]).
fn check_batch(
    schema: &SchemaRef,
    batch: arrow_ipc::RecordBatch<'_>,
    body_len: usize,
    file_len: u64,
    at: &str,
    what: &str,
) -> Result<()> {
    let bad = |message: String| malformed(at, format!("{what}: {message}"));
    if batch.compression().is_some() {
        return Err(bad("compressed IPC bodies are not read".into()));
    }
    if batch.variadicBufferCounts().is_some_and(|v| !v.is_empty()) {
        return Err(bad(
            "variadic buffer counts for a schema without view types".into(),
        ));
    }
    let rows = u64::try_from(batch.length())
        .map_err(|_| bad(format!("a row count of {}", batch.length())))?;
    for field in schema.fields() {
        // IPC bodies are read as they are (no compression): only rows of zero width can claim
        // more than the file holds, and the default limit bounds them.
        check_rows(
            at,
            field.name(),
            field.data_type(),
            rows,
            file_len,
            &ReadLimit::default(),
        )?;
    }
    let mut walk = Walk {
        nodes: batch
            .nodes()
            .iter()
            .flatten()
            .map(|n| (n.length(), n.null_count()))
            .collect(),
        buffers: batch
            .buffers()
            .iter()
            .flatten()
            .map(|b| (b.offset(), b.length()))
            .collect(),
        next_node: 0,
        next_buffer: 0,
        body_len,
        what,
        at,
    };
    let rows = usize::try_from(rows).map_err(|_| bad(format!("a row count of {rows}")))?;
    for field in schema.fields() {
        walk.field(field.name(), field.data_type(), rows)?;
    }
    Ok(())
}

/// A record batch's field nodes and buffers, taken in the order arrow-ipc takes them, each
/// checked: lengths and null counts non-negative and consistent, buffers within the body and
/// large enough for the lengths.
struct Walk<'a> {
    nodes: Vec<(i64, i64)>,
    buffers: Vec<(i64, i64)>,
    next_node: usize,
    next_buffer: usize,
    body_len: usize,
    what: &'a str,
    at: &'a str,
}

impl Walk<'_> {
    fn bad(&self, path: &str, message: String) -> crate::Error {
        malformed(self.at, format!("{}, field `{path}`: {message}", self.what))
    }

    /// The next field node: its length and null count.
    fn node(&mut self, path: &str) -> Result<(usize, usize)> {
        let Some(&(len, nulls)) = self.nodes.get(self.next_node) else {
            return Err(self.bad(
                path,
                format!("no field node (the batch has {})", self.nodes.len()),
            ));
        };
        self.next_node += 1;
        match (usize::try_from(len), usize::try_from(nulls)) {
            (Ok(l), Ok(n)) if n <= l => Ok((l, n)),
            _ => Err(self.bad(path, format!("a length of {len} with {nulls} nulls"))),
        }
    }

    /// The next buffer's length, checked to lie within the body.
    fn buffer(&mut self, path: &str) -> Result<usize> {
        let Some(&(offset, len)) = self.buffers.get(self.next_buffer) else {
            return Err(self.bad(
                path,
                format!("no buffer (the batch has {})", self.buffers.len()),
            ));
        };
        self.next_buffer += 1;
        match (usize::try_from(offset), usize::try_from(len)) {
            (Ok(o), Ok(_)) if !o.is_multiple_of(ALIGN) => Err(self.bad(
                path,
                format!(
                    "a buffer at {offset}, not {ALIGN}-byte aligned as the IPC format requires"
                ),
            )),
            (Ok(o), Ok(l)) if span(o, l, self.body_len).is_some() => Ok(l),
            _ => Err(self.bad(
                path,
                format!(
                    "a buffer at {offset} of {len} bytes past the body's {} bytes",
                    self.body_len
                ),
            )),
        }
    }

    /// The next buffer, which must hold at least `need` bytes (`None`: more than memory) in
    /// whole elements of `unit` bytes (arrow-data's validation panics on a partial one).
    fn sized(&mut self, path: &str, need: Option<usize>, unit: usize, what: &str) -> Result<()> {
        let have = self.buffer(path)?;
        match need {
            Some(need) if have >= need && have.is_multiple_of(unit) => Ok(()),
            _ => Err(self.bad(
                path,
                format!(
                    "its {what} buffer holds {have} bytes where {} are needed, in elements of \
                     {unit}",
                    need.map_or("more than memory holds".into(), |n| n.to_string())
                ),
            )),
        }
    }

    /// The validity buffer of a node of `len` rows with `nulls` nulls.
    fn validity(&mut self, path: &str, len: usize, nulls: usize) -> Result<()> {
        let need = if nulls > 0 { len.div_ceil(8) } else { 0 };
        self.sized(path, Some(need), 1, "validity")
    }

    /// The offsets buffer of `len` rows of `width`-byte offsets (none needed for no rows).
    fn offsets(&mut self, path: &str, len: usize, width: usize) -> Result<()> {
        let need = if len == 0 {
            Some(0)
        } else {
            len.checked_add(1).and_then(|n| n.checked_mul(width))
        };
        self.sized(path, need, width, "offsets")
    }

    /// The nodes and buffers of a field of `data_type` at `path`, which must hold at least
    /// `rows` rows (its parent's need).
    fn field(&mut self, path: &str, data_type: &DataType, rows: usize) -> Result<()> {
        let (len, nulls) = self.node(path)?;
        if len < rows {
            return Err(self.bad(path, format!("{len} rows where {rows} are needed")));
        }
        match data_type {
            DataType::Null => {
                if nulls != len {
                    return Err(
                        self.bad(path, format!("a null column of {len} rows, {nulls} null"))
                    );
                }
            }
            DataType::Boolean => {
                self.validity(path, len, nulls)?;
                self.sized(path, Some(len.div_ceil(8)), 1, "values")?;
            }
            DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary => {
                self.validity(path, len, nulls)?;
                let width = if matches!(data_type, DataType::Utf8 | DataType::Binary) {
                    4
                } else {
                    8
                };
                self.offsets(path, len, width)?;
                self.buffer(path)?;
            }
            DataType::FixedSizeBinary(width) => {
                self.validity(path, len, nulls)?;
                let need = usize::try_from(*width)
                    .ok()
                    .and_then(|w| w.checked_mul(len));
                self.sized(path, need, 1, "values")?;
            }
            DataType::List(child) | DataType::LargeList(child) => {
                self.validity(path, len, nulls)?;
                let width = if matches!(data_type, DataType::List(_)) {
                    4
                } else {
                    8
                };
                self.offsets(path, len, width)?;
                self.field(&format!("{path}.{}", child.name()), child.data_type(), 0)?;
            }
            DataType::FixedSizeList(child, size) => {
                self.validity(path, len, nulls)?;
                let need = usize::try_from(*size)
                    .ok()
                    .and_then(|s| s.checked_mul(len))
                    .ok_or_else(|| {
                        self.bad(path, format!("{len} lists of {size} items exceed memory"))
                    })?;
                self.field(&format!("{path}.{}", child.name()), child.data_type(), need)?;
            }
            DataType::Struct(children) => {
                self.validity(path, len, nulls)?;
                for child in children {
                    self.field(&format!("{path}.{}", child.name()), child.data_type(), len)?;
                }
            }
            other => match other.primitive_width() {
                Some(width) => {
                    self.validity(path, len, nulls)?;
                    self.sized(path, len.checked_mul(width), width, "values")?;
                }
                None => return Err(self.bad(path, format!("type {other} is not read"))),
            },
        }
        Ok(())
    }
}

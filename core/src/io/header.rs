//! The safetensors header: the 8-byte length, the JSON table of tensors and `__metadata__`, and
//! every check an untrusted file needs before one tensor byte is read.
//!
//! The checks are those of the `safetensors` crate's `SafeTensors::read_metadata` (the fuzz test
//! in `tests/io.rs` holds the two to the same verdicts), with errors that name the file and the
//! tensor, on a header read on its own (the crate's needs the whole file in memory).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer as _, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::dtype::DType;
use crate::error::{IoError, Result};
use crate::tensor::checked_sizes;

/// The largest header accepted, in bytes (the `safetensors` crate's limit).
pub const MAX_HEADER_LEN: u64 = 100_000_000;

/// The largest rank accepted for a tensor in a file.
pub const MAX_RANK: usize = 64;

/// The safetensors name of a dtype (`F32`, `BOOL`, …).
pub const fn safetensors_name(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "BOOL",
        DType::I8 => "I8",
        DType::I16 => "I16",
        DType::I32 => "I32",
        DType::I64 => "I64",
        DType::U8 => "U8",
        DType::U16 => "U16",
        DType::U32 => "U32",
        DType::U64 => "U64",
        DType::F32 => "F32",
        DType::F64 => "F64",
    }
}

/// The dtype of a safetensors dtype name; `Err` says why not (unknown, or not an extype dtype).
pub fn dtype_from_safetensors(name: &str) -> std::result::Result<DType, String> {
    if let Some(d) = DType::ALL
        .into_iter()
        .find(|&d| safetensors_name(d) == name)
    {
        return Ok(d);
    }
    const OTHERS: [&str; 10] = [
        "F16", "BF16", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2", "C64", "",
    ];
    if !name.is_empty() && OTHERS.contains(&name) {
        Err(format!(
            "dtype {name} has no extype dtype (extype reads BOOL, I8…I64, U8…U64, F32, F64)"
        ))
    } else {
        Err(format!("unknown dtype {name:?}"))
    }
}

/// One tensor of the header. Offsets are relative to the start of the data section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The tensor's name (for extype files, the component's field path).
    pub name: String,
    /// The element type.
    pub dtype: DType,
    /// The shape.
    pub shape: Vec<usize>,
    /// First byte, relative to the data section.
    pub start: usize,
    /// One past the last byte, relative to the data section.
    pub end: usize,
}

impl Entry {
    /// The tensor's size in bytes.
    pub fn byte_len(&self) -> usize {
        self.end - self.start
    }
}

/// A parsed and checked header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The tensors, by increasing offset (they cover the data section exactly, without gaps).
    pub entries: Vec<Entry>,
    /// Indices into `entries`, sorted by name (for [`Header::entry`]).
    by_name: Vec<usize>,
    /// The `__metadata__` string map (empty when absent).
    pub metadata: BTreeMap<String, String>,
    /// The absolute file offset of the data section (8 + header length).
    pub data_start: u64,
}

impl Header {
    /// The entry named `name` (a binary search: O(log n)).
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.index(name).map(|i| &self.entries[i])
    }

    /// The position in `entries` of the entry named `name`.
    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        self.by_name
            .binary_search_by(|&i| self.entries[i].name.as_str().cmp(name))
            .ok()
            .map(|at| self.by_name[at])
    }
}

/// Checks the file's length and reads the header length from its first 8 bytes.
pub(crate) fn header_len(file: &str, first: &[u8], file_len: u64) -> Result<usize> {
    if file_len == 0 {
        return Err(IoError::at(
            file,
            "",
            "the file is empty; expected a safetensors file",
        ));
    }
    let Ok(prefix) = <[u8; 8]>::try_from(first.get(..8).unwrap_or(first)) else {
        return Err(IoError::at(
            file,
            "",
            format!("truncated: {file_len} bytes, expected at least the 8-byte header length"),
        ));
    };
    let n = u64::from_le_bytes(prefix);
    if n > MAX_HEADER_LEN {
        return Err(IoError::at(
            file,
            "",
            format!("header length {n} is over the limit of {MAX_HEADER_LEN} bytes"),
        ));
    }
    if n > file_len - 8 {
        return Err(IoError::at(
            file,
            "",
            format!(
                "header length {n} runs past the end of the file ({file_len} bytes); the file is \
                 truncated or the length is wrong"
            ),
        ));
    }
    // `n <= MAX_HEADER_LEN`, which fits any usize of 32 bits or more.
    Ok(n as usize)
}

#[derive(Deserialize)]
struct RawInfo {
    dtype: String,
    #[serde(deserialize_with = "bounded_shape")]
    shape: Vec<usize>,
    data_offsets: (usize, usize),
}

/// A shape of at most [`MAX_RANK`] dimensions, refused as soon as it is longer (no allocation
/// driven by the file beyond that).
fn bounded_shape<'de, D: de::Deserializer<'de>>(d: D) -> std::result::Result<Vec<usize>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<usize>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a shape (a list of at most {MAX_RANK} sizes)")
        }
        fn visit_seq<A: SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Vec<usize>, A::Error> {
            let mut out = Vec::new();
            while let Some(n) = seq.next_element::<usize>()? {
                if out.len() == MAX_RANK {
                    return Err(de::Error::custom(format!(
                        "shape has more than {MAX_RANK} dimensions"
                    )));
                }
                out.push(n);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V)
}

/// The header as read: entries checked one by one as they are read (no intermediate list), and
/// the metadata map. A failure about one tensor is kept in `failure` with the tensor's name
/// (serde's error would lose it).
struct RawHeader {
    entries: Vec<Entry>,
    metadata: BTreeMap<String, String>,
}

struct HeaderVisitor<'f> {
    failure: &'f std::cell::RefCell<Option<(String, String)>>,
}

impl<'de> Visitor<'de> for HeaderVisitor<'_> {
    type Value = RawHeader;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object of tensors")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<RawHeader, A::Error> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut metadata = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "__metadata__" {
                if metadata.is_some() {
                    return Err(de::Error::custom("__metadata__ appears twice"));
                }
                // The values are taken as raw JSON (borrowed from the header, no copy) and
                // unescaped once into strings of their exact size: a large spec costs its size
                // once more, not twice (serde's string buffer) or three times.
                let raw: Option<BTreeMap<Cow<'de, str>, &'de RawValue>> = map
                    .next_value()
                    .map_err(|e| de::Error::custom(format!("__metadata__: {e}")))?;
                let mut m = BTreeMap::new();
                for (k, v) in raw.unwrap_or_default() {
                    let Some(text) = unescape(v.get()) else {
                        return Err(de::Error::custom(format!(
                            "__metadata__: the value of {:?} is not a string",
                            short(&k)
                        )));
                    };
                    m.insert(k.into_owned(), text);
                }
                metadata = Some(m);
            } else {
                let info: RawInfo = map
                    .next_value()
                    .map_err(|e| de::Error::custom(format!("tensor {key:?}: {e}")))?;
                match entry(key, info) {
                    Ok(e) => entries.push(e),
                    Err((name, message)) => {
                        *self.failure.borrow_mut() = Some((name, message.clone()));
                        return Err(de::Error::custom(message));
                    }
                }
            }
        }
        Ok(RawHeader {
            entries,
            metadata: metadata.unwrap_or_default(),
        })
    }
}

/// The text of a JSON string literal (`raw`, already checked to be valid JSON by the parser),
/// unescaped into a string of exactly its size; `None` when it is not a string (or holds a lone
/// surrogate).
fn unescape(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut rest = inner;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let esc = rest.get(at + 1..at + 2)?;
        rest = &rest[at + 2..];
        let c = match esc {
            "\"" => '"',
            "\\" => '\\',
            "/" => '/',
            "b" => '\u{8}',
            "f" => '\u{c}',
            "n" => '\n',
            "r" => '\r',
            "t" => '\t',
            "u" => {
                let hex = |s: &str| u32::from_str_radix(s.get(..4)?, 16).ok();
                let first = hex(rest)?;
                rest = &rest[4..];
                if (0xD800..0xDC00).contains(&first) {
                    let second = rest.strip_prefix("\\u").and_then(hex)?;
                    if !(0xDC00..0xE000).contains(&second) {
                        return None;
                    }
                    rest = &rest[6..];
                    char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))?
                } else {
                    char::from_u32(first)?
                }
            }
            _ => return None,
        };
        out.push(c);
    }
    out.push_str(rest);
    Some(out)
}

/// A key, shortened for an error message.
fn short(key: &str) -> String {
    key.chars().take(40).collect()
}

/// One tensor's entry, checked on its own: a known dtype, offsets in order, a shape whose byte
/// size (checked as ndarray checks shapes) is the offsets' span. `Err` is (name, message).
fn entry(name: String, info: RawInfo) -> std::result::Result<Entry, (String, String)> {
    let dtype = match dtype_from_safetensors(&info.dtype) {
        Ok(d) => d,
        Err(m) => return Err((name, m)),
    };
    let (start, end) = info.data_offsets;
    if end < start {
        return Err((
            name,
            format!("data offsets [{start}, {end}] end before they start"),
        ));
    }
    let bytes = match checked_sizes(dtype, &info.shape) {
        Ok((_, bytes)) => bytes,
        Err(m) => return Err((name, m)),
    };
    if end - start != bytes {
        return Err((
            name,
            format!(
                "shape {:?} of {dtype} takes {bytes} bytes, but data offsets [{start}, {end}] \
                 hold {}",
                info.shape,
                end - start
            ),
        ));
    }
    Ok(Entry {
        name,
        dtype,
        shape: info.shape,
        start,
        end,
    })
}

/// Parses and checks the header text; `data_len` is the size of the data section (file length
/// minus 8 minus the header length). Linear in the header (up to a sort): names are checked
/// unique through a sorted index, not by scanning earlier entries.
pub(crate) fn parse(file: &str, text: &[u8], header_len: usize, data_len: u64) -> Result<Header> {
    let bad = |tensor: &str, message: String| IoError::at(file, tensor, message);
    let text = std::str::from_utf8(text)
        .map_err(|e| bad("", format!("the header is not UTF-8 text: {e}")))?;
    let failure = std::cell::RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let raw = de
        .deserialize_map(HeaderVisitor { failure: &failure })
        .and_then(|raw| de.end().map(|()| raw));
    let raw = match (raw, failure.into_inner()) {
        (_, Some((name, message))) => return Err(bad(&name, message)),
        (Err(e), None) => {
            return Err(bad(
                "",
                format!("the header is not a valid safetensors table: {e}"),
            ));
        }
        (Ok(raw), None) => raw,
    };
    let mut entries = raw.entries;
    entries.sort_unstable_by(|a, b| (a.start, a.end, &a.name).cmp(&(b.start, b.end, &b.name)));
    let mut by_name: Vec<usize> = (0..entries.len()).collect();
    by_name.sort_unstable_by(|&a, &b| entries[a].name.cmp(&entries[b].name));
    if let Some(w) = by_name
        .windows(2)
        .find(|w| entries[w[0]].name == entries[w[1]].name)
    {
        return Err(bad(
            &entries[w[0]].name,
            "the name appears twice in the header".into(),
        ));
    }
    let mut at = 0usize;
    for e in &entries {
        if e.start != at {
            let what = if e.start < at {
                "overlaps"
            } else {
                "leaves a gap after"
            };
            return Err(bad(
                &e.name,
                format!(
                    "data offsets [{}, {}] {what} the previous tensor, which ends at {at}",
                    e.start, e.end
                ),
            ));
        }
        at = e.end;
    }
    if at as u64 != data_len {
        return Err(bad(
            "",
            format!(
                "the tensors cover {at} bytes of data, but the file holds {data_len} after the \
                 header (truncated, or bytes not covered by any tensor)"
            ),
        ));
    }
    Ok(Header {
        entries,
        by_name,
        metadata: raw.metadata,
        data_start: 8 + header_len as u64,
    })
}

/// Parses the header of a whole file held in memory (a map or a buffer).
pub(crate) fn parse_bytes(file: &str, bytes: &[u8]) -> Result<Header> {
    let len = bytes.len() as u64;
    let n = header_len(file, bytes, len)?;
    parse(file, &bytes[8..8 + n], n, len - 8 - n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_strings_unescape_as_serde_json_does() {
        for text in [
            "",
            "plain",
            "q\"uote\\back/slash",
            "\u{8}\u{c}\n\r\t\u{0}\u{1f}",
            "é→😀",
            "{\"extype_spec\":1}",
        ] {
            let raw = serde_json::to_string(text).unwrap();
            assert_eq!(unescape(&raw).as_deref(), Some(text), "{raw}");
        }
        // Escapes serde_json would not write, but reads.
        assert_eq!(
            unescape(r#""\/\u00e9\ud83d\ude00""#).as_deref(),
            Some("/é😀")
        );
        assert_eq!(unescape(r#""\ud83d""#), None);
        assert_eq!(unescape("3"), None);
        assert_eq!(unescape("[\"a\"]"), None);
    }

    #[test]
    fn every_dtype_maps_both_ways() {
        for d in DType::ALL {
            assert_eq!(dtype_from_safetensors(safetensors_name(d)), Ok(d));
        }
        assert!(
            dtype_from_safetensors("BF16")
                .unwrap_err()
                .contains("no extype dtype")
        );
        assert!(
            dtype_from_safetensors("Q4")
                .unwrap_err()
                .contains("unknown dtype")
        );
    }
}

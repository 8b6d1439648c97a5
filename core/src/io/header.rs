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
use smallvec::SmallVec;

use super::kind::FileKind;
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
        DType::F16 => "F16",
        DType::BF16 => "BF16",
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
    if ForeignDType::ALL.iter().any(|f| f.name() == name) {
        Err(foreign_message(name))
    } else {
        Err(format!("unknown dtype {name:?}"))
    }
}

/// A safetensors dtype extype has no dtype for: the 8-, 6- and 4-bit float formats, complex
/// `C64` (half precision, `F16` and `BF16`, are extype dtypes: [`DType::F16`], [`DType::BF16`]). A file holding such tensors is read and inspected (each
/// listed with its name, dtype, shape and size); reading such a tensor's elements (loading or
/// mapping a value or tensor that needs it) is an error naming the tensor and its dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ForeignDType {
    /// FP8 E5M2 (`F8_E5M2`).
    F8E5M2,
    /// FP8 E4M3 (`F8_E4M3`).
    F8E4M3,
    /// FP8 E8M0 (`F8_E8M0`).
    F8E8M0,
    /// MXF6 E2M3 (`F6_E2M3`), 6 bits.
    F6E2M3,
    /// MXF6 E3M2 (`F6_E3M2`), 6 bits.
    F6E3M2,
    /// MXF4 (`F4`), 4 bits.
    F4,
    /// Complex with f32 parts (`C64`).
    C64,
}

impl ForeignDType {
    /// Every foreign dtype.
    pub const ALL: [ForeignDType; 7] = [
        ForeignDType::F8E5M2,
        ForeignDType::F8E4M3,
        ForeignDType::F8E8M0,
        ForeignDType::F6E2M3,
        ForeignDType::F6E3M2,
        ForeignDType::F4,
        ForeignDType::C64,
    ];

    /// Its safetensors name (`F8_E4M3`).
    pub const fn name(self) -> &'static str {
        match self {
            ForeignDType::F8E5M2 => "F8_E5M2",
            ForeignDType::F8E4M3 => "F8_E4M3",
            ForeignDType::F8E8M0 => "F8_E8M0",
            ForeignDType::F6E2M3 => "F6_E2M3",
            ForeignDType::F6E3M2 => "F6_E3M2",
            ForeignDType::F4 => "F4",
            ForeignDType::C64 => "C64",
        }
    }

    /// The size of one element in bits (4 and 6 for the sub-byte formats).
    pub const fn bits(self) -> usize {
        match self {
            ForeignDType::F8E5M2 | ForeignDType::F8E4M3 | ForeignDType::F8E8M0 => 8,
            ForeignDType::F6E2M3 | ForeignDType::F6E3M2 => 6,
            ForeignDType::F4 => 4,
            ForeignDType::C64 => 64,
        }
    }
}

impl fmt::Display for ForeignDType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tensor's dtype as a file gives it: an extype [`DType`], or a [`ForeignDType`] extype lists
/// but does not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileDType {
    /// A dtype extype reads.
    Known(DType),
    /// A dtype extype lists but does not read.
    Foreign(ForeignDType),
}

impl FileDType {
    /// Its safetensors name (`F32`, `F8_E4M3`).
    pub const fn safetensors_name(self) -> &'static str {
        match self {
            FileDType::Known(d) => safetensors_name(d),
            FileDType::Foreign(f) => f.name(),
        }
    }

    /// Its name as reports print it: the extype name (`f32`), or the safetensors name of a
    /// foreign dtype (`F8_E4M3`).
    pub const fn name(self) -> &'static str {
        match self {
            FileDType::Known(d) => d.name(),
            FileDType::Foreign(f) => f.name(),
        }
    }

    /// The extype dtype, `None` for a foreign one.
    pub const fn known(self) -> Option<DType> {
        match self {
            FileDType::Known(d) => Some(d),
            FileDType::Foreign(_) => None,
        }
    }

    /// The extype dtype, or the message of a tensor that cannot be read because its dtype is
    /// foreign (`dtype F8_E4M3 has no extype dtype …`).
    pub fn readable(self) -> std::result::Result<DType, String> {
        match self {
            FileDType::Known(d) => Ok(d),
            FileDType::Foreign(f) => Err(foreign_message(f.name())),
        }
    }
}

/// Prints an extype dtype by its extype name (`f32`), a foreign one as
/// `unsupported dtype F8_E4M3`.
impl fmt::Display for FileDType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileDType::Known(d) => fmt::Display::fmt(d, f),
            FileDType::Foreign(d) => write!(f, "unsupported dtype {d}"),
        }
    }
}

/// Serializes as the extype name (`"f32"`) or the safetensors name of a foreign dtype
/// (`"F8_E4M3"`).
impl serde::Serialize for FileDType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

fn foreign_message(name: &str) -> String {
    format!(
        "dtype {name} has no extype dtype (extype reads BOOL, I8…I64, U8…U64, F16, BF16, F32, \
         F64; a tensor of another dtype is listed by `extype inspect`, not read)"
    )
}

/// The dtype of a safetensors dtype name as a file gives it: an extype dtype or a foreign one;
/// `Err` for a name safetensors does not define.
pub fn file_dtype_from_safetensors(name: &str) -> std::result::Result<FileDType, String> {
    match dtype_from_safetensors(name) {
        Ok(d) => Ok(FileDType::Known(d)),
        Err(e) => ForeignDType::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .map(FileDType::Foreign)
            .ok_or(e),
    }
}

/// A tensor's shape as an [`Entry`] gives it (inline up to rank 4).
pub type Dims = SmallVec<[usize; 4]>;

/// One tensor of the header, as [`Header::entry`] and [`Entries`] give it (a view of the
/// header's compact storage). Offsets are relative to the start of the data section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'h> {
    /// The tensor's name (for extype files, the component's field path).
    pub name: &'h str,
    /// The element type (a [`ForeignDType`] is listed, not read).
    pub dtype: FileDType,
    /// The shape.
    pub shape: Dims,
    /// First byte, relative to the data section.
    pub start: usize,
    /// One past the last byte, relative to the data section.
    pub end: usize,
}

impl Entry<'_> {
    /// The tensor's size in bytes.
    pub fn byte_len(&self) -> usize {
        self.end - self.start
    }
}

/// One tensor as stored: its name and shape are ranges of the header's arenas, so a header of
/// many tiny tensors costs less memory than its JSON text (no allocation per tensor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slot {
    /// The name's start in `Entries::names`.
    name_at: u32,
    /// The name's length in bytes.
    name_len: u32,
    /// The shape's start in `Entries::dims` (LEB128 varints, one per dimension).
    dims_at: u32,
    rank: u8,
    dtype: FileDType,
    start: usize,
    end: usize,
}

/// The tensors of a header, by increasing offset (they cover the data section exactly, without
/// gaps), stored compactly: names in one string, shapes as varints in one buffer (a dimension
/// takes no more bytes than its JSON digits).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Entries {
    pub(super) slots: Vec<Slot>,
    names: String,
    dims: Vec<u8>,
}

impl fmt::Debug for Entries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Entries {
    /// The number of tensors.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the header lists no tensor.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The `i`-th tensor by offset.
    pub fn get(&self, i: usize) -> Option<Entry<'_>> {
        self.slots.get(i).map(|s| self.view(s))
    }

    /// The tensors by increasing offset.
    pub fn iter(&self) -> EntriesIter<'_> {
        EntriesIter {
            entries: self,
            slots: self.slots.iter(),
        }
    }

    /// The last tensor by offset.
    pub fn last(&self) -> Option<Entry<'_>> {
        self.slots.last().map(|s| self.view(s))
    }

    /// The `i`-th tensor, `i` an index this header gave (always in range).
    pub(crate) fn at(&self, i: usize) -> Entry<'_> {
        self.view(&self.slots[i])
    }

    fn name(&self, s: &Slot) -> &str {
        let at = s.name_at as usize;
        &self.names[at..at + s.name_len as usize]
    }

    pub(super) fn view(&self, s: &Slot) -> Entry<'_> {
        let mut shape = Dims::new();
        let mut at = s.dims_at as usize;
        for _ in 0..s.rank {
            let (d, used) = read_varint(&self.dims[at..]);
            shape.push(d);
            at += used;
        }
        Entry {
            name: self.name(s),
            dtype: s.dtype,
            shape,
            start: s.start,
            end: s.end,
        }
    }

    fn push(&mut self, name: &str, dtype: FileDType, shape: &[usize], start: usize, end: usize) {
        grow(&mut self.slots, 1);
        let name_at = self.names.len() as u32;
        if self.names.capacity() - self.names.len() < name.len() {
            let more = (self.names.len() / 8).max(name.len()).max(64);
            self.names.reserve_exact(more);
        }
        self.names.push_str(name);
        let dims_at = self.dims.len() as u32;
        for &d in shape {
            grow(&mut self.dims, 10);
            write_varint(&mut self.dims, d);
        }
        self.slots.push(Slot {
            name_at,
            name_len: name.len() as u32,
            dims_at,
            rank: shape.len() as u8,
            dtype,
            start,
            end,
        });
    }
}

impl<'a> IntoIterator for &'a Entries {
    type Item = Entry<'a>;
    type IntoIter = EntriesIter<'a>;
    fn into_iter(self) -> EntriesIter<'a> {
        self.iter()
    }
}

/// The tensors of a header by increasing offset ([`Entries::iter`]).
#[derive(Debug, Clone)]
pub struct EntriesIter<'a> {
    entries: &'a Entries,
    slots: std::slice::Iter<'a, Slot>,
}

impl<'a> Iterator for EntriesIter<'a> {
    type Item = Entry<'a>;
    fn next(&mut self) -> Option<Entry<'a>> {
        self.slots.next().map(|s| self.entries.view(s))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.slots.size_hint()
    }
}

impl DoubleEndedIterator for EntriesIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.slots.next_back().map(|s| self.entries.view(s))
    }
}

impl ExactSizeIterator for EntriesIter<'_> {}

/// Makes room for `n` more items in `v`, growing by an eighth (not doubling): a header's
/// tables then never hold more than an eighth of unused room (the peak-heap bound of a read
/// counts them), still in amortized linear time.
pub(super) fn grow<T>(v: &mut Vec<T>, n: usize) {
    if v.capacity() - v.len() < n {
        v.reserve_exact((v.len() / 8).max(n).max(16));
    }
}

/// Appends `d` to `out` as an LEB128 varint (7 bits a byte, low bits first).
pub(super) fn write_varint(out: &mut Vec<u8>, mut d: usize) {
    while d >= 0x80 {
        out.push((d as u8) | 0x80);
        d >>= 7;
    }
    out.push(d as u8);
}

/// A varint `write_varint` wrote, and the bytes it takes.
pub(super) fn read_varint(bytes: &[u8]) -> (usize, usize) {
    let mut d = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        d |= ((b & 0x7f) as usize) << (7 * i);
        if b < 0x80 {
            return (d, i + 1);
        }
    }
    (d, bytes.len())
}

/// A parsed and checked header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The tensors, by increasing offset (they cover the data section exactly, without gaps).
    pub entries: Entries,
    /// Indices into `entries`, sorted by name (for [`Header::entry`]).
    by_name: Vec<u32>,
    /// The `__metadata__` string map (empty when absent).
    pub metadata: BTreeMap<String, String>,
    /// The absolute file offset of the data section (8 + header length).
    pub data_start: u64,
}

impl Header {
    /// The entry named `name` (a binary search: O(log n)).
    pub fn entry(&self, name: &str) -> Option<Entry<'_>> {
        self.index(name).map(|i| self.entries.at(i))
    }

    /// The position in `entries` of the entry named `name`.
    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        let e = &self.entries;
        self.by_name
            .binary_search_by(|&i| e.name(&e.slots[i as usize]).cmp(name))
            .ok()
            .map(|at| self.by_name[at] as usize)
    }

    /// Frees the name index (for a reader that has done its lookups).
    pub(super) fn drop_index(&mut self) {
        self.by_name = Vec::new();
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
        // Another format's magic bytes read as a huge length: say what the file is instead.
        let message = match FileKind::sniff(&prefix) {
            Some(kind) => kind.refused_as(FileKind::Safetensors),
            None => format!("header length {n} is over the limit of {MAX_HEADER_LEN} bytes"),
        };
        return Err(IoError::at(file, "", message));
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
struct RawInfo<'a> {
    #[serde(borrow)]
    dtype: Cow<'a, str>,
    #[serde(deserialize_with = "bounded_shape")]
    shape: Shape,
    data_offsets: (usize, usize),
}

/// A shape as read, on the stack (no allocation per tensor).
struct Shape {
    rank: usize,
    dims: [usize; MAX_RANK],
}

impl Shape {
    fn as_slice(&self) -> &[usize] {
        &self.dims[..self.rank]
    }
}

/// A shape of at most [`MAX_RANK`] dimensions, refused as soon as it is longer.
fn bounded_shape<'de, D: de::Deserializer<'de>>(d: D) -> std::result::Result<Shape, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Shape;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a shape (a list of at most {MAX_RANK} sizes)")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Shape, A::Error> {
            let mut out = Shape {
                rank: 0,
                dims: [0; MAX_RANK],
            };
            while let Some(n) = seq.next_element::<usize>()? {
                if out.rank == MAX_RANK {
                    return Err(de::Error::custom(format!(
                        "shape has more than {MAX_RANK} dimensions"
                    )));
                }
                out.dims[out.rank] = n;
                out.rank += 1;
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V)
}

/// A key of the header's table, borrowed from the text unless it holds escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> std::result::Result<Key<'de>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tensor name")
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                v: &'de str,
            ) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The header as read: entries checked one by one as they are read, straight into their
/// compact storage, and the metadata map. A failure about one tensor is kept in `failure` with
/// the tensor's name (serde's error would lose it).
struct RawHeader {
    entries: Entries,
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
        let mut entries = Entries::default();
        let mut metadata = None;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
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
                let info: RawInfo<'de> = map
                    .next_value()
                    .map_err(|e| de::Error::custom(format!("tensor {key:?}: {e}")))?;
                if let Err(message) = entry(&mut entries, &key, info) {
                    *self.failure.borrow_mut() = Some((key.into_owned(), message.clone()));
                    return Err(de::Error::custom(message));
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

/// One tensor's entry, checked on its own (a known dtype, offsets in order, a shape whose byte
/// size, checked as ndarray checks shapes, is the offsets' span), then stored. `Err` is the
/// message.
fn entry(entries: &mut Entries, name: &str, info: RawInfo<'_>) -> std::result::Result<(), String> {
    let dtype = file_dtype_from_safetensors(&info.dtype)?;
    let (start, end) = info.data_offsets;
    if end < start {
        return Err(format!(
            "data offsets [{start}, {end}] end before they start"
        ));
    }
    let shape = info.shape.as_slice();
    let bytes = match dtype {
        FileDType::Known(d) => checked_sizes(d, shape)?.1,
        FileDType::Foreign(f) => foreign_bytes(f, shape)?,
    };
    if end - start != bytes {
        return Err(format!(
            "shape {shape:?} of {dtype} takes {bytes} bytes, but data offsets [{start}, {end}] \
             hold {}",
            end - start
        ));
    }
    entries.push(name, dtype, shape, start, end);
    Ok(())
}

/// The byte size of a tensor of a foreign dtype, checked as [`checked_sizes`] checks extype's
/// (the bits of its non-zero dims within `isize::MAX` bytes), and ending on a byte boundary as
/// the `safetensors` crate requires of the sub-byte formats.
fn foreign_bytes(dtype: ForeignDType, shape: &[usize]) -> std::result::Result<usize, String> {
    let bits = shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .and_then(|n| n.checked_mul(dtype.bits()))
        .filter(|&b| b / 8 <= isize::MAX as usize)
        .ok_or_else(|| {
            format!(
                "shape {shape:?} of {dtype} is too many bytes: the byte count of its non-zero \
                 dims overflows isize::MAX ({})",
                isize::MAX
            )
        })?;
    match () {
        _ if shape.contains(&0) => Ok(0),
        _ if !bits.is_multiple_of(8) => Err(format!(
            "shape {shape:?} of {dtype} is {bits} bits, which does not end on a byte boundary"
        )),
        _ => Ok(bits / 8),
    }
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
    {
        let Entries { slots, names, .. } = &mut entries;
        let name = |s: &Slot| &names[s.name_at as usize..(s.name_at + s.name_len) as usize];
        slots.sort_unstable_by(|a, b| (a.start, a.end, name(a)).cmp(&(b.start, b.end, name(b))));
    }
    let mut by_name: Vec<u32> = (0..entries.len() as u32).collect();
    let name = |i: u32| entries.name(&entries.slots[i as usize]);
    by_name.sort_unstable_by(|&a, &b| name(a).cmp(name(b)));
    if let Some(w) = by_name.windows(2).find(|w| name(w[0]) == name(w[1])) {
        return Err(bad(
            name(w[0]),
            "the name appears twice in the header".into(),
        ));
    }
    let mut at = 0usize;
    for e in &entries.slots {
        if e.start != at {
            let what = if e.start < at {
                "overlaps"
            } else {
                "leaves a gap after"
            };
            return Err(bad(
                entries.name(e),
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
    fn other_formats_are_named_by_their_magic_bytes() {
        for (bytes, what) in [
            (&b"PAR1\x15\x04\x15\x10"[..], "is a Parquet file"),
            (&b"ARROW1\0\0"[..], "is an Arrow IPC file"),
            (
                &b"\xff\xff\xff\xff\x10\x01\0\0"[..],
                "is an Arrow IPC stream",
            ),
            (&b"\x93NUMPY\x01\0"[..], "is a NumPy .npy file"),
        ] {
            let e = header_len("f", bytes, 1 << 20).unwrap_err().to_string();
            assert!(
                e.contains(what) && e.contains("not a safetensors file"),
                "{e}"
            );
        }
        // A length whose bytes happen to spell a magic, within the limit, is a length.
        let small = 100u64.to_le_bytes();
        assert_eq!(header_len("f", &small, 1 << 20).unwrap(), 100);
        for huge in [1u64 << 40, u64::MAX] {
            let e = header_len("f", &huge.to_le_bytes(), 1 << 20)
                .unwrap_err()
                .to_string();
            assert!(e.contains("over the limit"), "{e}");
        }
    }

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
            dtype_from_safetensors("F8_E4M3")
                .unwrap_err()
                .contains("no extype dtype")
        );
        assert!(
            dtype_from_safetensors("Q4")
                .unwrap_err()
                .contains("unknown dtype")
        );
    }

    #[test]
    fn foreign_dtypes_are_listed_with_their_sizes() {
        for f in ForeignDType::ALL {
            assert_eq!(
                file_dtype_from_safetensors(f.name()),
                Ok(FileDType::Foreign(f))
            );
            assert!(dtype_from_safetensors(f.name()).is_err());
        }
        assert_eq!(
            file_dtype_from_safetensors("F32"),
            Ok(FileDType::Known(DType::F32))
        );
        assert!(file_dtype_from_safetensors("Q4").is_err());
        assert_eq!(foreign_bytes(ForeignDType::F8E4M3, &[2, 3]), Ok(6));
        assert_eq!(foreign_bytes(ForeignDType::F4, &[4]), Ok(2));
        assert_eq!(foreign_bytes(ForeignDType::F6E2M3, &[4]), Ok(3));
        assert_eq!(foreign_bytes(ForeignDType::F4, &[3, 0]), Ok(0));
        assert!(
            foreign_bytes(ForeignDType::F4, &[3])
                .unwrap_err()
                .contains("byte boundary")
        );
        assert!(
            foreign_bytes(ForeignDType::C64, &[usize::MAX, 0])
                .unwrap_err()
                .contains("isize::MAX")
        );
        let f8 = FileDType::Foreign(ForeignDType::F8E4M3);
        assert_eq!(f8.to_string(), "unsupported dtype F8_E4M3");
        assert!(f8.readable().unwrap_err().contains("F8_E4M3"));
        // Half precision is read: an extype dtype, not a foreign one.
        assert_eq!(
            file_dtype_from_safetensors("BF16"),
            Ok(FileDType::Known(DType::BF16))
        );
        assert_eq!(dtype_from_safetensors("F16"), Ok(DType::F16));
        assert_eq!(FileDType::Known(DType::F32).to_string(), "f32");
    }
}

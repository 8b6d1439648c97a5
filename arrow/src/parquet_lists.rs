//! Nested lists of numbers decoded straight from a Parquet column chunk: a ragged column
//! (`large_list<large_list<float>>`, every level non-null), as `write_parquet` writes it
//! (uncompressed, plain values, data pages v1), goes from its page bytes to its `LargeList`
//! offsets and values in one pass over the levels and one copy of the values.
//!
//! arrow-rs's reader takes such a leaf through its general record reader (levels buffered and
//! re-read per batch, values through a per-type decoder), slower than pyarrow on the same
//! file; this path is faster (BENCHMARKS.md, "Arrow"). Anything this path does not expect (compression, a
//! dictionary or another encoding, data pages v2, bytes that do not decode, levels that do not
//! make lists) gives `None`, and the caller reads the chunk with arrow-rs, which gives its own
//! errors: this path never decides that a file is bad.
//!
//! The levels: for `n` list levels, an entry of repetition level `r` and definition level `d`
//! starts a new item at every level `k` from `r` to `d` (level 0 a row, level `n` a value): a
//! row ending in an empty list at level `d + 1` when `d < n`, a value when `d = n`.

use std::sync::Arc;

use arrow_array::{ArrayRef, ArrowPrimitiveType, LargeListArray, PrimitiveArray, types};
use arrow_buffer::{Buffer, MutableBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;

use crate::parquet_pages;

/// The number of list levels of `data_type` when it is nested `LargeList`s (at least one),
/// every child field non-null, over a number type this path copies (`f32`, `f64`, `i32`,
/// `i64`).
pub(crate) fn list_levels(data_type: &DataType) -> Option<usize> {
    fn levels(data_type: &DataType) -> Option<usize> {
        match data_type {
            DataType::LargeList(child) if !child.is_nullable() => {
                levels(child.data_type()).map(|n| n + 1)
            }
            DataType::Float32 | DataType::Float64 | DataType::Int32 | DataType::Int64 => Some(0),
            _ => None,
        }
    }
    levels(data_type).filter(|&n| n > 0)
}

/// The bytes of one value of the number type at the bottom of `data_type`.
fn value_width(data_type: &DataType) -> Option<usize> {
    match data_type {
        DataType::LargeList(child) => value_width(child.data_type()),
        DataType::Float32 | DataType::Int32 => Some(4),
        DataType::Float64 | DataType::Int64 => Some(8),
        _ => None,
    }
}

/// The offsets of each list level and the values' bytes, as the levels make them.
struct Lists {
    /// `offsets[k]`: the start of each level-`k` item's list (rows at level 0), then the end.
    offsets: Vec<Vec<i64>>,
    /// Items so far per level (`count[n]`: values).
    count: Vec<i64>,
    /// The values' plain bytes, aligned for any number type.
    values: MutableBuffer,
}

impl Lists {
    /// One page's level entries (`rep` and `def` of equal length): the number of values they
    /// define; `None` for levels that make no lists.
    fn push_levels(&mut self, rep: &[u8], def: &[u8]) -> Option<usize> {
        let n = self.offsets.len();
        let mut values = 0usize;
        for (&r, &d) in rep.iter().zip(def) {
            let (r, d) = (usize::from(r), usize::from(d));
            if r == n && d == n && self.count[0] > 0 {
                // Another value in the current innermost list: the common entry.
                self.count[n] += 1;
                values += 1;
                continue;
            }
            // A repeated entry needs a row to repeat in, and a list defined down to it.
            if d > n || r > d || (r > 0 && self.count[0] == 0) {
                return None;
            }
            for k in r..=d {
                if k < n {
                    self.offsets[k].push(self.count[k + 1]);
                }
                self.count[k] += 1;
            }
            values += usize::from(d == n);
        }
        Some(values)
    }
}

/// Decodes `bytes`, levels in the RLE / bit-packing hybrid of `bit_width` bits, into `out`:
/// exactly `count` levels (a bit-packed run's padding dropped), `None` when the bytes end
/// first or a level does not fit in a byte.
fn levels(bytes: &[u8], bit_width: u32, count: usize, out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    out.reserve(count);
    let mut pos = 0usize;
    while out.len() < count {
        let header = varint(bytes, &mut pos)?;
        let left = count - out.len();
        if header & 1 == 0 {
            // A run of one value, stored in whole bytes.
            let run = usize::try_from(header >> 1).ok()?.min(left);
            let width = bit_width.div_ceil(8) as usize;
            let stored = bytes.get(pos..pos.checked_add(width)?)?;
            pos += width;
            let value = stored
                .iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
            out.resize(out.len() + run, u8::try_from(value).ok()?);
        } else {
            // Groups of eight values, `bit_width` bits each, least significant bit first.
            let groups = usize::try_from(header >> 1).ok()?;
            let len = groups.checked_mul(bit_width as usize)?;
            let packed = bytes.get(pos..pos.checked_add(len)?)?;
            pos += len;
            unpack(packed, bit_width, groups.checked_mul(8)?.min(left), out)?;
        }
    }
    Some(())
}

/// Appends the first `count` values of `bit_width` bits packed in `packed` to `out`.
fn unpack(packed: &[u8], bit_width: u32, count: usize, out: &mut Vec<u8>) -> Option<()> {
    if bit_width == 0 {
        out.resize(out.len() + count, 0);
        return Some(());
    }
    if bit_width > 8 {
        return None;
    }
    let mask = (1u64 << bit_width) - 1;
    let (mut acc, mut bits) = (0u64, 0u32);
    let mut bytes = packed.iter();
    for _ in 0..count {
        while bits < bit_width {
            acc |= u64::from(*bytes.next()?) << bits;
            bits += 8;
        }
        out.push((acc & mask) as u8);
        acc >>= bit_width;
        bits -= bit_width;
    }
    Some(())
}

/// A ULEB128 varint at `*pos` of `bytes`, at most ten bytes.
fn varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut out = 0u64;
    for shift in (0..70).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        out |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(out);
        }
    }
    None
}

/// A length-prefixed (`u32`, little-endian) run of levels at `*pos` of `page`, decoded into
/// `out`.
fn prefixed_levels(
    page: &[u8],
    pos: &mut usize,
    bit_width: u32,
    count: usize,
    out: &mut Vec<u8>,
) -> Option<()> {
    let len = page.get(*pos..pos.checked_add(4)?)?;
    let len = u32::from_le_bytes(len.try_into().ok()?) as usize;
    *pos += 4;
    let bytes = page.get(*pos..pos.checked_add(len)?)?;
    *pos += len;
    levels(bytes, bit_width, count, out)
}

/// The column of `data_type` (nested non-null `LargeList`s of numbers: [`list_levels`]) stored
/// in the column chunk `chunk` (its bytes: pages of `rows` rows and `entries` level entries in
/// all, uncompressed), or `None` when the chunk is not one this path decodes.
pub(crate) fn decode(
    chunk: &[u8],
    data_type: &DataType,
    rows: usize,
    entries: usize,
) -> Option<ArrayRef> {
    let n = list_levels(data_type)?;
    let width = value_width(data_type)?;
    let bit_width = usize::BITS - n.leading_zeros();
    let mut lists = Lists {
        // Capacities the chunk's size bounds (`rows` and `entries` are the metadata's claims;
        // the page headers' counts, which the levels follow, were checked against the
        // reading bound).
        offsets: (0..n)
            .map(|_| Vec::with_capacity(rows.min(chunk.len()) + 1))
            .collect(),
        count: vec![0; n + 1],
        values: MutableBuffer::new(entries.checked_mul(width)?.min(chunk.len())),
    };
    let (mut rep, mut def) = (Vec::new(), Vec::new());
    let (mut pos, mut seen) = (0usize, 0usize);
    while pos < chunk.len() {
        let h = parquet_pages::header(chunk.get(pos..)?)?;
        // A data page (v1), plain values, RLE levels, stored as is.
        if h.kind != 0 || h.encodings != [0, 3, 3] || h.compressed != h.uncompressed {
            return None;
        }
        let start = pos.checked_add(h.len)?;
        let end = start.checked_add(usize::try_from(h.compressed).ok()?)?;
        let page = chunk.get(start..end)?;
        pos = end;
        let count = usize::try_from(h.values).ok()?;
        seen = seen.checked_add(count)?;
        if seen > entries {
            return None;
        }
        let mut at = 0usize;
        prefixed_levels(page, &mut at, bit_width, count, &mut rep)?;
        prefixed_levels(page, &mut at, bit_width, count, &mut def)?;
        let values = lists.push_levels(&rep, &def)?;
        let stored = page.get(at..)?;
        if stored.len() != values.checked_mul(width)? {
            return None;
        }
        lists.values.extend_from_slice(stored);
    }
    if seen != entries || usize::try_from(lists.count[0]).ok()? != rows {
        return None;
    }
    let Lists {
        mut offsets,
        count,
        values,
    } = lists;
    for (k, o) in offsets.iter_mut().enumerate() {
        o.push(count[k + 1]);
    }
    build(data_type, &mut offsets.into_iter(), values.into())
}

/// The array of `data_type` (nested `LargeList`s over numbers) from the offsets of its levels,
/// outermost first, and its values' bytes.
fn build(
    data_type: &DataType,
    offsets: &mut impl Iterator<Item = Vec<i64>>,
    values: Buffer,
) -> Option<ArrayRef> {
    match data_type {
        DataType::LargeList(child) => {
            let mine = OffsetBuffer::new(ScalarBuffer::from(offsets.next()?));
            let inner = build(child.data_type(), offsets, values)?;
            let list = LargeListArray::try_new(child.clone(), mine, inner, None).ok()?;
            Some(Arc::new(list))
        }
        DataType::Float32 => numbers::<types::Float32Type>(values),
        DataType::Float64 => numbers::<types::Float64Type>(values),
        DataType::Int32 => numbers::<types::Int32Type>(values),
        DataType::Int64 => numbers::<types::Int64Type>(values),
        _ => None,
    }
}

/// The numbers in `bytes` (plain: little-endian, as every target arrow-rs supports), viewed in
/// place: a `MutableBuffer` is aligned for any of them.
fn numbers<T: ArrowPrimitiveType>(bytes: Buffer) -> Option<ArrayRef> {
    let width = std::mem::size_of::<T::Native>();
    if !bytes.len().is_multiple_of(width)
        || bytes.as_ptr().align_offset(align_of::<T::Native>()) != 0
    {
        return None;
    }
    let len = bytes.len() / width;
    let scalars = ScalarBuffer::<T::Native>::new(bytes, 0, len);
    Some(Arc::new(PrimitiveArray::<T>::new(scalars, None)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_decode_runs_and_packed_groups_and_refuse_short_input() {
        let mut out = Vec::new();
        // A run of 5 twos (header 10, one byte of value), then one packed group of eight
        // 2-bit values (header 3): 0, 1, 1, 2 in the first byte (least significant bits
        // first), 1, 0, 2, 1 in the second.
        let input = [10u8, 2, 3, 0b1001_0100, 0b0110_0001];
        levels(&input, 2, 13, &mut out).unwrap();
        assert_eq!(out, [2, 2, 2, 2, 2, 0, 1, 1, 2, 1, 0, 2, 1]);
        // Fewer levels than asked for: `None`.
        assert!(levels(&input, 2, 14, &mut out).is_none());
        assert!(levels(&input[..3], 2, 6, &mut out).is_none());
        // A run longer than asked for stops at the count.
        levels(&[100, 1], 1, 3, &mut out).unwrap();
        assert_eq!(out, [1, 1, 1]);
    }

    #[test]
    fn levels_make_lists_or_nothing() {
        let mut lists = Lists {
            offsets: vec![Vec::new(), Vec::new()],
            count: vec![0; 3],
            values: MutableBuffer::new(0),
        };
        // Rows: [[a, b], []], [], [[c]].
        let rep = [0, 2, 1, 0, 0];
        let def = [2, 2, 1, 0, 2];
        assert_eq!(lists.push_levels(&rep, &def), Some(3));
        assert_eq!(lists.offsets, [vec![0, 2, 2], vec![0, 2, 2]]);
        assert_eq!(lists.count, [3, 3, 3]);
        // Repeating before any row, a repetition deeper than the definition, a level over n.
        for (rep, def) in [([1u8], [2u8]), ([0], [3])] {
            let mut fresh = Lists {
                offsets: vec![Vec::new(), Vec::new()],
                count: vec![0; 3],
                values: MutableBuffer::new(0),
            };
            assert_eq!(fresh.push_levels(&rep, &def), None);
        }
        assert_eq!(lists.push_levels(&[2], &[1]), None);
    }
}

//! Files for the hostile-input tests of the Arrow readers: record batches of every kind extype
//! writes (masked, dense, bool, ragged as nested lists and in the earlier row layout, sparse,
//! items of zero elements), their
//! bytes as IPC files, IPC streams and Parquet files, and the edits the crafted files are made
//! of (a little-endian integer or a Parquet varint replaced everywhere it occurs).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use extype::ndarray::{ArrayD, IxDyn, array};
use extype::types::{MaskedTensor, RaggedTensor, SparseTensor};
use extype::{Tensor, Value, batch};
use extype_arrow::arrow_array::RecordBatch;
use extype_arrow::*;

/// A fresh directory of its own under the system temp dir (one per call) (left behind when a test fails, with
/// the files to replay; [`done`] removes it).
pub fn scratch_dir(name: &str) -> PathBuf {
    static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("extype-arrow-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Removes a [`scratch_dir`] after its test passed.
pub fn done(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
}

/// The three file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    IpcFile,
    IpcStream,
    Parquet,
}

pub const FORMATS: [Format; 3] = [Format::IpcFile, Format::IpcStream, Format::Parquet];

/// A batch of `n` masked items of `item` shape (values `i`, every third masked out).
pub fn masked(n: usize, item: &[usize]) -> MaskedTensor {
    let items: Vec<MaskedTensor> = (0..n)
        .map(|i| {
            let len: usize = item.iter().product();
            let values: Vec<f32> = (0..len).map(|k| (i * len + k) as f32).collect();
            let mask: Vec<bool> = (0..len).map(|k| (i + k) % 3 != 0).collect();
            MaskedTensor::new(
                ArrayD::from_shape_vec(IxDyn(item), values).unwrap(),
                ArrayD::from_shape_vec(IxDyn(item), mask).unwrap(),
            )
            .unwrap()
        })
        .collect();
    batch::stack(&items).unwrap()
}

/// A ragged batch (nested lists; `ragged_rows`: the row layout): three items of 2, 0 and 3 rows of varying length.
pub fn ragged() -> RaggedTensor {
    let items = vec![
        RaggedTensor::from_row_lengths(array![1.0f32, 2.0, 3.0], array![2i64, 1]).unwrap(),
        RaggedTensor::from_row_lengths(array![4.0f32], array![1i64]).unwrap(),
        RaggedTensor::from_row_lengths(array![5.0f32, 6.0, 7.0, 8.0], array![1i64, 0, 3]).unwrap(),
    ];
    batch::stack(&items).unwrap()
}

/// A sparse batch of three 2 x 3 items.
pub fn sparse() -> SparseTensor {
    let items: Vec<SparseTensor> = (0..3)
        .map(|i| {
            let dense = array![[0.0f64, i as f64 + 1.0, 0.0], [2.0, 0.0, 0.0]];
            SparseTensor::from_dense(&dense).unwrap()
        })
        .collect();
    batch::stack(&items).unwrap()
}

/// A one-column record batch.
pub fn one(name: &str, value: Value) -> RecordBatch {
    to_record_batch(&[(name, &value)]).unwrap()
}

/// The record batches the seeds are written from, by name: every kind of column extype
/// writes. A kind that does not make a record batch (sparse, when its batch does not stack)
/// is left out.
pub fn seed_batches() -> Vec<(&'static str, RecordBatch)> {
    let mut out = vec![
        (
            "mixed",
            to_record_batch(&[
                ("col_masked", &Value::from_extension(masked(4, &[3]))),
                (
                    "col_dense",
                    &Value::Tensor(Tensor::from(ArrayD::from_shape_fn(
                        IxDyn(&[4, 2, 3]),
                        |d| (d[0] * 6 + d[1] * 3 + d[2]) as f64,
                    ))),
                ),
                (
                    "col_ints",
                    &Value::Tensor(Tensor::from(array![1i32, -2, 3, 4])),
                ),
                (
                    "col_bools",
                    &Value::Tensor(Tensor::from(array![
                        [true, false],
                        [false, true],
                        [true, true],
                        [false, false]
                    ])),
                ),
            ])
            .unwrap(),
        ),
        ("ragged", one("col_ragged", Value::from_extension(ragged()))),
        ("ragged_rows", {
            let (field, array) = extype_arrow::to_row_array(&ragged(), "col_ragged").unwrap();
            let schema = extype_arrow::arrow_schema::Schema::new(vec![field]);
            RecordBatch::try_new(std::sync::Arc::new(schema), vec![array]).unwrap()
        }),
        (
            "zero",
            to_record_batch(&[
                ("col_zero", &Value::from_extension(masked(5, &[0]))),
                ("col_zero2", &Value::from_extension(masked(5, &[3, 0]))),
            ])
            .unwrap(),
        ),
    ];
    if let Ok(rb) = to_record_batch(&[("col_sparse", &Value::from_extension(sparse()))]) {
        out.push(("sparse", rb));
    }
    out
}

/// The bytes of `batches` written in `format` (through a file in `dir`).
pub fn bytes_of(format: Format, batches: &[RecordBatch], dir: &Path) -> Vec<u8> {
    let path = dir.join("seed.tmp");
    match format {
        Format::IpcFile => write_ipc_file(&path, batches).unwrap(),
        Format::IpcStream => {
            let mut out = Vec::new();
            write_ipc_stream(&mut out, batches).unwrap();
            return out;
        }
        Format::Parquet => write_parquet(&path, batches).unwrap(),
    }
    std::fs::read(&path).unwrap()
}

/// Every occurrence of the little-endian `from` replaced by `to` (same width); how many.
pub fn replace_le(bytes: &mut [u8], from: &[u8], to: &[u8]) -> usize {
    assert_eq!(from.len(), to.len());
    let mut n = 0;
    let mut i = 0;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            n += 1;
            i += from.len();
        } else {
            i += 1;
        }
    }
    n
}

/// The zigzag varint of `v` (Thrift's compact encoding of an `i64`).
pub fn varint(v: i64) -> Vec<u8> {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    let mut out = Vec::new();
    loop {
        let b = (z & 0x7f) as u8;
        z >>= 7;
        if z == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

/// A Parquet file with every varint `from` in its footer replaced by `to` (the footer's length
/// fixed): a row count, say.
pub fn parquet_footer_replace(bytes: &[u8], from: i64, to: i64) -> (Vec<u8>, usize) {
    let n = bytes.len();
    let footer_len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let start = n - 8 - footer_len;
    let (head, footer) = (&bytes[..start], &bytes[start..n - 8]);
    let (from, to) = (varint(from), varint(to));
    let mut out_footer = Vec::with_capacity(footer.len() + 16);
    let mut count = 0;
    let mut i = 0;
    while i < footer.len() {
        // A varint starts after a byte that ends one (no continuation bit) or a field header.
        if footer[i..].starts_with(&from)
            && (i == 0 || footer[i - 1] & 0x80 == 0)
            && footer.get(i + from.len()).is_some()
        {
            out_footer.extend_from_slice(&to);
            i += from.len();
            count += 1;
        } else {
            out_footer.push(footer[i]);
            i += 1;
        }
    }
    let mut out = head.to_vec();
    out.extend_from_slice(&out_footer);
    out.extend_from_slice(&(out_footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    (out, count)
}

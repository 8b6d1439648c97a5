//! extype-arrow's speed: `cargo bench -p extype-arrow --bench arrow`.
//!
//! A batch of 1 Mi `extype::types::MaskedTensor` items of 8 f32 (values 32 MiB, mask 8 MiB of
//! bools). Each case is timed next to its yardstick in the same run; the summary after
//! criterion's report prints both medians and their ratio:
//! - `export`: `to_array` (values zero-copy, the mask packed into the values' validity
//!   bitmap), against a memcpy of the
//!   same bytes (40 MiB) (target: ≥ 90% of its speed, or O(1));
//! - `import`: `from_array_as::<MaskedTensor>` (values viewed in place, the bitmap unpacked),
//!   against the same memcpy;
//! - IPC write: an Arrow IPC file and an IPC stream (to a file) of the batch (export included),
//!   against writing the same bytes (the Arrow buffers: 32 MiB + 1 MiB) raw to a file (target:
//!   ≥ 90% of its speed);
//! - `parquet`: a Parquet file of the batch written and read back (uncompressed), in GB/s of
//!   the batch's bytes, to compare with `arrow/benches/arrow_pyarrow.py` on the same data
//!   (`write_parquet` and `read_parquet` as they are: the struct's one child, `values` with the
//!   mask as its validity, i.e. definition levels; values under a false mask are not stored).
//! - `ragged`: a `RaggedTensor` batch of 64 Ki items (ragged rank 2: ~8 rows of 0–31 `f32`
//!   each, ~8 Mi values) as nested lists (the list layout) against the earlier row layout
//!   (`to_row_array`) in the same run: export, import, Parquet write and read.

#[path = "../../benches/common/timing.rs"]
mod timing;

use std::hint::black_box;
use std::io::Write;

use criterion::Criterion;
use extype::ndarray::{ArrayD, IxDyn};
use extype::types::{MaskedTensor, RaggedTensor};
use extype::{Tensor, TensorView};
use extype_arrow::arrow_array::{Array, ArrayRef, RecordBatch};
use extype_arrow::arrow_data::ArrayData;
use extype_arrow::arrow_schema::{Field, Schema};
use extype_arrow::{
    column_as, from_array_as, read_parquet, to_array, to_row_array, write_ipc_file,
    write_ipc_stream, write_parquet,
};
use timing::medians;

const ITEMS: usize = 1 << 20;
const WIDTH: usize = 8;

fn batch() -> MaskedTensor {
    let n = ITEMS * WIDTH;
    let values = ArrayD::from_shape_fn(IxDyn(&[ITEMS, WIDTH]), |i| {
        ((i[0] * WIDTH + i[1]) % 1000) as f32 * 0.5
    });
    let mask = ArrayD::from_shape_fn(IxDyn(&[ITEMS, WIDTH]), |i| {
        !(i[0] * WIDTH + i[1]).is_multiple_of(3)
    });
    assert_eq!(values.len(), n);
    MaskedTensor::new(values, mask).unwrap()
}

fn bytes_of(t: &Tensor) -> &[u8] {
    match t.view() {
        TensorView::F32(a) => {
            let s = a.to_slice().unwrap();
            // SAFETY: an f32 slice viewed as its bytes (any bit pattern is a valid u8).
            unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), std::mem::size_of_val(s)) }
        }
        TensorView::Bool(a) => {
            let s = a.to_slice().unwrap();
            // SAFETY: bools are one byte each, 0 or 1: valid u8s.
            unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), s.len()) }
        }
        other => panic!("{:?}", other.dtype()),
    }
}

/// The yardstick of export and import: a copy of the batch's bytes (values and mask).
fn memcpy(b: &MaskedTensor, out: &mut [u8]) {
    let v = bytes_of(b.values());
    let m = bytes_of(b.mask());
    out[..v.len()].copy_from_slice(v);
    out[v.len()..v.len() + m.len()].copy_from_slice(m);
}

fn export(b: &MaskedTensor) -> (Field, ArrayRef) {
    to_array(b, "m").unwrap()
}

fn import(f: &Field, a: &ArrayRef) -> MaskedTensor {
    from_array_as(f, a.as_ref()).unwrap()
}

fn record_batch(b: &MaskedTensor) -> RecordBatch {
    let (f, a) = export(b);
    RecordBatch::try_new(Schema::new(vec![f]).into(), vec![a]).unwrap()
}

/// The yardstick of IPC write: the Arrow buffers' bytes written raw to a file.
fn raw_write(path: &std::path::Path, parts: &[&[u8]]) {
    let mut f = std::fs::File::create(path).unwrap();
    for p in parts {
        f.write_all(p).unwrap();
    }
    f.flush().unwrap();
}

fn arrow_buffers(a: &ArrayRef) -> Vec<Vec<u8>> {
    fn rec(data: &ArrayData, out: &mut Vec<Vec<u8>>) {
        for b in data.buffers() {
            out.push(b.as_slice().to_vec());
        }
        for c in data.child_data() {
            rec(c, out);
        }
    }
    let mut out = Vec::new();
    rec(&a.to_data(), &mut out);
    out
}

fn dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("extype-arrow-bench-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn benches(c: &mut Criterion) {
    let b = batch();
    let mut out = vec![0u8; ITEMS * WIDTH * 5];
    let (f, a) = export(&b);
    let mut g = c.benchmark_group("arrow");
    g.sample_size(10);
    g.bench_function("export (to_array)", |x| x.iter(|| export(black_box(&b))));
    g.bench_function("import (from_array_as)", |x| {
        x.iter(|| import(black_box(&f), black_box(&a)))
    });
    g.bench_function("yardstick: memcpy of the same bytes", |x| {
        x.iter(|| memcpy(black_box(&b), black_box(&mut out)))
    });
    g.finish();
}

fn summary() {
    println!("\nsummary (medians of interleaved rounds, this run)");
    let b = batch();
    let bytes = (ITEMS * WIDTH * 5) as f64;
    let mut out = vec![0u8; ITEMS * WIDTH * 5];
    let (f, a) = export(&b);
    assert_eq!(import(&f, &a), b);
    let t = medians(
        21,
        &mut [
            &mut || drop(black_box(export(black_box(&b)))),
            &mut || drop(black_box(import(black_box(&f), black_box(&a)))),
            &mut || memcpy(black_box(&b), black_box(&mut out)),
        ],
    );
    println!(
        "  export of 1 Mi masked items (40 MiB): to_array {:.2} ms, memcpy {:.2} ms; speed ratio \
         {:.2} (target >= 0.90)",
        t[0] / 1e6,
        t[2] / 1e6,
        t[2] / t[0]
    );
    println!(
        "  import: from_array_as {:.2} ms, memcpy {:.2} ms; speed ratio {:.2} (target >= 0.90)",
        t[1] / 1e6,
        t[2] / 1e6,
        t[2] / t[1]
    );

    let d = dir();
    let buffers = arrow_buffers(&a);
    let parts: Vec<&[u8]> = buffers.iter().map(Vec::as_slice).collect();
    let arrow_bytes: usize = parts.iter().map(|p| p.len()).sum();
    // `write_ipc_file` replaces the file atomically (a temporary file renamed over it, as every
    // extype save does), which costs on ext4 more than the write (its `auto_da_alloc` allocates
    // the new file's blocks at the rename): a second yardstick writes the raw bytes the same way.
    let raw_atomic = |path: &std::path::Path| {
        extype::io::write_atomically(path, |temp| {
            raw_write(temp, &parts);
            Ok::<_, extype::Error>(())
        })
        .unwrap()
    };
    let t = medians(
        11,
        &mut [
            &mut || write_ipc_file(d.join("b.arrow"), &[record_batch(&b)]).unwrap(),
            &mut || raw_write(&d.join("b.raw"), &parts),
            &mut || raw_atomic(&d.join("b.atomic")),
        ],
    );
    println!(
        "  IPC file write ({:.1} MiB of Arrow buffers, replacing the file atomically): {:.2} ms; \
         raw write of the same bytes in place {:.2} ms, ratio {:.2} (target >= 0.90); raw write \
         replacing the file the same way {:.2} ms, ratio {:.2}",
        arrow_bytes as f64 / (1 << 20) as f64,
        t[0] / 1e6,
        t[1] / 1e6,
        t[1] / t[0],
        t[2] / 1e6,
        t[2] / t[0]
    );
    let t = medians(
        11,
        &mut [
            &mut || {
                let f = std::fs::File::create(d.join("b.stream")).unwrap();
                write_ipc_stream(f, &[record_batch(&b)]).unwrap()
            },
            &mut || raw_write(&d.join("b.raw"), &parts),
        ],
    );
    println!(
        "  IPC stream write to a file: {:.2} ms, raw write of the same bytes {:.2} ms; speed \
         ratio {:.2} (target >= 0.90)",
        t[0] / 1e6,
        t[1] / 1e6,
        t[1] / t[0]
    );

    let rb = record_batch(&b);
    let t = medians(
        5,
        &mut [
            &mut || write_parquet(d.join("b.parquet"), std::slice::from_ref(&rb)).unwrap(),
            &mut || drop(black_box(read_parquet(d.join("b.parquet")).unwrap())),
        ],
    );
    let back = read_parquet(d.join("b.parquet")).unwrap();
    let m: MaskedTensor = extype_arrow::column_as(&back[0], "m").unwrap();
    // Parquet stores no value under a false mask: those read back as zero.
    assert_eq!(m, b.filled(&extype::ndarray::arr0(0.0f32)).unwrap());
    let values_bytes = (ITEMS * WIDTH * 4) as f64;
    println!(
        "  Parquet (uncompressed) write {:.1} ms ({:.2} GB/s of values, {:.2} GB/s of values and \
         mask bytes), read {:.1} ms ({:.2} GB/s, {:.2} GB/s); file {:.1} MiB",
        t[0] / 1e6,
        values_bytes / t[0],
        bytes / t[0],
        t[1] / 1e6,
        values_bytes / t[1],
        bytes / t[1],
        std::fs::metadata(d.join("b.parquet")).unwrap().len() as f64 / (1 << 20) as f64
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// 64 Ki ragged items: item `i` has `i % 16` rows, row `k` of item `i` has `(i + 7k) % 32`
/// values (deterministic, about 8 Mi `f32` in all).
fn ragged() -> RaggedTensor {
    let (mut outer, mut inner, mut n) = (vec![0i64], vec![0i64], 0i64);
    for i in 0..(1usize << 16) {
        for k in 0..i % 16 {
            n += ((i + 7 * k) % 32) as i64;
            inner.push(n);
        }
        outer.push(inner.len() as i64 - 1);
    }
    let values: Vec<f32> = (0..n).map(|v| (v % 1000) as f32 * 0.5).collect();
    let t = |v: Vec<i64>| Tensor::from(extype::ndarray::Array1::from(v).into_dyn());
    RaggedTensor::from_nested_row_splits(
        Tensor::from(extype::ndarray::Array1::from(values).into_dyn()),
        vec![t(outer), t(inner)],
    )
    .unwrap()
}

/// The ragged batch as nested lists against the row layout, in interleaved rounds.
fn ragged_summary() {
    let r = ragged();
    let values = r.flat_values().len();
    let one = |(f, a): (Field, ArrayRef)| {
        RecordBatch::try_new(std::sync::Arc::new(Schema::new(vec![f])), vec![a]).unwrap()
    };
    let lists = one(to_array(&r, "r").unwrap());
    let rows = one(to_row_array(&r, "r").unwrap());
    let t = medians(
        11,
        &mut [
            &mut || drop(black_box(to_array(black_box(&r), "r").unwrap())),
            &mut || drop(black_box(to_row_array(black_box(&r), "r").unwrap())),
            &mut || drop(black_box(column_as::<RaggedTensor>(&lists, "r").unwrap())),
            &mut || drop(black_box(column_as::<RaggedTensor>(&rows, "r").unwrap())),
        ],
    );
    println!(
        "  ragged, 64 Ki items, {:.1} Mi f32 values: export as lists {:.3} ms, row layout {:.1} \
         ms; import as lists {:.3} ms, row layout {:.1} ms",
        values as f64 / (1 << 20) as f64,
        t[0] / 1e6,
        t[1] / 1e6,
        t[2] / 1e6,
        t[3] / 1e6
    );
    let d = dir();
    let (pl, pr) = (d.join("lists.parquet"), d.join("rows.parquet"));
    let t = medians(
        5,
        &mut [
            &mut || write_parquet(&pl, std::slice::from_ref(&lists)).unwrap(),
            &mut || write_parquet(&pr, std::slice::from_ref(&rows)).unwrap(),
            &mut || drop(black_box(read_parquet(&pl).unwrap())),
            &mut || drop(black_box(read_parquet(&pr).unwrap())),
        ],
    );
    let back: Vec<RaggedTensor> = read_parquet(&pl)
        .unwrap()
        .iter()
        .map(|b| column_as(b, "r").unwrap())
        .collect();
    assert_eq!(extype::batch::concat(&back).unwrap(), r);
    let size = |p: &std::path::Path| std::fs::metadata(p).unwrap().len() as f64 / (1 << 20) as f64;
    println!(
        "  ragged Parquet: write as lists {:.1} ms, row layout {:.1} ms (speed ratio {:.2}); read \
         as lists {:.1} ms, row layout {:.1} ms (speed ratio {:.2}); files {:.1} / {:.1} MiB",
        t[0] / 1e6,
        t[1] / 1e6,
        t[1] / t[0],
        t[2] / 1e6,
        t[3] / 1e6,
        t[3] / t[2],
        size(&pl),
        size(&pr)
    );
    std::fs::remove_dir_all(&d).unwrap();
}

fn main() {
    timing::run(benches, || {
        summary();
        ragged_summary();
    });
}
